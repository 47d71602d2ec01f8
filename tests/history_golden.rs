//! Golden files of a run told against the history of runs
//! (docs/flaky.md), as CI gets it: `report --history H --commit SHA` over
//! the JUnit files of five runs of one suite (tests/fixtures/history/):
//! run 1 on commit aaaaaaa, runs 2 and 3 on bbbbbbb, runs 4 and 5 on
//! ccccccc. `test_old` fails in every run; `test_flip` passes in run 2 and
//! fails in run 3, on the same commit, and fails again in runs 4 and 5;
//! `test_new` fails first in run 4. Run 4 is rendered in every format under
//! `golden/history/` (`expected.md`, `.json`, `.gfm`, `.html`, `.github`,
//! `.xml`, `.ctrf.json`); the runs before it are recorded first, into a
//! fresh store.
//!
//! To accept new output after reviewing it:
//! `UPDATE_GOLDEN=1 cargo test --test history_golden`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;
use common::golden::check;

/// The commit of each run, 1 to 5.
const COMMITS: [&str; 5] = [
    "aaaaaaa111111111111111111111111111111111",
    "bbbbbbb222222222222222222222222222222222",
    "bbbbbbb222222222222222222222222222222222",
    "ccccccc333333333333333333333333333333333",
    "ccccccc333333333333333333333333333333333",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `pytest-mcp report <run N> --history <store> --commit <sha> <args>`,
/// from the repository root, with none of GitHub's variables.
fn report(store: &Path, n: usize, args: &[&str]) -> Output {
    let commit = COMMITS[n - 1];
    Command::new(env!("CARGO_BIN_EXE_pytest-mcp"))
        .current_dir(root())
        .arg("report")
        .arg(format!("tests/fixtures/history/run{n}.xml"))
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

/// Runs 1 to `last - 1` recorded into a fresh store, then run `last`
/// rendered with `args`.
fn after_history(last: usize, args: &[&str]) -> (tempfile::TempDir, Output) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("history.sqlite");
    for n in 1..last {
        let out = report(&store, n, &["--format", "json"]);
        assert!(out.status.success(), "run {n}: {out:?}");
        assert!(
            out.stderr.is_empty(),
            "run {n}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = report(&store, last, args);
    (dir, out)
}

#[test]
fn every_format_tells_the_history() {
    let dir = root().join("golden/history");
    std::fs::create_dir_all(&dir).expect("golden/history");
    let mut diffs = Vec::new();
    for (ext, format) in [
        ("md", "markdown"),
        ("json", "json"),
        ("gfm", "gfm"),
        ("html", "html"),
        ("github", "github"),
        ("xml", "junit"),
        ("ctrf.json", "ctrf"),
    ] {
        let (_dir, out) = after_history(4, &["--format", format]);
        assert!(out.status.success(), "{format}: {out:?}");
        let text = String::from_utf8(out.stdout).expect("UTF-8");
        if let Some(diff) = check(&dir.join(format!("expected.{ext}")), &text) {
            diffs.push(diff);
        }
    }
    assert!(diffs.is_empty(), "golden mismatch:\n{}", diffs.join("\n"));
}
