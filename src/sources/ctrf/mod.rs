//! CTRF reader (Common Test Report Format, ctrf.io).
//!
//! A CTRF document is JSON: `{"reportFormat": "CTRF", "results": {"tool":
//! ..., "summary": ..., "tests": [...]}}`, one entry per test, written by
//! reporters for Jest, Playwright, Cypress, Mocha, pytest
//! (pytest-json-ctrf) and many more. Each entry becomes one test:
//!
//! - `status` `passed`, `failed`, `skipped` are those outcomes; `pending`
//!   is skipped with the reason `pending`; `other` (and any status CTRF
//!   does not define) is skipped too, its message starting with the tool's
//!   own word (`other (interrupted)`, from `rawStatus`): CTRF counts
//!   `other` apart from the failures, and so does this reader.
//! - `rawStatus` refines them as pytest-json-ctrf and our own writer
//!   (`render::ctrf`) word it: a failure whose `rawStatus` is
//!   `setup_failed` or `teardown_failed` (pytest's errors), `error`, or
//!   `<phase>_error` is an error in that phase; `call_failed` a failure in
//!   the call; a skip `xfailed` an expected failure, a pass `xpassed` an
//!   unexpected pass; a `collection_error` is a collection error, not a
//!   test. An error's message and trace holding our flat text of other
//!   failing phases (`call also failed: ...`, `[call]`) are split back.
//! - The id: a `name` that is a pytest node id (it holds `::`), or that
//!   already starts with its suite path joined with ` › ` (our writer's
//!   full ids), as it is; else the `suite` path and the name joined with
//!   ` › `, as Jest's JUnit ids are (`cart › totals › rounds`). A name that
//!   already starts with its suites joined with spaces (Jest's full name,
//!   `cart totals rounds`) is not given them twice.
//! - `duration` in milliseconds; `filePath` and `line` are the location;
//!   `message` and `trace` the message and traceback; `stdout` and
//!   `stderr`, arrays of lines, are joined with newlines.
//! - `retryAttempts` (else `retries`, else `flaky`) are the earlier
//!   attempts of a rerun test: a test that passed after failed attempts is
//!   flaky.
//!
//! The run's duration is the summary's `stop - start` (the run's wall
//! time, which the sum of the tests' durations only approximates) when it
//! is positive, or when no test has a duration.

mod document;
mod go;

use document::{Lines, RetryAttempt, Suite, Test, TestSink};

use super::{Filling, ParseError, ReadOptions, SharedFile, streamed};
use crate::pytest_text;

/// What a CTRF error says the file is not.
const DOCUMENT: &str = "a CTRF document";
use crate::model::{
    Attempt, CollectionError, Location, Outcome, Phase, Run, SourceInfo, SourceKind, TestResult,
    Xfail,
};

/// How much of a file [`is_ctrf`] searches for a CTRF key before it looks
/// at the whole top-level object.
const PROBE_PREFIX: usize = 64 * 1024;

/// Most earlier attempts a bare `retries` count stands for: a number is
/// not a reason to allocate without bound.
const MAX_COUNTED_RETRIES: u64 = 100;

/// The separator of a suite path and a test's name in an id (Jest's).
const JOIN: &str = " › ";

/// Whether JSON text (without a byte-order mark) is a CTRF document: a
/// top-level object whose `reportFormat` is `"CTRF"`, or, as reporters
/// before that key wrote, one with a `results` key and no `tests` key (a
/// pytest-json-report document has `tests` and no `results`). Cheap: a
/// file whose first 64 KiB name neither key is not read further.
pub(crate) fn is_ctrf(body: &[u8]) -> bool {
    let head = &body[..body.len().min(PROBE_PREFIX)];
    let mentions = |key: &[u8]| memchr::memmem::find(head, key).is_some();
    let named = mentions(b"\"reportFormat\"");
    if !named && !mentions(b"\"results\"") {
        return false;
    }
    match document::probe(body) {
        Some(top) => top.is_ctrf(),
        // Not JSON this reader can read: a file that names CTRF's key
        // gets CTRF's error, with its line and column.
        None => named,
    }
}

