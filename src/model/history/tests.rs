use super::*;
use crate::model::{Outcome, TestResult};

fn window(codes: &[&str], marks: &[(&str, &[(usize, Mark)])]) -> Window {
    Window {
        runs: codes
            .iter()
            .enumerate()
            .map(|(i, code)| RunInfo {
                id: i as i64 + 1,
                commit: Some(format!("c{}", code)),
                code: Some(code.to_string()),
            })
            .collect(),
        marks: marks
            .iter()
            .map(|(id, m)| (id.to_string(), m.to_vec()))
            .collect(),
    }
}

use Mark::{Failed as F, Flaky as R, Passed as P};

#[test]
fn a_flip_on_the_same_code_is_flaky_with_its_rate() {
    let w = window(
        &["a"; 5],
        &[("flip", &[(0, F), (1, P), (2, F), (3, P), (4, F)])],
    );
    let h = judge(&w);
    let flip = h.of("flip").expect("a history");
    assert!(flip.flaky);
    assert_eq!((flip.runs, flip.failed), (5, 3));
    assert_eq!(flip.failing_since, None);
    assert_eq!(h.runs, 5);
    assert_eq!(h.run, 5);
}

#[test]
fn a_test_failing_every_run_is_failing_since_the_first() {
    let w = window(
        &["a"; 5],
        &[("bad", &[(0, F), (1, F), (2, F), (3, F), (4, F)])],
    );
    let h = judge(&w);
    let bad = h.of("bad").expect("a history");
    assert!(!bad.flaky);
    assert_eq!(
        bad.failing_since,
        Some(Since {
            run: 1,
            commit: Some("ca".into()),
            runs: 5
        })
    );
}

#[test]
fn after_an_edit_a_flip_is_a_change_not_flakiness() {
    // Flipped on code a; on code b it passed once, then fails.
    let w = window(
        &["a", "a", "a", "b", "c"],
        &[("flip", &[(0, F), (1, P), (2, F), (3, P), (4, F)])],
    );
    let h = judge(&w);
    let flip = h.of("flip").expect("a history");
    assert!(!flip.flaky);
    assert_eq!(flip.failing_since, None);
    let mut t = TestResult::new("flip", Outcome::Failed);
    assert_eq!(h.standing(&t), Some(Standing::New));
    t.outcome = Outcome::Passed;
    assert_eq!(h.standing(&t), None);
}

#[test]
fn a_change_of_the_code_that_keeps_the_outcome_keeps_it_flaky() {
    // Flipped on commit b; failing before and after the move to c.
    let w = window(
        &["a", "b", "b", "c"],
        &[("flip", &[(0, P), (1, P), (2, F), (3, F)])],
    );
    let flip = judge(&w).of("flip").cloned().expect("a history");
    assert!(flip.flaky);
    assert_eq!((flip.failed, flip.runs), (2, 4));
    // A fix on d (it passes), then a failure on e: a change, not a flip.
    let w = window(
        &["b", "b", "d", "e"],
        &[("flip", &[(0, P), (1, F), (2, P), (3, F)])],
    );
    assert!(!judge(&w).of("flip").is_some_and(|t| t.flaky));
}

#[test]
fn passing_after_retries_on_this_code_makes_a_later_failure_flaky() {
    let w = window(&["a", "a"], &[("t", &[(0, R), (1, F)])]);
    let h = judge(&w);
    assert!(h.of("t").is_some_and(|t| t.flaky));
    assert_eq!(
        h.standing(&TestResult::new("t", Outcome::Error)),
        Some(Standing::Flaky)
    );
}

#[test]
fn unknown_code_is_never_the_same_code() {
    let mut w = window(&["a", "a"], &[("t", &[(0, P), (1, F)])]);
    for r in &mut w.runs {
        r.code = None;
    }
    let h = judge(&w);
    assert!(!h.of("t").is_some_and(|t| t.flaky));
}

#[test]
fn a_test_that_always_passed_has_nothing_to_tell() {
    let w = window(&["a", "a"], &[("ok", &[(0, P), (1, P)])]);
    let h = judge(&w);
    assert_eq!(h.of("ok"), None);
    assert_eq!(
        h.standing(&TestResult::new("ok", Outcome::Failed)),
        Some(Standing::New)
    );
}

#[test]
fn a_streak_counts_only_runs_the_test_ran_in() {
    // The test did not run in run 2 (index 1): runs 1 and 3 are in a row.
    let w = window(&["a", "b", "c"], &[("t", &[(0, F), (2, F)])]);
    let since = judge(&w).of("t").and_then(|t| t.failing_since.clone());
    assert_eq!(since.map(|s| (s.run, s.runs)), Some((1, 2)));
}

#[test]
fn marks_fold_an_id_listed_twice_failing_when_any_failed() {
    let mut run = crate::model::Run::default();
    run.tests.push(TestResult::new("a", Outcome::Passed));
    run.tests.push(TestResult::new("a", Outcome::Failed));
    run.tests.push(TestResult::new("s", Outcome::Skipped));
    run.tests.push(TestResult::new("b", Outcome::Passed));
    assert_eq!(marks(&run), vec![("a", F), ("b", P)]);
}

#[test]
fn an_empty_window_judges_nothing() {
    assert_eq!(judge(&Window::default()), History::default());
}

#[test]
fn mark_codes_round_trip_and_unknown_codes_are_none() {
    for m in [P, F, R] {
        assert_eq!(Mark::from_code(m.code()), Some(m));
    }
    assert_eq!(Mark::from_code(7), None);
}
