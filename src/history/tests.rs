use super::*;
use crate::model::changes::Changes;
use crate::model::{Outcome, TestResult};

fn run_of(tests: &[(&str, Outcome)]) -> Run {
    Run {
        tests: tests
            .iter()
            .map(|(id, o)| TestResult::new(*id, *o))
            .collect(),
        ..Run::default()
    }
}

fn code(id: &str) -> Code {
    Code {
        commit: Some("c0ffee".into()),
        id: Some(id.into()),
    }
}

#[test]
fn five_runs_of_the_same_code_call_a_flip_flaky_and_a_real_failure_failing_since_the_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let keeping = Keeping {
        path: dir.path().join(".pytest_cache/d/pytest-mcp/history.sqlite"),
        runs: DEFAULT_RUNS,
        rules: Rules::default(),
    };
    let mut last = Run::default();
    for n in 0..5 {
        let flip = if n % 2 == 0 {
            Outcome::Failed
        } else {
            Outcome::Passed
        };
        let mut run = run_of(&[
            ("flip", flip),
            ("bad", Outcome::Failed),
            ("ok", Outcome::Passed),
        ]);
        assert_eq!(
            remember(&mut run, &keeping, &code("x"), Origin::Run),
            Ok(())
        );
        if n == 0 {
            assert_eq!(run.history, None, "nothing to compare the first run with");
        }
        last = run;
    }
    let h = last.history.expect("a history");
    assert_eq!(h.runs, 5);
    let flip = h.of("flip").expect("flip");
    assert!(flip.flaky);
    assert_eq!((flip.failed, flip.runs), (3, 5));
    let bad = h
        .of("bad")
        .and_then(|b| b.failing_since.clone())
        .expect("since");
    assert_eq!((bad.run, bad.runs), (1, 5));
    assert_eq!(h.of("ok"), None);
    assert!(
        dir.path().join(".pytest_cache/.gitignore").exists(),
        "a cache folder we make is kept out of git"
    );
}

#[test]
fn a_flaky_new_failure_is_set_apart_from_the_changes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let keeping = Keeping {
        path: dir.path().join("h.sqlite"),
        runs: 10,
        rules: Rules::default(),
    };
    for flip in [Outcome::Failed, Outcome::Passed] {
        let mut run = run_of(&[("flip", flip)]);
        remember(&mut run, &keeping, &code("x"), Origin::Report).expect("kept");
    }
    let mut run = run_of(&[("flip", Outcome::Failed)]);
    run.changes = Some(Changes {
        new_failures: vec!["flip".into()],
        ..Changes::default()
    });
    remember(&mut run, &keeping, &code("x"), Origin::Report).expect("kept");
    let changes = run.changes.expect("changes");
    assert_eq!(changes.flaky, ["flip"]);
    assert!(changes.new_failures.is_empty());
}

#[test]
fn a_store_that_cannot_be_made_is_one_warning_and_no_history() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("not-a-folder");
    std::fs::write(&file, "x").expect("write");
    let keeping = Keeping {
        path: file.join("history.sqlite"),
        runs: 10,
        rules: Rules::default(),
    };
    let mut run = run_of(&[("a", Outcome::Failed)]);
    let warning = remember(&mut run, &keeping, &code("x"), Origin::Run).expect_err("warned");
    assert!(warning.starts_with("history not kept: "), "{warning}");
    assert!(!warning.contains('\n'));
    assert_eq!(run.history, None);
}

#[test]
fn a_flaky_test_that_passes_after_an_edit_is_not_fixed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let keeping = Keeping {
        path: dir.path().join("h.sqlite"),
        runs: 10,
        rules: Rules::default(),
    };
    for flip in [Outcome::Failed, Outcome::Passed, Outcome::Failed] {
        let mut run = run_of(&[("flip", flip), ("bad", Outcome::Failed)]);
        remember(&mut run, &keeping, &code("x"), Origin::Run).expect("kept");
    }
    // An edit (code y); the flip passes.
    let mut run = run_of(&[("flip", Outcome::Passed), ("bad", Outcome::Failed)]);
    run.changes = Some(Changes {
        fixed: vec!["flip".into()],
        still_failing: vec!["bad".into()],
        ..Changes::default()
    });
    remember(&mut run, &keeping, &code("y"), Origin::Run).expect("kept");
    let changes = run.changes.expect("changes");
    assert!(changes.fixed.is_empty(), "{changes:?}");
    assert_eq!(changes.still_failing, ["bad"]);
    let h = run.history.expect("a history");
    let flip = h.of("flip").expect("flip");
    assert_eq!(flip.state, crate::model::history::State::Flaky);
    assert_eq!(
        flip.last(10),
        [Mark::Failed, Mark::Passed, Mark::Failed, Mark::Passed]
    );
    assert_eq!(h.trend.len(), 4);
    assert_eq!(
        h.trend
            .iter()
            .map(|r| (r.passed, r.failed))
            .collect::<Vec<_>>(),
        [(0, 2), (1, 1), (0, 2), (1, 1)]
    );
}
