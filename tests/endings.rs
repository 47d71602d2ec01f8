//! How real runs end, told as they ended (the projects
//! `tests/projects/ending_*`, run by `pytest-mcp run`): exit status 1 with
//! every test passed is a FAILURE saying why, a process that ended before
//! its session did is a CRASH naming the running test and the tests that
//! never ran (or, failing as pytest starts, the error), pytest.exit() is
//! INTERRUPTED; pytest-mcp exits with pytest's
//! status. The same projects' captured files pin every format
//! (tests/endings_golden.rs); the plugins' projects (tests/plugins.rs) meet
//! the same endings through real plugins.

mod common;

use common::headline::{Verdict, run_failed, says};
use common::support::{project_copy, run_pytest_mcp};

#[test]
fn exit_status_1_with_every_test_passed_is_a_failure_that_says_why() {
    let (_dir, root) = project_copy("ending_exit_reason");
    let (status, md) = run_pytest_mcp(&root, &["--no-history"]);
    assert_eq!(status, Some(1), "{md}");
    let mut lines = md.lines();
    let head = lines.next().unwrap_or_default();
    assert!(says(head, Verdict::Failure), "{md}");
    assert!(head.ends_with(&run_failed(2, 0)), "{md}");
    let why = lines.collect::<Vec<_>>().join("\n");
    assert!(
        why.starts_with(
            "Exit status 1 with no test failed: FAIL Required test coverage of 90% not reached."
        ),
        "{md}"
    );
    let (_, json) = run_pytest_mcp(&root, &["--no-history", "--format", "json"]);
    let value: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(value["exit_code"], 1, "{json}");
    let reason = value["exit_reason"].as_str().unwrap_or_default();
    assert!(reason.ends_with("Total coverage: 75.00%"), "{json}");
}

#[test]
fn a_process_that_ended_before_its_session_is_a_crash_naming_what_never_ran() {
    let (_dir, root) = project_copy("ending_os_exit");
    let (status, md) = run_pytest_mcp(&root, &["--no-history"]);
    assert_eq!(status, Some(1), "pytest's own status:\n{md}");
    let head = md.lines().next().unwrap_or_default();
    assert!(
        says(head, Verdict::Crash)
            && head.ends_with("while running tests/test_worker.py::test_ends_the_process"),
        "{md}"
    );
    assert!(
        md.contains("\nNever ran (3): tests/test_worker.py::test_never_reached_one, tests/test_worker.py::test_never_reached_two, tests/test_worker.py::test_never_reached_three\n"),
        "{md}"
    );
    let (_, json) = run_pytest_mcp(&root, &["--no-history", "--format", "json"]);
    let value: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let data = &value["error"]["data"];
    assert_eq!(data["error_type"], "crash", "{json}");
    assert_eq!(data["exit_code"], 1, "{json}");
    assert_eq!(data["not_run"].as_array().map(Vec::len), Some(3), "{json}");
}

#[test]
fn pytest_exit_stops_the_run_as_an_interruption() {
    let (_dir, root) = project_copy("ending_pytest_exit");
    let (status, md) = run_pytest_mcp(&root, &["--no-history"]);
    assert_eq!(status, Some(1), "{md}");
    let head = md.lines().next().unwrap_or_default();
    assert!(
        says(head, Verdict::Interrupted)
            && head.contains("(Exit: the database went away)")
            && head.ends_with("while running tests/test_db.py::test_database_gone"),
        "{md}"
    );
    assert!(
        md.contains("\nNever ran (1): tests/test_db.py::test_never_reached\n"),
        "{md}"
    );
}

#[test]
fn an_error_as_pytest_starts_is_a_crash_that_says_which() {
    let (_dir, root) = project_copy("ending_startup_error");
    let (status, md) = run_pytest_mcp(&root, &["--no-history"]);
    assert_eq!(status, Some(1), "{md}");
    let head = md.lines().next().unwrap_or_default();
    assert!(
        says(head, Verdict::Crash)
            && head.ends_with(
                "(an error before any test ran: KeyError: 'PYTEST_MCP_TEST_NO_SUCH_VARIABLE')"
            ),
        "{md}"
    );
}
