//! pytest-json-report reader.
//!
//! The plugin records every phase of every test (setup, call, teardown) with
//! its outcome, duration, crash location, longrepr and captured output, and
//! every collector with its outcome. This module folds the phases into one
//! test result by the rules every reader shares (`phases.rs`): the phase
//! that decided the outcome gives the message and traceback; an error in
//! setup or teardown beats a failure in the call (ARCHITECTURE.md), and the call's
//! failure is kept too.

mod document;
mod own_words;
mod subtests;

use std::borrow::Cow;
use std::collections::HashMap;

use document::{Collector, JsonTest, Stage, TestSink};

use super::{Filling, ParseError, ReadOptions, SharedFile, json_error, phases, streamed};

/// What a JSON report error says the file is not.
const DOCUMENT: &str = "a pytest-json-report document";
use crate::model::raw_report::RawReports;
use crate::model::{
    Attempt, Location, Outcome, Phase, Run, SourceInfo, SourceKind, TestResult, Warning, Xfail,
};
use crate::pytest_text;

/// Reads a pytest-json-report document. With `keep_raw` the whole document
/// is kept in [`Run::json_report`].
pub fn parse(input: &[u8], name: &str, keep_raw: bool) -> Result<Run, ParseError> {
    let options = ReadOptions {
        keep_json_report: keep_raw,
        ..ReadOptions::default()
    };
    parse_with(input, name, options)
}

/// [`parse`] with every reading option.
pub fn parse_with(input: &[u8], name: &str, options: ReadOptions) -> Result<Run, ParseError> {
    let text = document_text(input)?;
    // Its tests into a run as they come; a key given twice (Python's json
    // keeps the last): read again through a value.
    let (header, tests) =
        streamed::read_text::<document::Report, _>(&text, DOCUMENT, || Tests::new(options))?;
    if !header.has_tests {
        return Err(ParseError::whole(if header.has_summary {
            "this pytest-json-report file has no \"tests\" list (was it written with --json-report-summary?); nothing to report per test"
        } else {
            "not a pytest-json-report file: the JSON object has no \"tests\" list"
        }));
    }
    let reruns = tests.reruns;
    let unknown_words = tests.unknown_words;
    let (mut run, entries) = tests.fill.finish();
    run.notes.extend(unknown_words.into_iter().map(|(word, n)| {
        format!(
            "pytest reported the outcome {word:?} for {n} test{}: each is counted by its phases (passed, failed, error or skipped)",
            if n == 1 { "" } else { "s" }
        )
    }));
    run.attempts_recorded = header.pytest_mcp;
    run.recorded_exit = header.exitcode;
    run.duration = header.duration.filter(|d| d.is_finite() && *d >= 0.0);
    run.started = header.created.filter(|t| t.is_finite() && *t > 0.0);
    let entries = entries + read_collectors(&mut run, header.collectors);
    let root = header.root.unwrap_or_default();
    for w in header.warnings {
        run.warnings.push(Warning {
            message: w.message.unwrap_or_default(),
            category: w.category,
            location: w.filename.map(|f| Location {
                file: relative_to(&f, &root).into(),
                line: w.lineno,
            }),
        });
    }
    // The places pytest wrote whole (a doctest's, a missing fixture's
    // file) relative to its rootdir, as a run's are: `report` of a file
    // made elsewhere reads as `run` does.
    crate::model::paths::relativize(&mut run, &root);
    if options.keep_json_report {
        run.json_report = Some(kept_text(text)?);
    }
    run.sources.push(SourceInfo {
        kind: SourceKind::JsonReport,
        name: name.to_string(),
        entries,
        folded: reruns,
    });
    run.clean_text(crate::text::clean);
    Ok(run)
}

/// The document's text, kept to be written back out. It was read as JSON,
/// but the values of keys the reader skips are not checked by serde_json
/// (their nesting, their numbers' range): text that serde_json would not
/// write back is refused here, as reading it into a value refuses it,
/// rather than when the answer is half written.
fn kept_text(text: Cow<'_, str>) -> Result<RawReports, ParseError> {
    // Nothing near serde_json's limits: no need to look closer.
    if crate::model::raw_report::needs_checking(&text)
        && let Err(e) = serde_json::from_str::<serde_json::Value>(&text)
    {
        return Err(json_error(&e, DOCUMENT, &text));
    }
    Ok(RawReports::parsed(text.into_owned()))
}

