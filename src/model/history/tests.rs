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
                ..RunInfo::default()
            })
            .collect(),
        marks: marks
            .iter()
            .map(|(id, m)| {
                let entries = m
                    .iter()
                    .map(|&(run, mark)| Entry {
                        run,
                        mark,
                        duration: None,
                    })
                    .collect();
                (id.to_string(), entries)
            })
            .collect(),
    }
}

fn judge(w: &Window) -> History {
    super::judge(w, Rules::default())
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
fn after_an_edit_a_flaky_test_stays_flaky_and_its_pass_is_no_fix() {
    // Flipped on code a; on code b it passed once, then fails on c.
    let w = window(
        &["a", "a", "a", "b", "c"],
        &[("flip", &[(0, F), (1, P), (2, F), (3, P), (4, F)])],
    );
    let h = judge(&w);
    let flip = h.of("flip").expect("a history");
    assert!(flip.flaky);
    assert_eq!(flip.state, State::Flaky);
    assert_eq!(flip.failing_since, None);
    let mut t = TestResult::new("flip", Outcome::Failed);
    assert_eq!(h.standing(&t), Some(Standing::Flaky));
    t.outcome = Outcome::Passed;
    assert_eq!(h.standing(&t), None);
    assert!(h.is_flaky("flip"), "its pass fixes nothing");
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
    assert_eq!(flip.recent, [P, P, F, F]);
    assert_eq!(flip.last(3), [P, F, F]);
    // Three failures in a row: failing, flaky before, since the first.
    let w = window(
        &["a", "b", "b", "c", "d"],
        &[("flip", &[(0, P), (1, P), (2, F), (3, F), (4, F)])],
    );
    let flip = judge(&w).of("flip").cloned().expect("a history");
    assert!(!flip.flaky);
    assert!(flip.flaky_before);
    assert_eq!(flip.state, State::Failing);
    let since = flip.failing_since.expect("since");
    assert_eq!((since.run, since.runs), (3, 3));
}

#[test]
fn five_clean_passes_clear_a_flaky_test_and_its_next_failure_is_new() {
    let w = window(
        &["a", "a", "b", "c", "d", "e", "f", "g"],
        &[(
            "flip",
            &[
                (0, F),
                (1, P),
                (2, P),
                (3, P),
                (4, P),
                (5, P),
                (6, P),
                (7, F),
            ],
        )],
    );
    let h = judge(&w);
    let flip = h.of("flip").expect("a history");
    assert!(!flip.flaky);
    assert_eq!(
        h.standing(&TestResult::new("flip", Outcome::Failed)),
        Some(Standing::New)
    );
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
    let mut retried = TestResult::new("c", Outcome::Failed);
    retried.set_reruns(vec![crate::model::Attempt::failed(None)]);
    run.tests.push(retried);
    let got: Vec<(&str, Mark)> = marks(&run).iter().map(|r| (r.id, r.mark)).collect();
    assert_eq!(got, vec![("a", F), ("b", P), ("c", Mark::FailedAll)]);
}

#[test]
fn marks_keep_the_durations_and_phases() {
    let mut run = crate::model::Run::default();
    let mut t = TestResult::new("a", Outcome::Passed);
    t.duration = Some(2.0);
    t.phases = crate::model::PhaseSplit::of(1.0, 0.5, 0.5);
    run.tests.push(t);
    let r = marks(&run)[0];
    assert_eq!(r.duration, Some(2.0));
    let (setup, teardown) = r.setup_teardown.expect("phases");
    assert!((setup - 1.0).abs() < 1e-4 && (teardown - 0.5).abs() < 1e-4);
}

#[test]
fn a_test_twice_as_slow_and_a_second_more_than_its_median_is_slower_than_usual() {
    let timed = |durations: &[f64], codes: usize| {
        let mut w = window(&vec!["a"; codes], &[("t", &[])]);
        w.marks.insert(
            "t".into(),
            durations
                .iter()
                .enumerate()
                .map(|(run, &d)| Entry {
                    run,
                    mark: P,
                    duration: Some(d),
                })
                .collect(),
        );
        judge(&w)
    };
    let h = timed(&[1.0, 1.2, 0.8, 3.1], 4);
    let t = h.of("t").expect("slower");
    assert!(t.slower);
    assert_eq!(t.median, Some(1.0));
    assert_eq!(t.state, State::Passing);
    let mut run = crate::model::Run::default();
    let mut now = TestResult::new("t", Outcome::Passed);
    now.duration = Some(3.1);
    run.tests.push(now);
    assert_eq!(h.slower(&run).len(), 1);
    // Twice as slow but not a second more; a second more but not twice.
    assert_eq!(timed(&[0.1, 0.1, 0.9], 3).of("t"), None);
    assert_eq!(timed(&[1.5, 1.5, 2.6], 3).of("t"), None);
}

#[test]
fn the_trend_is_the_windows_runs_oldest_first() {
    let mut w = window(&["a", "b"], &[]);
    w.runs[1].passed = 7;
    let h = judge(&w);
    assert_eq!(h.trend.len(), 2);
    assert_eq!((h.trend[0].id, h.trend[1].passed), (1, 7));
}

#[test]
fn an_empty_window_judges_nothing() {
    assert_eq!(judge(&Window::default()), History::default());
}

#[test]
fn mark_codes_round_trip_and_unknown_codes_are_none() {
    for m in [P, F, R, Mark::FailedAll] {
        assert_eq!(Mark::from_code(m.code()), Some(m));
    }
    assert_eq!(Mark::from_code(7), None);
}
