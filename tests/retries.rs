//! `run --retries N` (the tool's `retries`) against real projects: failing
//! tests are rerun through pytest-rerunfailures (`--reruns N`), so on
//! `tests/projects/retries` (no reruns of its own) the test that fails
//! only on its first attempt is reported flaky with that attempt's error,
//! and the real failure says it failed every attempt; without retries the
//! flip is a plain failure. A project that turns pytest-rerunfailures off,
//! or an interpreter without it, is refused naming `retries` and saying
//! how to fix it. The MCP side is `tests/mcp/test_retries.py`.
//!
//! Interpreters: `PYTEST_MCP_TEST_PYTHON`, else `.venv/bin/python` (with
//! pytest-rerunfailures); `.venv-nojson/bin/python` has pytest alone.

use std::path::Path;

use serde_json::Value;

mod common;
use common::headline::{Counts, before_counts, counts};
use common::support::{self, clean_command, test_python};

const FLIP: &str = "tests/test_flaky.py::test_flip";
const FAILURE: &str = "tests/test_flaky.py::test_real_failure";

/// `pytest-mcp run --root <root> --python <python> <args>` with `env`
/// added to a clean environment: exit status and standard output.
fn run(root: &Path, python: &Path, args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let out = clean_command(Path::new(env!("CARGO_BIN_EXE_pytest-mcp")))
        .arg("run")
        .arg("--root")
        .arg(root)
        .arg("--python")
        .arg(python)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("run pytest-mcp");
    let text = String::from_utf8(out.stdout).expect("UTF-8 answer");
    assert!(
        !text.is_empty(),
        "no answer; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// A test's field in a JSON answer.
fn field(value: &Value, id: &str, key: &str) -> Value {
    let tests = value["tests"].as_array().expect("tests");
    let found: Vec<&Value> = tests.iter().filter(|t| t["node_id"] == id).collect();
    assert_eq!(found.len(), 1, "{id} once in {value}");
    found[0][key].clone()
}

/// pytest's closing line in a JSON answer's `text_output`.
fn pytest_line(value: &Value) -> String {
    let output = value["text_output"].as_str().unwrap_or_default();
    let last = output.lines().rev().find(|l| l.contains(" in "));
    last.unwrap_or_default().to_string()
}

#[test]
fn retries_report_the_flip_flaky_and_the_failures_every_attempt() {
    let (_dir, root) = support::project_copy("retries");
    let (status, text) = run(
        &root,
        &test_python(),
        &["--retries", "2", "-f", "json"],
        &[],
    );
    assert_eq!(status, Some(1), "{text}");
    let value = json_of(&text);
    // pytest reran: the flip once, the failure twice.
    let line = pytest_line(&value);
    assert!(line.contains("1 failed, 2 passed, 3 rerun"), "{line}");
    let summary = &value["summary"];
    for (key, want) in [("total", 3), ("passed", 2), ("failed", 1), ("flaky", 1)] {
        assert_eq!(summary[key], want, "summary.{key} in {summary}");
    }
    assert_eq!(field(&value, FLIP, "outcome"), "passed");
    let message = field(&value, FLIP, "message");
    assert!(
        message.as_str().is_some_and(|m| m.starts_with(
            "FLAKY: passed after 1 failed attempt (first: AssertionError: connection refused on first try"
        )),
        "{message}"
    );
    assert_eq!(field(&value, FAILURE, "outcome"), "failed");

    let (status, markdown) = run(&root, &test_python(), &["--retries", "2"], &[]);
    assert_eq!(status, Some(1), "{markdown}");
    assert!(
        markdown.contains(&format!(
            "{}{}\n",
            before_counts(),
            counts(Counts {
                total: 3,
                failed: 1,
                flaky: 1,
                ..Counts::default()
            })
        )),
        "{markdown}"
    );
    assert!(
        markdown.contains(&format!(
            "\n- {FLIP} — passed after 1 failed attempt (first: AssertionError: connection refused on first try"
        )),
        "{markdown}"
    );
    // The second run of the project: the history says since when.
    assert!(
        markdown.contains(&format!(
            "### FAILED (failing for 2 runs): {FAILURE} (line 23)\n"
        )),
        "{markdown}"
    );
    assert!(
        markdown.contains("\n  Rerun: failed all 3 attempts\n"),
        "{markdown}"
    );
}

#[test]
fn without_retries_the_flip_is_a_plain_failure() {
    let (_dir, root) = support::project_copy("retries");
    let (status, text) = run(&root, &test_python(), &["-f", "json"], &[]);
    assert_eq!(status, Some(1), "{text}");
    let value = json_of(&text);
    let line = pytest_line(&value);
    assert!(
        line.contains("2 failed, 1 passed") && !line.contains("rerun"),
        "{line}"
    );
    let summary = &value["summary"];
    for (key, want) in [("total", 3), ("passed", 1), ("failed", 2), ("flaky", 0)] {
        assert_eq!(summary[key], want, "summary.{key} in {summary}");
    }
    assert_eq!(field(&value, FLIP, "outcome"), "failed");
    let (_, markdown) = run(&root, &test_python(), &[], &[]);
    // The second run of the project: failing on every first attempt, so
    // failing before, not flaky.
    assert!(
        markdown.contains(&format!(
            "### FAILED (failing for 2 runs): {FLIP} (line 19)\n"
        )),
        "{markdown}"
    );
    assert!(
        !markdown.contains("### FLAKY")
            && !markdown.contains(" flaky")
            && !markdown.contains("Rerun:"),
        "{markdown}"
    );
}

/// `--retries` comes after the project's own options, so it wins over a
/// `--reruns` there: `tests/projects/reruns` asks for 2, `--retries 1`
/// gives each failing test one rerun.
#[test]
fn retries_override_the_projects_own_reruns() {
    let (_dir, root) = support::project_copy("reruns");
    let (status, text) = run(
        &root,
        &test_python(),
        &["--retries", "1", "-f", "json"],
        &[],
    );
    assert_eq!(status, Some(1), "{text}");
    let value = json_of(&text);
    let line = pytest_line(&value);
    assert!(line.contains("1 failed, 3 passed, 2 rerun"), "{line}");
    assert_eq!(value["summary"]["flaky"], 1, "{value}");
    let (_, markdown) = run(&root, &test_python(), &["--retries", "1"], &[]);
    assert!(
        markdown.contains("\n  Rerun: failed all 2 attempts\n"),
        "{markdown}"
    );
}

#[test]
fn without_pytest_rerunfailures_retries_are_refused_naming_them() {
    let (_dir, root) = support::project_copy("retries");
    let python = support::nojson_python();
    let (status, text) = run(&root, &python, &["--retries", "2", "-f", "json"], &[]);
    assert_eq!(status, Some(4), "{text}");
    let error = &json_of(&text)["error"];
    assert_eq!(error["code"], -32602, "{text}");
    assert_eq!(error["data"]["field"], "retries", "{text}");
    assert_eq!(error["data"]["received_value"], 2, "{text}");
    let detail = error["data"]["detail"].as_str().unwrap_or_default();
    assert!(
        detail.starts_with("needs pytest-rerunfailures, which is not installed for "),
        "{detail}"
    );
    assert!(
        detail.contains(&format!(
            "`{} -m pip install pytest-rerunfailures`",
            python.display()
        )),
        "{detail}"
    );
    assert!(detail.ends_with("or leave retries out"), "{detail}");

    let (status, markdown) = run(&root, &python, &["--retries", "3"], &[]);
    assert_eq!(status, Some(4), "{markdown}");
    assert!(
        markdown.starts_with(
            "Invalid params: retries needs pytest-rerunfailures, which is not installed for "
        ),
        "{markdown}"
    );
    assert!(markdown.trim_end().ends_with("(received 3)"), "{markdown}");
}

/// Installed, but the project turns it off: in its pytest configuration or
/// in PYTEST_ADDOPTS.
#[test]
fn a_project_that_turns_pytest_rerunfailures_off_is_refused_naming_retries() {
    let (_dir, root) = support::project_copy("retries");
    let python = test_python();
    let (status, markdown) = run(
        &root,
        &python,
        &["--retries", "2"],
        &[("PYTEST_ADDOPTS", "-p no:rerunfailures")],
    );
    let says = format!(
        "Invalid params: retries needs pytest-rerunfailures, which is installed for {} but not loaded: the project turns it off (`-p no:rerunfailures` in its pytest configuration or PYTEST_ADDOPTS)",
        python.display()
    );
    assert_eq!(status, Some(4), "{markdown}");
    assert!(markdown.starts_with(&says), "{markdown}");
    assert!(markdown.contains("or leave retries out"), "{markdown}");
    assert!(markdown.trim_end().ends_with("(received 2)"), "{markdown}");

    std::fs::write(
        root.join("pytest.ini"),
        "[pytest]\ntestpaths = tests\naddopts = -p no:rerunfailures\n",
    )
    .expect("write pytest.ini");
    let (status, text) = run(&root, &python, &["--retries", "5", "-f", "json"], &[]);
    assert_eq!(status, Some(4), "{text}");
    let error = &json_of(&text)["error"];
    assert_eq!(error["code"], -32602, "{text}");
    assert_eq!(error["data"]["field"], "retries", "{text}");
    assert_eq!(error["data"]["received_value"], 5, "{text}");
    assert!(
        error["message"].as_str().is_some_and(|m| m
            .starts_with("Invalid params: retries needs pytest-rerunfailures")
            && m.contains("`-p no:rerunfailures`")),
        "{text}"
    );
    // The same project runs without retries.
    let (status, text) = run(&root, &python, &["-f", "json"], &[]);
    assert_eq!(status, Some(1), "{text}");
    assert_eq!(json_of(&text)["summary"]["failed"], 2, "{text}");
}
