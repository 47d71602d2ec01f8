//! The one normalized test run that every source produces and every renderer
//! reads.
//!
//! Sources (`crate::sources`) turn pytest-json-report JSON or JUnit XML into
//! [`Run`]s; `crate::sources::merge` folds several of them into one; renderers
//! (`crate::render`) never look at a source file again. Keeping this the only
//! contract between the two halves is what lets a JUnit file from Surefire and
//! a pytest JSON report come out of the same Markdown renderer.

pub mod affected;
mod attempt;
pub mod baseline;
pub mod changes;
mod counts;
pub mod coverage;
pub mod crash;
pub mod discovery;
mod duration_sum;
pub mod exec_error;
pub mod groups;
pub mod history;
pub mod paths;
mod phase;
pub mod raw_report;
pub mod rerun;
pub mod shards;
pub mod subtests;
mod warm;

pub use attempt::Attempt;
pub use counts::Counts;
pub use duration_sum::DurationSum;
pub use phase::{Phase, PhaseSplit, PhaseTimes};
pub use subtests::{Subtest, SubtestLabel, Subtests};
pub use warm::Warm;

#[cfg(test)]
pub(crate) mod testing;

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use crate::text::plural;

/// A whole test run: what ran, how it ended, and where the data came from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Run {
    /// pytest's exit status when a source recorded it (pytest-json-report
    /// does, JUnit does not). `None` means "derive it from the results".
    pub recorded_exit: Option<i32>,
    /// Wall time of the run in seconds, when a source recorded it.
    pub duration: Option<f64>,
    /// When the run started, in seconds since the Unix epoch, when a
    /// source recorded it (pytest-json-report's `created`, a JUnit suite's
    /// `timestamp`, CTRF's `summary.start`): CTRF's summary says it.
    pub started: Option<f64>,
    /// Every test, in the order the sources listed them, except those
    /// counted in `unlisted`.
    pub tests: Vec<TestResult>,
    /// Passing tests with nothing to say that a reader counted instead of
    /// listing (`ReadOptions::passing_as_counts`): a Markdown report names
    /// no passing test, and 100,000 of them held one by one cost more time
    /// than reading the file. Zero unless a caller asked for it.
    pub unlisted: Unlisted,
    /// Files (or other collectors) that could not be collected.
    pub collection_errors: Vec<CollectionError>,
    /// Warnings pytest recorded (pytest-json-report only).
    pub warnings: Vec<Warning>,
    /// The sources this run was built from, in the order they were merged.
    pub sources: Vec<SourceInfo>,
    /// The complete pytest-json-report document, kept as its text for the
    /// JSON report's `json_report` key (docs/json-report.md). Only filled
    /// when a renderer needs it.
    pub json_report: Option<raw_report::RawReports>,
    /// pytest's own console output, when the run was executed by us.
    pub text_output: Option<String>,
    /// What pytest or a plugin printed last before pytest's closing line
    /// (a coverage gate's verdict, syrupy's unused snapshots), when we ran
    /// pytest and it printed any (`sources::console::closing_lines`): why
    /// pytest's exit status says failure when no test failed.
    pub closing_lines: Option<String>,
    /// Remarks for the reader ("xpassed tests cannot be told apart in JUnit").
    pub notes: Vec<String>,
    /// The source records every failed attempt of a test a plugin ran
    /// again (pytest-mcp's plugin wrote the JSON report): a lower-ranked
    /// source's guess at attempts (pytest's JUnit writes a case per
    /// teardown, the `flaky` package's passing runs too) is not taken.
    pub attempts_recorded: bool,
    /// What pytest's cache of failures did, when we ran pytest.
    pub failure_cache: Option<rerun::FailureCache>,
    /// How to rerun the failures, set by the frontend that ran the tests.
    pub rerun_hint: Option<rerun::RerunHint>,
    /// What changed since the last run, when we ran pytest and its cache
    /// recorded that run (`None` otherwise: nothing is said).
    pub changes: Option<changes::Changes>,
    /// What pytest-testmon selected, for a run with `affected`.
    pub affected: Option<affected::Affected>,
    /// What earlier runs say of this run's failures, when a history of
    /// runs was kept and held earlier runs (docs/flaky.md).
    pub history: Option<history::History>,
    /// Shards merged and checked against their plan (`report --plan`).
    pub shards: Option<shards::ShardCheck>,
    /// The change's lines no test ran, for a run under coverage.
    pub coverage: Option<coverage::ChangeCoverage>,
    /// The run was forked by a warm process (docs/warm.md), not started
    /// cold; `None` for a cold run.
    pub warm: Option<Warm>,
}

