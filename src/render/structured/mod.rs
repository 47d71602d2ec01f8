//! The tools' structured results (MCP `structuredContent`): a small object
//! a program reads instead of parsing the Markdown — how the run ended, its
//! exit code, duration and counts, the failure groups (a discovery: the
//! test functions), and what was left out to fit the answer's budget.
//!
//! Pure: a model value in, a value out. The types are also the tools'
//! output schemas (`frontend::tools` derives them), so a schema and the
//! values it describes cannot disagree. A group names a few ids and
//! counts the rest (`more`). A value is bounded by a [`Budget`] (the
//! answer's, or a share of it when it carries the Markdown answer, see
//! [`with_markdown`]): when its compact JSON does not fit, one id is named
//! per group, messages are shortened then left out, then the smallest
//! groups (discovery: the last test functions) and the last collection
//! errors are left out, and `truncated` says what went; the counts always
//! stay exact.

use std::collections::BTreeMap;

use rmcp::schemars::JsonSchema;
use serde::{Serialize, Serializer};

use crate::budget::{Budget, Fitted, Offer, Truncation};
use crate::model::discovery::Discovery;
use crate::model::exec_error::ExecError;
use crate::model::groups::IdItem;
use crate::model::{CollectionError, Counts, Run, TestResult};
use crate::render::Style;
use crate::render::view::{self, Compared, New, Standings, Verdict};
use crate::text::{clip_chars, first_line};

/// Longest message kept in a group or a collection error, in characters.
const MAX_MESSAGE_CHARS: usize = 300;
/// Ids a group names: enough to run one or a few; `more` counts the rest,
/// and `last_failed` or the group's function id reruns them all. When the
/// value does not fit its budget, one.
const IDS_NAMED: usize = 5;

/// `execute_tests`' structured result.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct RunResult {
    pub status: Verdict,
    /// pytest's exit status; absent when pytest did not exit by itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Why pytest's exit status says failure when no test failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_reason: Option<String>,
    /// Seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
    // Its schema says only "counts by name": field by field it would cost
    // every agent about 60 tokens a turn (README lists them).
    #[schemars(with = "BTreeMap<String, usize>")]
    pub summary: Summary,
    /// Since the last run (pytest's cache): fixed, new_failures,
    /// still_failing, gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<BTreeMap<String, usize>>")]
    pub changes: Option<ChangeCounts>,
    /// With affected: tests selected and left_out.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<BTreeMap<String, usize>>")]
    pub affected: Option<AffectedCounts>,
    /// With a history of earlier runs: runs in its window, and the failing
    /// tests that are new, failing_before and flaky.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<BTreeMap<String, usize>>")]
    pub history: Option<Standings>,
    /// Failures and errors of one shape, new ones first, largest first.
    pub failures: Vec<FailureEntry>,
    pub collection_errors: Vec<FileError>,
    /// With coverage: changed lines that ran and did not (docs).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Object>")]
    pub coverage: Option<view::CoverageSummary>,
    /// A warm process forked the run: the seconds of importing it saved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warm: Option<WarmRun>,
    #[serde(flatten)]
    pub end: End,
}

/// A run forked by a warm process (docs/warm.md).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct WarmRun {
    pub saved_seconds: f64,
}

/// What every structured result ends with: the error that gave no
/// result, the Markdown it carries, the complete result, what was left
/// out.
#[derive(Debug, Clone, PartialEq, Default, Serialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct End {
    /// What ended a run that gave no result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// A run that ended early: the collected tests that never ran.
    // Its schema says only "an object" (see `summary`): `count`, `node_ids`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Object>")]
    pub not_run: Option<NotRun>,
    /// The answer's Markdown (the text content) when Markdown was asked
    /// for: some clients show a model only the structured result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub markdown: Option<String>,
    /// The URI of the complete result (a resource) when the answer was
    /// shortened.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_result: Option<String>,
    /// What was left out to fit the budget; absent when nothing was.
    // Its schema says only "an object" (see `summary`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Object>")]
    pub truncated: Option<Truncation>,
}