/// Reads a CTRF document, each test converted as it is read
/// (`document`: the list is never held).
pub fn parse_with(input: &[u8], name: &str, options: ReadOptions) -> Result<Run, ParseError> {
    let text = super::json_report::document_text(input)?;
    // Its tests into a run as they come; a key given twice (JavaScript's
    // `JSON.parse` keeps the last): read again through a value.
    let (header, tests) =
        streamed::read_text::<document::Ctrf, _>(&text, DOCUMENT, || Tests::new(options))?;
    if !header.has_results {
        return Err(ParseError::whole(
            "not a CTRF document: the JSON object has no \"results\" object",
        ));
    }
    if !header.has_tests {
        return Err(ParseError::whole(
            "not a CTRF document: \"results\" has no \"tests\" list",
        ));
    }
    let any_duration = tests.any_duration;
    let (mut run, entries) = tests.fill.finish();
    let wall = header.summary.and_then(|s| s.duration_secs());
    if !any_duration || wall.is_some_and(|d| d > 0.0) {
        run.duration = wall;
    }
    run.sources.push(SourceInfo {
        kind: SourceKind::Ctrf,
        name: name.to_string(),
        entries,
        folded: 0,
    });
    run.clean_text(crate::text::clean);
    Ok(run)
}

/// The run the tests go into as they are read.
struct Tests {
    fill: Filling,
    /// Whether some test has a duration (else the run's is the summary's).
    any_duration: bool,
    /// go-ctrf-json-reporter's document: a message is `go test`'s output.
    go: bool,
}

impl Tests {
    fn new(options: ReadOptions) -> Tests {
        Tests {
            fill: Filling::new(options),
            any_duration: false,
            go: false,
        }
    }
}

impl TestSink for Tests {
    fn tool(&mut self, name: &str) {
        self.go = go::is_go(name);
    }

    fn test(&mut self, t: Test<'_>) {
        self.fill.entries += 1;
        if t.status == "failed" && t.raw_status.as_deref() == Some(COLLECTION_ERROR) {
            self.fill
                .run
                .collection_errors
                .push(convert_collection_error(t));
            return;
        }
        let test = convert_test(t, &mut self.fill.files, self.go);
        self.any_duration |= test.duration.is_some();
        self.fill.settle.add(&mut self.fill.run, test);
    }
}

/// The `rawStatus` of a collection error's entry (`render::ctrf`).
const COLLECTION_ERROR: &str = "collection_error";

/// What a `rawStatus` adds to a CTRF status: an error's phase (`None`
/// inside for an error of no known phase), a failure's phase, an
/// expected failure or an unexpected pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refined {
    Error(Option<Phase>),
    Failed(Phase),
    Xfail(Xfail),
}

/// The refinement `rawStatus` gives a status, in pytest-json-ctrf's words
/// (`setup_failed`, `teardown_failed`, `call_failed`) and ours (`error`,
/// `<phase>_error`, `xfailed`, `xpassed`).
fn refined(status: &str, raw: Option<&str>) -> Option<Refined> {
    let phase = |word: &str| match word {
        "setup" => Some(Phase::Setup),
        "call" => Some(Phase::Call),
        "teardown" => Some(Phase::Teardown),
        _ => None,
    };
    let raw = raw?.trim();
    match status {
        "failed" if raw == "error" => Some(Refined::Error(None)),
        "failed" => {
            if let Some(p) = raw.strip_suffix("_error").and_then(phase) {
                return Some(Refined::Error(Some(p)));
            }
            match raw.strip_suffix("_failed").and_then(phase)? {
                Phase::Call => Some(Refined::Failed(Phase::Call)),
                p => Some(Refined::Error(Some(p))),
            }
        }
        "skipped" if raw == "xfailed" => Some(Refined::Xfail(Xfail::XFailed)),
        "passed" if raw == "xpassed" => Some(Refined::Xfail(Xfail::XPassed)),
        _ => None,
    }
}

