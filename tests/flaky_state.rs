//! Flaky as a state that lasts (issue 41, docs/flaky.md), in the three
//! sequences users meet it in:
//! - CI: five JUnit files fed one by one to `report --format gfm --history
//!   H --commit SHA --fail-on new` (tests/fixtures/flaky_ci/: `test_flip`
//!   fails then passes on commit a, passes on b, fails on c and on d;
//!   `test_old` fails every run; `test_new` fails on c only);
//! - the agent, on a project in git, through `pytest-mcp run`: five runs on
//!   unchanged code, an unrelated edit, passes, then an edit that breaks the
//!   test;
//! - retries: a flaky test failing every attempt of a run.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::support::{clean_command, project_copy, test_python};

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("UTF-8 answer")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The commit of each CI run, 1 to 5.
const COMMITS: [&str; 5] = [
    "aaaaaaa111111111111111111111111111111111",
    "aaaaaaa111111111111111111111111111111111",
    "bbbbbbb222222222222222222222222222222222",
    "ccccccc333333333333333333333333333333333",
    "ddddddd444444444444444444444444444444444",
];

/// `report flaky_ci/run<n>.xml --history <store> --commit <sha> <args>`.
fn report(store: &Path, n: usize, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pytest-mcp"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("report")
        .arg(format!("tests/fixtures/flaky_ci/run{n}.xml"))
        .arg("--history")
        .arg(store)
        .args(["--commit", COMMITS[n - 1]])
        .args(args)
        .env_remove("GITHUB_SHA")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("GITHUB_ACTIONS")
        .stdin(Stdio::null())
        .output()
        .expect("run pytest-mcp")
}

/// The JSON report's `history` of one test.
fn history_of(json: &str, id: &str) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_str(json).expect("JSON");
    v["tests"]
        .as_array()
        .and_then(|ts| ts.iter().find(|t| t["node_id"] == id))
        .map(|t| t["history"].clone())
        .unwrap_or_else(|| panic!("{id} in {v}"))
}

