use super::*;
use Mark::{Failed as F, FailedAll as A, Flaky as R, Passed as P};
use proptest::prelude::*;

/// Steps from `(code, mark)` pairs.
fn steps<'a>(runs: &[(&'a str, Mark)]) -> Vec<Step<'a>> {
    runs.iter()
        .map(|&(code, mark)| Step {
            code: Some(code),
            mark,
        })
        .collect()
}

fn state(runs: &[(&str, Mark)]) -> Verdict {
    walk(&steps(runs), Rules::default())
}

#[test]
fn no_runs_is_passing() {
    let v = walk(&[], Rules::default());
    assert_eq!(v.state, State::Passing);
    assert_eq!((v.failing_for, v.failing_from), (0, None));
}

#[test]
fn a_flip_on_the_same_code_is_flaky_and_stays_flaky_across_commits() {
    // The CI sequence for test_flip: fails then passes on a, passes
    // on b, fails on c and on d.
    let runs = [("a", F), ("a", P), ("b", P), ("c", F), ("d", F)];
    assert_eq!(state(&runs[..2]).state, State::Flaky);
    assert_eq!(state(&runs[..3]).state, State::Flaky);
    assert_eq!(state(&runs[..4]).state, State::Flaky);
    let d = state(&runs);
    assert_eq!(d.state, State::Flaky, "two failures in a row: still flaky");
    assert_eq!((d.failing_for, d.failing_from), (2, Some(3)));
}

#[test]
fn a_flaky_test_failing_three_runs_in_a_row_is_failing_and_was_flaky() {
    let v = state(&[("a", F), ("a", P), ("b", F), ("c", F), ("d", F)]);
    assert_eq!(v.state, State::Failing);
    assert!(v.flaky_before);
    assert_eq!(v.failing_for, 3);
    // It passes again: flaky, its evidence still alive; not passing.
    let v = state(&[("a", F), ("a", P), ("b", F), ("c", F), ("d", F), ("e", P)]);
    assert_eq!(v.state, State::Flaky);
    assert!(!v.flaky_before);
}

#[test]
fn failing_every_attempt_while_flaky_is_failing_at_once() {
    let v = state(&[("a", F), ("a", P), ("b", A)]);
    assert_eq!(v.state, State::Failing);
    assert!(v.flaky_before);
    assert_eq!(v.failing_for, 1);
    // Without flaky evidence, failing every attempt is plain failing.
    let v = state(&[("a", P), ("b", A)]);
    assert_eq!((v.state, v.flaky_before), (State::Failing, false));
}

#[test]
fn a_pass_after_retries_is_evidence_by_itself() {
    assert_eq!(state(&[("a", R)]).state, State::Flaky);
    assert_eq!(state(&[("a", R), ("b", F)]).state, State::Flaky);
}

#[test]
fn five_clean_passes_after_the_last_evidence_clear_it() {
    // The agent's sequence: five runs on a (F P F P F), an unrelated edit,
    // then passes; the pass after the edit is one of the five.
    let mut runs = vec![("a", F), ("a", P), ("a", F), ("a", P), ("a", F)];
    for (n, code) in ["b", "c", "d", "e"].into_iter().enumerate() {
        runs.push((code, P));
        assert_eq!(state(&runs).state, State::Flaky, "after {} passes", n + 1);
    }
    runs.push(("f", P));
    assert_eq!(state(&runs).state, State::Passing);
    // Its next failure, after an edit, is a plain failure: new.
    runs.push(("g", F));
    let v = state(&runs);
    assert_eq!(
        (v.state, v.failing_for, v.flaky_before),
        (State::Failing, 1, false)
    );
}

#[test]
fn passes_on_the_code_it_failed_on_clear_it_too() {
    // The fail on a is behind the last run of a: no evidence again.
    let runs = [
        ("a", F),
        ("a", P),
        ("a", P),
        ("a", P),
        ("a", P),
        ("a", P),
        ("a", P),
    ];
    assert_eq!(state(&runs[..6]).state, State::Flaky);
    assert_eq!(state(&runs).state, State::Passing);
}

