//! A sharded suite merged with `report`: `tests/projects/agent_loop`
//! really run by pytest in three shards, by file (the sorted test
//! files, every third to a shard), each shard writing JUnit XML and
//! pytest-json-report JSON; `report` over the shards' files counts what
//! one unsharded run of the same project counts, test by test.
//!
//! Interpreter: `PYTEST_MCP_TEST_PYTHON`, else `.venv/bin/python`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;
use common::support::{self, report_bytes};

const SHARDS: usize = 3;

/// pytest on `files` of the project at `root`, its results under `out`.
fn pytest(root: &Path, files: &[String], out: &Path) {
    std::fs::create_dir_all(out).expect("results directory");
    let status = support::clean_command(&support::test_python())
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(format!("--junitxml={}", out.join("junit.xml").display()))
        .args(["-o", "junit_family=xunit1", "--json-report"])
        .arg(format!(
            "--json-report-file={}",
            out.join("report.json").display()
        ))
        .args(files)
        .current_dir(root)
        .output()
        .expect("pytest");
    // 1: the project has failing tests.
    assert_eq!(
        status.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&status.stdout)
    );
}

/// `pytest-mcp report --format json` over `files`: the summary and each
/// test's outcome.
fn report(files: &[PathBuf]) -> (Value, BTreeMap<String, String>) {
    let out = Command::new(env!("CARGO_BIN_EXE_pytest-mcp"))
        .args(["report", "--format", "json"])
        .args(files)
        .output()
        .expect("pytest-mcp report");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let value: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let outcomes = value["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| {
            (
                t["node_id"].as_str().unwrap_or_default().to_string(),
                t["outcome"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    (value["summary"].clone(), outcomes)
}

#[test]
fn shards_merged_count_what_one_run_counts() {
    let (dir, root) = support::project_copy("agent_loop");
    let mut files: Vec<String> = std::fs::read_dir(root.join("tests"))
        .expect("tests/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("test_") && n.ends_with(".py"))
        .map(|n| format!("tests/{n}"))
        .collect();
    files.sort();
    assert!(files.len() > SHARDS, "{files:?}");

    let whole = dir.path().join("whole");
    pytest(&root, &files, &whole);
    let mut shard_files = Vec::new();
    for shard in 0..SHARDS {
        // awk's `NR % n == i`: the (1-based) position modulo the shards.
        let mine: Vec<String> = files
            .iter()
            .enumerate()
            .filter(|(i, _)| (i + 1) % SHARDS == shard)
            .map(|(_, f)| f.clone())
            .collect();
        assert!(!mine.is_empty(), "shard {shard} has files");
        let out = dir.path().join(format!("shards/results-{shard}"));
        pytest(&root, &mine, &out);
        shard_files.push(out.join("junit.xml"));
        shard_files.push(out.join("report.json"));
    }

    let (one, one_outcomes) = report(&[whole.join("junit.xml"), whole.join("report.json")]);
    let (merged, merged_outcomes) = report(&shard_files);
    for count in ["total", "passed", "failed", "errors", "skipped"] {
        assert_eq!(merged[count], one[count], "{count}: {merged} vs {one}");
    }
    assert_eq!(one["total"], 14, "{one}");
    assert_eq!(merged_outcomes, one_outcomes);
    // The directory the workflow downloads into reads the same.
    let (by_dir, _) = report(&[dir.path().join("shards")]);
    assert_eq!(by_dir["total"], one["total"]);
    assert_eq!(by_dir["failed"], one["failed"]);

    // Read one file at a time or several at once: the same bytes.
    for format in pytest_mcp::request::OutputFormat::all()
        .iter()
        .map(|f| f.cli_name())
    {
        let serial = report_bytes(format, &["--threads", "1"], &shard_files);
        for threads in [&["--threads", "2"][..], &["-j", "6"], &[]] {
            let parallel = report_bytes(format, threads, &shard_files);
            assert!(
                serial == parallel,
                "{format} {threads:?}: {} bytes read serially, {} in parallel",
                serial.len(),
                parallel.len()
            );
        }
    }
}
