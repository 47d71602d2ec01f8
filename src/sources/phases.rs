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

use crate::model::{Outcome, Phase, TestResult};

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

/// A test's duration: the sum of its phases' durations, `None` when none
/// has one. A duration no phase can have (negative, not finite) is left out.
pub(super) fn total_duration(durations: impl IntoIterator<Item = f64>) -> Option<f64> {
    let durations: Vec<f64> = durations
        .into_iter()
        .filter(|d| d.is_finite() && *d >= 0.0)
        .collect();
    (!durations.is_empty()).then(|| durations.iter().sum())
}

/// Two durations of one test added up; either alone stands.
pub(super) fn add_durations(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a + b),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(phase: Phase, message: &str) -> Failure {
        Failure {
            phase,
            message: Some(message.to_string()),
            traceback: Some(format!("E   {message}")),
        }
    }

    /// What a test whose phase `phase` decided, with `others` recorded
    /// after it, must look like (built with the model's own API, so that
    /// how the model stores the other phases does not matter here).
    fn expected(
        outcome: Outcome,
        phase: Phase,
        message: &str,
        others: &[(Phase, &str)],
    ) -> TestResult {
        let mut test = TestResult::new("t.py::a", outcome);
        test.phase = Some(phase);
        test.set_message(Some(message.to_string()));
        test.set_traceback(Some(format!("E   {message}")));
        for (p, m) in others {
            test.add_phase_failure(*p, Some(m), Some(&format!("E   {m}")));
        }
        test
    }

    #[test]
    fn the_strongest_earliest_phase_decides_and_the_others_follow_in_order() {
        use Phase::{Call, Setup, Teardown};
        type Case<'a> = (
            &'a [(Phase, &'a str)],
            Outcome,
            (Phase, &'a str),
            &'a [(Phase, &'a str)],
        );
        let cases: [Case; 4] = [
            // A teardown error beats the call's failure.
            (
                &[(Call, "assert 1 == 2"), (Teardown, "boom")],
                Outcome::Error,
                (Teardown, "boom"),
                &[(Call, "assert 1 == 2")],
            ),
            // Among errors the earliest decides.
            (
                &[(Setup, "no db"), (Call, "x"), (Teardown, "still no db")],
                Outcome::Error,
                (Setup, "no db"),
                &[(Call, "x"), (Teardown, "still no db")],
            ),
            (
                &[(Call, "x"), (Setup, "late")],
                Outcome::Error,
                (Setup, "late"),
                &[(Call, "x")],
            ),
            (&[(Call, "x")], Outcome::Failed, (Call, "x"), &[]),
        ];
        for (failing, outcome, (phase, message), others) in cases {
            let mut test = TestResult::new("t.py::a", Outcome::Passed);
            let list = failing.iter().map(|(p, m)| failure(*p, m)).collect();
            assert_eq!(fold_failures(&mut test, list), Some(outcome), "{failing:?}");
            let want = expected(Outcome::Passed, phase, message, others);
            assert_eq!(test, want, "{failing:?}");
            assert_eq!(outcome_of(failing.iter().map(|(p, _)| *p)), Some(outcome));
        }
        let mut nothing = TestResult::new("t.py::a", Outcome::Passed);
        assert_eq!(fold_failures(&mut nothing, Vec::new()), None);
        assert_eq!(nothing, TestResult::new("t.py::a", Outcome::Passed));
        assert_eq!(outcome_of([]), None);
    }

    /// A test that failed in its call and errored in teardown, as each of
    /// pytest's three records tells it.
    const JSON: &str = r#"{"tests": [{"nodeid": "t.py::test_a", "outcome": "error",
        "setup": {"outcome": "passed", "duration": 0.5},
        "call": {"outcome": "failed", "duration": 1.0, "crash": {"message": "assert 1 == 2"}, "longrepr": "E   assert 1 == 2"},
        "teardown": {"outcome": "failed", "duration": 0.25, "crash": {"message": "boom"}, "longrepr": "E   boom"}}]}"#;
    const EVENTS: &str = r#"{"event": "start", "nodeid": "t.py::test_a"}
{"event": "report", "nodeid": "t.py::test_a", "when": "setup", "outcome": "passed", "duration": 0.5}
{"event": "report", "nodeid": "t.py::test_a", "when": "call", "outcome": "failed", "duration": 1.0, "longrepr": "E   assert 1 == 2", "message": "assert 1 == 2"}
{"event": "report", "nodeid": "t.py::test_a", "when": "teardown", "outcome": "failed", "duration": 0.25, "longrepr": "E   boom", "message": "boom"}
{"event": "finish", "nodeid": "t.py::test_a"}
"#;
    const JUNIT: &str = r#"<testsuites name="pytest tests"><testsuite name="pytest">
<testcase classname="t" name="test_a" file="t.py" time="1.5"><failure message="assert 1 == 2">E   assert 1 == 2</failure></testcase>
<testcase classname="t" name="test_a" file="t.py" time="0.25"><error message="failed on teardown with &quot;boom&quot;">E   boom</error></testcase>
</testsuite></testsuites>"#;

    #[test]
    fn every_reader_folds_a_call_failure_and_a_teardown_error_alike() {
        let json = crate::sources::json_report::parse(JSON.as_bytes(), "r.json", false).unwrap();
        let events = crate::sources::events::EventLog::parse(EVENTS).to_run();
        let junit = crate::sources::junit::parse(JUNIT.as_bytes(), "r.xml").unwrap();
        let mut want = TestResult::new("t.py::test_a", Outcome::Error);
        want.phase = Some(Phase::Teardown);
        want.set_message(Some("boom".to_string()));
        want.set_traceback(Some("E   boom".to_string()));
        want.add_phase_failure(
            Phase::Call,
            Some("assert 1 == 2"),
            Some("E   assert 1 == 2"),
        );
        for (reader, run) in [("json", json), ("events", events), ("junit", junit)] {
            assert_eq!(run.tests.len(), 1, "{reader}");
            let mut test = run.tests[0].clone();
            assert_eq!(test.duration, Some(1.75), "{reader}");
            // Where each format puts the test is its own matter.
            (test.duration, test.location) = (None, None);
            assert_eq!(test, want, "{reader}");
        }
    }
}