/// A CTRF status as an outcome, and the words a skip of it says when the
/// test has no message of its own.
fn outcome(status: &str, raw: Option<&str>) -> (Outcome, Option<String>) {
    match status {
        "passed" => (Outcome::Passed, None),
        "failed" => (Outcome::Failed, None),
        "skipped" => (Outcome::Skipped, None),
        "pending" => (Outcome::Skipped, Some("pending".to_string())),
        other => {
            let word = match raw.map(str::trim).filter(|r| !r.is_empty()) {
                Some(raw) if raw != other => format!("{other} ({raw})"),
                _ => other.to_string(),
            };
            (Outcome::Skipped, Some(word))
        }
    }
}

/// One entry as a test result.
fn convert_test(t: Test, files: &mut SharedFile, go: bool) -> TestResult {
    let node_id = test_id(&t.name, t.suite.as_ref());
    let (outcome, said) = outcome(&t.status, t.raw_status.as_deref());
    let refined = refined(&t.status, t.raw_status.as_deref());
    let mut test = TestResult::new(node_id, outcome);
    match refined {
        Some(Refined::Error(phase)) => {
            test.outcome = Outcome::Error;
            test.phase = phase;
        }
        Some(Refined::Failed(phase)) => test.phase = Some(phase),
        Some(Refined::Xfail(x)) => test.xfail = Some(x),
        None => {}
    }
    test.duration = t.duration.and_then(millis_to_secs);
    let file = t.file_path.as_deref().filter(|f| !f.trim().is_empty());
    test.location = file.map(|f| Location {
        file: files.get(f),
        line: t.line.and_then(line_number),
    });
    let message = t.message.filter(|m| !m.trim().is_empty());
    // go test's output as the message: the failure between its framing,
    // and the line its `file_test.go:N:` gives.
    let message = match message.as_deref().filter(|_| go).and_then(go::output) {
        Some(failure) => {
            if let Some(l) = test.location.as_mut().filter(|l| l.line.is_none()) {
                l.line = crate::model::crash::line_in(&failure, &l.file).filter(|n| *n > 0);
            }
            Some(failure)
        }
        None => message,
    };
    let message = match (said, message) {
        (Some(word), Some(m)) if t.status != "pending" => Some(format!("{word}: {m}")),
        (_, Some(m)) => Some(m),
        (said, None) => said,
    };
    let trace = t.trace.filter(|tb| !tb.trim().is_empty());
    if test.outcome == Outcome::Error {
        split_phases(&mut test, message, trace);
    } else {
        test.set_message(message);
        test.set_traceback(trace);
    }
    test.set_stdout(t.stdout.and_then(Lines::joined));
    test.set_stderr(t.stderr.and_then(Lines::joined));
    let reruns = earlier_attempts(&t.retry_attempts, t.retries, t.flaky, outcome, &test);
    test.set_reruns(reruns);
    test
}

/// The test's id: a pytest node id as it is, else its suites and name
/// joined with ` › `.
fn test_id(name: &str, suite: Option<&Suite>) -> String {
    // A full id is taken untrimmed: a Jest test with an empty title is
    // `describe › `.
    if suite.is_some_and(|s| s.prefixes(name)) {
        return name.to_string();
    }
    let name = name.trim();
    if name.contains("::") {
        return name.to_string();
    }
    let suites: Vec<&str> = match suite {
        Some(s) => s.parts(),
        None => Vec::new(),
    };
    if suites.is_empty() {
        return name.to_string();
    }
    // Jest's reporters name a test by its full name, its describe blocks
    // and title joined with spaces (jest-ctrf-json-reporter puts the
    // file's name before the describe blocks in the suite): the suites
    // are said once.
    let name = (0..suites.len())
        .find_map(|from| {
            let spaced = suites[from..].join(" ");
            let rest = name.strip_prefix(spaced.as_str())?;
            let rest_title = rest.trim_start();
            // `totals › rounds` under `totals` is a path, not a full name.
            let title = !rest_title.is_empty() && !rest_title.starts_with(JOIN.trim());
            (rest.starts_with(' ') && title).then_some(rest_title)
        })
        .unwrap_or(name);
    let mut id = suites.join(JOIN);
    id.push_str(JOIN);
    id.push_str(name);
    id
}

