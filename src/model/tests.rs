use super::*;

/// A large report holds one of these per test: growing it is a cost
/// every `report` on 100,000 tests pays (see BENCHMARKS.md).
#[test]
fn a_test_result_stays_small() {
    assert!(std::mem::size_of::<TestResult>() <= 80);
}

#[test]
fn setting_nothing_allocates_no_details() {
    let mut t = TestResult::new("t.py::a", Outcome::Passed);
    t.set_message(None);
    t.set_reruns(Vec::new());
    t.clear_capture();
    assert!(t.details().is_none());
    t.set_stdout(Some("out".into()));
    assert_eq!(t.stdout(), Some("out"));
    t.set_details(Some(Box::default()));
    assert!(t.details().is_none(), "empty details are stored as none");
    assert_eq!(t, TestResult::new("t.py::a", Outcome::Passed));
}

#[test]
fn other_phases_stay_apart_and_join_as_before() {
    let mut t = TestResult::new("t.py::a", Outcome::Error);
    t.set_message(Some("RuntimeError: closed".into()));
    t.set_traceback(Some("db.py:24: RuntimeError".into()));
    t.add_phase_failure(
        Phase::Call,
        Some("assert 2 == 3"),
        Some("t.py:9: AssertionError"),
    );
    t.add_phase_failure(Phase::Setup, None, Some("  \n"));
    assert_eq!(t.message(), Some("RuntimeError: closed"));
    assert_eq!(t.traceback(), Some("db.py:24: RuntimeError"));
    assert_eq!(t.phase_failures().len(), 2);
    assert_eq!(
        t.phase_failures()[1].traceback,
        None,
        "a blank traceback is none"
    );
    assert_eq!(
        t.joined_message().as_deref(),
        Some(
            "RuntimeError: closed\ncall also failed: assert 2 == 3\nsetup also failed: (no message)"
        )
    );
    assert_eq!(
        t.joined_traceback().as_deref(),
        Some("db.py:24: RuntimeError\n\n[call]\nt.py:9: AssertionError")
    );
    // Without a message or traceback of its own, the other phase's alone.
    let mut u = TestResult::new("t.py::b", Outcome::Failed);
    u.add_phase_failure(Phase::Teardown, Some("boom"), Some("tb"));
    assert_eq!(
        u.joined_message().as_deref(),
        Some("teardown also failed: boom")
    );
    assert_eq!(u.joined_traceback().as_deref(), Some("[teardown]\ntb"));
    assert_eq!(u.message(), None);
}

#[test]
fn a_flaky_summary_counts_attempts_and_quotes_the_first_message() {
    let mut t = TestResult::new("t.py::a", Outcome::Passed);
    t.set_reruns(vec![
        Attempt::failed(Some("\n  first\nmore".into())),
        Attempt {
            outcome: Outcome::Error,
            message: None,
            location: None,
        },
    ]);
    assert_eq!(
        t.flaky_summary(),
        "passed after 2 failed attempts (first: first)"
    );
    t.set_reruns(vec![Attempt::failed(None)]);
    assert_eq!(t.flaky_summary(), "passed after 1 failed attempt");
}