/// The input as JSON text: UTF-8, without a byte-order mark, lone
/// surrogate escapes replaced.
pub(crate) fn document_text(input: &[u8]) -> Result<Cow<'_, str>, ParseError> {
    // A byte-order mark is not JSON; `sniff` looks past it too.
    let input = super::without_bom(input);
    let text = std::str::from_utf8(input).map_err(|e| {
        let valid = String::from_utf8_lossy(&input[..e.valid_up_to()]);
        ParseError::at(&valid, valid.len(), "the JSON is not valid UTF-8")
    })?;
    Ok(replace_lone_surrogates(text))
}

/// The run the tests go into as they are read.
struct Tests {
    fill: Filling,
    /// pytest-rerunfailures records each failed attempt as an entry with
    /// outcome "rerun" before the test's final entry: they become the
    /// test's earlier attempts.
    attempts: HashMap<String, Vec<Attempt>>,
    reruns: usize,
    /// Outcome words pytest-json-report wrote that no reader knows (a
    /// plugin's), with how many tests had each: said in a note.
    unknown_words: Vec<(String, usize)>,
}

impl Tests {
    fn new(options: ReadOptions) -> Tests {
        Tests {
            fill: Filling::new(options),
            attempts: HashMap::new(),
            reruns: 0,
            unknown_words: Vec::new(),
        }
    }

    fn unknown_word(&mut self, word: &str) {
        match self.unknown_words.iter_mut().find(|(w, _)| w == word) {
            Some((_, n)) => *n += 1,
            None => self.unknown_words.push((word.to_string(), 1)),
        }
    }
}

/// The words of retrying plugins for a failed attempt the test went on
/// from: pytest-rerunfailures' "rerun", pytest-retry's "retried".
/// pytest-json-report leaves the word on the test's entry when every later
/// phase passed.
const RETRY_WORDS: [&str; 2] = ["rerun", "retried"];

impl TestSink for Tests {
    fn test(&mut self, mut t: JsonTest<'_>) {
        self.fill.entries += 1;
        let mut final_rerun = false;
        let retry_word = RETRY_WORDS.contains(&&*t.outcome);
        if !retry_word && outcome_word(&t.outcome).is_none() && !subtest_word(&t) {
            // A plugin's word (pytest-retry's --retry-outcome names any):
            // the phases say how the test went.
            self.unknown_word(&t.outcome);
            if failed_attempt(&t).is_none() && self.attempts.contains_key(&*t.nodeid) {
                t.outcome = Cow::Borrowed("rerun");
            }
        }
        if RETRY_WORDS.contains(&&*t.outcome) {
            if let Some(stage) = failed_attempt(&t).filter(|_| t.outcome == "rerun") {
                self.reruns += 1;
                let attempt = Attempt {
                    outcome: Outcome::Failed,
                    message: stage_message(stage),
                    location: crash_location(&t.nodeid, stage, &mut self.fill.files),
                };
                self.attempts
                    .entry(t.nodeid.into_owned())
                    .or_default()
                    .push(attempt);
                return;
            }
            // pytest-json-report's own entry: one per test, whose outcome a
            // failed attempt set to "rerun" ("retried") and no later phase
            // changed (a failure, skip or xfail would have), its phases the
            // last attempt's. Those that failed are read as such.
            if failed_attempt(&t).is_none() {
                t.outcome = Cow::Borrowed("passed");
                final_rerun = true;
            }
        }
        let mut test = convert_test(t, &mut self.fill.files);
        let mut earlier = match self.attempts.is_empty() {
            true => Vec::new(),
            false => self.attempts.remove(&test.node_id).unwrap_or_default(),
        };
        if earlier.is_empty() && final_rerun {
            // At least one attempt failed; what it said is not recorded.
            earlier.push(Attempt::failed(None));
        }
        if !earlier.is_empty() {
            test.set_reruns(earlier);
        }
        self.fill.settle.add(&mut self.fill.run, test);
    }
}