/// An error's message and trace, with the other failing phases our flat
/// text holds (`TestResult::joined_message`: a `call also failed: ...`
/// line each; `joined_traceback`: a blank line and `[call]` before each
/// phase's traceback) split back into phase failures. Text without them
/// is the test's own.
fn split_phases(test: &mut TestResult, message: Option<String>, trace: Option<String>) {
    let (own, notes) = match &message {
        Some(m) => phase_notes(m),
        None => (None, Vec::new()),
    };
    if notes.is_empty() {
        test.set_message(message);
        test.set_traceback(trace);
        return;
    }
    let (own_trace, traces) = match &trace {
        Some(t) => phase_traces(t),
        None => (None, Vec::new()),
    };
    test.set_message(own.map(str::to_string));
    test.set_traceback(own_trace.map(str::to_string));
    let mut traces = traces;
    for (phase, note) in notes {
        let at = traces.iter().position(|(p, _)| *p == phase);
        let tb = at.map(|i| traces.remove(i).1);
        let note = (note != "(no message)").then_some(note);
        test.add_phase_failure(phase, note, tb);
    }
}

/// Where a line of a joined message names another phase's failure:
/// `teardown also failed: <message>`.
fn note_phase(line: &str) -> Option<(Phase, &str)> {
    [Phase::Setup, Phase::Call, Phase::Teardown]
        .into_iter()
        .find_map(|p| {
            let rest = line.strip_prefix(p.as_str())?;
            Some((p, rest.strip_prefix(" also failed: ")?))
        })
}

/// A joined message's own part (none when it starts with a note) and each
/// note's phase and message, which runs to the next note.
fn phase_notes(message: &str) -> (Option<&str>, Vec<(Phase, &str)>) {
    let mut starts: Vec<(usize, Phase, usize)> = Vec::new();
    let mut offset = 0;
    for line in message.split('\n') {
        if let Some((phase, rest)) = note_phase(line) {
            starts.push((offset, phase, offset + line.len() - rest.len()));
        }
        offset += line.len() + 1;
    }
    let Some(&(first, ..)) = starts.first() else {
        return (Some(message), Vec::new());
    };
    let own = first.checked_sub(1).map(|end| &message[..end]);
    let notes = starts
        .iter()
        .enumerate()
        .map(|(i, &(_, phase, text))| {
            let end = starts.get(i + 1).map_or(message.len(), |n| n.0 - 1);
            (phase, &message[text..end])
        })
        .collect();
    (own, notes)
}

/// A joined traceback's own part (none when it starts with a phase's
/// marker) and each `[phase]` part.
fn phase_traces(trace: &str) -> (Option<&str>, Vec<(Phase, &str)>) {
    let markers = [Phase::Setup, Phase::Call, Phase::Teardown];
    let mut parts: Vec<(usize, Phase, usize)> = Vec::new();
    for p in markers {
        let head = format!("{}\n", p.marker());
        if trace.starts_with(&head) {
            parts.push((0, p, head.len()));
        }
        let inner = format!("\n\n{head}");
        for (at, _) in trace.match_indices(&inner) {
            parts.push((at, p, at + inner.len()));
        }
    }
    parts.sort_by_key(|p| p.0);
    let own = match parts.first() {
        None => return (Some(trace), Vec::new()),
        Some(&(0, ..)) => None,
        Some(&(at, ..)) => Some(&trace[..at]),
    };
    let traces = parts
        .iter()
        .enumerate()
        .map(|(i, &(_, phase, text))| {
            let end = parts.get(i + 1).map_or(trace.len(), |n| n.0);
            (phase, &trace[text..end.max(text)])
        })
        .collect();
    (own, traces)
}

/// A collection error's entry: the collector in `name`, the error read
/// off `trace` as every reader reads pytest's, the entry's own message
/// (`SyntaxError: invalid syntax`: its type, when it leads) and line when
/// it gives them.
fn convert_collection_error(t: Test) -> CollectionError {
    let trace = t.trace.filter(|tb| !tb.trim().is_empty());
    let mut error = super::collection_error(t.name.into_owned(), trace);
    if let Some(message) = t.message.filter(|m| !m.trim().is_empty()) {
        (error.error_type, error.message) = match pytest_text::split_exception(&message) {
            Some((kind, rest)) => (Some(kind.to_string()), rest.to_string()),
            None => (None, message),
        };
    }
    if let Some(line) = t.line.and_then(line_number) {
        error.line = Some(line);
    }
    error
}

