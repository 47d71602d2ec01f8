//! Ordinary runs against pytest's own summary: the JSON and the Markdown
//! answers carry pytest's exit status, counts and outcome per test.

use super::*;
use crate::common::headline::{Counts, before_counts, counts};
use crate::summary::matches_pytest;

// ---------------------------------------------------------------------------
// Ordinary runs: results, both formats, counts equal to pytest's
// ---------------------------------------------------------------------------

#[test]
fn all_passing_exits_0_with_pytests_counts() {
    matches_pytest("all_pass", &python(), 0);
}

#[test]
fn a_failure_exits_1_with_pytests_counts() {
    matches_pytest("one_failure", &python(), 1);
}

#[test]
fn setup_and_teardown_errors_count_each_test_once() {
    matches_pytest("setup_teardown", &python(), 1);
}

#[test]
fn xfail_and_xpass_match_pytest() {
    matches_pytest("xfail_xpass", &python(), 1);
}

#[test]
fn collection_errors_are_a_result_with_exit_2() {
    matches_pytest("collection_errors", &python(), 2);
}

#[test]
fn no_tests_is_a_result_with_exit_5() {
    matches_pytest("empty", &python(), 5);
}

#[test]
fn a_mixed_project_matches_pytest() {
    matches_pytest("mixed", &python(), 1);
}

/// pytest-rerunfailures (`--reruns 2` in the project's pytest.ini): each
/// test is one test however often it ran. The flip passed on its second
/// attempt: passed and flaky, with its first attempt's error and line; the
/// real failure failed all three. pytest says `1 failed, 3 passed, 3 rerun`:
/// 4 tests, and its 3 reruns are the flip's one and the failure's two.
#[test]
fn reruns_are_attempts_of_one_test() {
    let (value, markdown) = matches_pytest("reruns", &python(), 1);
    let project = Project::copy("reruns");
    let pytest = crate::summary::reference(&project, &python(), &[]);
    assert_eq!(pytest.line.get("rerun"), Some(&3), "{}", pytest.output);
    assert_eq!(value["summary"]["total"], 4, "{value}");
    assert_eq!(value["summary"]["failed"], 1, "{value}");
    assert_eq!(value["summary"]["flaky"], 1, "{value}");
    let flip = "tests/test_retry.py::test_flip — passed after 1 failed attempt \
                (first: AssertionError: service not ready yet, at tests/test_retry.py:17)";
    assert!(
        markdown.contains(&format!(
            "{}{}",
            before_counts().trim_start(),
            counts(Counts {
                total: 4,
                failed: 1,
                flaky: 1,
                ..Counts::default()
            })
        )),
        "{markdown}"
    );
    assert!(markdown.contains(flip), "{markdown}");
    assert!(
        markdown.contains("  Rerun: failed all 3 attempts\n"),
        "{markdown}"
    );
    let message = |id: &str| {
        let tests = value["tests"].as_array().expect("tests");
        let test = tests.iter().find(|t| t["node_id"] == id);
        test.and_then(|t| t["message"].as_str()).map(str::to_string)
    };
    assert!(
        message("tests/test_retry.py::test_flip")
            .is_some_and(|m| m.starts_with("FLAKY: passed after 1 failed attempt (first: ")),
        "{value}"
    );
}