#[test]
fn ci_a_flaky_test_failing_on_a_new_commit_is_flaky_not_new_and_the_gate_lets_it_through() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("h.sqlite");
    // a: test_old is new, then failing before; test_flip flipped on a.
    for (n, status) in [(1, 1), (2, 0), (3, 0)] {
        let out = report(&store, n, &["--fail-on", "new"]);
        assert!(stderr(&out).is_empty(), "{}", stderr(&out));
        assert_eq!(out.status.code(), Some(status), "run {n}: {}", stdout(&out));
    }
    // c: test_new is new and first; test_flip is flaky, not new.
    let out = report(&store, 4, &["--format", "gfm", "--fail-on", "new"]);
    assert_eq!(out.status.code(), Some(1), "test_new fails the step");
    let gfm = stdout(&out);
    let new = gfm.find("test_new").expect("the new failure");
    let old = gfm.find("test_old").expect("the old failure");
    let flaky = gfm.find("### Flaky").expect("a Flaky section");
    let flip = gfm[flaky..].find("test_flip").map(|i| i + flaky);
    assert!(new < old && old < flaky && flip.is_some(), "{gfm}");
    assert!(gfm.contains("failed 2 of the last 4 runs"), "{gfm}");
    let first_flip = gfm.find("test_flip").expect("test_flip");
    assert!(
        !gfm[first_flip.saturating_sub(200)..first_flip].contains("new"),
        "test_flip is never new: {gfm}"
    );
    // d: only test_flip and test_old fail, on another new commit: nothing
    // is new, the gate lets it through.
    let before_d = dir.path().join("before-d.sqlite");
    std::fs::copy(&store, &before_d).expect("copy the store");
    let out = report(&store, 5, &["--format", "gfm", "--fail-on", "new"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let gfm = stdout(&out);
    assert!(gfm.contains("failed 3 of the last 5 runs"), "{gfm}");
    assert!(!gfm.contains("failing for 2 runs"), "{gfm}");
    assert!(gfm.contains("failing for 5 runs"), "test_old: {gfm}");
    // The same run in JSON: the state, the last outcomes, oldest first.
    let out = report(&before_d, 5, &["--format", "json"]);
    let flip = history_of(&stdout(&out), "tests/test_shop.py::test_flip");
    assert_eq!(flip["state"], "flaky", "{flip}");
    assert_eq!(flip["flaky"], true, "{flip}");
    assert_eq!(flip["flaky_before"], false, "{flip}");
    assert_eq!(
        flip["recent"],
        serde_json::json!(["failed", "passed", "passed", "failed", "failed"]),
        "{flip}"
    );
    assert_eq!(flip["median"], 0.027, "{flip}");
    let old = history_of(&stdout(&out), "tests/test_shop.py::test_old");
    assert_eq!(old["state"], "failing", "{old}");
}

/// `pytest-mcp run` in `root` with test_flip told to `mode` (pass, fail).
fn run(root: &Path, mode: &str, args: &[&str]) -> Output {
    clean_command(Path::new(env!("CARGO_BIN_EXE_pytest-mcp")))
        .arg("run")
        .arg("--root")
        .arg(root)
        .arg("--python")
        .arg(test_python())
        .args(args)
        .env("FLIP_MODE", mode)
        .output()
        .expect("run pytest-mcp")
}

fn git(dir: &Path, args: &[&str]) -> bool {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The flaky project, committed to a git repository of its own.
fn project_in_git() -> Option<(tempfile::TempDir, PathBuf)> {
    let (dir, root) = project_copy("flaky_history");
    if !git(&root, &["init", "-q"]) {
        println!("git not found: agent sequence skipped");
        return None;
    }
    assert!(git(&root, &["add", "."]) && git(&root, &["commit", "-qm", "project"]));
    Some((dir, root))
}

const FLIP: &str = "test_history.py::test_flip";

#[test]
fn agent_an_unrelated_edit_fixes_no_flaky_test_and_five_clean_passes_clear_it() {
    let Some((_dir, root)) = project_in_git() else {
        return;
    };
    for (n, mode) in ["fail", "pass", "fail", "pass"].into_iter().enumerate() {
        let out = run(&root, mode, &[]);
        assert!(stderr(&out).is_empty(), "run {}: {}", n + 1, stderr(&out));
        assert!(!stdout(&out).contains("Fixed"), "{}", stdout(&out));
    }
    let md = stdout(&run(&root, "fail", &[]));
    assert!(
        md.contains(&format!(
            "### FAILED (flaky, failed 3 of the last 5 runs): {FLIP}"
        )),
        "{md}"
    );
    // The agent edits an unrelated file; test_flip happens to pass.
    std::fs::write(root.join("helper.py"), "VALUE = 1\n").expect("edit");
    let md = stdout(&run(&root, "pass", &[]));
    assert!(!md.contains("Fixed") && !md.contains("fixed"), "{md}");
    assert!(md.contains("Since the last run: 1 still failing"), "{md}");
    let json = stdout(&run(&root, "pass", &["--format", "json"]));
    let flip = history_of(&json, FLIP);
    assert_eq!(flip["state"], "flaky", "{flip}");
    assert_eq!(
        flip["recent"],
        serde_json::json!([
            "failed", "passed", "failed", "passed", "failed", "passed", "passed"
        ]),
        "{flip}"
    );
    // Three more clean passes: five since its last flip.
    for _ in 0..3 {
        run(&root, "pass", &[]);
    }
    // An edit that breaks it: a new failure.
    let test_file = root.join("test_history.py");
    let text = std::fs::read_to_string(&test_file).expect("read");
    std::fs::write(&test_file, format!("{text}\n# the edit that breaks it\n")).expect("edit");
    let md = stdout(&run(&root, "fail", &[]));
    assert!(md.contains(&format!("### FAILED (new): {FLIP}")), "{md}");
    assert!(!md.contains("flaky"), "{md}");
}

#[test]
fn retries_a_flaky_test_failing_every_attempt_is_failing_and_says_it_was_flaky() {
    let (dir, root) = project_copy("flaky_history");
    let store = dir.path().join("h.sqlite");
    let history = ["--history", store.to_str().expect("UTF-8 path")];
    for mode in ["fail", "pass"] {
        let out = run(&root, mode, &history);
        assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    }
    let args = [&history[..], &["--retries", "2"]].concat();
    let out = run(&root, "fail", &args);
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    let md = stdout(&out);
    assert!(
        md.contains(&format!(
            "### FAILED (failed every attempt; flaky before): {FLIP}"
        )),
        "{md}"
    );
    assert!(md.contains("Rerun: failed all 3 attempts"), "{md}");
    assert!(!md.contains("(flaky,"), "{md}");
    // Failing again, with retries: failing before, still flaky before.
    let json = stdout(&run(
        &root,
        "fail",
        &[&args[..], &["--format", "json"]].concat(),
    ));
    let flip = history_of(&json, FLIP);
    assert_eq!(flip["state"], "failing", "{flip}");
    assert_eq!(flip["flaky"], false, "{flip}");
    assert_eq!(flip["flaky_before"], true, "{flip}");
    assert_eq!(flip["failing_since"]["runs"], 2, "{flip}");
}
