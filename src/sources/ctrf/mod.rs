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
//! - The id: a `name` that is a pytest node id (it holds `::`) as it is;
//!   else the `suite` path and the name joined with ` › `, as Jest's JUnit
//!   ids are (`cart › totals › rounds`). A name that already starts with
//!   its suites (Jest's full name, `cart totals rounds`) is not given them
//!   twice.
//! - `duration` in milliseconds; `filePath` and `line` are the location;
//!   `message` and `trace` the message and traceback; `stdout` and
//!   `stderr`, arrays of lines, are joined with newlines.
//! - `retryAttempts` (else `retries`, else `flaky`) are the earlier
//!   attempts of a rerun test: a test that passed after failed attempts is
//!   flaky.
//!
//! The run's duration is the summary's `stop - start` only when no test
//! has a duration.

mod document;

use document::{Header, Lines, RetryAttempt, Suite, Test, TestSink};

use super::{ParseError, ReadOptions, Settle, SharedFile, json_error};

/// What a CTRF error says the file is not.
const DOCUMENT: &str = "a CTRF document";
use crate::model::{Attempt, Location, Outcome, Run, SourceInfo, SourceKind, TestResult};

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
    let (header, tests) = read_document(&text, options)?;
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
    let Tests {
        mut run,
        settle,
        entries,
        any_duration,
        ..
    } = tests;
    settle.finish(&mut run);
    if !any_duration {
        run.duration = header.summary.and_then(|s| s.duration_secs());
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

/// Reads the document, its tests into a run as they come. serde's derive
/// refuses a key given twice in one object (and the streaming reader a
/// second `results` or `tests`, whose first one's tests are already
/// read); a JSON value (and JavaScript's `JSON.parse`) keeps the last one:
/// such a file is read again, from the start, through a value, only on
/// this error path.
fn read_document(text: &str, options: ReadOptions) -> Result<(Header, Tests), ParseError> {
    let mut tests = Tests::new(options);
    let mut reader = serde_json::Deserializer::from_str(text);
    let read = document::read(&mut reader, &mut tests).and_then(|header| {
        reader.end()?;
        Ok(header)
    });
    match read {
        Ok(header) => Ok((header, tests)),
        Err(e) => {
            // The tests read before the error go before the value comes.
            drop(tests);
            let value = serde_json::from_str::<serde_json::Value>(text)
                .map_err(|_| json_error(&e, DOCUMENT))?;
            let mut tests = Tests::new(options);
            let header =
                document::read(&value, &mut tests).map_err(|_| json_error(&e, DOCUMENT))?;
            Ok((header, tests))
        }
    }
}

/// The run the tests go into as they are read.
struct Tests {
    run: Run,
    settle: Settle,
    files: SharedFile,
    entries: usize,
    /// Whether some test has a duration (else the run's is the summary's).
    any_duration: bool,
}

impl Tests {
    fn new(options: ReadOptions) -> Tests {
        Tests {
            run: Run::default(),
            settle: Settle::new(options),
            files: SharedFile::default(),
            entries: 0,
            any_duration: false,
        }
    }
}

impl TestSink for Tests {
    fn test(&mut self, t: Test<'_>) {
        self.entries += 1;
        let test = convert_test(t, &mut self.files);
        self.any_duration |= test.duration.is_some();
        self.settle.add(&mut self.run, test);
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
fn convert_test(t: Test, files: &mut SharedFile) -> TestResult {
    let node_id = test_id(&t.name, t.suite.as_ref());
    let (outcome, said) = outcome(&t.status, t.raw_status.as_deref());
    let mut test = TestResult::new(node_id, outcome);
    test.duration = t.duration.and_then(millis_to_secs);
    let file = t.file_path.as_deref().filter(|f| !f.trim().is_empty());
    test.location = file.map(|f| Location {
        file: files.get(f),
        line: t.line.and_then(line_number),
    });
    let message = t.message.filter(|m| !m.trim().is_empty());
    let message = match (said, message) {
        (Some(word), Some(m)) if t.status != "pending" => Some(format!("{word}: {m}")),
        (_, Some(m)) => Some(m),
        (said, None) => said,
    };
    test.set_message(message);
    test.set_traceback(t.trace.filter(|tb| !tb.trim().is_empty()));
    test.set_stdout(t.stdout.and_then(Lines::joined));
    test.set_stderr(t.stderr.and_then(Lines::joined));
    let reruns = earlier_attempts(&t.retry_attempts, t.retries, t.flaky, outcome, &test);
    test.set_reruns(reruns);
    test
}

/// The test's id: a pytest node id as it is, else its suites and name
/// joined with ` › `.
fn test_id(name: &str, suite: Option<&Suite>) -> String {
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
    // Jest's reporter names a test by its full name, its describe blocks
    // and title joined with spaces: the suites are said once.
    let spaced = suites.join(" ");
    let name = match name.strip_prefix(spaced.as_str()) {
        Some(rest) if rest.starts_with(' ') && !rest.trim().is_empty() => rest.trim_start(),
        _ => name,
    };
    let mut id = suites.join(JOIN);
    id.push_str(JOIN);
    id.push_str(name);
    id
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
            location: test.location.as_ref().map(|l| Location {
                file: l.file.clone(),
                line: a.line.and_then(line_number),
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