/// The attempts before the one `test` records: the listed ones that did
/// not pass and are not the final one, else one failed attempt per retry
/// counted, else one unknown failed attempt for a test marked flaky.
fn earlier_attempts(
    listed: &[RetryAttempt],
    retries: Option<f64>,
    flaky: Option<bool>,
    outcome: Outcome,
    test: &TestResult,
) -> Vec<Attempt> {
    // `as` saturates: a huge or negative count is no panic.
    let retries = retries
        .filter(|r| r.is_finite() && *r >= 0.0)
        .map(|r| r as u64);
    let last = retries.map(|r| r.saturating_add(1));
    let mut attempts: Vec<Attempt> = listed
        .iter()
        .filter(|a| a.status.as_deref() != Some("passed"))
        .filter(|a| last.is_none() || a.attempt.map(|n| n as u64) != last)
        .map(|a| Attempt {
            outcome: a
                .status
                .as_deref()
                .map_or(Outcome::Failed, |s| match outcome_of_attempt(s) {
                    Outcome::Skipped => Outcome::Failed,
                    o => o,
                }),
            message: a.message.clone().filter(|m| !m.trim().is_empty()),
            // Where it failed: the test's file at the attempt's line. The
            // test's file alone says nothing a flaky line should repeat.
            location: test.location.as_ref().and_then(|l| {
                Some(Location {
                    file: l.file.clone(),
                    line: Some(attempt_line(a, &l.file)?),
                })
            }),
        })
        .collect();
    if attempts.is_empty() {
        let counted = retries.unwrap_or(0).min(MAX_COUNTED_RETRIES);
        attempts.extend((0..counted).map(|_| Attempt::failed(None)));
    }
    if attempts.is_empty() && flaky == Some(true) && outcome == Outcome::Passed {
        attempts.push(Attempt::failed(None));
    }
    attempts
}

/// An attempt's line: its `line`, else the deepest frame in the test's
/// `file` its trace gives (pytest-json-ctrf writes the trace, no line).
fn attempt_line(a: &RetryAttempt, file: &str) -> Option<u32> {
    let traced = || {
        let trace = a.trace.as_deref()?;
        trace
            .lines()
            .rev()
            .find_map(|l| crate::model::crash::line_in(l, file))
    };
    a.line.and_then(line_number).or_else(traced)
}

/// An earlier attempt's status as an outcome.
fn outcome_of_attempt(status: &str) -> Outcome {
    outcome(status, None).0
}

/// Milliseconds as seconds; none for a negative or non-finite number.
fn millis_to_secs(ms: f64) -> Option<f64> {
    (ms.is_finite() && ms >= 0.0).then_some(ms / 1000.0)
}

/// A 1-based line number; none for anything else.
fn line_number(line: f64) -> Option<u32> {
    (line.is_finite() && line >= 1.0 && line <= f64::from(u32::MAX)).then_some(line as u32)
}

impl Lines {
    /// The lines joined with newlines; none when there is nothing.
    fn joined(self) -> Option<String> {
        let text = match self {
            Lines::Many(lines) => lines.join("\n"),
            Lines::One(text) => text,
        };
        (!text.trim().is_empty()).then_some(text)
    }
}

impl Suite<'_> {
    /// Whether `name` starts with the suite path joined with ` › `: a full
    /// id (`render::ctrf` writes the id as the name), taken as it is.
    fn prefixes(&self, name: &str) -> bool {
        let Suite::Path(parts) = self else {
            return false;
        };
        if parts.is_empty() {
            return false;
        }
        let mut path = parts.join(JOIN);
        path.push_str(JOIN);
        name.starts_with(&path)
    }

    /// The suite path, outermost first, without blank parts. A string is
    /// split at ` > `, the joiner CTRF reporters used before arrays.
    fn parts(&self) -> Vec<&str> {
        let parts: Vec<&str> = match self {
            Suite::Path(parts) => parts.iter().map(|p| &**p).collect(),
            Suite::One(text) => text.split(" > ").collect(),
        };
        parts
            .into_iter()
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect()
    }
}

#[cfg(test)]
mod tests;
