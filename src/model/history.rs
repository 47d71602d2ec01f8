//! What earlier runs say about this run's failures: new, failing before, or
//! flaky (docs/flaky.md). The history store (`crate::history`) keeps each
//! run's per-test marks; this module judges them. Pure: the window of runs
//! and the marks in, a [`History`] out.
//!
//! The rules, for a test that fails now:
//! - **flaky** when it flipped on unchanged code: between two runs of the
//!   same code (the same commit and the same uncommitted changes) it went
//!   from passing to failing or back, or it passed only after failing
//!   attempts (pytest-rerunfailures); and no flip since came with a change
//!   of the code;
//! - else **failing before** when it also failed the last time it ran:
//!   failing since the first run of that streak;
//! - else **new**: it passed the last time it ran, or never ran before.
//!
//! A flip that comes with a change of the code is a change (fixed or new),
//! not flakiness, and clears what was known: after an edit that fixes a
//! flaky test, its next failure is new. A change of the code that leaves
//! the outcome as it was keeps it: a test known to flip on one commit that
//! fails on the next is still flaky.

use std::collections::HashMap;

use crate::model::{Outcome, Run, TestResult};

/// How a test ended in one run, as the history keeps it. Skipped tests are
/// not kept: they did not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Passed,
    /// Failed or errored.
    Failed,
    /// Passed after failing attempts.
    Flaky,
}

impl Mark {
    /// The mark of one result; `None` for a skipped test.
    pub fn of(t: &TestResult) -> Option<Mark> {
        match t.outcome {
            Outcome::Skipped => None,
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
        }
    }

    pub fn from_code(code: i64) -> Option<Mark> {
        match code {
            0 => Some(Mark::Passed),
            1 => Some(Mark::Failed),
            2 => Some(Mark::Flaky),
            _ => None,
        }
    }

    fn failed(self) -> bool {
        self == Mark::Failed
    }
}

/// Each test of `run` once with its mark, in the run's order: an id listed
/// twice is failed when any of its results failed.
pub fn marks(run: &Run) -> Vec<(&str, Mark)> {
    let mut at: HashMap<&str, usize> = HashMap::with_capacity(run.tests.len());
    let mut out: Vec<(&str, Mark)> = Vec::with_capacity(run.tests.len());
    for t in &run.tests {
        let Some(mark) = Mark::of(t) else { continue };
        match at.get(t.node_id.as_str()) {
            Some(&i) => {
                if mark.failed() || (mark == Mark::Flaky && out[i].1 == Mark::Passed) {
                    out[i].1 = mark;
                }
            }
            None => {
                at.insert(&t.node_id, out.len());
                out.push((&t.node_id, mark));
            }
        }
    }
    out
}

/// One run of the window.
#[derive(Debug, Clone, PartialEq)]
pub struct RunInfo {
    /// The store's number for it, counting up.
    pub id: i64,
    /// The git commit it ran on, when known.
    pub commit: Option<String>,
    /// What the code was (the commit and a hash of uncommitted changes, or
    /// of the project's files): runs with the same code ran the same code.
    /// `None` when unknown: such a run is the same code as no other.
    pub code: Option<String>,
}

/// The runs of the window, oldest first and this run last, and the marks of
/// the tests worth judging: each test's marks in run order, as indices
/// into `runs`.
#[derive(Debug, Clone, Default)]
pub struct Window {
    pub runs: Vec<RunInfo>,
    pub marks: HashMap<String, Vec<(usize, Mark)>>,
}

/// Where a streak of failures began.
#[derive(Debug, Clone, PartialEq)]
pub struct Since {
    /// The store's number of the streak's first run.
    pub run: i64,
    /// Its commit, when known.
    pub commit: Option<String>,
    /// How many runs in a row the test has failed, this one included.
    pub runs: u32,
}

/// What the window says about one test.
#[derive(Debug, Clone, PartialEq)]
pub struct TestHistory {
    /// Runs of the window in which the test ran, this one included.
    pub runs: u32,
    /// Of those, the runs it failed in.
    pub failed: u32,
    /// It passed and failed on this run's code, or passed after retries.
    pub flaky: bool,
    /// When it fails now and failed the time before: since when.
    pub failing_since: Option<Since>,
}

/// How a failing test stands against its history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Standing {
    /// It passed the last time it ran, or never ran before.
    New,
    /// It failed the last time it ran too.
    FailingBefore,
    /// It flips on this code.
    Flaky,
}

/// The history of a run's tests that have one worth telling: a failure in
/// the window, or flakiness.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    /// Runs in the window, this one included.
    pub runs: usize,
    /// This run's number in the store.
    pub run: i64,
    /// The commit this run ran, when known.
    pub commit: Option<String>,
    pub tests: HashMap<String, TestHistory>,
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
}

/// Judges every test of the window. The last run of `window.runs` is this
/// one.
pub fn judge(window: &Window) -> History {
    let Some(now) = window.runs.len().checked_sub(1) else {
        return History::default();
    };
    let mut tests = HashMap::new();
    for (id, marks) in &window.marks {
        let failed = marks.iter().filter(|(_, m)| m.failed()).count() as u32;
        let flaky = flips(window, marks);
        if failed == 0 && !flaky {
            continue;
        }
        let history = TestHistory {
            runs: marks.len() as u32,
            failed,
            flaky,
            failing_since: streak(window, marks, now),
        };
        tests.insert(id.clone(), history);
    }
    History {
        runs: window.runs.len(),
        run: window.runs[now].id,
        commit: window.runs[now].commit.clone(),
        tests,
    }
}

/// Whether the test's marks, oldest first, leave it flaky: a flip between
/// two runs of the same code, or a pass after failing attempts, makes it
/// so; a flip that comes with a change of the code clears it.
fn flips(window: &Window, marks: &[(usize, Mark)]) -> bool {
    let code = |i: usize| window.runs[i].code.as_deref();
    let mut flaky = false;
    let mut before: Option<(usize, Mark)> = None;
    for &(i, mark) in marks {
        if mark == Mark::Flaky {
            flaky = true;
        } else if let Some((j, was)) = before
            && was.failed() != mark.failed()
        {
            let same = code(i).is_some() && code(i) == code(j);
            flaky = same;
        }
        before = Some((i, mark));
    }
    flaky
}

/// The streak of failures ending with this run, when it is longer than
/// this run alone.
fn streak(window: &Window, marks: &[(usize, Mark)], now: usize) -> Option<Since> {
    let (last, mark) = marks.last()?;
    if *last != now || !mark.failed() {
        return None;
    }
    let runs = marks.iter().rev().take_while(|(_, m)| m.failed()).count();
    if runs < 2 {
        return None;
    }
    let first = &window.runs[marks[marks.len() - runs].0];
    Some(Since {
        run: first.id,
        commit: first.commit.clone(),
        runs: runs as u32,
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
