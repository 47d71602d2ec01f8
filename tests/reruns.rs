//! pytest-rerunfailures' reruns read from every source of one run
//! (`tests/projects/reruns`, `--reruns 2` in its pytest.ini; its files in
//! `tests/fixtures/pytest/reruns/` by `scripts/gen-fixtures.py`). pytest
//! closes with `1 failed, 3 passed, 3 rerun`: 4 tests, 1 failed; the flip
//! passed after one failed attempt, the real failure failed all three.
//!
//! What each file keeps of the attempts differs: pytest-json-report keeps
//! one entry per test (the flip's with the outcome "rerun", the last
//! attempt's phases), so it knows the flip was rerun but not what its
//! attempt said, nor that the failure was rerun at all; pytest's JUnit
//! lists each attempt as a case, the failed ones bare, so it counts every
//! attempt but says nothing of them. The counts agree from every file;
//! what the attempts said comes from `run` (its plugin keeps them:
//! `tests/runner/results.rs`).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;
use common::headline::{Counts, Verdict, line};

const FLIP: &str = "tests/test_retry.py::test_flip";
const FAILURE: &str = "tests/test_retry.py::test_real_failure";

fn fixture(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pytest/reruns")
        .join(file)
}

/// `pytest-mcp report FILES --format FORMAT`'s standard output.
fn report(files: &[&str], format: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_pytest-mcp"))
        .arg("report")
        .args(files.iter().map(|f| fixture(f)))
        .args(["--format", format])
        .output()
        .expect("run pytest-mcp");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8")
}

/// Every combination of the run's files, and whether it has JUnit.
const COMBINATIONS: &[(&[&str], bool)] = &[
    (&["report.json"], false),
    (&["junit-xunit1.xml"], true),
    (&["junit-xunit2.xml"], true),
    (&["report.json", "junit-xunit1.xml"], true),
    (&["junit-xunit2.xml", "report.json"], true),
];

/// pytest's closing line, the reference: `1 failed, 3 passed, 3 rerun`.
#[test]
fn pytest_counted_four_tests_and_three_reruns() {
    let terminal = std::fs::read_to_string(fixture("terminal.txt")).expect("terminal.txt");
    let last = terminal.lines().last().unwrap_or_default();
    assert!(last.contains(" 1 failed, 3 passed, 3 rerun in "), "{last}");
}

#[test]
fn every_source_counts_four_tests_one_failed_one_flaky() {
    for (files, _) in COMBINATIONS {
        let value: Value = serde_json::from_str(&report(files, "json")).expect("JSON");
        let summary = &value["summary"];
        for (key, want) in [("total", 4), ("passed", 3), ("failed", 1), ("flaky", 1)] {
            assert_eq!(summary[key], want, "{files:?}: summary.{key} in {summary}");
        }
        let outcome = |id: &str| {
            let tests = value["tests"].as_array().expect("tests");
            let found: Vec<&Value> = tests.iter().filter(|t| t["node_id"] == id).collect();
            assert_eq!(found.len(), 1, "{files:?}: {id} once");
            found[0]["outcome"].clone()
        };
        assert_eq!(outcome(FLIP), "passed", "{files:?}");
        assert_eq!(outcome(FAILURE), "failed", "{files:?}");
    }
}

#[test]
fn markdown_names_the_flip_flaky_and_the_failures_attempts_from_every_source() {
    let headline = line(
        Verdict::Failure,
        Some(0.1),
        Counts {
            total: 4,
            failed: 1,
            flaky: 1,
            ..Counts::default()
        },
    );
    for (files, junit) in COMBINATIONS {
        let text = report(files, "markdown");
        assert!(
            text.starts_with(&format!("{headline}\n")),
            "{files:?}:\n{text}"
        );
        assert!(
            text.contains(&format!("\n- {FLIP} — passed after 1 failed attempt\n")),
            "{files:?}:\n{text}"
        );
        // Only JUnit lists the failure's earlier attempts.
        let all_failed = text.contains("\n  Rerun: failed all 3 attempts\n");
        assert_eq!(all_failed, *junit, "{files:?}:\n{text}");
    }
}

/// The JUnit we write keeps the attempts: `<flakyFailure>` on the flip,
/// two `<rerunFailure>` on the failure.
#[test]
fn junit_output_keeps_the_attempts() {
    let xml = report(&["report.json", "junit-xunit1.xml"], "junit");
    assert_eq!(xml.matches("<flakyFailure").count(), 1, "{xml}");
    assert_eq!(xml.matches("<rerunFailure").count(), 2, "{xml}");
}
