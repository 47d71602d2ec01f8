//! CTRF out (`--format ctrf`): a run as a Common Test Report Format
//! document (ctrf.io, JSON Schema draft-07), for the dashboards, GitHub
//! reporters and AI tools that read CTRF whatever framework ran the tests.
//!
//! The contract that shapes the choices below: **the document is strictly
//! valid against CTRF's schema, and our own reader
//! ([`crate::sources::ctrf`]) reads it back to the run it came from**: the
//! Markdown of a converted file is the Markdown of the file
//! (`tests/ctrf_out.rs`). Where CTRF is silent, pytest-json-ctrf's
//! conventions are followed, so that both producers agree:
//!
//! - `results.tool.name` is `pytest` when the sources are pytest's, else
//!   what they were (`JUnit XML`, `CTRF`); no `version`, which no source
//!   keeps in the run.
//! - `name` is our test id verbatim (the id an agent feeds back); `suite`
//!   only where the id's path is derivable: a pytest id's file and classes
//!   (parameters cut first, they may hold `::`), a Jest-style
//!   `a › b › title`'s parts before the last.
//! - `status` keeps the JSON report's counting (`summary` is counted from
//!   the entries): an error is `failed` with `rawStatus` naming the phase
//!   (`setup_failed`, `teardown_failed`: pytest-json-ctrf's words;
//!   `call_error`, or `error` when the phase is unknown), an xfailed test
//!   `skipped` with `rawStatus` `xfailed`, an xpass `passed` with
//!   `xpassed`. A plain failure has none: `failed` says it all, whatever
//!   the framework (the reader takes pytest-json-ctrf's `call_failed`).
//! - A collection error is an entry of its own, first (pytest collects
//!   before it runs): `name` the collector, `failed`, `rawStatus`
//!   `collection_error`, `message` its type and message
//!   (`SyntaxError: invalid syntax`).
//! - `message` and `trace` are the flat text of the one-message formats
//!   (`TestResult::joined_message`): other failing phases on lines of
//!   their own, which the reader splits back.
//! - `duration` is whole milliseconds; `summary.start` is when the run
//!   started as its sources recorded it (pytest-json-report's `created`,
//!   a JUnit suite's `timestamp`, CTRF's own), else 0, and `stop` is
//!   `start` and the run's duration.
//! - Earlier attempts are `retryAttempts` (1-based `attempt`), `retries`
//!   their count, and `flaky: true` for a pass after failed attempts.
//! - With a history of runs (docs/flaky.md), `insights`: `runsAnalyzed`
//!   at the top, and each test the history tells about its pass, fail and
//!   flaky rates over the runs it ran in (`executedInRuns`); the run's
//!   commit, when known, is `results.environment.commit`.
//!
//! Lost on the way (CTRF has no place for them): captured log records,
//! warnings, the run's notes, failed subtests (counted within their test:
//! one entry per test), an earlier attempt's error (it is `failed`) and
//! sub-millisecond durations.
//!
//! Written as it is serialized ([`write`]): a run of 100,000 tests is
//! never held a second time as a tree or as text.

use std::borrow::Cow;

use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};

use crate::budget::{Fitted, Offer};
use crate::model::history::{History, TestHistory};
use crate::model::{Attempt, CollectionError, Outcome, Phase, Run, TestResult, Xfail};
use crate::render::Style;
use crate::render::view::{self, Compared, Standings};

/// The CTRF version written: the reference implementation's (npm `ctrf`
/// 0.3.0's `CURRENT_SPEC_VERSION`), whose schema the output is checked
/// against.
pub const SPEC_VERSION: &str = "0.0.0";

/// `generatedBy`: this program wrote the document, whatever ran the tests.
pub const GENERATED_BY: &str = "pytest-mcp";

/// The `rawStatus` of a collection error's entry.
pub const COLLECTION_ERROR: &str = "collection_error";

/// A run's CTRF document, never cut: a document for tools. Every output's
/// offer takes the same three.
pub fn offer<'a>(run: &'a Run, _: Option<&'a Compared>, _: &'a Style) -> Offer<'a, Fitted> {
    Offer::Whole(Fitted::whole(render(run)))
}

