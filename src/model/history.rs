//! What earlier runs say about this run's tests: each failure new, failing
//! before, or flaky, each test's recent outcomes and usual duration, and
//! the window's runs for a trend (docs/flaky.md). The history store
//! (`crate::history`) keeps each run's per-test marks and durations; this
//! module judges them. Pure: the window of runs and the marks in, a
//! [`History`] out.
//!
//! Flaky is a state of the test that lasts ([`state`] holds the state
//! machine): a pass and a fail on the same code, or a pass after failed
//! attempts, make a test flaky, and it stays flaky across code changes
//! until it passes a streak of runs in a row or its evidence leaves the
//! window. A flaky test's failure is flaky on any commit, never new, and
//! its pass is never "fixed"; failing every attempt of a run with retries,
//! or several runs in a row, makes it failing again, flaky before.
//!
//! For a test that fails now:
//! - **flaky** while its state is flaky;
//! - else **failing before** when it also failed the last time it ran:
//!   failing since the first run of that streak;
//! - else **new**: it passed the last time it ran, or never ran before.

pub mod state;

use std::collections::HashMap;

use crate::model::{Outcome, Run, TestResult};
pub use state::{Rules, State};
use state::{Step, walk};

/// How a test ended in one run, as the history keeps it. Skipped tests are
/// not kept: they did not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mark {
    Passed,
    /// Passed after failing attempts.
    Flaky,
    /// Failed or errored.
    Failed,
    /// Failed every attempt of a run with retries: the retries confirmed
    /// the failure.
    FailedAll,
}

impl Mark {
    /// The mark of one result; `None` for a skipped test.
    pub fn of(t: &TestResult) -> Option<Mark> {
        match t.outcome {
            Outcome::Skipped => None,
            _ if t.is_problem() && !t.reruns().is_empty() => Some(Mark::FailedAll),
            _ if t.is_problem() => Some(Mark::Failed),
            _ if t.is_flaky() => Some(Mark::Flaky),
            _ => Some(Mark::Passed),
        }
    }

    /// The number the store keeps.
    pub fn code(self) -> i64 {
        match self {
            Mark::Passed => 0,
            Mark::Failed => 1,
            Mark::Flaky => 2,
            Mark::FailedAll => 3,
        }
    }

    pub fn from_code(code: i64) -> Option<Mark> {
        match code {
            0 => Some(Mark::Passed),
            1 => Some(Mark::Failed),
            2 => Some(Mark::Flaky),
            3 => Some(Mark::FailedAll),
            _ => None,
        }
    }

    /// Failed or errored, after retries or not.
    pub fn failed(self) -> bool {
        matches!(self, Mark::Failed | Mark::FailedAll)
    }

    /// The word the JSON report's `history.recent` uses: `passed`,
    /// `failed`, or `flaky` (passed after failed attempts).
    pub fn as_str(self) -> &'static str {
        match self {
            Mark::Passed => "passed",
            Mark::Flaky => "flaky",
            Mark::Failed | Mark::FailedAll => "failed",
        }
    }
}

/// One test of a run as the history records it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Recorded<'r> {
    pub id: &'r str,
    pub mark: Mark,
    /// Its duration in seconds, when the source said.
    pub duration: Option<f64>,
    /// Its setup and teardown seconds, when the source timed its phases
    /// (the call has the rest).
    pub setup_teardown: Option<(f64, f64)>,
}

/// Each test of `run` once with its mark, in the run's order: an id listed
/// twice has the worse mark of its results (failed after retries, failed,
/// flaky, passed) and the durations of its first.
pub fn marks(run: &Run) -> Vec<Recorded<'_>> {
    let mut at: HashMap<&str, usize> = HashMap::with_capacity(run.tests.len());
    let mut out: Vec<Recorded<'_>> = Vec::with_capacity(run.tests.len());
    for t in &run.tests {
        let Some(mark) = Mark::of(t) else { continue };
        match at.get(t.node_id.as_str()) {
            Some(&i) => out[i].mark = out[i].mark.max(mark),
            None => {
                at.insert(&t.node_id, out.len());
                out.push(Recorded {
                    id: &t.node_id,
                    mark,
                    duration: t.duration.filter(|d| d.is_finite() && *d >= 0.0),
                    setup_teardown: t.phase_times().map(|p| (p.setup, p.teardown)),
                });
            }
        }
    }
    out
}

