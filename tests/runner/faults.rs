//! Faults around pytest: no pytest or no interpreter, no usable TMPDIR,
//! pytest's exit codes 2, 3 and 4, output that is not UTF-8, and an
//! interpreter without pytest-json-report.

use super::*;
use crate::common::headline::{Verdict, discover_start, says};
use crate::summary::{Counts, matches_pytest, model_outcome, reference};

// ---------------------------------------------------------------------------
// Faults before pytest starts: no pytest, no interpreter, no TMPDIR
// ---------------------------------------------------------------------------

/// A fresh virtual environment without pip or pytest, in `dir`.
fn python_without_pytest(dir: &Path) -> PathBuf {
    let venv = dir.join("venv-no-pytest");
    let status = command(&python())
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .expect("python -m venv");
    assert!(status.success(), "creating {} failed", venv.display());
    let python = venv.join("bin/python");
    let probe = command(&python)
        .args(["-c", "import pytest"])
        .status()
        .expect("probe");
    assert!(!probe.success(), "the fresh venv has pytest after all");
    python
}

#[test]
fn no_pytest_or_no_interpreter_is_a_clear_error_with_exit_127() {
    let project = tripwire_project();
    let dir = tempfile::tempdir().expect("tempdir");
    let no_pytest = python_without_pytest(dir.path());
    let missing = dir.path().join("no/such/python");
    let mut problems = Vec::new();
    for (interpreter, words) in [
        (
            &no_pytest,
            ["pytest is not installed", "-m pip install pytest"],
        ),
        (
            &missing,
            ["cannot start the Python interpreter", "--python"],
        ),
    ] {
        for (sub, format) in [
            ("run", "json"),
            ("run", "markdown"),
            ("discover", "json"),
            ("discover", "markdown"),
        ] {
            let answer = pytest_mcp(&[
                OsString::from(sub),
                "--root".into(),
                project.root.clone().into(),
                "--python".into(),
                interpreter.into(),
                "--format".into(),
                format.into(),
            ]);
            let text = answer.text();
            let what = format!("{sub} {format} with {}", interpreter.display());
            if answer.status != Some(127) {
                problems.push(format!("{what}: exit {:?}", answer.status));
            }
            let message = if format == "json" {
                let value = answer.json();
                if value["error"]["code"] != -32000
                    || value["error"]["data"]["error_type"] != "spawn"
                {
                    problems.push(format!("{what}: {value}"));
                }
                value["error"]["message"].as_str().unwrap_or("").to_string()
            } else {
                if !says(&text, Verdict::Error)
                    && !text.starts_with(&discover_start(Verdict::Error))
                {
                    problems.push(format!("{what}: {text}"));
                }
                text
            };
            for word in words {
                if !message.contains(word) || !message.contains(&interpreter.display().to_string())
                {
                    problems.push(format!("{what}: {word:?} or the path missing in {message}"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(!project.root.join(TRIPWIRE).exists(), "pytest started");
    assert!(processes_in(&project.root).is_empty());
}

/// TMPDIR below a regular file or missing (not chmod: tests may run as
/// root): the answer names the path and TMPDIR; pytest never starts.
#[test]
fn an_unusable_tmpdir_is_a_clear_error() {
    let project = tripwire_project();
    let dir = tempfile::tempdir().expect("tempdir");
    let regular = dir.path().join("a-file");
    std::fs::write(&regular, "not a directory\n").expect("write");
    for tmpdir in [regular.join("sub"), dir.path().join("missing")] {
        for sub in ["run", "discover"] {
            let started = Instant::now();
            let child = command(Path::new(BIN))
                .env("TMPDIR", &tmpdir)
                .arg(sub)
                .arg("--root")
                .arg(&project.root)
                .arg("--python")
                .arg(python())
                .args(["--format", "json"])
                .spawn()
                .expect("start pytest-mcp");
            let answer = wait(child, started, |_| {});
            let value = answer.json();
            assert_eq!(answer.status, Some(127), "{value}");
            let message = value["error"]["message"].as_str().unwrap_or("");
            assert!(
                message.contains("cannot create a private temporary directory")
                    && message.contains(&tmpdir.display().to_string())
                    && message.contains("TMPDIR"),
                "{sub}: {message}"
            );
            assert_eq!(value["error"]["data"]["error_type"], "spawn");
        }
    }
    assert!(!project.root.join(TRIPWIRE).exists(), "pytest started");
}
// ---------------------------------------------------------------------------
// pytest's exit codes 2 (interrupted), 3 (internal error), 4 (usage error)
// ---------------------------------------------------------------------------

#[test]
fn keyboard_interrupt_is_an_interrupted_error_with_what_finished() {
    let project = Project::copy("runner_keyboard_interrupt");
    let (answer, value) = run_json(&project, &python(), &[]);
    let pytest = reference(&project, &python(), &[]);
    assert_eq!(pytest.exit, 2, "{}", pytest.output);
    assert!(pytest.collection_errors.is_empty());
    assert_eq!(answer.status, Some(2), "{value}");
    let error = &value["error"];
    assert_eq!(error["code"], -32000, "{value}");
    let data = &error["data"];
    assert_eq!(data["error_type"], "interrupted");
    assert_eq!(data["exit_code"], 2);
    assert_eq!(
        data["running_test"],
        "tests/test_interrupt.py::test_interrupts"
    );
    let tests = data["tests"].as_array().expect("data.tests");
    for (id, outcome) in [
        ("tests/test_interrupt.py::test_first", "passed"),
        ("tests/test_interrupt.py::test_second_fails", "failed"),
    ] {
        assert!(
            tests
                .iter()
                .any(|t| t["node_id"] == id && t["outcome"] == outcome),
            "{id} {outcome} missing from {tests:?}"
        );
    }
    assert!(
        !tests
            .iter()
            .any(|t| t["node_id"] == "tests/test_interrupt.py::test_never_reached"),
        "{tests:?}"
    );

    let (md_answer, text) = run_markdown(&project, &python(), &[]);
    assert_eq!(md_answer.status, Some(2), "{text}");
    assert!(says(&text, Verdict::Interrupted), "{text}");
    assert!(
        text.contains("tests/test_interrupt.py::test_interrupts"),
        "{text}"
    );
    assert!(
        text.contains("tests/test_interrupt.py::test_second_fails"),
        "{text}"
    );
}

#[test]
fn keyboard_interrupt_lists_exactly_the_tests_pytest_counted() {
    let project = Project::copy("runner_keyboard_interrupt");
    let (_, value) = run_json(&project, &python(), &[]);
    let pytest = reference(&project, &python(), &[]);
    let data = &value["error"]["data"];
    let ours: BTreeMap<String, String> = data["tests"]
        .as_array()
        .expect("data.tests")
        .iter()
        .map(|t| {
            (
                t["node_id"].as_str().unwrap_or("").to_string(),
                t["outcome"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let expected: BTreeMap<String, String> = pytest
        .outcomes
        .iter()
        .map(|(id, o)| (id.clone(), model_outcome(o).to_string()))
        .collect();
    assert_eq!(ours, expected, "pytest said: {:?}", pytest.line);
    assert_eq!(Counts::from_summary(&data["summary"]), pytest.counts);
}

#[test]
fn internal_error_from_a_hook_is_pytest_internal_with_exit_3() {
    let project = Project::copy("runner_internal_error");
    let (answer, value) = run_json(&project, &python(), &[]);
    assert_eq!(answer.status, Some(3), "{value}");
    let error = &value["error"];
    assert_eq!(error["code"], -32000);
    let data = &error["data"];
    assert_eq!(data["error_type"], "pytest_internal");
    assert_eq!(data["exit_code"], 3);
    let output = format!(
        "{}{}",
        data["stdout"].as_str().unwrap_or(""),
        data["stderr"].as_str().unwrap_or("")
    );
    assert!(output.contains("INTERNALERROR"), "{output}");
    assert!(
        output.contains("boom from pytest_collection_modifyitems"),
        "{output}"
    );

    let (md_answer, text) = run_markdown(&project, &python(), &[]);
    assert_eq!(md_answer.status, Some(3), "{text}");
    assert!(says(&text, Verdict::Error), "{text}");
    assert!(text.contains("internal error"), "{text}");
    assert!(
        text.contains("boom from pytest_collection_modifyitems"),
        "{text}"
    );
}

#[test]
fn internal_error_reports_no_tests() {
    let project = Project::copy("runner_internal_error");
    let (_, value) = run_json(&project, &python(), &[]);
    let pytest = reference(&project, &python(), &[]);
    assert_eq!(pytest.exit, 3);
    assert!(pytest.outcomes.is_empty(), "{}", pytest.output);
    let data = &value["error"]["data"];
    assert_eq!(data["tests"], serde_json::json!([]), "{data}");
    assert_eq!(data["summary"]["total"], 0);
}

#[test]
fn usage_error_from_addopts_is_invalid_params_with_exit_4() {
    let project = Project::copy("runner_usage_error");
    let pytest = plain_pytest(&project, &python(), &[]);
    assert_eq!(pytest.status, Some(4), "{}", pytest.stderr);
    let (answer, value) = run_json(&project, &python(), &[]);
    assert_eq!(answer.status, Some(4), "{value}");
    let error = &value["error"];
    assert_eq!(error["code"], -32602, "{value}");
    assert_eq!(error["data"]["error_type"], "usage_error");
    assert_eq!(error["data"]["exit_code"], 4);
    let message = error["message"].as_str().unwrap_or("");
    assert!(
        message.contains("unrecognized arguments") && message.contains("--no-such-option"),
        "{message}"
    );

    let (md_answer, text) = run_markdown(&project, &python(), &[]);
    assert_eq!(md_answer.status, Some(4), "{text}");
    assert!(says(&text, Verdict::Error), "{text}");
    assert!(
        text.contains("unrecognized arguments") && text.contains("--no-such-option"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------
// Output that is not UTF-8
// ---------------------------------------------------------------------------

#[test]
fn invalid_utf8_output_becomes_replacement_characters() {
    let project = Project::copy("runner_non_utf8");
    let pytest = reference(&project, &python(), &[]);
    assert_eq!(pytest.exit, 1);
    // The raw bytes really reach the process's stdout.
    assert!(!pytest.utf8, "pytest's output is valid UTF-8");

    let (answer, value) = run_json(&project, &python(), &[]);
    assert_eq!(answer.status, Some(1), "{}", answer.stderr);
    assert_eq!(Counts::from_summary(&value["summary"]), pytest.counts);
    let output = value["text_output"].as_str().expect("text_output");
    assert!(
        output.contains("RAW-STDOUT: caf\u{FFFD} \u{FFFD}\u{FFFD} \u{FFFD}( end"),
        "{}",
        head(output, 3000)
    );
    let failing = value["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .find(|t| t["node_id"] == "tests/test_bytes.py::test_writes_invalid_utf8")
        .expect("the failing test")
        .clone();
    assert_eq!(failing["outcome"], "failed");
    assert!(
        failing["message"]
            .as_str()
            .unwrap_or("")
            .contains("REPORT-LINE: caf"),
        "{failing}"
    );

    let (md_answer, text) = run_markdown(&project, &python(), &[]);
    assert_eq!(md_answer.status, Some(1));
    assert!(says(&text, Verdict::Failure), "{text}");
    assert!(
        text.contains(
            "### FAILED (failing for 2 runs): tests/test_bytes.py::test_writes_invalid_utf8"
        ),
        "{text}"
    );
}

#[test]
fn a_json_report_with_lone_surrogates_is_read_lossily() {
    let project = Project::copy("runner_non_utf8");
    let (_, value) = run_json(&project, &python(), &[]);
    assert!(value["json_report"].is_object(), "json_report is null");
    let failing = value["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .find(|t| t["node_id"] == "tests/test_bytes.py::test_writes_invalid_utf8")
        .expect("the failing test")
        .clone();
    assert!(
        failing["message"]
            .as_str()
            .unwrap_or("")
            .contains("REPORT-LINE: caf\u{FFFD}"),
        "{failing}"
    );
    let (_, text) = run_markdown(&project, &python(), &[]);
    assert!(!text.contains("could not be read"), "{text}");
    assert!(text.contains("CAPTURED-STDOUT: caf\u{FFFD}"), "{text}");
}

// ---------------------------------------------------------------------------
// An interpreter without pytest-json-report: JUnit alone
// ---------------------------------------------------------------------------

#[test]
fn without_pytest_json_report_junit_gives_the_result() {
    let (value, text) = matches_pytest("one_failure", &python_nojson(), 1);
    assert_eq!(value["json_report"], Value::Null);
    let summary = Counts::from_summary(&value["summary"]);
    assert_eq!((summary.total, summary.failed), (5, 1));
    assert!(
        text.contains("pytest-json-report is not installed"),
        "{text}"
    );
    assert!(
        text.contains(
            "### FAILED (failing for 2 runs): tests/test_calc.py::test_discount_fractional"
        ),
        "{text}"
    );
}