/// Renders the run as an indented CTRF document ending in a newline.
pub fn render(run: &Run) -> String {
    let mut out = Vec::new();
    // Writing into memory: the only error would be a serializer's, and
    // every key is a string and every number finite.
    if write(run, &mut out).is_err() {
        return String::new();
    }
    String::from_utf8(out).unwrap_or_default()
}

/// Writes the indented document (then a newline) to `out` as it is
/// serialized.
pub fn write(run: &Run, out: &mut (impl std::io::Write + ?Sized)) -> std::io::Result<()> {
    use std::io::Write;
    // As the JSON report: serde_json writes a few bytes at a time.
    let mut buffered = std::io::BufWriter::with_capacity(1 << 16, out);
    serde_json::to_writer_pretty(&mut buffered, &document(run))?;
    buffered.write_all(b"\n")?;
    buffered.flush()
}

/// The document, borrowing from the run. Field order is the key order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Document<'a> {
    report_format: &'static str,
    spec_version: &'static str,
    generated_by: &'static str,
    results: Results<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    insights: Option<RunInsights>,
}

#[derive(Serialize)]
struct Results<'a> {
    tool: Tool,
    summary: Summary,
    /// Only when the commit the results are of is known (`--commit`, with
    /// a history of runs). Before the tests, as pytest-json-ctrf puts it.
    #[serde(skip_serializing_if = "Option::is_none")]
    environment: Option<Environment<'a>>,
    tests: Entries<'a>,
    /// Only for shards checked against their plan (`report --plan`): the
    /// JSON report's `shards`, under CTRF's `extra`.
    #[serde(skip_serializing_if = "Option::is_none")]
    extra: Option<ResultsExtra<'a>>,
}

#[derive(Serialize)]
struct ResultsExtra<'a> {
    shards: view::Shards<'a>,
}

#[derive(Serialize)]
struct Environment<'a> {
    commit: &'a str,
}

#[derive(Serialize)]
struct Tool {
    name: &'static str,
}

/// `results.summary`: counts of the entries written, so that a reader
/// that counts `tests` agrees. (Passes a reader counted without listing
/// them, `Run::unlisted`, only reach the agent Markdown.)
#[derive(Serialize)]
struct Summary {
    tests: usize,
    passed: usize,
    failed: usize,
    skipped: usize,
    pending: usize,
    other: usize,
    flaky: usize,
    start: u64,
    stop: u64,
    duration: u64,
}

fn document(run: &Run) -> Document<'_> {
    Document {
        report_format: "CTRF",
        spec_version: SPEC_VERSION,
        generated_by: GENERATED_BY,
        results: Results {
            tool: Tool {
                name: tool_name(run),
            },
            summary: summary(run),
            environment: run
                .history
                .as_ref()
                .and_then(|h| h.commit.as_deref())
                .map(|commit| Environment { commit }),
            tests: Entries(run),
            extra: view::shards(run).map(|shards| ResultsExtra { shards }),
        },
        insights: view::standings(run).map(run_insights),
    }
}

/// `results.tool.name`: `pytest` when every source is pytest's, else what
/// the sources were (`JUnit XML`, `CTRF`), `pytest-mcp` for a run with no
/// source or a merge of several kinds.
fn tool_name(run: &Run) -> &'static str {
    let mut kinds = run.sources.iter().map(|s| s.kind);
    let Some(first) = kinds.next() else {
        return GENERATED_BY;
    };
    if first.is_pytest() && run.sources.iter().all(|s| s.kind.is_pytest()) {
        "pytest"
    } else if kinds.all(|k| k == first) {
        first.describe()
    } else {
        GENERATED_BY
    }
}

fn summary(run: &Run) -> Summary {
    let mut s = Summary {
        tests: run.tests.len() + run.collection_errors.len(),
        passed: 0,
        failed: run.collection_errors.len(),
        skipped: 0,
        pending: 0,
        other: 0,
        flaky: 0,
        start: 0,
        stop: 0,
        duration: 0,
    };
    for t in &run.tests {
        match status(t) {
            "passed" => s.passed += 1,
            "skipped" => s.skipped += 1,
            _ => s.failed += 1,
        }
        s.flaky += usize::from(t.is_flaky());
    }
    s.duration = millis(run.duration_secs());
    s.start = run.started.map_or(0, millis);
    s.stop = s.start.saturating_add(s.duration);
    s
}

