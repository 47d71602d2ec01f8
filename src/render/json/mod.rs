//! The JSON report (ADR-006, docs/json-report.md).
//!
//! Every key is always present (`null` when there is no value), so a consumer
//! writes its parsing once. Keys and order: docs/json-report.md, with
//! `summary.xfailed` and `summary.xpassed` (subsets of `skipped` and
//! `passed`). Collection errors are objects of their own (`file`,
//! `error_type`, `message`, `line`, `traceback`) and are not tests: pytest's
//! "N errors" equals `summary.errors + collection_errors.length`.

use std::borrow::Cow;

use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};
use serde_json::Value;

use crate::budget::{Budget, Fitted, Offer, Truncation};
use crate::model::affected::{Affected, AllRan};
use crate::model::changes::Changes;
use crate::model::history::{History, TestHistory};
use crate::model::raw_report::RawReports;
use crate::model::{CollectionError, Counts, Run, TestResult, Xfail};
use crate::render::Style;
use crate::render::view::{self, Compared, Standings};

mod compared;
mod discovery;
mod error;
mod fit;
mod groups;
mod subtests;

pub use discovery::{discovery, discovery_offer};
pub use error::error_data;

/// The ADR-006 object, borrowing from the run: serialized straight to text,
/// so a run of 100,000 tests is never copied into a `Value` tree first.
/// Field order is the key order of the answer.
#[derive(Serialize)]
struct Answer<'a> {
    exit_code: i32,
    /// Only when pytest's exit status says the run failed and no test
    /// did: why (what pytest printed last).
    #[serde(skip_serializing_if = "Option::is_none")]
    exit_reason: Option<Cow<'a, str>>,
    summary: Summary,
    /// Only when pytest's cache recorded the last run: what changed since.
    #[serde(skip_serializing_if = "Option::is_none")]
    changes: Option<ChangesEntry<'a>>,
    /// Only for a run with `affected`: what pytest-testmon selected.
    #[serde(skip_serializing_if = "Option::is_none")]
    affected: Option<AffectedEntry>,
    /// Only with a history of earlier runs (docs/flaky.md): the window's
    /// size and the failing tests by standing.
    #[serde(skip_serializing_if = "Option::is_none")]
    history: Option<Standings>,
    /// Only for shards checked against their plan (`report --plan`):
    /// which came back, what was not run, what ran twice.
    #[serde(skip_serializing_if = "Option::is_none")]
    shards: Option<view::Shards<'a>>,
    /// Only for a run under coverage (`run --coverage`): the changed
    /// lines that counted, ran, and did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    coverage: Option<view::CoverageSummary>,
    /// Only in an answer shortened to fit a budget: what it left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    truncated: Option<&'a Truncation>,
    /// Only in an answer shortened to fit a budget: every failure group.
    #[serde(skip_serializing_if = "Option::is_none")]
    failure_groups: Option<groups::Groups<'a>>,
    tests: Tests<'a>,
    json_report: Option<&'a RawReports>,
    text_output: Option<&'a str>,
    collection_errors: Vec<ErrorEntry<'a>>,
    /// Only for a run compared with a baseline (`report --baseline`): the
    /// comparison, last.
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<&'a Value>,
}

/// ADR-006's summary: the run's counts, its duration among them.
struct Summary {
    counts: Counts,
    duration: Option<f64>,
}

impl Serialize for Summary {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        view::summary(serializer, &self.counts, Some(self.duration))
    }
}

/// What changed since the last run (`model::changes`): each list's count,
/// and its ids (at most `listed` of them: a shortened answer names a few).
#[derive(Serialize)]
struct ChangesEntry<'a> {
    fixed: IdsEntry<'a>,
    new_failures: IdsEntry<'a>,
    still_failing: IdsEntry<'a>,
    gone: IdsEntry<'a>,
    /// Only when the history of runs calls some of them flaky.
    #[serde(skip_serializing_if = "IdsEntry::is_empty")]
    flaky: IdsEntry<'a>,
}

/// pytest-testmon's selection (`model::affected`): the tests that ran,
/// those left out, and why every test ran when all did.
#[derive(Serialize)]
struct AffectedEntry {
    selected: usize,
    left_out: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    all_ran: Option<&'static str>,
}

impl AffectedEntry {
    fn of(a: &Affected, selected: usize) -> Self {
        AffectedEntry {
            selected,
            left_out: a.left_out,
            all_ran: a.all_ran.map(AllRan::as_str),
        }
    }
}

#[derive(Serialize)]
struct IdsEntry<'a> {
    count: usize,
    ids: &'a [String],
}

impl IdsEntry<'_> {
    fn is_empty(&self) -> bool {
        self.count == 0
    }
}