/// Passing tests counted, not listed (see [`Run::unlisted`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Unlisted {
    /// How many passing tests are not in `Run::tests`.
    pub passed: usize,
    /// The sum of the durations of *every* test, listed or not: exact,
    /// so what [`Run::duration_secs`] sums over a full list, to the bit.
    pub tests_duration: DurationSum,
    /// The parametrized pytest functions (`tests/test_x.py::test_total`)
    /// with a counted pass, as [`Unlisted::function_key`]s (see
    /// [`groups`]) in the order met: a group of failures holding every
    /// listed parametrization of one of them does not hold them all. Keys, not strings: 100,000
    /// passes of as many functions would cost more to hold than to read.
    /// Two functions sharing a key only cost a group its shorter id.
    pub parametrized: groups::FunctionKeys,
}

/// The four outcomes of ADR-006. xfail/xpass are refinements, see [`Xfail`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    Passed,
    Skipped,
    Failed,
    Error,
}

impl Outcome {
    /// The lowercase word ADR-006 uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Failed => "failed",
            Outcome::Skipped => "skipped",
            Outcome::Error => "error",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Expected-failure refinements (docs/json-report.md, `tests`): an xfailed
/// test is `skipped`, a non-strict xpass is `passed`; the summary counts
/// them separately too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Xfail {
    /// Marked xfail and failed as expected (outcome `Skipped`).
    XFailed,
    /// Marked xfail but passed (outcome `Passed`).
    XPassed,
}

impl PhaseFailure {
    /// `teardown also failed: <message>`, the line the phase adds to a
    /// joined message.
    pub fn note(&self) -> String {
        format!(
            "{} also failed: {}",
            self.phase.as_str(),
            self.message.as_deref().unwrap_or("(no message)")
        )
    }
}

/// A place in a source file. `line` is 1-based, as editors count.
///
/// `file` is shared: the tests of one module point at one string, so a
/// report of 100,000 tests does not hold 100,000 copies of a few hundred
/// paths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: Arc<str>,
    pub line: Option<u32>,
}

impl Location {
    pub fn new(file: impl Into<Arc<str>>, line: Option<u32>) -> Self {
        Location {
            file: file.into(),
            line,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}", self.file, line),
            None => f.write_str(&self.file),
        }
    }
}

/// One test and how it ended.
///
/// What most tests of a large run (the passing ones) do not have, the
/// message, traceback, captured output and earlier attempts, lives in one
/// boxed [`Details`]: a passing test costs 80 bytes instead of 224, which
/// is what keeps `report` on a 100,000-test file within a few times the
/// file's size. Read them through the accessors ([`TestResult::message`],
/// ...), set them with the `set_*` methods.
#[derive(Debug, Clone, PartialEq)]
pub struct TestResult {
    /// pytest's node id exactly as pytest prints it, so it can be fed back to
    /// pytest; for other frameworks `Class#method` or `suite > name`.
    pub node_id: String,
    pub outcome: Outcome,
    pub xfail: Option<Xfail>,
    /// The phase that failed, when known.
    pub phase: Option<Phase>,
    /// Seconds, summed over phases when the source splits them.
    pub duration: Option<f64>,
    /// How `duration` splits into setup, call and teardown, when the source
    /// timed each (see [`PhaseSplit`]); set and taken with `duration`.
    pub phases: Option<PhaseSplit>,
    /// Where the test is defined.
    pub location: Option<Location>,
    /// `None` until one of the details is set.
    details: Option<Box<Details>>,
}

