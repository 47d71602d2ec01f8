//! Ordinary runs against pytest's own summary: the JSON and the Markdown
//! answers carry pytest's exit status, counts and outcome per test.

use super::*;
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