/// Where an attempt failed, when it was in the test's own file: the crash's
/// path is absolute, the test's file (from its id) relative to the rootdir.
fn crash_location(nodeid: &str, stage: &Stage<'_>, files: &mut SharedFile) -> Option<Location> {
    let crash = stage.crash.as_ref()?;
    let file = nodeid.split("::").next().filter(|f| !f.is_empty())?;
    let path = crash.path.as_deref()?.replace('\\', "/");
    let same = path == file || path.ends_with(&format!("/{file}"));
    same.then(|| Location {
        file: files.get(file),
        line: crash.lineno,
    })
}

/// The phase that failed when an entry with outcome "rerun" records an
/// earlier attempt of its own (pytest-mcp's plugin writes each attempt so,
/// before the test's final entry), or `None` for pytest-json-report's one
/// entry of a test that was rerun, whose phases all passed.
fn failed_attempt<'t, 'a>(t: &'t JsonTest<'a>) -> Option<&'t Stage<'a>> {
    [&t.setup, &t.call, &t.teardown, &t.crashed]
        .into_iter()
        .flatten()
        .find(|s| matches!(s.outcome.as_deref(), Some("rerun" | "failed")))
}

/// Puts the collectors that failed (collection errors) or were skipped (a
/// skipped entry) in the run; returns how many there were.
fn read_collectors(run: &mut Run, collectors: Vec<Collector>) -> usize {
    let mut entries = 0;
    for c in collectors {
        match c.outcome.as_deref() {
            Some("failed") => {}
            // A module skipped at import (`pytest.importorskip`) is one
            // skipped entry in pytest's summary; count it like JUnit does.
            Some("skipped") => {
                entries += 1;
                let mut test = TestResult::new(c.nodeid.clone(), Outcome::Skipped);
                test.set_message(c.longrepr.as_deref().map(pytest_text::skip_reason));
                test.location = Some(Location {
                    file: c.nodeid.into(),
                    line: None,
                });
                run.tests.push(test);
                continue;
            }
            _ => continue,
        }
        entries += 1;
        let error = super::collection_error(c.nodeid, c.longrepr);
        run.collection_errors.push(error);
    }
    entries
}

/// Python's `json` writes undecodable bytes (from `surrogateescape`) as
/// unpaired surrogate escapes such as `\udce9`, which are not valid JSON
/// text for serde_json. They become `\ufffd`, the replacement character,
/// so the report is read rather than thrown away.
fn replace_lone_surrogates(text: &str) -> std::borrow::Cow<'_, str> {
    let lower = text.contains("\\ud") || text.contains("\\uD");
    if !lower {
        return std::borrow::Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let hex_at = |i: usize| -> Option<u32> {
        let digits = text.get(i..i + 4)?;
        u32::from_str_radix(digits, 16).ok()
    };
    let escape_at = |i: usize| -> Option<u32> {
        (bytes.get(i) == Some(&b'\\') && bytes.get(i + 1) == Some(&b'u'))
            .then(|| hex_at(i + 2))
            .flatten()
    };
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        match escape_at(i) {
            Some(high @ 0xD800..=0xDBFF) if matches!(escape_at(i + 6), Some(0xDC00..=0xDFFF)) => {
                let _ = high;
                i += 12;
            }
            Some(0xD800..=0xDFFF) => {
                out.push_str(&text[copied..i]);
                out.push_str("\\ufffd");
                i += 6;
                copied = i;
            }
            Some(_) => i += 6,
            // `\\`, `\"`, ...: skip the escaped character (whole, even if
            // invalid JSON puts a multi-byte character there).
            None => {
                i += 1;
                i += text[i..].chars().next().map_or(0, char::len_utf8);
            }
        }
    }
    out.push_str(&text[copied.min(text.len())..]);
    std::borrow::Cow::Owned(out)
}

