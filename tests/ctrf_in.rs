//! CTRF in: `pytest-mcp report` of a CTRF file (Jest's and pytest's
//! reporters' shapes), through the real binary.

use std::path::PathBuf;
use std::process::{Command, Output};

mod common;
use common::headline::{Counts, Verdict, counts, says};
use common::support::section;

fn report(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pytest-mcp"))
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")))
        .arg("report")
        .args(args)
        .output()
        .expect("run pytest-mcp")
}

fn stdout(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn jest_markdown_names_each_failure_with_its_message_and_place() {
    let md = stdout(&report(&["tests/fixtures/ctrf/jest.json"]));
    assert!(
        says(&md, Verdict::Failure)
            && md.contains(&counts(Counts {
                total: 8,
                failed: 2,
                skipped: 2,
                flaky: 1,
                ..Counts::default()
            })),
        "{md}"
    );
    let rounds = section(&md, "### FAILED: cart › totals › rounds to cents");
    assert!(rounds.contains("Expected: 10.2"), "{rounds}");
    assert!(rounds.contains("src/cart/totals.test.js:21"), "{rounds}");
    assert!(!rounds.contains("jest-circus"), "{rounds}");
    let login = section(&md, "### FAILED: api › login › rejects an unknown user");
    assert!(
        login.contains("TypeError: Cannot read properties of undefined (reading 'id')"),
        "{login}"
    );
    assert!(login.contains("src/api/login.test.ts:34"), "{login}");
    assert!(login.contains("console.error: user store empty"), "{login}");
    let flaky = section(&md, "### FLAKY (1)");
    assert!(
        flaky.contains("net › connects to the socket")
            && flaky.contains("passed after 2 failed attempts")
            && flaky.contains("at src/net.test.js:9"),
        "{flaky}"
    );
    assert!(md.contains("> Sources: CTRF"), "{md}");
}

#[test]
fn jest_json_counts_every_status() {
    let out = stdout(&report(&[
        "--format",
        "json",
        "tests/fixtures/ctrf/jest.json",
    ]));
    let value: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let summary = &value["summary"];
    assert_eq!(summary["total"], 8, "{summary}");
    assert_eq!(summary["passed"], 4, "{summary}");
    assert_eq!(summary["failed"], 2, "{summary}");
    assert_eq!(summary["skipped"], 2, "{summary}");
    assert_eq!(summary["flaky"], 1, "{summary}");
    assert_eq!(summary["errors"], 0, "{summary}");
}

#[test]
fn pytest_ctrf_keeps_node_ids_and_the_assertion_line() {
    let md = stdout(&report(&["tests/fixtures/ctrf/pytest.json"]));
    let failed = section(
        &md,
        "### FAILED: tests/test_calc.py::test_discount (line 11)",
    );
    assert!(failed.contains("assert 9.0 == 9.5"), "{failed}");
    assert!(
        md.contains(&counts(Counts {
            total: 4,
            failed: 1,
            skipped: 1,
            ..Counts::default()
        })),
        "{md}"
    );
    assert!(md.contains("- not ready"), "{md}");
}

#[test]
fn a_broken_ctrf_file_is_refused_with_its_place() {
    let dir = std::env::temp_dir().join(format!("ctrf-in-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("broken.json");
    std::fs::write(
        &file,
        "{\"reportFormat\": \"CTRF\",\n \"results\": {\"tests\": \"none\"}}",
    )
    .expect("write");
    let out = report(&[file.to_str().expect("utf-8 path")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("line 2, column") && stderr.contains("not a CTRF document"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
