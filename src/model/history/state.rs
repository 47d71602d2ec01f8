//! The state machine of one test across the runs of the window
//! (docs/flaky.md draws it): passing, failing, or flaky, and how it got
//! there. Pure: the test's runs, oldest first, in; its [`Verdict`] out.
//!
//! Flakiness is evidence about the test, not about one commit: a test
//! that flipped on unchanged code stays flaky across code changes (CI's
//! next commit, the agent's unrelated edit) until it passes a streak of
//! clean runs, or the evidence leaves the window. Two things end the
//! benefit of the doubt while it is flaky: failing every attempt of a run
//! with retries, or failing several runs in a row; then it is failing
//! again, and says it was flaky before.

use std::collections::HashMap;

use super::Mark;

/// The numbers of the rule, `--flaky-passes` and `--flaky-failures`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// Clean passes in a row, after its last flaky evidence, that make a
    /// flaky test passing again.
    pub clear_after: u32,
    /// Failures in a row that make a flaky test failing.
    pub failing_after: u32,
}

/// Clean passes in a row that clear a flaky test when not told otherwise.
pub const CLEAR_AFTER: u32 = 5;
/// Failures in a row that make a flaky test failing when not told
/// otherwise.
pub const FAILING_AFTER: u32 = 3;

impl Default for Rules {
    fn default() -> Self {
        Rules {
            clear_after: CLEAR_AFTER,
            failing_after: FAILING_AFTER,
        }
    }
}

/// One run of the test: what the code was and how the test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step<'a> {
    /// The code it ran; `None` when unknown, the same code as no other.
    pub code: Option<&'a str>,
    pub mark: Mark,
}

/// Where a test stands after its last run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum State {
    /// It passed its last run, and no flaky evidence is alive.
    #[default]
    Passing,
    /// It failed its last run, and is not flaky (or was, and failed every
    /// attempt or several runs in a row since: [`Verdict::flaky_before`]).
    Failing,
    /// It has flaky evidence that no streak of clean passes has cleared;
    /// its last run passed or failed.
    Flaky,
}

impl State {
    /// The word the JSON report uses.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Passing => "passing",
            State::Failing => "failing",
            State::Flaky => "flaky",
        }
    }
}

/// What the runs say of the test after the last of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    pub state: State,
    /// Failing, after being flaky: it failed every attempt of a run with
    /// retries or [`Rules::failing_after`] runs in a row while flaky.
    pub flaky_before: bool,
    /// Runs in a row it has failed, the last one included; 0 when the last
    /// passed.
    pub failing_for: u32,
    /// The index of the first run of that streak.
    pub failing_from: Option<usize>,
}

/// Whether this run's outcome is flaky evidence: it passed after failed
/// attempts, or, on known code, its outcome differs from the last run of
/// the same code. A run that failed every attempt is a failure the
/// retries confirmed, not evidence.
fn evidence(step: &Step<'_>, last_of_code: &HashMap<&str, bool>) -> bool {
    match step.mark {
        Mark::Flaky => true,
        Mark::FailedAll => false,
        mark => step
            .code
            .and_then(|c| last_of_code.get(c))
            .is_some_and(|&failed| failed != mark.failed()),
    }
}

/// The state after `steps` (oldest first; empty: passing).
pub fn walk(steps: &[Step<'_>], rules: Rules) -> Verdict {
    let mut last_of_code: HashMap<&str, bool> = HashMap::new();
    let mut flaky = false;
    let mut broken = false;
    let mut clean = 0u32;
    let mut streak = 0u32;
    for step in steps {
        let failed = step.mark.failed();
        if evidence(step, &last_of_code) {
            flaky = true;
            clean = 0;
        } else if step.mark == Mark::Passed {
            clean += 1;
            if clean >= rules.clear_after {
                flaky = false;
            }
        } else {
            clean = 0;
        }
        if let Some(code) = step.code {
            last_of_code.insert(code, failed);
        }
        streak = if failed { streak + 1 } else { 0 };
        if !failed || !flaky {
            broken = false;
        } else if step.mark == Mark::FailedAll || streak >= rules.failing_after {
            broken = true;
        }
    }
    let failing = steps.last().is_some_and(|s| s.mark.failed());
    let state = match (flaky && !broken, failing) {
        (true, _) => State::Flaky,
        (false, true) => State::Failing,
        (false, false) => State::Passing,
    };
    Verdict {
        state,
        flaky_before: broken,
        failing_for: streak,
        failing_from: (streak > 0).then(|| steps.len() - streak as usize),
    }
}

#[cfg(test)]
mod tests;