/// The parts of a [`TestResult`] that only some tests have.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Details {
    /// The failure or error message, or the skip / xfail reason.
    pub message: Option<String>,
    /// The full traceback (pytest's longrepr, a JUnit failure's text).
    pub traceback: Option<String>,
    /// Captured output of the test, when the source has it.
    pub stdout: Option<String>,
    pub stderr: Option<String>,
    /// Captured log records, already formatted one per line.
    pub log: Option<String>,
    /// Earlier attempts of this test that a rerun replaced (Surefire's
    /// `flakyFailure`/`rerunFailure`, a retried case listed twice,
    /// pytest-rerunfailures). A passed test with attempts is flaky.
    pub reruns: Vec<Attempt>,
    /// Other phases of the test that failed too (a test that failed and
    /// then errored in teardown), after the one `message` and `traceback`
    /// describe, in the order they were added.
    pub phase_failures: Vec<PhaseFailure>,
    /// The failed subtests, when the test has any (see [`subtests`]).
    pub subtests: Option<Subtests>,
}

impl Details {
    /// Nothing set: such details are stored as none.
    pub fn is_empty(&self) -> bool {
        self.message.is_none()
            && self.traceback.is_none()
            && self.stdout.is_none()
            && self.stderr.is_none()
            && self.log.is_none()
            && self.reruns.is_empty()
            && self.phase_failures.is_empty()
            && self.subtests.is_none()
    }
}

/// Another phase of a test that failed too (see [`Details::phase_failures`]).
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseFailure {
    pub phase: Phase,
    pub message: Option<String>,
    /// Never blank.
    pub traceback: Option<String>,
}

impl TestResult {
    /// A test with just an id and an outcome; everything else unknown.
    pub fn new(node_id: impl Into<String>, outcome: Outcome) -> Self {
        TestResult {
            node_id: node_id.into(),
            outcome,
            xfail: None,
            phase: None,
            duration: None,
            phases: None,
            location: None,
            details: None,
        }
    }

    /// The failure or error message, or the skip / xfail reason. Of the
    /// deciding phase only: see [`TestResult::joined_message`].
    pub fn message(&self) -> Option<&str> {
        self.details.as_ref()?.message.as_deref()
    }

    /// The full traceback (pytest's longrepr, a JUnit failure's text). Of
    /// the deciding phase only: see [`TestResult::joined_traceback`].
    pub fn traceback(&self) -> Option<&str> {
        self.details.as_ref()?.traceback.as_deref()
    }

    /// Other phases that failed too, in the order they were added.
    pub fn phase_failures(&self) -> &[PhaseFailure] {
        self.details.as_ref().map_or(&[], |d| &d.phase_failures)
    }

