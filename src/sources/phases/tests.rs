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
fn expected(outcome: Outcome, phase: Phase, message: &str, others: &[(Phase, &str)]) -> TestResult {
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
        // pytest's JUnit has only the total; the others time each phase.
        if reader != "junit" {
            let p = test.phase_times().expect("phases");
            let close = |a: f64, b: f64| (a - b).abs() < 1e-4;
            assert!(
                close(p.setup, 0.5) && close(p.call, 1.0) && close(p.teardown, 0.25),
                "{reader}: {p:?}"
            );
        }
        // Where each format puts the test is its own matter.
        (test.duration, test.phases, test.location) = (None, None, None);
        assert_eq!(test, want, "{reader}");
    }
}

#[test]
fn a_test_is_timed_by_its_phases_and_a_time_no_phase_can_have_is_left_out() {
    let mut t = TestResult::new("t.py::a", Outcome::Passed);
    time(
        &mut t,
        [
            (Phase::Setup, 0.5),
            (Phase::Call, f64::NAN),
            (Phase::Call, 1.0),
            (Phase::Teardown, -1.0),
            (Phase::Teardown, 0.5),
        ],
    );
    assert_eq!(t.duration, Some(2.0));
    let p = t.phase_times().expect("phases");
    assert!(
        (p.setup - 0.5).abs() < 1e-4
            && (p.call - 1.0).abs() < 1e-4
            && (p.teardown - 0.5).abs() < 1e-4
    );
    let mut none = TestResult::new("t.py::b", Outcome::Passed);
    time(&mut none, [(Phase::Call, -2.0)]);
    assert_eq!((none.duration, none.phases), (None, None));
    // A test that took no time has a duration and no split.
    time(&mut none, [(Phase::Call, 0.0)]);
    assert_eq!((none.duration, none.phases), (Some(0.0), None));
}
