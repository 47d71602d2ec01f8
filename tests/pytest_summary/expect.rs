//! What our model must report for a run, derived from pytest's output with
//! ARCHITECTURE.md's rules.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::terminal::Terminal;

/// The ADR-006 `summary` counts (duration left out).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    pub total: usize,
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    pub errors: usize,
    pub xfailed: usize,
    pub xpassed: usize,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "total {}, passed {}, failed {}, skipped {}, errors {}, xfailed {}, xpassed {}",
            self.total,
            self.passed,
            self.failed,
            self.skipped,
            self.errors,
            self.xfailed,
            self.xpassed
        )
    }
}

/// The expected result of one pytest run.
#[derive(Debug, Clone)]
pub struct Expected {
    pub summary: Summary,
    pub collection_errors: usize,
    /// ADR-006 outcome of every test the `-rA` lines name.
    pub outcomes: BTreeMap<String, &'static str>,
    /// Skipped tests, which `-rA` counts but does not name.
    pub unnamed_skipped: usize,
}

/// pytest counts *reports*, our model counts *tests*: a test that passed
/// (or failed) and then errored in teardown is one `PASSED` (or `FAILED`)
/// line and one `ERROR` line, and one test with outcome `error` for us.
/// Per test id the strongest outcome wins:
/// ERROR > FAILED > SKIPPED/XFAIL > PASSED/XPASS. xfail counts as skipped,
/// a non-strict xpass as passed (ARCHITECTURE.md); a strict xpass is a `FAILED`
/// line and a failure. The `ERROR` lines of collectors (see
/// `Terminal::collection_error_ids`) are collection errors, not tests.
///
/// Limit: `SKIPPED [N]` lines name a place, not a test, so a test skipped
/// in its call that then errors in teardown would count once as skipped
/// and once as an error here. No project used by this file does that.
pub fn from_terminal(t: &Terminal) -> Expected {
    let set = |ids: &[String]| ids.iter().cloned().collect::<BTreeSet<String>>();
    let collection_errors = set(t.collection_error_ids());
    let errors: BTreeSet<String> = set(&t.lines.errors)
        .difference(&collection_errors)
        .cloned()
        .collect();
    let failed: BTreeSet<String> = set(&t.lines.failed).difference(&errors).cloned().collect();
    let problems: BTreeSet<String> = errors.union(&failed).cloned().collect();
    let xfailed: BTreeSet<String> = set(&t.lines.xfailed)
        .difference(&problems)
        .cloned()
        .collect();
    // An xfail-marked test whose call passed and whose teardown raised is
    // `XPASS` + `XFAIL at teardown of`: xfailed is the stronger.
    let xpassed: BTreeSet<String> = set(&t.lines.xpassed)
        .difference(&problems)
        .filter(|id| !xfailed.contains(*id))
        .cloned()
        .collect();
    let passed: BTreeSet<String> = set(&t.lines.passed)
        .union(&xpassed)
        .filter(|id| !problems.contains(*id) && !xfailed.contains(*id))
        .cloned()
        .collect();

    let mut outcomes = BTreeMap::new();
    for (ids, outcome) in [
        (&passed, "passed"),
        (&xfailed, "skipped"),
        (&failed, "failed"),
        (&errors, "error"),
    ] {
        for id in ids {
            outcomes.insert(id.clone(), outcome);
        }
    }

    let skipped = t.lines.skipped + xfailed.len();
    Expected {
        summary: Summary {
            total: passed.len() + failed.len() + skipped + errors.len(),
            passed: passed.len(),
            failed: failed.len(),
            skipped,
            errors: errors.len(),
            xfailed: xfailed.len(),
            xpassed: xpassed.len(),
        },
        collection_errors: collection_errors.len(),
        outcomes,
        unnamed_skipped: t.lines.skipped,
    }
}

/// The exit status our model derives when no source recorded pytest's
/// (`Run::exit_code`): 2 for collection errors, 1 for failures or errors,
/// 5 for no tests, else 0.
pub fn derived_exit_code(summary: &Summary, collection_errors: usize) -> i32 {
    if collection_errors > 0 {
        2
    } else if summary.failed + summary.errors > 0 {
        1
    } else if summary.total == 0 {
        5
    } else {
        0
    }
}
