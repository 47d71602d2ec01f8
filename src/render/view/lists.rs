//! The lists beside the failure groups, one rule each for every output:
//! skips by reason, tests that passed only after failing, the slowest
//! tests.

use std::borrow::Cow;

use foldhash::{HashMap, HashMapExt};

use crate::model::history::Standing;
use crate::model::{Outcome, Run, TestResult, Xfail};
use crate::text::first_line;

/// The skipped tests (xfailed ones included) grouped by reason.
#[derive(Debug, Default)]
pub struct SkipReasons<'r> {
    /// How many tests were skipped.
    pub total: usize,
    /// Each reason (`XFAIL: ...` for an expected failure) and how many
    /// tests gave it, in order of first appearance.
    pub reasons: Vec<(Cow<'r, str>, usize)>,
}

impl SkipReasons<'_> {
    /// How many reasons, and tests, the first `shown` reasons leave out.
    pub fn beyond(&self, shown: usize) -> Option<(usize, usize)> {
        let rest = self.reasons.get(shown..).filter(|r| !r.is_empty())?;
        Some((rest.len(), rest.iter().map(|(_, n)| n).sum()))
    }
}

/// The run's skips by reason. Reasons are borrowed from the tests where
/// they can be: there may be thousands of skips.
pub fn skip_reasons(run: &Run) -> SkipReasons<'_> {
    let mut reasons: Vec<(Cow<'_, str>, usize)> = Vec::new();
    let mut index: HashMap<Cow<'_, str>, usize> = HashMap::new();
    let mut total = 0;
    for t in run.tests.iter().filter(|t| t.outcome == Outcome::Skipped) {
        total += 1;
        let reason = match (t.xfail, t.message()) {
            (Some(Xfail::XFailed), Some(r)) if !r.is_empty() => {
                Cow::Owned(format!("XFAIL: {}", first_line(r)))
            }
            (Some(Xfail::XFailed), _) => Cow::Borrowed("XFAIL"),
            (_, Some(r)) if !r.trim().is_empty() => Cow::Borrowed(first_line(r)),
            _ => Cow::Borrowed("(no reason given)"),
        };
        match index.get(&reason) {
            Some(&i) => reasons[i].1 += 1,
            None => {
                index.insert(reason.clone(), reasons.len());
                reasons.push((reason, 1));
            }
        }
    }
    SkipReasons { total, reasons }
}

/// How the run's failing tests stand against the history of runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Standings {
    /// Runs in the history's window, this one included.
    pub runs: usize,
    pub new: usize,
    pub failing_before: usize,
    pub flaky: usize,
}

/// The failing tests by standing, when a history of runs was kept.
pub fn standings(run: &Run) -> Option<Standings> {
    let h = run.history.as_ref()?;
    let mut s = Standings {
        runs: h.runs,
        ..Standings::default()
    };
    for t in &run.tests {
        match h.standing(t) {
            Some(Standing::New) => s.new += 1,
            Some(Standing::FailingBefore) => s.failing_before += 1,
            Some(Standing::Flaky) => s.flaky += 1,
            None => {}
        }
    }
    Some(s)
}

/// The tests that passed only after failing attempts, in the run's order.
pub fn flaky(run: &Run) -> Vec<&TestResult> {
    run.tests.iter().filter(|t| t.is_flaky()).collect()
}

/// The `n` slowest tests with a finite duration, slowest first (ties in
/// the run's order), as indices into [`Run::tests`] and seconds.
pub fn slowest(run: &Run, n: usize) -> Vec<(usize, f64)> {
    let mut timed: Vec<(usize, f64)> = Vec::new();
    if n == 0 {
        return timed;
    }
    for (i, t) in run.tests.iter().enumerate() {
        let Some(d) = t.duration.filter(|d| d.is_finite()) else {
            continue;
        };
        if timed.len() == n && timed.last().is_some_and(|(_, last)| d <= *last) {
            continue;
        }
        let at = timed.partition_point(|(_, x)| *x >= d);
        timed.insert(at, (i, d));
        timed.truncate(n);
    }
    timed
}