/// One test's final entry as a result.
fn convert_test(t: JsonTest<'_>, files: &mut SharedFile) -> TestResult {
    let stages = [
        (Phase::Setup, t.setup.as_ref()),
        (Phase::Call, t.call.as_ref()),
        (Phase::Teardown, t.teardown.as_ref()),
        (Phase::Call, t.crashed.as_ref()),
    ];
    let failing: Vec<(Phase, &Stage)> = stages
        .iter()
        .filter_map(|&(p, s)| {
            s.filter(|s| s.outcome.as_deref() == Some("failed"))
                .map(|s| (p, s))
        })
        .collect();
    let (outcome, xfail) = final_outcome(&t, &failing);
    // The test failed, and no phase of its own did: its subtests did
    // (unittest's subTest).
    let by_subtests = outcome == Outcome::Failed && failing.is_empty();

    let mut test = TestResult::new(t.nodeid.to_string(), outcome);
    test.xfail = xfail;
    phases::time(
        &mut test,
        stages
            .iter()
            .filter_map(|(p, s)| s.and_then(|s| s.duration).map(|d| (*p, d))),
    );
    let file = t.nodeid.split("::").next().unwrap_or_default();
    if !file.is_empty() {
        test.location = Some(Location {
            file: files.get(file),
            // pytest-json-report's `lineno` is pytest's 0-based location.
            line: t.lineno.and_then(|l| pytest_text::item_line(file, l)),
        });
    }

    match outcome {
        Outcome::Failed | Outcome::Error => {
            let mut own_line = None;
            let failing = failing
                .iter()
                .map(|&(phase, stage)| {
                    let (failure, line) = phase_failure(phase, stage, &t.nodeid);
                    own_line = own_line.or(line);
                    failure
                })
                .collect();
            // The line the item's own words give is its place.
            if let (Some(line), Some(location)) = (own_line, test.location.as_mut()) {
                location.line = Some(line);
            }
            if phases::fold_failures(&mut test, failing).is_none() && outcome == Outcome::Error {
                test.set_message(Some(format!("pytest reported outcome {:?}", t.outcome)));
            }
        }
        Outcome::Skipped if xfail.is_none() => {
            test.set_message(
                stages
                    .iter()
                    .filter_map(|(_, s)| *s)
                    .find(|s| s.outcome.as_deref() == Some("skipped"))
                    .and_then(|s| s.longrepr.as_deref())
                    .map(pytest_text::skip_reason),
            );
        }
        // pytest-json-report does not record an xfail's reason; JUnit does,
        // and fills it in when both are given.
        _ => {}
    }
    set_captured(&mut test, stages.iter().filter_map(|(_, s)| *s));
    subtests::attach(&mut test, t.subtests.as_deref(), by_subtests);
    test
}

/// The test's outcome: its word's, unless a subtest's word was left there
/// ([`subtest_word`]); an error in setup or teardown beats the call's
/// result (and an xfail or xpass that then errored is an error, nothing
/// else).
fn final_outcome(t: &JsonTest<'_>, failing: &[(Phase, &Stage<'_>)]) -> (Outcome, Option<Xfail>) {
    if phases::outcome_of(failing.iter().map(|(p, _)| *p)) == Some(Outcome::Error) {
        return (Outcome::Error, None);
    }
    if subtest_word(t) {
        return (Outcome::Passed, None);
    }
    outcome_word(&t.outcome).unwrap_or_else(|| by_phases(t, failing))
}

/// The outcome of a test whose word no reader knows (a plugin's), by its
/// phases: a failing one fails it, a skipped one skips it, else it passed.
fn by_phases(t: &JsonTest<'_>, failing: &[(Phase, &Stage<'_>)]) -> (Outcome, Option<Xfail>) {
    if let Some(outcome) = phases::outcome_of(failing.iter().map(|(p, _)| *p)) {
        return (outcome, None);
    }
    let skipped = [&t.setup, &t.call, &t.teardown]
        .into_iter()
        .flatten()
        .any(|s| s.outcome.as_deref() == Some("skipped"));
    match skipped {
        true => (Outcome::Skipped, None),
        false => (Outcome::Passed, None),
    }
}

/// Whether the entry's outcome is a word one of its subtests left there,
/// every phase of the test having passed: pytest-json-report writes the
/// word of each report of the test's id over the test's outcome, unless it
/// is `passed`, and pytest's words for a subtest (in verbose mode) are
/// `subtests passed`, `skipped` or `xfailed`.
fn subtest_word(t: &JsonTest<'_>) -> bool {
    let stages = [&t.setup, &t.call, &t.teardown, &t.crashed];
    let passed = |s: &Option<Stage<'_>>| {
        s.as_ref()
            .is_none_or(|s| s.outcome.as_deref() == Some("passed"))
    };
    matches!(&*t.outcome, "subtests passed" | "skipped" | "xfailed")
        && t.call.is_some()
        && stages.into_iter().all(passed)
}