/// One run of the window: what it ran and how it went, for the judge and
/// for a trend of the window.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunInfo {
    /// The store's number for it, counting up.
    pub id: i64,
    /// The git commit it ran on, when known.
    pub commit: Option<String>,
    /// What the code was (the commit and a hash of uncommitted changes, or
    /// of the project's files): runs with the same code ran the same code.
    /// `None` when unknown: such a run is the same code as no other.
    pub code: Option<String>,
    /// When it ran (its source's start time, else when it was recorded),
    /// in seconds since the Unix epoch.
    pub at: i64,
    /// Its tests that passed (flaky ones not included).
    pub passed: u32,
    /// Its tests that failed or errored.
    pub failed: u32,
    /// Its tests that passed after failed attempts.
    pub flaky: u32,
    /// Its duration in seconds, when known (runs recorded before the
    /// history kept durations have none).
    pub duration: Option<f64>,
}

/// One test's mark in one run of the window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Entry {
    /// The run, as an index into [`Window::runs`].
    pub run: usize,
    pub mark: Mark,
    /// The test's duration in that run, when known.
    pub duration: Option<f64>,
}

/// The runs of the window, oldest first and this run last, and the marks of
/// the tests worth judging, each test's in run order.
#[derive(Debug, Clone, Default)]
pub struct Window {
    pub runs: Vec<RunInfo>,
    pub marks: HashMap<String, Vec<Entry>>,
}

/// Where a streak of failures began.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Since {
    /// The store's number of the streak's first run.
    pub run: i64,
    /// Its commit, when known.
    pub commit: Option<String>,
    /// How many runs in a row the test has failed, this one included.
    pub runs: u32,
}

/// What the window says about one test.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TestHistory {
    /// Runs of the window in which the test ran, this one included.
    pub runs: u32,
    /// Of those, the runs it failed in.
    pub failed: u32,
    /// Its state is flaky ([`State::Flaky`]): its failures are flaky.
    pub flaky: bool,
    /// When it fails now and failed the time before: since when.
    pub failing_since: Option<Since>,
    /// Where it stands after its last run ([`state::walk`]).
    pub state: State,
    /// Failing after being flaky: it failed every attempt of this run
    /// with retries, or several runs in a row (`failing for 3 runs; flaky
    /// before`).
    pub flaky_before: bool,
    /// Its marks in the runs of the window it ran in, oldest first, this
    /// one last when it ran: `history.recent` and the strip of the last 10
    /// outcomes read them ([`TestHistory::last`]).
    pub recent: Vec<Mark>,
    /// Its median duration in seconds over the earlier runs of the window
    /// that timed it; `None` when none did.
    pub median: Option<f64>,
    /// Its duration now is at least [`SLOWER_TIMES`] its median and at
    /// least [`SLOWER_BY`] seconds more: "Slower than usual".
    pub slower: bool,
}

impl TestHistory {
    /// Its last `n` marks (fewer when it ran fewer times), oldest first.
    pub fn last(&self, n: usize) -> &[Mark] {
        &self.recent[self.recent.len().saturating_sub(n)..]
    }
}

/// How a failing test stands against its history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Standing {
    /// It passed the last time it ran, or never ran before.
    New,
    /// It failed the last time it ran too.
    FailingBefore,
    /// Its state is flaky.
    Flaky,
}

/// A test is slower than usual at this many times its median...
pub const SLOWER_TIMES: f64 = 2.0;
/// ...and this many seconds more.
pub const SLOWER_BY: f64 = 1.0;

/// What the history of runs says about this run: its tests that have
/// something worth telling (a failure in the window, flakiness, a slower
/// run than usual) and the window's runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    /// Runs in the window, this one included.
    pub runs: usize,
    /// This run's number in the store.
    pub run: i64,
    /// The commit this run ran, when known.
    pub commit: Option<String>,
    pub tests: HashMap<String, TestHistory>,
    /// The runs of the window, oldest first, this one last: their counts,
    /// durations, commits and times are what a trend draws.
    pub trend: Vec<RunInfo>,
}

impl History {
    /// The history of the test with this id, when it has one to tell.
    pub fn of(&self, id: &str) -> Option<&TestHistory> {
        self.tests.get(id)
    }

    /// How a failing test stands; `None` for a test that does not fail now.
    pub fn standing(&self, t: &TestResult) -> Option<Standing> {
        if !t.is_problem() {
            return None;
        }
        Some(match self.of(&t.node_id) {
            Some(h) if h.flaky => Standing::Flaky,
            Some(h) if h.failing_since.is_some() => Standing::FailingBefore,
            _ => Standing::New,
        })
    }

    /// Whether the history holds the test flaky: its failure is a flip and
    /// its pass fixes nothing.
    pub fn is_flaky(&self, id: &str) -> bool {
        self.of(id).is_some_and(|h| h.flaky)
    }