impl<'a> ChangesEntry<'a> {
    fn of(c: &'a Changes, listed: usize) -> Self {
        let entry = |ids: &'a [String]| IdsEntry {
            count: ids.len(),
            ids: &ids[..ids.len().min(listed)],
        };
        ChangesEntry {
            fixed: entry(&c.fixed),
            new_failures: entry(&c.new_failures),
            still_failing: entry(&c.still_failing),
            gone: entry(&c.gone),
            flaky: entry(&c.flaky),
        }
    }
}

/// The tests listed, each with its history when it has one to tell.
struct Tests<'a> {
    listed: TestList<'a>,
    history: Option<&'a History>,
}

/// All the tests, or those a budget leaves room for.
enum TestList<'a> {
    All(&'a [TestResult]),
    Some(&'a [&'a TestResult]),
}

impl Serialize for Tests<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (len, listed): (usize, Box<dyn Iterator<Item = &TestResult>>) = match self.listed {
            TestList::All(all) => (all.len(), Box::new(all.iter())),
            TestList::Some(some) => (some.len(), Box::new(some.iter().copied())),
        };
        let mut seq = serializer.serialize_seq(Some(len))?;
        for t in listed {
            seq.serialize_element(&TestEntry {
                node_id: &t.node_id,
                outcome: t.outcome.as_str(),
                duration: t.duration.and_then(|d| finite(round_secs(d))),
                message: message_cow(t),
                // An item's own words are its message and its traceback:
                // said once.
                traceback: t.joined_traceback().filter(|tb| Some(&**tb) != t.message()),
                history: self
                    .history
                    .and_then(|h| h.of(&t.node_id))
                    .map(HistoryEntry::of),
                subtests: subtests::entries(t),
            })?;
        }
        seq.end()
    }
}

#[derive(Serialize)]
struct TestEntry<'a> {
    node_id: &'a str,
    outcome: &'static str,
    duration: Option<f64>,
    message: Option<Cow<'a, str>>,
    traceback: Option<Cow<'a, str>>,
    /// Only for a test whose history has a failure or a flip in it.
    #[serde(skip_serializing_if = "Option::is_none")]
    history: Option<HistoryEntry<'a>>,
    /// Only for a test with failed subtests.
    #[serde(skip_serializing_if = "Option::is_none")]
    subtests: Option<Vec<subtests::SubtestEntry<'a>>>,
}

/// A test's history (docs/flaky.md): runs of the window it ran in, how
/// many it failed, whether it is flaky, since when it fails, its state,
/// its last outcomes and its usual duration.
#[derive(Serialize)]
struct HistoryEntry<'a> {
    runs: u32,
    failed: u32,
    flaky: bool,
    failing_since: Option<SinceEntry<'a>>,
    state: &'static str,
    flaky_before: bool,
    /// The last [`RECENT`] outcomes, oldest first.
    recent: Vec<&'static str>,
    /// The median duration over the window's earlier runs.
    median: Option<f64>,
}

/// Outcomes `history.recent` gives: the strip people read shows as many.
const RECENT: usize = 10;

#[derive(Serialize)]
struct SinceEntry<'a> {
    run: i64,
    commit: Option<&'a str>,
    runs: u32,
}

impl<'a> HistoryEntry<'a> {
    fn of(h: &'a TestHistory) -> Self {
        HistoryEntry {
            runs: h.runs,
            failed: h.failed,
            flaky: h.flaky,
            failing_since: h.failing_since.as_ref().map(|s| SinceEntry {
                run: s.run,
                commit: s.commit.as_deref(),
                runs: s.runs,
            }),
            state: h.state.as_str(),
            flaky_before: h.flaky_before,
            recent: h.last(RECENT).iter().map(|m| m.as_str()).collect(),
            median: h.median.and_then(|d| finite(round_secs(d))),
        }
    }
}

#[derive(Serialize)]
struct ErrorEntry<'a> {
    file: &'a str,
    error_type: Option<&'a str>,
    message: &'a str,
    line: Option<u32>,
    traceback: Option<&'a str>,
}

impl<'a> ErrorEntry<'a> {
    fn of(e: &'a CollectionError) -> Self {
        ErrorEntry {
            file: &e.file,
            error_type: e.error_type.as_deref(),
            message: &e.message,
            line: e.line,
            traceback: e.traceback.as_deref(),
        }
    }
}