    /// The message with every other failing phase's on a line of its own
    /// (`teardown also failed: ...`): the flat text of renderers that have
    /// one message per test (JSON, JUnit). Borrowed when there are none.
    pub fn joined_message(&self) -> Option<Cow<'_, str>> {
        let phases = self.phase_failures();
        if phases.is_empty() {
            return self.message().map(Cow::Borrowed);
        }
        let mut lines: Vec<String> = self.message().map(str::to_string).into_iter().collect();
        lines.extend(phases.iter().map(PhaseFailure::note));
        Some(Cow::Owned(lines.join("\n")))
    }

    /// The traceback with every other failing phase's after it, each under
    /// a `[teardown]` line (a blank line between them): the flat text of
    /// renderers that have one traceback per test. Borrowed when there are
    /// none.
    pub fn joined_traceback(&self) -> Option<Cow<'_, str>> {
        let mut parts = self.phase_failures().iter().filter_map(|p| {
            let tb = p.traceback.as_deref()?;
            Some(format!("{}\n{tb}", p.phase.marker()))
        });
        let Some(first_phase) = parts.next() else {
            return self.traceback().map(Cow::Borrowed);
        };
        let mut text = match self.traceback() {
            Some(tb) => format!("{tb}\n\n{first_phase}"),
            None => first_phase,
        };
        for part in parts {
            text.push_str("\n\n");
            text.push_str(&part);
        }
        Some(Cow::Owned(text))
    }

    /// Captured standard output.
    pub fn stdout(&self) -> Option<&str> {
        self.details.as_ref()?.stdout.as_deref()
    }

    /// Captured standard error.
    pub fn stderr(&self) -> Option<&str> {
        self.details.as_ref()?.stderr.as_deref()
    }

    /// Captured log records, one per line.
    pub fn log(&self) -> Option<&str> {
        self.details.as_ref()?.log.as_deref()
    }

    /// The failed subtests, when there are any.
    pub fn subtests(&self) -> Option<&Subtests> {
        self.details.as_ref()?.subtests.as_ref()
    }

    /// The failed subtests, to change.
    pub fn subtests_mut(&mut self) -> Option<&mut Subtests> {
        self.details.as_mut()?.subtests.as_mut()
    }

    /// Sets the failed subtests (none when the list is empty); a test with
    /// no message of its own gets pytest's (`contains 2 failed subtests`).
    pub fn set_subtests(&mut self, subtests: Subtests) {
        if subtests.failed.is_empty() {
            return;
        }
        if self.message().is_none() {
            self.set_message(Some(subtests.summary()));
        }
        self.details_mut().subtests = Some(subtests);
    }

    /// Earlier attempts a rerun replaced, oldest first.
    pub fn reruns(&self) -> &[Attempt] {
        self.details.as_ref().map_or(&[], |d| &d.reruns)
    }

    /// The details, created empty when the test has none yet.
    pub fn details_mut(&mut self) -> &mut Details {
        self.details.get_or_insert_with(Box::default)
    }

    /// The details, if any is set.
    pub fn details(&self) -> Option<&Details> {
        self.details.as_deref()
    }

    /// Takes all details out, leaving none.
    pub fn take_details(&mut self) -> Option<Box<Details>> {
        self.details.take()
    }

    /// Replaces all details; empty ones are stored as none, so that two
    /// tests with the same details compare equal however they were built.
    pub fn set_details(&mut self, details: Option<Box<Details>>) {
        self.details = details.filter(|d| !d.is_empty());
    }

    /// Drops captured output and log records (`show_capture: false`).
    pub fn clear_capture(&mut self) {
        self.set_stdout(None);
        self.set_stderr(None);
        self.set_log(None);
    }

    /// Sets one detail; setting `None` on a test without details allocates
    /// nothing.
    fn set(&mut self, value: Option<String>, field: fn(&mut Details) -> &mut Option<String>) {
        match (value, self.details.as_deref_mut()) {
            (None, None) => {}
            (None, Some(d)) => *field(d) = None,
            (value, _) => *field(self.details_mut()) = value,
        }
    }

    pub fn set_message(&mut self, message: Option<String>) {
        self.set(message, |d| &mut d.message);
    }

    pub fn set_traceback(&mut self, traceback: Option<String>) {
        self.set(traceback, |d| &mut d.traceback);
    }

    pub fn set_stdout(&mut self, stdout: Option<String>) {
        self.set(stdout, |d| &mut d.stdout);
    }

    pub fn set_stderr(&mut self, stderr: Option<String>) {
        self.set(stderr, |d| &mut d.stderr);
    }

    pub fn set_log(&mut self, log: Option<String>) {
        self.set(log, |d| &mut d.log);
    }

    /// Takes the message out, leaving `None`.
    pub fn take_message(&mut self) -> Option<String> {
        self.details.as_mut()?.message.take()
    }

    /// Takes the traceback out, leaving `None`.
    pub fn take_traceback(&mut self) -> Option<String> {
        self.details.as_mut()?.traceback.take()
    }

    /// Takes the earlier attempts out, leaving none.
    pub fn take_reruns(&mut self) -> Vec<Attempt> {
        self.details
            .as_mut()
            .map(|d| std::mem::take(&mut d.reruns))
            .unwrap_or_default()
    }

    /// The earlier attempts, to add to.
    pub fn reruns_mut(&mut self) -> &mut Vec<Attempt> {
        &mut self.details_mut().reruns
    }

    /// Replaces the earlier attempts; an empty list allocates nothing.
    pub fn set_reruns(&mut self, reruns: Vec<Attempt>) {
        if !reruns.is_empty() || self.details.is_some() {
            self.details_mut().reruns = reruns;
        }
    }

    /// Its setup, call and teardown seconds, when the source timed each.
    pub fn phase_times(&self) -> Option<PhaseTimes> {
        Some(self.phases?.times(self.duration?))
    }

    /// Passed, but only after failing attempts.
    pub fn is_flaky(&self) -> bool {
        self.outcome == Outcome::Passed && !self.reruns().is_empty()
    }

    /// Records that another phase of this test failed too (see
    /// [`Details::phase_failures`]); a blank traceback is none.
    pub fn add_phase_failure(
        &mut self,
        phase: Phase,
        message: Option<&str>,
        traceback: Option<&str>,
    ) {
        self.details_mut().phase_failures.push(PhaseFailure {
            phase,
            message: message.map(str::to_string),
            traceback: traceback
                .filter(|t| !t.trim().is_empty())
                .map(str::to_string),
        });
    }

    /// How a flaky test got there: `passed after 2 failed attempts (first:
    /// AssertionError: ...)`, quoting the first earlier attempt's message.
    pub fn flaky_summary(&self) -> String {
        let attempts = plural(self.reruns().len(), "failed attempt", "failed attempts");
        match self.first_failed_attempt() {
            Some((m, Some(at))) => format!("passed after {attempts} (first: {m}, at {at})"),
            Some((m, None)) => format!("passed after {attempts} (first: {m})"),
            None => format!("passed after {attempts}"),
        }
    }

    /// Passed with nothing more to say (no message, output, rerun or xpass):
    /// what a reader may count instead of listing.
    pub fn is_plain_pass(&self) -> bool {
        self.outcome == Outcome::Passed && self.xfail.is_none() && self.details.is_none()
    }

    /// True for the outcomes a reader has to act on.
    pub fn is_problem(&self) -> bool {
        matches!(self.outcome, Outcome::Failed | Outcome::Error)
    }
}

