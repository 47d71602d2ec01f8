//! Golden files of a run told against the history of runs
//! (docs/flaky.md), as CI gets it: `report --history H --commit SHA` over
//! the JUnit files of a suite's runs (tests/fixtures/history/), recorded
//! one by one into a fresh store: `before1` on commit 7777777, `before2`
//! and `before3` on 8888888, `run1` on aaaaaaa, `run2` and `run3` on
//! bbbbbbb, then `run4`, on ccccccc, rendered in every format under
//! `golden/history/` (`expected.md`, `.json`, `.gfm`, `.html`, `.github`,
//! `.xml`, `.ctrf.json`).
//!
//! `test_old` passes before and fails from run 1 on; `test_flip` passes
//! after a failed attempt in `before2`, passes in run 2 and fails in run
//! 3, on the same commit, and again in run 4 (flaky); `test_new` fails
//! first in run 4; `test_slow` takes about 0.3 s until run 4, where it
//! takes 2.35 s (slower than usual). So each failure's strip of recent
//! outcomes differs, the trend has seven runs with their durations, and
//! one test is slower than usual. (tests/history.rs tells the CI
//! sequence over `run1` to `run5` alone.)
//!
//! To accept new output after reviewing it:
//! `UPDATE_GOLDEN=1 cargo test --test history_golden`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;
use common::golden::{check, every_format};

/// The runs, oldest first, each its file's name and its commit: the
/// last is rendered, the others recorded before it.
const RUNS: [(&str, &str); 7] = [
    ("before1", "7777777000000000000000000000000000000000"),
    ("before2", "8888888000000000000000000000000000000000"),
    ("before3", "8888888000000000000000000000000000000000"),
    ("run1", "aaaaaaa111111111111111111111111111111111"),
    ("run2", "bbbbbbb222222222222222222222222222222222"),
    ("run3", "bbbbbbb222222222222222222222222222222222"),
    ("run4", "ccccccc333333333333333333333333333333333"),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `pytest-mcp report <file> --history <store> --commit <sha> <args>` for
/// one of [`RUNS`], from the repository root, with none of GitHub's
/// variables.
fn report(store: &Path, (file, commit): (&str, &str), args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pytest-mcp"))
        .current_dir(root())
        .arg("report")
        .arg(format!("tests/fixtures/history/{file}.xml"))
        .arg("--history")
        .arg(store)
        .args(["--commit", commit])
        .args(args)
        .env_remove("GITHUB_SHA")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("GITHUB_SERVER_URL")
        .env_remove("GITHUB_REPOSITORY")
        .env_remove("GITHUB_WORKSPACE")
        .env_remove("GITHUB_ACTIONS")
        .stdin(Stdio::null())
        .output()
        .expect("run pytest-mcp")
}

/// Every run of [`RUNS`] but the last recorded into a fresh store, then
/// the last rendered with `args`.
fn after_history(args: &[&str]) -> (tempfile::TempDir, Output) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("history.sqlite");
    let (last, before) = RUNS.split_last().expect("runs");
    for &run in before {
        let out = report(&store, run, &["--format", "json"]);
        assert!(out.status.success(), "{}: {out:?}", run.0);
        assert!(
            out.stderr.is_empty(),
            "{}: {}",
            run.0,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = report(&store, *last, args);
    (dir, out)
}

#[test]
fn every_format_tells_the_history() {
    let dir = root().join("golden/history");
    std::fs::create_dir_all(&dir).expect("golden/history");
    let mut diffs = Vec::new();
    for (format, file) in every_format() {
        let format = format.cli_name();
        let (_dir, out) = after_history(&["--format", format]);
        assert!(out.status.success(), "{format}: {out:?}");
        let text = String::from_utf8(out.stdout).expect("UTF-8");
        if let Some(diff) = check(&dir.join(file), &text) {
            diffs.push(diff);
        }
    }
    assert!(diffs.is_empty(), "golden mismatch:\n{}", diffs.join("\n"));
}