/// The tests a run that ended early never reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotRun {
    pub count: usize,
    /// The first few, in collection order.
    pub node_ids: Vec<String>,
}

impl NotRun {
    fn of(ids: &[String]) -> Option<NotRun> {
        (!ids.is_empty()).then(|| NotRun {
            count: ids.len(),
            node_ids: ids.iter().take(IDS_NAMED).cloned().collect(),
        })
    }
}

/// ADR-006's summary counts (without the duration, given beside them):
/// the run's [`Counts`], as the JSON report writes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary(pub Counts);

impl std::ops::Deref for Summary {
    type Target = Counts;
    fn deref(&self) -> &Counts {
        &self.0
    }
}

impl Serialize for Summary {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        view::summary(serializer, &self.0, None)
    }
}

/// How many tests changed since the last run (`model::changes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ChangeCounts {
    pub fixed: usize,
    pub new_failures: usize,
    pub still_failing: usize,
    pub gone: usize,
}

/// What pytest-testmon selected (`model::affected`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AffectedCounts {
    pub selected: usize,
    pub left_out: usize,
}

/// Failing tests that share a root cause (`model::groups`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct FailureEntry {
    /// `failed`, `error` (in the call), `setup error` or `teardown error`.
    pub kind: String,
    /// Tests in the group.
    pub count: usize,
    /// The first line of the first test's message (absent when a small
    /// budget left messages out).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// Where it crashed: `path:line`, or a stack frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// Ids pytest accepts, the first test's first; a parametrized function
    /// whose every case is in the group is its function's id. At most
    /// [`IDS_NAMED`] (one, to fit a small budget).
    pub node_ids: Vec<String>,
    /// Tests of the group that `node_ids` do not name.
    #[serde(skip_serializing_if = "is_zero")]
    pub more: usize,
    /// Tests of the group that did not fail last run.
    #[serde(skip_serializing_if = "is_zero")]
    pub new: usize,
    /// By the history of runs: `flaky, failed 3 of the last 5 runs`, or
    /// `failing for 4 runs, since 1a2b3c4`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<String>,
    /// How many tests each of `node_ids` stands for.
    #[serde(skip)]
    #[schemars(skip)]
    covers: Vec<usize>,
}

/// A file that could not be collected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct FileError {
    pub file: String,
    pub message: String,
}

/// `discover_tests`' structured result.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct DiscoveryResult {
    pub status: Verdict,
    /// The command line's exit status: 0 found, 2 collection errors, 5 none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
    /// Tests collected (every parametrization counts).
    pub count: usize,
    /// Test functions in collection order.
    pub tests: Vec<TestFunction>,
    pub collection_errors: Vec<FileError>,
    #[serde(flatten)]
    pub end: End,
}

/// A test function: a plain test, or a parametrized function whose id runs
/// all its cases.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct TestFunction {
    pub node_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// Parametrized: how many cases.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cases: Option<usize>,
}

/// The schema of "a JSON object", whatever its keys.
#[derive(JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[allow(dead_code)]
struct Object {}

/// A test run's structured result, offered to fit the style's budget.
/// Every output's offer takes the same three (the tools compare with no
/// baseline).
pub fn offer(run: &Run, _compared: Option<&Compared>, style: &Style) -> Offer<'static, RunResult> {
    let budget = style.budget;
    let of = view::status(run);
    let status = of.verdict;
    let mut result = of_run(run, status, Some(of.exit_code), run.duration_secs());
    result.exit_reason = of.exit_reason.map(|r| r.text.into_owned());
    fit_run(result, budget)
}