/// A collector (usually a test module) that pytest could not import.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectionError {
    /// The collector's node id, usually a file path relative to the rootdir.
    pub file: String,
    /// `SyntaxError`, `ImportError`, ... when it can be read off the traceback.
    pub error_type: Option<String>,
    pub message: String,
    /// The line of `file` the error points at, when known.
    pub line: Option<u32>,
    pub traceback: Option<String>,
}

/// A warning recorded during the run.
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    pub message: String,
    pub category: Option<String>,
    pub location: Option<Location>,
}

/// What kind of file a source was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    /// pytest-json-report JSON.
    JsonReport,
    /// JUnit XML written by pytest (`--junitxml`).
    PytestJunit,
    /// JUnit XML written by any other framework.
    Junit,
    /// pytest-mcp's own event log, written while pytest runs.
    PytestEvents,
    /// pytest's console output, parsed as a last resort.
    PytestText,
    /// CTRF JSON (Common Test Report Format) of any framework.
    Ctrf,
}

impl SourceKind {
    /// Whether the source is written by pytest or our plugin in it (CTRF
    /// is any framework's, so it is not).
    pub fn is_pytest(self) -> bool {
        matches!(
            self,
            SourceKind::JsonReport
                | SourceKind::PytestJunit
                | SourceKind::PytestEvents
                | SourceKind::PytestText
        )
    }

