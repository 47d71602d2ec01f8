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

/// The sum of durations is exact: any grouping of its terms, and any
/// order, gives the same bits, as a floating-point fold does not.
#[test]
fn a_duration_sum_is_the_same_in_any_grouping() {
    let durations = [0.1, 0.35, 0.7, 0.45, 0.15, 0.2, 0.3, 1e-9, 123.456_789];
    let whole = DurationSum::of(durations);
    for cut in 0..=durations.len() {
        let (a, b) = durations.split_at(cut);
        let mut parts = DurationSum::of(b.iter().rev().copied());
        parts.join(DurationSum::of(a.iter().copied()));
        assert_eq!(parts, whole, "cut at {cut}");
        assert_eq!(parts.secs().to_bits(), whole.secs().to_bits());
    }
    let fold = |d: &[f64]| d.iter().fold(0.0, |a, d| a + d);
    let (a, b) = durations.split_at(1);
    assert_ne!(fold(&durations), fold(a) + fold(b), "a fold's would differ");
    // Rounded to the nanosecond, then divided once: the decimal sum.
    assert_eq!(DurationSum::of([0.1, 0.2]).secs(), 0.3);
}

/// Nothing yet: +0.0 (an empty `sum()` of floats is -0.0). What no
/// reader gives keeps the sum exact: a time that is not finite counts as
/// nothing, a negative one is summed, a huge one counts as 292 years.
#[test]
fn a_duration_sum_of_odd_terms() {
    assert!(DurationSum::default().secs().is_sign_positive());
    assert_eq!(DurationSum::default().secs(), 0.0);
    assert_eq!(
        DurationSum::of([1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY]).secs(),
        1.0
    );
    assert_eq!(DurationSum::of([1.5, -0.5]).secs(), 1.0);
    let bound = i64::MAX as f64 / 1e9;
    assert_eq!(DurationSum::of([1e300]).secs(), bound);
    assert_eq!(DurationSum::of([1e300, 1e300, -1e300]).secs(), bound);
    assert_eq!(DurationSum::of([-1e300]).secs(), i64::MIN as f64 / 1e9);
}

/// A run's duration without a recorded one: the exact sum, the same bits
/// as the counted read's `Unlisted::tests_duration`.
#[test]
fn a_runs_duration_is_the_exact_sum_of_its_tests() {
    let mut run = Run::default();
    for (id, d) in [
        ("t.py::a", Some(0.1)),
        ("t.py::b", None),
        ("t.py::c", Some(0.2)),
    ] {
        let mut t = TestResult::new(id, Outcome::Passed);
        t.duration = d;
        run.tests.push(t);
    }
    assert_eq!(run.duration_secs(), 0.3);
    assert_ne!(0.1 + 0.2, 0.3);
    run.duration = Some(5.0);
    assert_eq!(run.duration_secs(), 5.0);
    run.duration = None;
    run.tests.clear();
    assert!(run.duration_secs().is_sign_positive());
}