#[test]
fn a_flip_against_an_earlier_run_of_the_same_code_counts_across_other_commits() {
    // a passed, b ran between, a failed: a pass and a fail on a.
    assert_eq!(state(&[("a", P), ("b", P), ("a", F)]).state, State::Flaky);
    // A change of the code that changes the outcome is a change.
    assert_eq!(state(&[("a", P), ("b", F)]).state, State::Failing);
}

#[test]
fn a_clean_pass_streak_is_broken_by_a_failure() {
    let runs = [
        ("a", F),
        ("a", P),
        ("b", P),
        ("c", P),
        ("d", F),
        ("e", P),
        ("f", P),
    ];
    assert_eq!(state(&runs).state, State::Flaky);
}

#[test]
fn unknown_code_is_never_the_same_code() {
    let runs = [
        Step {
            code: None,
            mark: P,
        },
        Step {
            code: None,
            mark: F,
        },
    ];
    assert_eq!(walk(&runs, Rules::default()).state, State::Failing);
}

#[test]
fn the_rules_numbers_are_taken() {
    let rules = Rules {
        clear_after: 1,
        failing_after: 2,
    };
    let runs = steps(&[("a", F), ("a", P), ("b", P)]);
    assert_eq!(walk(&runs, rules).state, State::Passing);
    let runs = steps(&[("a", F), ("a", P), ("b", F), ("c", F)]);
    let v = walk(&runs, rules);
    assert_eq!((v.state, v.flaky_before), (State::Failing, true));
}

/// The rule of docs/flaky.md read again, run by run, with no running
/// counts: each question asked of the whole prefix.
fn brute(steps: &[Step<'_>], rules: Rules) -> Verdict {
    let failed = |i: usize| steps[i].mark.failed();
    let evidence = |i: usize| match steps[i].mark {
        Mark::Flaky => true,
        Mark::FailedAll => false,
        _ => {
            steps[i].code.is_some()
                && (0..i)
                    .rev()
                    .find(|&j| steps[j].code == steps[i].code)
                    .is_some_and(|j| failed(j) != failed(i))
        }
    };
    let clear = rules.clear_after as usize;
    // Flaky after run i: its latest evidence e has no `clear` clean passes
    // in a row after it, up to i.
    let flaky_at = |i: usize| {
        (0..=i).rev().find(|&e| evidence(e)).is_some_and(|e| {
            !(e + clear..=i)
                .any(|end| (end + 1 - clear..=end).all(|k| k > e && steps[k].mark == Mark::Passed))
        })
    };
    let n = steps.len();
    let streak = (0..n).rev().take_while(|&i| failed(i)).count();
    let from = n - streak;
    let broken = streak > 0
        && (from..n).any(|i| {
            flaky_at(i)
                && (steps[i].mark == Mark::FailedAll
                    || i + 1 - from >= rules.failing_after as usize)
        });
    let state = if n > 0 && flaky_at(n - 1) && !broken {
        State::Flaky
    } else if streak > 0 {
        State::Failing
    } else {
        State::Passing
    };
    Verdict {
        state,
        flaky_before: broken,
        failing_for: streak as u32,
        failing_from: (streak > 0).then_some(from),
    }
}

const CODES: [&str; 3] = ["a", "b", "c"];

fn any_step() -> impl Strategy<Value = Step<'static>> {
    let code = prop_oneof![
        4 => (0..CODES.len()).prop_map(|i| Some(CODES[i])),
        1 => Just(None),
    ];
    let mark = prop_oneof![
        4 => Just(P),
        3 => Just(F),
        1 => Just(R),
        1 => Just(A),
    ];
    (code, mark).prop_map(|(code, mark)| Step { code, mark })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]
    #[test]
    fn the_walk_agrees_with_the_rule_read_again(
        runs in proptest::collection::vec(any_step(), 0..24),
        clear_after in 1u32..7,
        failing_after in 1u32..5,
    ) {
        let rules = Rules { clear_after, failing_after };
        prop_assert_eq!(walk(&runs, rules), brute(&runs, rules));
    }
}
