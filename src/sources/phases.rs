//! How the phases of one pytest test fold into one result.
//!
//! pytest runs a test in three phases (setup, call, teardown) and reports
//! each. The JSON report lists them under the test, the event log has one
//! line per phase, and pytest's JUnit writes a second `<testcase>` for a
//! test whose teardown failed after its call did. Every reader folds them
//! by the rules here, so that the three agree on one test:
//! - a failing call fails the test; a failing setup or teardown makes it an
//!   error, whatever the call did (ARCHITECTURE.md);
//! - the report with the strongest outcome decides (an error beats a
//!   failure, which beats a skip, which beats a pass), the earliest among
//!   equals: it gives the test its phase, message and traceback;
//! - every other failing phase is kept through the model's
//!   [`TestResult::add_phase_failure`], in the order pytest ran them.

use crate::model::{Outcome, Phase, PhaseSplit, TestResult};

/// The phase a pytest report's `when` names; anything unknown is the call.
pub(super) fn phase_of(when: &str) -> Phase {
    match when {
        "setup" => Phase::Setup,
        "teardown" => Phase::Teardown,
        _ => Phase::Call,
    }
}

/// What a failing phase makes of its test.
pub(super) fn failure_outcome(phase: Phase) -> Outcome {
    match phase {
        Phase::Call => Outcome::Failed,
        Phase::Setup | Phase::Teardown => Outcome::Error,
    }
}

/// Whether a later report of a test, with outcome `later`, takes the
/// decision from an earlier one with `earlier`: only a stronger outcome
/// does.
pub(super) fn decides_over(later: Outcome, earlier: Outcome) -> bool {
    later > earlier
}

/// The outcome the failing phases of a test give it, in the order pytest
/// ran them; `None` when none failed.
pub(super) fn outcome_of(failing: impl IntoIterator<Item = Phase>) -> Option<Outcome> {
    failing.into_iter().map(failure_outcome).max()
}

/// A phase that failed, with what its reader read off it.
pub(super) struct Failure {
    pub phase: Phase,
    pub message: Option<String>,
    pub traceback: Option<String>,
}

/// Folds the failing phases of one test (in the order pytest ran them)
/// into it: the deciding one sets its phase, message and traceback, each
/// other one is recorded with [`also_failed`]. Returns the outcome they
/// give the test, `None` when the list is empty (and nothing was set).
pub(super) fn fold_failures(test: &mut TestResult, mut failing: Vec<Failure>) -> Option<Outcome> {
    let mut deciding = 0;
    for (i, f) in failing.iter().enumerate().skip(1) {
        let held = failure_outcome(failing[deciding].phase);
        if decides_over(failure_outcome(f.phase), held) {
            deciding = i;
        }
    }
    if failing.is_empty() {
        return None;
    }
    let first = failing.remove(deciding);
    test.phase = Some(first.phase);
    test.set_message(first.message);
    test.set_traceback(first.traceback);
    for other in &failing {
        also_failed(
            test,
            other.phase,
            other.message.as_deref(),
            other.traceback.as_deref(),
        );
    }
    Some(failure_outcome(first.phase))
}

/// Records on `test` a failing phase that did not decide its outcome.
pub(super) fn also_failed(
    test: &mut TestResult,
    phase: Phase,
    message: Option<&str>,
    traceback: Option<&str>,
) {
    test.add_phase_failure(phase, message, traceback);
}

/// Times `test` by its phases' reports: its duration, their sum (`None`
/// when none has one; a duration no phase can have, negative or not
/// finite, is left out), and how it splits into setup, call and teardown
/// (a phase reported twice, a rerun's, counted in full). No list is made:
/// the JSON report reader calls it for every test.
pub(super) fn time(test: &mut TestResult, reports: impl IntoIterator<Item = (Phase, f64)>) {
    let mut total: Option<f64> = None;
    let mut by_phase = [0.0f64; 3];
    for (phase, d) in reports {
        if !d.is_finite() || d < 0.0 {
            continue;
        }
        total = Some(total.unwrap_or(0.0) + d);
        let at = match phase {
            Phase::Setup => 0,
            Phase::Call => 1,
            Phase::Teardown => 2,
        };
        by_phase[at] += d;
    }
    test.duration = total;
    test.phases = total.and_then(|_| PhaseSplit::of(by_phase[0], by_phase[1], by_phase[2]));
}

/// Two durations of one test added up; either alone stands.
pub(super) fn add_durations(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a + b),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests;
