//! `pytest-mcp run --last-failed` end to end: pytest's own cache (`--lf`)
//! reruns exactly what failed, and a run that has nothing to rerun says so
//! and runs nothing. The project (`tests/projects/last_failed`) fails two
//! parametrizations and errors one test in setup until a file named
//! `FIXED` exists in its root.
//!
//! Interpreter: `PYTEST_MCP_TEST_PYTHON`, else `.venv/bin/python`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;
use common::headline::{Counts, Verdict, counts, run_failed, says};
use common::support;

const RERUN_LINE: &str = "> Rerun the failures: pytest-mcp run --last-failed\n";
const FAILED: [&str; 3] = [
    "tests/test_shop.py::test_even[1]",
    "tests/test_shop.py::test_even[3]",
    "tests/test_shop.py::test_uses_database",
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A private copy of the project, without any pytest cache.
fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("last_failed");
    let source = repo().join("tests/projects/last_failed");
    std::fs::create_dir_all(root.join("tests")).expect("mkdir");
    for file in ["pytest.ini", "tests/test_shop.py"] {
        std::fs::copy(source.join(file), root.join(file)).expect("copy");
    }
    let root = root.canonicalize().expect("canonical");
    (dir, root)
}

fn run(root: &Path, args: &[&str]) -> (Option<i32>, String) {
    support::run_pytest_mcp(root, args)
}

fn run_json(root: &Path, args: &[&str]) -> Value {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    let (_, text) = run(root, &all);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The ids of the JSON answer's tests, and its summary's total.
fn ran(answer: &Value) -> (BTreeSet<String>, u64) {
    let ids = answer["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| t["node_id"].as_str().expect("node_id").to_string())
        .collect();
    (ids, answer["summary"]["total"].as_u64().expect("total"))
}

/// The counts of a run of `total` tests with the project's two failures
/// and its one error: `7 run, 2 failed, 1 error`.
fn failed_and_error(total: usize) -> String {
    counts(Counts {
        total,
        failed: 2,
        errors: 1,
        ..Counts::default()
    })
}

fn failed_ids() -> BTreeSet<String> {
    FAILED.iter().map(|s| s.to_string()).collect()
}

/// The first run fails two tests and errors one; `--last-failed` runs those
/// three and nothing else; the first answer ends with the rerun line, the
/// next (the last run failed too) does not say it again.
#[test]
fn reruns_exactly_the_failed_and_errored_tests() {
    let (_dir, root) = project();
    let (status, first) = run(&root, &[]);
    assert_eq!(status, Some(1), "{first}");
    assert!(says(&first, Verdict::Failure), "{first}");
    assert!(first.contains(&failed_and_error(7)), "{first}");
    assert!(first.ends_with(RERUN_LINE), "{first}");

    let again = run_json(&root, &["--last-failed"]);
    assert_eq!(ran(&again), (failed_ids(), 3), "{again}");
    assert_eq!(again["summary"]["failed"], 2, "{again}");
    assert_eq!(again["summary"]["errors"], 1, "{again}");

    let (status, markdown) = run(&root, &["--lf"]);
    assert_eq!(status, Some(1), "{markdown}");
    assert!(markdown.contains(&failed_and_error(3)), "{markdown}");
    assert!(
        markdown.contains("> Reran the failures pytest's cache records (3 tests)\n"),
        "{markdown}"
    );
    // The last run failed too: its answer said how to rerun.
    assert!(!markdown.contains(RERUN_LINE), "{markdown}");
}

/// Once the failures are fixed, `--last-failed` reruns them (they pass, no
/// rerun line); then nothing is recorded, and it says so and runs nothing.
#[test]
fn with_no_recorded_failures_nothing_runs() {
    let (_dir, root) = project();
    let (status, _) = run(&root, &[]);
    assert_eq!(status, Some(1));
    std::fs::write(root.join("FIXED"), "").expect("write");

    let (status, fixed) = run(&root, &["--last-failed"]);
    assert_eq!(status, Some(0), "{fixed}");
    assert!(says(&fixed, Verdict::Success), "{fixed}");
    assert!(fixed.contains(&run_failed(3, 0)), "{fixed}");
    assert!(!fixed.contains("Rerun the failures"), "{fixed}");

    let (status, nothing) = run(&root, &["--last-failed"]);
    assert_eq!(status, Some(5), "{nothing}");
    assert!(says(&nothing, Verdict::NoTests), "{nothing}");
    assert!(nothing.contains(&run_failed(0, 0)), "{nothing}");
    assert!(
        nothing.contains("> No test ran: pytest's cache records no failed tests\n"),
        "{nothing}"
    );
    assert!(!nothing.contains("Rerun the failures"), "{nothing}");
    let json = run_json(&root, &["--last-failed"]);
    assert_eq!(ran(&json), (BTreeSet::new(), 0), "{json}");
    // pytest's own console output: every test deselected, none run.
    let console = json["text_output"].as_str().expect("text_output");
    assert!(console.contains("7 deselected"), "{console}");
    assert!(!console.contains("passed"), "{console}");
}

/// A fresh project has no cache directory: nothing recorded, nothing runs.
#[test]
fn without_a_cache_directory_nothing_runs() {
    let (_dir, root) = project();
    assert!(!root.join(".pytest_cache").exists());
    let (status, text) = run(&root, &["--last-failed"]);
    assert_eq!(status, Some(5), "{text}");
    assert!(text.contains(&run_failed(0, 0)), "{text}");
    assert!(
        text.contains("no failed tests (it has no cache directory yet)"),
        "{text}"
    );
}

/// Recorded failures that the selection leaves out: pytest alone would
/// run the selected tests; pytest-mcp runs nothing and says why.
#[test]
fn recorded_failures_outside_the_selection_run_nothing() {
    let (_dir, root) = project();
    run(&root, &[]);
    let json = run_json(&root, &["--last-failed", "-k", "passes"]);
    assert_eq!(ran(&json), (BTreeSet::new(), 0), "{json}");
    let (_, text) = run(&root, &["--last-failed", "-k", "passes"]);
    assert!(
        text.contains("> No test ran: none of the 3 failures pytest's cache records is among the selected tests"),
        "{text}"
    );
    // Narrowed by a node id: only the recorded failures under it.
    let json = run_json(&root, &["--last-failed", "tests/test_shop.py::test_even"]);
    let expected: BTreeSet<String> = FAILED[..2].iter().map(|s| s.to_string()).collect();
    assert_eq!(ran(&json), (expected, 2), "{json}");
}

/// `-p no:cacheprovider` in the project's addopts: pytest ignores `--lf`
/// and would run everything; pytest-mcp runs nothing and says why, and no
/// answer offers a rerun that cannot work.
#[test]
fn a_disabled_cache_is_said_not_run_around() {
    let (_dir, root) = project();
    std::fs::write(
        root.join("pytest.ini"),
        "[pytest]\ntestpaths = tests\naddopts = -p no:cacheprovider\n",
    )
    .expect("write");
    let (status, first) = run(&root, &[]);
    assert_eq!(status, Some(1), "{first}");
    assert!(first.contains(&failed_and_error(7)), "{first}");
    assert!(!first.contains("Rerun the failures"), "{first}");
    let (status, text) = run(&root, &["--last-failed"]);
    assert_eq!(status, Some(5), "{text}");
    assert!(text.contains(&run_failed(0, 0)), "{text}");
    assert!(
        text.contains("> No test ran: pytest's cache is disabled in this project"),
        "{text}"
    );
}