/// Seconds as whole milliseconds; 0 for a negative or non-finite number
/// (CTRF's durations are required integers).
fn millis(secs: f64) -> u64 {
    let ms = (secs * 1000.0).round();
    // `as` saturates a huge number.
    if ms.is_finite() && ms >= 0.0 {
        ms as u64
    } else {
        0
    }
}

/// CTRF's status of a test: errors are failures, xfails skips, xpasses
/// passes, as the JSON report's summary counts them.
fn status(t: &TestResult) -> &'static str {
    match t.outcome {
        Outcome::Passed => "passed",
        Outcome::Skipped => "skipped",
        Outcome::Failed | Outcome::Error => "failed",
    }
}

/// The tool's word for what CTRF's status cannot say, in pytest-json-ctrf's
/// words where it has them.
fn raw_status(t: &TestResult) -> Option<&'static str> {
    match (t.outcome, t.phase, t.xfail) {
        (Outcome::Error, Some(Phase::Setup), _) => Some("setup_failed"),
        (Outcome::Error, Some(Phase::Teardown), _) => Some("teardown_failed"),
        (Outcome::Error, Some(Phase::Call), _) => Some("call_error"),
        (Outcome::Error, None, _) => Some("error"),
        (Outcome::Skipped, _, Some(Xfail::XFailed)) => Some("xfailed"),
        (Outcome::Passed, _, Some(Xfail::XPassed)) => Some("xpassed"),
        _ => None,
    }
}

/// The suite path an id names: a pytest id's file and classes (as
/// pytest-json-ctrf's `_suite`: parameters cut first), the parts of an
/// `a › b › title` id before the last; none otherwise (CTRF wants at
/// least one part).
pub fn suite(id: &str) -> Option<Vec<&str>> {
    let parts: Vec<&str> = if id.contains("::") {
        let path = id.split_once('[').map_or(id, |(path, _)| path);
        let mut parts: Vec<&str> = path.split("::").collect();
        parts.pop();
        parts
    } else {
        let mut parts: Vec<&str> = id.split(" › ").collect();
        parts.pop();
        parts
    };
    (!parts.is_empty()).then_some(parts)
}

/// `results.tests`: the collection errors, then the tests, each written
/// as it comes.
struct Entries<'a>(&'a Run);

impl Serialize for Entries<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let run = self.0;
        let mut seq =
            serializer.serialize_seq(Some(run.collection_errors.len() + run.tests.len()))?;
        for e in &run.collection_errors {
            seq.serialize_element(&collection_error_entry(e))?;
        }
        for t in &run.tests {
            seq.serialize_element(&test_entry(t, run.history.as_ref()))?;
        }
        seq.end()
    }
}

/// One entry of `results.tests`. Optional keys are left out when empty.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Entry<'a> {
    name: &'a str,
    status: &'static str,
    duration: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    raw_status: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    suite: Option<Vec<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file_path: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    trace: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stdout: Option<Lines<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stderr: Option<Lines<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    retries: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    retry_attempts: Option<Vec<AttemptEntry<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    flaky: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    insights: Option<TestInsights>,
}

/// Text as CTRF's array of lines: split at every newline, so that joining
/// them gives the text back exactly.
struct Lines<'a>(&'a str);

impl Serialize for Lines<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.split('\n'))
    }
}

/// An earlier attempt of a rerun test.
#[derive(Serialize)]
struct AttemptEntry<'a> {
    attempt: usize,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
}

/// An id CTRF accepts as a `name` (at least one character).
fn name(id: &str) -> &str {
    if id.is_empty() { "(unnamed)" } else { id }
}

