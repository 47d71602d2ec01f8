use super::*;
use crate::model::{CollectionError, TestResult};

fn run(tests: &[(&str, Outcome)]) -> Run {
    Run {
        tests: tests
            .iter()
            .map(|(id, o)| TestResult::new(*id, *o))
            .collect(),
        ..Run::default()
    }
}

fn last(failed: &[&str], missing: &[&str]) -> LastRun {
    LastRun {
        failed: failed.iter().map(|s| s.to_string()).collect(),
        missing: missing.iter().map(|s| s.to_string()).collect(),
    }
}

#[test]
fn fixed_new_and_still_failing_over_this_runs_tests() {
    let now = run(&[
        ("t.py::a", Outcome::Passed),
        ("t.py::b", Outcome::Failed),
        ("t.py::c", Outcome::Error),
        ("t.py::d", Outcome::Passed),
        ("t.py::e", Outcome::Skipped),
    ]);
    // `other.py::x` failed last time and is not in this selection: it says
    // nothing. `t.py::e` is skipped now: neither fixed nor failing.
    let c = since(
        &now,
        &last(&["t.py::a", "t.py::c", "t.py::e", "other.py::x"], &[]),
    );
    assert_eq!(c.fixed, ["t.py::a"]);
    assert_eq!(c.new_failures, ["t.py::b"]);
    assert_eq!(c.still_failing, ["t.py::c"]);
    assert!(c.gone.is_empty());
    assert_eq!(c.phrase(), "1 fixed, 1 new failure, 1 still failing");
}

#[test]
fn a_renamed_test_is_gone_not_fixed() {
    let now = run(&[("t.py::new_name", Outcome::Passed)]);
    let c = since(&now, &last(&["t.py::old_name"], &["t.py::old_name"]));
    assert_eq!(c.gone, ["t.py::old_name"]);
    assert!(c.fixed.is_empty() && c.new_failures.is_empty());
    assert_eq!(c.phrase(), "1 gone");
}

#[test]
fn a_rerun_listed_twice_counts_once_and_as_failing() {
    let now = run(&[("t.py::a", Outcome::Failed), ("t.py::a", Outcome::Passed)]);
    let c = since(&now, &last(&[], &[]));
    assert_eq!(c.new_failures, ["t.py::a"]);
    assert!(c.fixed.is_empty());
}

#[test]
fn files_that_did_not_collect() {
    let mut now = run(&[("ok.py::a", Outcome::Passed)]);
    now.collection_errors = vec![broken("broken.py"), broken("still.py")];
    let c = since(&now, &last(&["ok.py", "still.py"], &[]));
    assert_eq!(c.fixed, ["ok.py"]);
    assert_eq!(c.new_failures, ["broken.py"]);
    assert_eq!(c.still_failing, ["still.py"]);
}

fn broken(file: &str) -> CollectionError {
    CollectionError {
        file: file.to_string(),
        error_type: Some("ImportError".into()),
        message: "ImportError: x".into(),
        line: None,
        traceback: None,
    }
}