    /// The tests of `run` slower than usual with their history, the most
    /// times slower first (ties in the run's order).
    pub fn slower<'r>(&'r self, run: &'r Run) -> Vec<(&'r TestResult, &'r TestHistory)> {
        let mut seen = std::collections::HashSet::new();
        let mut out: Vec<(&TestResult, &TestHistory)> = run
            .tests
            .iter()
            .filter(|t| seen.insert(t.node_id.as_str()))
            .filter_map(|t| Some((t, self.of(&t.node_id).filter(|h| h.slower)?)))
            .collect();
        let times = |(t, h): &(&TestResult, &TestHistory)| {
            t.duration.unwrap_or(0.0) / h.median.unwrap_or(1.0).max(f64::MIN_POSITIVE)
        };
        out.sort_by(|a, b| times(b).total_cmp(&times(a)));
        out
    }
}

/// Judges every test of the window by `rules`. The last run of
/// `window.runs` is this one.
pub fn judge(window: &Window, rules: Rules) -> History {
    let Some(now) = window.runs.len().checked_sub(1) else {
        return History::default();
    };
    let tests = window
        .marks
        .iter()
        .filter_map(|(id, entries)| Some((id.clone(), judge_test(window, entries, now, rules)?)))
        .collect();
    History {
        runs: window.runs.len(),
        run: window.runs[now].id,
        commit: window.runs[now].commit.clone(),
        tests,
        trend: window.runs.clone(),
    }
}

/// One test's history, when it has something to tell: a failure in the
/// window, a state other than passing, or a slower run now.
fn judge_test(window: &Window, entries: &[Entry], now: usize, rules: Rules) -> Option<TestHistory> {
    let steps: Vec<Step<'_>> = entries
        .iter()
        .map(|e| Step {
            code: window.runs[e.run].code.as_deref(),
            mark: e.mark,
        })
        .collect();
    let verdict = walk(&steps, rules);
    let failed = entries.iter().filter(|e| e.mark.failed()).count() as u32;
    let median = median(
        entries
            .iter()
            .filter(|e| e.run != now)
            .filter_map(|e| e.duration),
    );
    let duration_now = entries
        .last()
        .filter(|e| e.run == now)
        .and_then(|e| e.duration);
    let slower = match (duration_now, median) {
        (Some(d), Some(m)) => d >= SLOWER_TIMES * m && d >= m + SLOWER_BY,
        _ => false,
    };
    if failed == 0 && verdict.state == State::Passing && !slower {
        return None;
    }
    let ran_now = entries.last().is_some_and(|e| e.run == now);
    let failing_since = verdict
        .failing_from
        .filter(|_| ran_now && verdict.failing_for >= 2)
        .map(|from| {
            let first = &window.runs[entries[from].run];
            Since {
                run: first.id,
                commit: first.commit.clone(),
                runs: verdict.failing_for,
            }
        });
    Some(TestHistory {
        runs: entries.len() as u32,
        failed,
        flaky: verdict.state == State::Flaky,
        failing_since,
        state: verdict.state,
        flaky_before: verdict.flaky_before,
        recent: entries.iter().map(|e| e.mark).collect(),
        median,
        slower,
    })
}

/// The median of some durations (the mean of the middle two for an even
/// count); `None` for none.
fn median(durations: impl Iterator<Item = f64>) -> Option<f64> {
    let mut d: Vec<f64> = durations.filter(|d| d.is_finite()).collect();
    if d.is_empty() {
        return None;
    }
    d.sort_by(f64::total_cmp);
    let mid = d.len() / 2;
    Some(if d.len() % 2 == 1 {
        d[mid]
    } else {
        (d[mid - 1] + d[mid]) / 2.0
    })
}

/// The failures of `run` that are new (`--fail-on new`): not failing
/// before and not flaky by its history, and, when a baseline was compared,
/// among `baseline_new` (its new failures). A collection error is new
/// unless the baseline had it. Without a history or a baseline every
/// failure is new.
pub fn new_failures<'r>(run: &'r Run, baseline_new: Option<&[String]>) -> Vec<&'r str> {
    let in_baseline = |id: &str| baseline_new.is_none_or(|ids| ids.iter().any(|n| n == id));
    let known = |t: &TestResult| {
        run.history
            .as_ref()
            .and_then(|h| h.standing(t))
            .is_some_and(|s| s != Standing::New)
    };
    let tests = run
        .tests
        .iter()
        .filter(|t| t.is_problem() && !known(t) && in_baseline(&t.node_id))
        .map(|t| t.node_id.as_str());
    let files = run
        .collection_errors
        .iter()
        .map(|e| e.file.as_str())
        .filter(|f| in_baseline(f));
    let mut ids: Vec<&str> = tests.chain(files).collect();
    ids.dedup();
    ids
}

#[cfg(test)]
mod tests;