fn test_entry<'a>(t: &'a TestResult, history: Option<&History>) -> Entry<'a> {
    let reruns = t.reruns();
    let location = t.location.as_ref();
    Entry {
        name: name(&t.node_id),
        status: status(t),
        duration: t.duration.map_or(0, millis),
        raw_status: raw_status(t),
        suite: suite(&t.node_id),
        file_path: location.map(|l| &*l.file),
        line: location.and_then(|l| l.line),
        message: t.joined_message(),
        trace: t.joined_traceback(),
        stdout: t.stdout().map(Lines),
        stderr: t.stderr().map(Lines),
        retries: (!reruns.is_empty()).then_some(reruns.len()),
        retry_attempts: (!reruns.is_empty())
            .then(|| reruns.iter().enumerate().map(attempt_entry).collect()),
        flaky: t.is_flaky().then_some(true),
        insights: history.and_then(|h| h.of(&t.node_id)).map(test_insights),
    }
}

fn attempt_entry((i, a): (usize, &Attempt)) -> AttemptEntry<'_> {
    AttemptEntry {
        attempt: i + 1,
        status: match a.outcome {
            Outcome::Passed => "passed",
            Outcome::Skipped => "skipped",
            Outcome::Failed | Outcome::Error => "failed",
        },
        message: a.message.as_deref(),
        line: a.location.as_ref().and_then(|l| l.line),
    }
}

fn collection_error_entry(e: &CollectionError) -> Entry<'_> {
    Entry {
        name: name(&e.file),
        status: "failed",
        duration: 0,
        raw_status: Some(COLLECTION_ERROR),
        suite: None,
        // The collector's file, so that a reporter can link to it (not a
        // Java class a suite-level error is named by).
        file_path: e
            .file
            .split("::")
            .next()
            .filter(|f| f.contains(['/', '\\']) || f.ends_with(".py")),
        line: e.line,
        // The error's type leads, as pytest's summary line says it (and the
        // reader reads it back off the message).
        message: Some(match &e.error_type {
            Some(kind) => Cow::Owned(format!("{kind}: {}", e.message)),
            None => Cow::Borrowed(&e.message),
        }),
        trace: e.traceback.as_deref().map(Cow::Borrowed),
        stdout: None,
        stderr: None,
        retries: None,
        retry_attempts: None,
        flaky: None,
        insights: None,
    }
}

/// A rate in CTRF's `metricDelta` form: only the current value, as the
/// history keeps no baseline.
#[derive(Serialize)]
struct Metric {
    current: f64,
}

impl Metric {
    /// `part / whole` to four decimals, as the reference implementation
    /// rounds its rates; 0 for no runs.
    fn rate(part: u32, whole: u32) -> Metric {
        let current = if whole == 0 {
            0.0
        } else {
            (f64::from(part) / f64::from(whole) * 10_000.0).round() / 10_000.0
        };
        Metric { current }
    }
}

/// The top-level `insights`: how many runs the history held, and how this
/// run's failing tests stand against them.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RunInsights {
    runs_analyzed: usize,
    extra: StandingCounts,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StandingCounts {
    new: usize,
    failing_before: usize,
    flaky: usize,
}

/// The view's standings of the failing tests (worked out once, for every
/// output), in CTRF's words.
fn run_insights(s: Standings) -> RunInsights {
    RunInsights {
        runs_analyzed: s.runs,
        extra: StandingCounts {
            new: s.new,
            failing_before: s.failing_before,
            flaky: s.flaky,
        },
    }
}

/// A test's `insights`: its rates over the runs of the window it ran in.
/// The flaky rate is its failures' share when the history calls it flaky
/// (each of them a flip on unchanged code: "flaky, failed 2 of the last 5
/// runs"), else 0.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TestInsights {
    pass_rate: Metric,
    fail_rate: Metric,
    flaky_rate: Metric,
    executed_in_runs: u32,
}

fn test_insights(h: &TestHistory) -> TestInsights {
    let passed = h.runs.saturating_sub(h.failed);
    TestInsights {
        pass_rate: Metric::rate(passed, h.runs),
        fail_rate: Metric::rate(h.failed, h.runs),
        flaky_rate: Metric::rate(if h.flaky { h.failed } else { 0 }, h.runs),
        executed_in_runs: h.runs,
    }
}

#[cfg(test)]
mod tests;
