use crate::budget::Budget;
use crate::model::{Outcome, Phase, Run, TestResult};

#[test]
fn other_phases_are_shown_under_their_label_and_a_look_alike_line_is_not_one() {
    let mut t = TestResult::new("t.py::test_a", Outcome::Error);
    t.phase = Some(Phase::Teardown);
    t.set_message(Some("RuntimeError: closed".into()));
    // A line of the test's own traceback that only looks like a phase label.
    t.set_traceback(Some("[call]\ndb.py:24: RuntimeError".into()));
    t.add_phase_failure(
        Phase::Call,
        Some("AssertionError: assert 2 == 3"),
        Some(">       assert n == 3\nE       AssertionError: assert 2 == 3\n\nt.py:9: AssertionError"),
    );
    let run = Run {
        tests: vec![t],
        ..Run::default()
    };
    let md = super::render(&run);
    let section = md
        .split("### ERROR at teardown: t.py::test_a\n")
        .nth(1)
        .unwrap();
    assert_eq!(
        section,
        "RuntimeError: closed\n  call also failed: AssertionError: assert 2 == 3\n  at db.py:24\n  [call]\n  at t.py:9\n  > assert n == 3\n",
        "{md}"
    );
}

/// The rerun line ends every rendering of a run with failures, whatever its
/// size, and only when the frontend set it and pytest's cache records
/// failures.
#[test]
fn the_rerun_line_is_the_last_note_of_a_run_with_failures() {
    use crate::model::rerun::{FailureCache, RerunHint};
    let mut run = Run {
        tests: (0..40)
            .map(|n| {
                let mut t = TestResult::new(format!("t.py::test_{n}"), Outcome::Failed);
                t.set_message(Some(format!(
                    "AssertionError: assert {n} == -1\n{}",
                    "x\n".repeat(30)
                )));
                t
            })
            .chain([TestResult::new("t.py::test_ok", Outcome::Passed)])
            .collect(),
        notes: vec!["a note".into()],
        ..Run::default()
    };
    assert!(!super::render(&run).contains("Rerun"));
    run.rerun_hint = Some(RerunHint::Tool);
    let line = "> Rerun the failures: execute_tests with last_failed: true\n";
    assert!(super::render(&run).ends_with(line));
    // Every step of shrinking.
    let within = |max: usize| {
        crate::budget::fit(super::fit::offer(&run, Budget::chars(max), "", false)).text
    };
    let full = within(usize::MAX);
    assert!(full.ends_with(line), "{full}");
    let mut levels = std::collections::BTreeSet::new();
    for max in (400..full.chars().count()).step_by(50) {
        let md = within(max);
        assert!(md.ends_with(line), "{max}: {md}");
        assert!(md.chars().count() <= max, "{max}: {md}");
        let level = [
            "### FAILURES (",
            "ONE LINE EACH",
            "ids beyond the first",
            "traceback lines",
            "captured output",
        ]
        .into_iter()
        .find(|l| md.contains(l));
        levels.extend(level);
    }
    assert!(levels.len() >= 3, "{levels:?}");
    run.failure_cache = Some(FailureCache::Disabled { asked: false });
    assert!(!super::render(&run).contains("Rerun"));
    run.failure_cache = None;
    run.tests.retain(|t| t.outcome == Outcome::Passed);
    assert!(!super::render(&run).contains("Rerun"));
}

/// A run of failures of one shape: `ids` fail with `assert <n> == <n>` at
/// one place, `passing` pass.
fn same_shape(ids: &[&str], passing: &[&str]) -> Run {
    let mut run = Run::default();
    for (n, id) in ids.iter().enumerate() {
        let mut t = TestResult::new(*id, Outcome::Failed);
        t.phase = Some(Phase::Call);
        t.set_message(Some(format!("assert {n} == {}", n + 1)));
        t.set_traceback(Some("tests/test_a.py:3: AssertionError".into()));
        run.tests.push(t);
    }
    for id in passing {
        run.tests.push(TestResult::new(*id, Outcome::Passed));
    }
    run
}

#[test]
fn a_group_names_its_tests_compressed() {
    let ids: Vec<String> = (0..9)
        .map(|i| format!("tests/test_a.py::test_b[{i}]"))
        .collect();
    let mut all: Vec<&str> = vec!["tests/test_a.py::test_bc[0]"];
    all.extend(ids.iter().map(String::as_str));
    // test_b's nine are all in the group; test_bc has a passing one.
    let run = same_shape(&all, &["tests/test_a.py::test_bc[1]"]);
    let md = super::render(&run);
    assert!(
        md.contains("### FAILED: tests/test_a.py::test_bc[0]\n"),
        "{md}"
    );
    assert!(
        md.contains("  Same failure in 9 more: tests/test_a.py::test_b (all 9 cases)\n"),
        "{md}"
    );
    // Without a whole function: five ids, then the count of the rest.
    let run = same_shape(&all, &["tests/test_a.py::test_b[9]"]);
    let md = super::render(&run);
    assert!(
        md.contains("Same failure in 9 more: tests/test_a.py::test_b[0], ")
            && md.contains("tests/test_a.py::test_b[4], +4 more\n"),
        "{md}"
    );
    assert_eq!(md.matches("### FAILED").count(), 1, "{md}");
}

/// A run passing as the last one did says nothing of changes; one that
/// fixed a test says so.
#[test]
fn a_run_passing_as_the_last_did_has_no_changes_line() {
    use crate::model::changes::Changes;
    let mut run = Run {
        tests: vec![TestResult::new("t.py::test_a", Outcome::Passed)],
        changes: Some(Changes::default()),
        ..Run::default()
    };
    let md = super::render(&run);
    assert!(!md.contains("Since the last run"), "{md}");
    run.changes = Some(Changes {
        fixed: vec!["t.py::test_a".into()],
        ..Changes::default()
    });
    let md = super::render(&run);
    assert!(md.contains("Since the last run: 1 fixed\n"), "{md}");
}
