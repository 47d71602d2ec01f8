//! A test's phases without pytest-json-report (issue 49): `run` on
//! `tests/projects/sharding_loop` (a module fixture of 2 s, a
//! `setup_class` of 1.5 s) with an interpreter that has pytest alone
//! (`.venv-nojson/bin/python`) takes its results from JUnit XML, one time
//! per test, and the event log's split of each into setup, call and
//! teardown; so the history the run keeps has the phases, and `plan
//! --history` counts each shared setup once and keeps its tests on one
//! shard, as it does after a run with pytest-json-report
//! (`PYTEST_MCP_TEST_PYTHON`, else `.venv/bin/python`).

use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;
use common::support::{clean_command, nojson_python, project_copy, test_python};

const BIN: &str = env!("CARGO_BIN_EXE_pytest-mcp");

/// The interpreter with pytest and without pytest-json-report.
fn nojson() -> PathBuf {
    let python = nojson_python();
    let has_it = clean_command(&python)
        .args(["-c", "import pytest_jsonreport"])
        .output()
        .expect("run python");
    assert!(
        !has_it.status.success(),
        "{} has pytest-json-report",
        python.display()
    );
    python
}

/// `pytest-mcp SUBCOMMAND --root ROOT --python PYTHON ARGS...`: its
/// standard output as JSON, which must have succeeded.
fn json_of(subcommand: &str, root: &Path, python: &Path, args: &[&str]) -> Value {
    let out = clean_command(Path::new(BIN))
        .arg(subcommand)
        .arg("--root")
        .arg(root)
        .arg("--python")
        .arg(python)
        .args(args)
        .output()
        .expect("run pytest-mcp");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{subcommand}: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{subcommand}: {e}: {stdout}"))
}

/// The project run once by `python` (every test listed, with its
/// duration), then planned in 3 shards from the history that run kept:
/// the run's answer and the plan.
fn run_then_plan(python: &Path) -> (Value, Value) {
    let (_dir, root) = project_copy("sharding_loop");
    let run = json_of("run", &root, python, &["--format", "json"]);
    let history = root.join(".pytest_cache/d/pytest-mcp/history.sqlite");
    assert!(history.is_file(), "no history at {}", history.display());
    let history = history.to_str().expect("path");
    let plan = json_of(
        "plan",
        &root,
        python,
        &["--shards", "3", "--history", history],
    );
    (run, plan)
}

fn shared_setup(plan: &Value) -> f64 {
    plan["basis"]["shared_setup"]
        .as_f64()
        .unwrap_or_else(|| panic!("no basis.shared_setup: {plan:#}"))
}

/// The shards holding tests of `prefix`, and how many of them each holds.
fn holding(plan: &Value, prefix: &str) -> Vec<usize> {
    let shards = plan["shards"].as_array().expect("shards");
    shards
        .iter()
        .map(|s| {
            let tests = s["tests"].as_array().expect("tests");
            tests
                .iter()
                .filter(|t| t.as_str().expect("an id").starts_with(prefix))
                .count()
        })
        .filter(|n| *n > 0)
        .collect()
}

/// The costly module and class each whole on one shard, their setup
/// counted once.
fn assert_setup_counted_once(plan: &Value) {
    assert_eq!(plan["basis"]["runs"], 1, "{plan:#}");
    assert_eq!(plan["basis"]["tests"], 93, "{plan:#}");
    assert_eq!(plan["basis"]["estimated"], 0, "{plan:#}");
    let shared = shared_setup(plan);
    assert!(
        (3.0..6.0).contains(&shared),
        "2 s of the store's fixture and 1.5 s of setup_class: {shared}"
    );
    assert_eq!(holding(plan, "tests/test_store.py::"), [12], "{plan:#}");
    assert_eq!(
        holding(plan, "tests/test_render.py::TestRender::"),
        [8],
        "{plan:#}"
    );
}

#[test]
fn without_pytest_json_report_the_event_log_times_the_phases() {
    let (run, plan) = run_then_plan(&nojson());
    assert_eq!(run["summary"]["passed"], 93, "{run:#}");
    // Each test with its duration, the store's first with the 2 s of its
    // module's fixture (JUnit's time is the sum of a test's phases).
    let tests = run["tests"].as_array().expect("tests");
    assert_eq!(tests.len(), 93, "{run:#}");
    for test in tests {
        let seconds = test["duration"].as_f64().unwrap_or_default();
        assert!(seconds > 0.0, "{test}");
    }
    let first = tests
        .iter()
        .find(|t| t["node_id"] == "tests/test_store.py::test_item[0]")
        .expect("the store's first test");
    let seconds = first["duration"].as_f64().expect("seconds");
    assert!(seconds >= 2.0, "{first}");
    assert_setup_counted_once(&plan);
}

/// With pytest-json-report, whose phases the event log's stand in for
/// without it: the same plan.
#[test]
fn with_pytest_json_report_the_plan_is_the_same() {
    let (_, with_report) = run_then_plan(&test_python());
    assert_setup_counted_once(&with_report);
}