fn answer(run: &Run) -> Answer<'_> {
    let c = run.counts();
    let status = view::status_with(run, &c);
    Answer {
        exit_code: status.exit_code,
        exit_reason: status.exit_reason.map(|r| r.text),
        summary: Summary {
            counts: c,
            duration: finite(round_secs(run.duration_secs())),
        },
        changes: run
            .changes
            .as_ref()
            .map(|c| ChangesEntry::of(c, usize::MAX)),
        affected: run.affected.as_ref().map(|a| AffectedEntry::of(a, c.total)),
        history: view::standings(run),
        shards: view::shards(run),
        coverage: run.coverage.as_ref().map(view::coverage_summary),
        truncated: None,
        failure_groups: None,
        tests: Tests {
            listed: TestList::All(&run.tests),
            history: run.history.as_ref(),
        },
        json_report: run.json_report.as_ref(),
        text_output: run.text_output.as_deref(),
        collection_errors: run.collection_errors.iter().map(ErrorEntry::of).collect(),
        baseline: None,
    }
}

/// A run's JSON report offered to fit the style's budget, in tokens only
/// (a script reads JSON whole; `--max-chars` is for people), the
/// comparison with a baseline as its last key. Every output's offer takes
/// the same three.
pub fn offer<'a>(
    run: &'a Run,
    compared: Option<&'a Compared>,
    style: &'a Style,
) -> Offer<'a, Fitted> {
    let budget = Budget {
        chars: None,
        ..style.budget
    };
    fit::offer(
        run,
        compared::compared_value(compared, &budget),
        budget,
        style.pretty,
    )
}

/// JSON has no NaN or infinity: such a number is `null`, as in a `Value`.
fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// Builds the ADR-006 object for a run, for callers that add keys to it.
pub fn to_value(run: &Run) -> Value {
    // Serializing borrowed strings and numbers into a `Value` cannot fail.
    serde_json::to_value(answer(run)).unwrap_or(Value::Null)
}

/// Writes the ADR-006 object (indented, then a newline) to `out` as it is
/// serialized: a report of 100,000 tests is never held as text in memory.
pub fn write_pretty(run: &Run, out: &mut (impl std::io::Write + ?Sized)) -> std::io::Result<()> {
    use std::io::Write;
    // serde_json writes a few bytes at a time (a key, a colon, an indent):
    // into a buffer of a known type each write is a short inlined copy,
    // where `out` (often `dyn Write`) would cost a call per fragment; that
    // was two fifths of the time for 100,000 tests.
    let mut buffered = std::io::BufWriter::with_capacity(1 << 16, out);
    serde_json::to_writer_pretty(&mut buffered, &answer(run))?;
    buffered.write_all(b"\n")?;
    buffered.flush()
}

/// Renders the ADR-006 object as text: indented for people, compact for
/// agents (fewer tokens).
pub fn render(run: &Run, pretty: bool) -> String {
    render_compared(run, None, pretty)
}

/// [`render`], with the comparison with a baseline (a value made by
/// `model::baseline`) as its last key, `baseline`, when there is one.
pub fn render_compared(run: &Run, baseline: Option<&Value>, pretty: bool) -> String {
    let mut a = answer(run);
    a.baseline = baseline;
    serialized(&a, pretty)
}

/// Any JSON answer as text ending in a newline: indented for people,
/// compact for agents.
pub fn text(value: &Value, pretty: bool) -> String {
    serialized(value, pretty)
}

fn serialized(value: &impl Serialize, pretty: bool) -> String {
    let mut out = if pretty {
        serde_json::to_string_pretty(value)
    } else {
        serde_json::to_string(value)
    }
    // Every key is a string and every number finite: this cannot fail.
    .unwrap_or_default();
    out.push('\n');
    out
}

/// The test's message as ADR-006 and ARCHITECTURE.md want it: `XFAIL: <reason>` for
/// an xfailed test, `XPASS: <reason>` for a non-strict xpass, `FLAKY: passed
/// after ...` for a flaky one, other failing phases on lines of their own.
pub fn message(t: &TestResult) -> Option<String> {
    message_cow(t).map(Cow::into_owned)
}

/// [`message`], borrowing the test's own message when it is used as is.
fn message_cow(t: &TestResult) -> Option<Cow<'_, str>> {
    if t.is_flaky() {
        return Some(Cow::Owned(format!("FLAKY: {}", t.flaky_summary())));
    }
    let prefix = match t.xfail {
        Some(Xfail::XFailed) => "XFAIL",
        Some(Xfail::XPassed) => "XPASS",
        None => return t.joined_message(),
    };
    Some(Cow::Owned(match t.message().filter(|m| !m.is_empty()) {
        Some(reason) => format!("{prefix}: {reason}"),
        None => prefix.to_string(),
    }))
}

/// Durations to the millisecond: more digits cost tokens and say nothing.
fn round_secs(secs: f64) -> f64 {
    (secs * 1000.0).round() / 1000.0
}