    pub fn describe(self) -> &'static str {
        match self {
            SourceKind::JsonReport => "pytest-json-report",
            SourceKind::PytestJunit => "pytest JUnit XML",
            SourceKind::Junit => "JUnit XML",
            SourceKind::PytestEvents => "pytest-mcp event log",
            SourceKind::PytestText => "pytest console output",
            SourceKind::Ctrf => "CTRF",
        }
    }
}

/// Where part of a run came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceInfo {
    pub kind: SourceKind,
    /// A file name, or a short label such as `stdout`.
    pub name: String,
    /// How many entries the source held: `<testcase>` elements for JUnit,
    /// test and failed/skipped collector entries for a JSON report.
    pub entries: usize,
    /// Entries folded into another entry of the same test (a retried case
    /// listed again, pytest's second case for a teardown error), so that
    /// `entries == tests + unlisted passes + collection errors + folded`,
    /// less entries that are no result at all (noted in the run's notes).
    pub folded: usize,
}

impl Run {
    /// The run's duration: the recorded one, else the sum of test
    /// durations, exact ([`DurationSum`]): the same bits whether the tests
    /// were listed or counted, read from one file or merged from several.
    pub fn duration_secs(&self) -> f64 {
        self.duration.unwrap_or_else(|| {
            if self.unlisted.passed > 0 {
                return self.unlisted.tests_duration.secs();
            }
            DurationSum::of(self.tests.iter().filter_map(|t| t.duration)).secs()
        })
    }

    /// Passes every text of the run that a renderer writes as text through
    /// `clean` ([`crate::text::clean`]): messages, tracebacks, captured
    /// output and log, earlier attempts' messages, collection errors,
    /// warnings, notes and pytest's console output. Not test ids, file
    /// paths or source names, which must stay what the source said (an id
    /// is fed back to pytest; renderers make its control characters
    /// visible), nor [`Run::json_report`], which is pytest-json-report's
    /// own document (ADR-006). Every reader calls this on the run it
    /// returns, so no escape sequence reaches a renderer. Clean text is
    /// not copied.
    pub fn clean_text(&mut self, clean: fn(&str) -> Cow<'_, str>) {
        let fix = |s: &mut String| {
            let cleaned = match clean(s) {
                Cow::Owned(c) => Some(c),
                Cow::Borrowed(_) => None,
            };
            if let Some(c) = cleaned {
                *s = c;
            }
        };
        let fix_opt = |s: &mut Option<String>| s.iter_mut().for_each(fix);
        for d in self
            .tests
            .iter_mut()
            .filter_map(|t| t.details.as_deref_mut())
        {
            fix_opt(&mut d.message);
            fix_opt(&mut d.traceback);
            fix_opt(&mut d.stdout);
            fix_opt(&mut d.stderr);
            fix_opt(&mut d.log);
            d.reruns.iter_mut().for_each(|a| fix_opt(&mut a.message));
            for p in &mut d.phase_failures {
                fix_opt(&mut p.message);
                fix_opt(&mut p.traceback);
            }
            for s in d.subtests.iter_mut().flat_map(|s| &mut s.failed) {
                s.clean_text(&fix);
            }
        }
        for e in &mut self.collection_errors {
            fix_opt(&mut e.error_type);
            fix(&mut e.message);
            fix_opt(&mut e.traceback);
        }
        for w in &mut self.warnings {
            fix(&mut w.message);
            fix_opt(&mut w.category);
        }
        self.notes.iter_mut().for_each(fix);
        fix_opt(&mut self.text_output);
        fix_opt(&mut self.closing_lines);
    }

    /// pytest's exit status: the recorded one, else what pytest would have
    /// returned for these results (2 for collection errors, 1 for failures,
    /// 5 for no tests, 0 otherwise).
    pub fn exit_code(&self) -> i32 {
        if let Some(code) = self.recorded_exit {
            return code;
        }
        let c = self.counts();
        if c.collection_errors > 0 {
            2
        } else if c.failed + c.errors > 0 {
            1
        } else if c.total == 0 {
            5
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests;