/// The outcome pytest-json-report's word for a test says; none for a
/// word pytest itself never writes (a plugin's: [`by_phases`] reads it).
fn outcome_word(word: &str) -> Option<(Outcome, Option<Xfail>)> {
    Some(match word {
        "passed" => (Outcome::Passed, None),
        "failed" => (Outcome::Failed, None),
        "error" => (Outcome::Error, None),
        "skipped" => (Outcome::Skipped, None),
        "xfailed" => (Outcome::Skipped, Some(Xfail::XFailed)),
        "xpassed" => (Outcome::Passed, Some(Xfail::XPassed)),
        _ => return None,
    })
}

/// The output and log records the phases captured, one after the other.
fn set_captured<'s, 'a: 's>(test: &mut TestResult, stages: impl Iterator<Item = &'s Stage<'a>>) {
    let mut stdout = String::new();
    let mut stderr = String::new();
    let mut log = String::new();
    for stage in stages {
        if let Some(s) = &stage.stdout {
            stdout.push_str(s);
        }
        if let Some(s) = &stage.stderr {
            stderr.push_str(s);
        }
        for record in stage.log.iter().flatten() {
            let msg = match &record.msg {
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            log.push_str(&format!(
                "{} {}: {}\n",
                record.levelname.as_deref().unwrap_or("LOG"),
                record.name.as_deref().unwrap_or("root"),
                msg
            ));
        }
    }
    test.set_stdout((!stdout.trim().is_empty()).then_some(stdout));
    test.set_stderr((!stderr.trim().is_empty()).then_some(stderr));
    test.set_log((!log.is_empty()).then_some(log));
}

/// A failing phase as the rules of [`phases`] fold it, and the line of
/// the item's file its own words name, if it told the failure so.
fn phase_failure(phase: Phase, stage: &Stage<'_>, nodeid: &str) -> (phases::Failure, Option<u32>) {
    match own_words_of(stage, nodeid) {
        // Its text is the whole failure: kept as its traceback too, so
        // that pytest's JUnit (which holds what the item gave before a
        // plugin rewrote it: pytest-ruff's frames) fills nothing.
        Some(words) => (
            phases::Failure {
                phase,
                traceback: Some(words.message.clone()),
                message: Some(words.message),
            },
            words.line,
        ),
        None => (
            phases::Failure {
                phase,
                message: stage_message(stage),
                traceback: stage.longrepr.clone().filter(|l| !l.trim().is_empty()),
            },
            None,
        ),
    }
}

/// The failure a phase's item told in its own words ([`own_words`]): its
/// longrepr, when no crash names a file (none at all, or pytest-check's,
/// which names the test's id).
fn own_words_of(stage: &Stage<'_>, nodeid: &str) -> Option<own_words::OwnWords> {
    let crash_names_a_file = stage
        .crash
        .as_ref()
        .and_then(|c| c.path.as_deref())
        .is_some_and(|p| !p.contains("::"));
    if crash_names_a_file {
        return None;
    }
    own_words::read(stage.longrepr.as_deref()?, nodeid)
}

fn stage_message(stage: &Stage<'_>) -> Option<String> {
    // A group of one names the exception it carries.
    let tb = stage.longrepr.as_deref().unwrap_or_default();
    let crash = stage.crash.as_ref().and_then(|c| c.message.as_deref());
    if crash.is_some_and(|m| m.ends_with(" [single exception in ExceptionGroup]"))
        && let Some(exception) = pytest_text::single_exception_of_group(tb)
    {
        return Some(exception.to_string());
    }
    stage
        .crash
        .as_ref()
        .and_then(|c| c.message.clone())
        .filter(|m| !m.trim().is_empty())
        .or_else(|| {
            let tb = stage.longrepr.as_deref()?;
            pytest_text::last_error_line(tb)
                .or_else(|| crate::text::last_line(tb))
                .map(str::to_string)
        })
}

/// Strips the rootdir from an absolute path pytest recorded.
fn relative_to<'p>(path: &'p str, root: &str) -> &'p str {
    if root.is_empty() {
        return path;
    }
    path.strip_prefix(root)
        .and_then(|r| r.strip_prefix(['/', '\\']))
        .unwrap_or(path)
}

#[cfg(test)]
mod tests;