/// A run that gave no result (a timeout, a crash, ...): what finished
/// before the end, offered to fit the style's budget.
pub fn error_offer(e: &ExecError, style: &Style) -> Offer<'static, RunResult> {
    let budget = style.budget;
    let mut result = of_run(
        &e.partial,
        view::error_verdict(e.kind),
        e.exit_code,
        e.duration,
    );
    result.end.error = Some(e.message.clone());
    result.end.not_run = NotRun::of(&e.not_run);
    fit_run(result, budget)
}

/// What a discovery found, offered to fit `budget`.
pub fn discovery_offer(d: &Discovery, style: &Style) -> Offer<'static, DiscoveryResult> {
    let budget = style.budget;
    let (verdict, exit) = view::discovery_status(d);
    let status = verdict;
    let tests = d
        .functions()
        .iter()
        .map(|f| TestFunction {
            node_id: f.id.to_string(),
            line: f.line(),
            cases: f.parametrized.then_some(f.items.len()),
        })
        .collect();
    let result = DiscoveryResult {
        status,
        exit_code: Some(exit),
        duration: seconds(d.duration),
        count: d.items.len(),
        tests,
        collection_errors: file_errors(&d.collection_errors),
        end: End::default(),
    };
    fit_discovery(result, budget)
}

/// A discovery that gave no result, offered to fit the style's budget.
pub fn discovery_error_offer(e: &ExecError, style: &Style) -> Offer<'static, DiscoveryResult> {
    let budget = style.budget;
    let result = DiscoveryResult {
        status: view::error_verdict(e.kind),
        exit_code: e.exit_code,
        duration: seconds(e.duration),
        count: e.collected.unwrap_or(0),
        tests: Vec::new(),
        collection_errors: file_errors(&e.partial.collection_errors),
        end: End {
            error: Some(e.message.clone()),
            ..End::default()
        },
    };
    fit_discovery(result, budget)
}

/// Durations to the millisecond; none when not a number.
fn seconds(secs: f64) -> Option<f64> {
    let rounded = (secs * 1000.0).round() / 1000.0;
    rounded.is_finite().then_some(rounded)
}

/// The whole structured result of a run, before any budget.
fn of_run(run: &Run, status: Verdict, exit_code: Option<i32>, duration: f64) -> RunResult {
    let c = run.counts();
    RunResult {
        status,
        exit_code,
        exit_reason: None,
        duration: seconds(duration),
        summary: Summary(c),
        changes: run.changes.as_ref().map(|c| ChangeCounts {
            fixed: c.fixed.len(),
            new_failures: c.new_failures.len(),
            still_failing: c.still_failing.len(),
            gone: c.gone.len(),
        }),
        affected: run.affected.map(|a| AffectedCounts {
            selected: c.total,
            left_out: a.left_out,
        }),
        history: view::standings(run),
        failures: failure_groups(run),
        collection_errors: file_errors(&run.collection_errors),
        coverage: run.coverage.as_ref().map(view::coverage_summary),
        warm: run.warm.map(|w| WarmRun {
            saved_seconds: seconds(w.saved_seconds).unwrap_or(0.0),
        }),
        end: End::default(),
    }
}

/// The run's failure groups (`view::failure_groups`), [`IDS_NAMED`] ids
/// each.
fn failure_groups(run: &Run) -> Vec<FailureEntry> {
    view::failure_groups(run, New::SinceLastRun)
        .iter()
        .map(|g| {
            let (node_ids, covers): (Vec<String>, Vec<usize>) = g
                .items
                .iter()
                .take(IDS_NAMED)
                .map(|item| match item {
                    IdItem::Test(id) => (id.to_string(), 1),
                    IdItem::Function { id, count } => (id.to_string(), *count),
                })
                .unzip();
            let at = g.place().map(|place| match place {
                (path, Some(line)) => format!("{path}:{line}"),
                (frame, None) => frame.trim_start_matches("at ").to_string(),
            });
            FailureEntry {
                kind: kind(g.first),
                count: g.count,
                message: short(g.first.message().map(first_line).unwrap_or_default()),
                at,
                node_ids,
                more: g.count.saturating_sub(covers.iter().sum()),
                new: g.new,
                history: view::standing_mark(g),
                covers,
            }
        })
        .collect()
}

/// A group's kind: the outcome, and an error's phase when it is not the
/// test's own (`setup error`).
fn kind(t: &TestResult) -> String {
    match view::error_phase(t) {
        Some(phase) => format!("{} error", phase.as_str()),
        None => t.outcome.as_str().to_string(),
    }
}

fn file_errors(errors: &[CollectionError]) -> Vec<FileError> {
    errors
        .iter()
        .map(|e| FileError {
            file: e.file.clone(),
            message: short(first_line(&e.message)),
        })
        .collect()
}

/// `text` cut to [`MAX_MESSAGE_CHARS`] characters, with `…` when cut.
fn short(text: &str) -> String {
    clip_chars(text, MAX_MESSAGE_CHARS).into_owned()
}

/// `text` cut to `max` characters, with `…` when cut (nothing at 0).
/// Compact JSON, as the server sends it.
fn compact(value: &impl Serialize) -> String {
    // Strings, numbers and arrays of them: this cannot fail.
    serde_json::to_string(value).unwrap_or_default()
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A structured result: a run's or a discovery's. Its list (failure
/// groups, test functions) shrinks to fit a budget, and it can carry the
/// answer's Markdown.
pub trait Structured: Serialize {
    /// The fields every structured result ends with.
    fn end(&mut self) -> &mut End;
    fn truncated(&mut self) -> &mut Option<Truncation> {
        &mut self.end().truncated
    }
    fn markdown(&mut self) -> &mut Option<String> {
        &mut self.end().markdown
    }
    /// What a shortened rendering of this kind left out, counted as its
    /// text counts it: failure groups (a run), tests (a discovery). The
    /// structured result should leave out no more than the answer's text.
    fn omitted(t: Option<&Truncation>) -> usize;
}

/// Tries at fitting the Markdown beside a structured result before giving
/// up on carrying it (each try takes off what the last was over by).
const MARKDOWN_TRIES: usize = 4;

/// `r` carrying the answer's Markdown, made by `markdown` for the room
/// `budget` leaves beside `r`, so that the two together fit `budget`: a
/// client that shows a model only the structured result (Claude Code does,
/// whenever there is one) still shows it the whole answer, within the
/// budget the request asked for. `r` should already fit a share of the
/// budget. Returns the Markdown too: it is also the answer's text.
pub fn with_markdown<R: Structured>(
    mut r: R,
    budget: &Budget,
    markdown: impl Fn(&Budget) -> Fitted,
) -> (R, Fitted) {
    let bare = compact(&r);
    let mut slack = 0;
    for _ in 0..MARKDOWN_TRIES {
        let md = markdown(&budget.beside(&bare, slack));
        *r.markdown() = Some(md.text.clone());
        let whole = compact(&r);
        if budget.fits(&whole) {
            return (r, md);
        }
        // JSON escapes cost a little more than the text they escape.
        slack += budget.excess(&whole) + 8;
    }
    // Only when the structured fields alone take the budget (a very small
    // one): the structured result goes without the Markdown.
    *r.markdown() = None;
    let md = markdown(&budget.beside(&bare, slack));
    (r, md)
}

impl Structured for RunResult {
    fn end(&mut self) -> &mut End {
        &mut self.end
    }
    fn omitted(t: Option<&Truncation>) -> usize {
        t.map_or(0, |t| t.groups_omitted)
    }
}

impl Structured for DiscoveryResult {
    fn end(&mut self) -> &mut End {
        &mut self.end
    }
    fn omitted(t: Option<&Truncation>) -> usize {
        // Test functions left out, counted by their cases, as the text
        // counts the tests it does not list.
        t.map_or(0, |t| t.tests_omitted)
    }
}

mod fit;
use fit::{fit_discovery, fit_run};

#[cfg(test)]
mod tests;
