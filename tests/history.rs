//! The history of runs as users meet it (docs/flaky.md): an agent's loop of
//! `run` on unchanged code, then after an edit (tests/flaky_state.rs
//! follows a flaky test across edits and retries); CI's `report --history`
//! over the result files of several runs, with `--fail-on new`; and the
//! store's faults (corrupt, unwritable, two runs at once), each answer
//! whole with one warning line.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::headline::{Counts, before_counts, counts};
use common::support::{clean_command, project_copy, test_python};

/// `pytest-mcp run` in `root` with the flip's counter at `counter`.
fn run(root: &Path, counter: &Path, args: &[&str]) -> Output {
    clean_command(Path::new(env!("CARGO_BIN_EXE_pytest-mcp")))
        .arg("run")
        .arg("--root")
        .arg(root)
        .arg("--python")
        .arg(test_python())
        .args(args)
        .env("FLIP_COUNTER", counter)
        .output()
        .expect("run pytest-mcp")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("UTF-8 answer")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The project of a test that fails on odd runs and one that always
/// fails, and a counter outside its code.
fn flaky_project() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let (dir, root) = project_copy("flaky_history");
    let counter = dir.path().join("count");
    (dir, root, counter)
}

#[test]
fn five_calls_on_unchanged_code_call_the_flip_flaky_and_the_real_failure_failing_since_the_first() {
    let (_dir, root, counter) = flaky_project();
    for n in 1..=4 {
        let out = run(&root, &counter, &[]);
        assert_eq!(out.status.code(), Some(1), "run {n}: {}", stderr(&out));
        assert!(stderr(&out).is_empty(), "run {n}: {}", stderr(&out));
        let md = stdout(&out);
        if n == 1 {
            assert!(!md.contains("(new)") && !md.contains("failing for"), "{md}");
        }
        if n == 2 {
            // Failed, then passed on the same code: a flip, not a fix.
            assert!(!md.contains("Fixed"), "{md}");
        }
    }
    let md = stdout(&run(&root, &counter, &[]));
    assert!(
        md.contains(&format!(
            "{}{}",
            before_counts(),
            counts(Counts {
                total: 3,
                failed: 2,
                flaky_failures: 1,
                ..Counts::default()
            })
        )),
        "{md}"
    );
    assert!(
        md.contains("### FAILED (flaky, failed 3 of the last 5 runs): test_history.py::test_flip"),
        "{md}"
    );
    assert!(
        md.contains("### FAILED (failing for 5 runs): test_history.py::test_real_failure"),
        "{md}"
    );
    assert!(!md.contains("(new)"), "{md}");
    // The flaky failure comes last.
    let flip = md.find("test_history.py::test_flip").expect("flip");
    let real = md.find("test_history.py::test_real_failure").expect("real");
    assert!(real < flip, "{md}");

    // After an edit it stays flaky (tests/flaky_state.rs follows it until
    // it is cleared): its next failure is flaky, not new.
    let test_file = root.join("test_history.py");
    let text = std::fs::read_to_string(&test_file).expect("read");
    std::fs::write(&test_file, format!("{text}\n# an edit\n")).expect("edit");
    let md = stdout(&run(&root, &counter, &[]));
    assert!(!md.contains("Fixed"), "{md}");
    let md = stdout(&run(&root, &counter, &[]));
    assert!(
        md.contains("### FAILED (flaky, failed 4 of the last 7 runs): test_history.py::test_flip"),
        "{md}"
    );
}

#[test]
fn the_fifth_calls_json_gives_each_tests_history() {
    let (_dir, root, counter) = flaky_project();
    for _ in 1..=4 {
        run(&root, &counter, &["--format", "json"]);
    }
    let out = run(&root, &counter, &["--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let test = |id: &str| {
        v["tests"]
            .as_array()
            .and_then(|ts| ts.iter().find(|t| t["node_id"] == id))
            .cloned()
            .unwrap_or_else(|| panic!("{id} in {v}"))
    };
    let flip = &test("test_history.py::test_flip")["history"];
    assert_eq!(flip["runs"], 5, "{flip}");
    assert_eq!(flip["failed"], 3, "{flip}");
    assert_eq!(flip["flaky"], true, "{flip}");
    assert!(flip["failing_since"].is_null(), "{flip}");
    let real = &test("test_history.py::test_real_failure")["history"];
    assert_eq!(real["flaky"], false, "{real}");
    assert_eq!(real["failing_since"]["run"], 1, "{real}");
    assert_eq!(real["failing_since"]["runs"], 5, "{real}");
    assert!(test("test_history.py::test_ok").get("history").is_none());
    assert_eq!(
        v["history"],
        serde_json::json!({"runs": 5, "new": 0, "failing_before": 1, "flaky": 1})
    );
}

/// `report run<n>.xml --history <store> --commit <sha>` (run 1 on commit
/// a, 2 and 3 on b, 4 and 5 on c: tests/history_golden.rs tells the
/// story): the exit status and the answer.
fn report(store: &Path, n: usize, args: &[&str]) -> Output {
    let commit = ["a", "b", "b", "c", "c"][n - 1].repeat(40);
    Command::new(env!("CARGO_BIN_EXE_pytest-mcp"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("report")
        .arg(format!("tests/fixtures/history/run{n}.xml"))
        .arg("--history")
        .arg(store)
        .args(["--commit", &commit])
        .args(args)
        .env_remove("GITHUB_SHA")
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdin(Stdio::null())
        .output()
        .expect("run pytest-mcp")
}

#[test]
fn ci_reports_put_the_new_failure_first_and_the_flip_under_flaky() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("h.sqlite");
    // Run 1: test_old is new (nothing before). Run 2: test_old is failing
    // before. Run 3: test_flip failed where it passed on the same commit:
    // flaky, not new.
    for (n, expected) in [(1, 1), (2, 0), (3, 0)] {
        let out = report(&store, n, &["--fail-on", "new"]);
        assert!(stderr(&out).is_empty(), "{}", stderr(&out));
        assert_eq!(
            out.status.code(),
            Some(expected),
            "run {n}: {}",
            stdout(&out)
        );
    }
    let out = report(&store, 4, &["--format", "gfm", "--fail-on", "new"]);
    assert_eq!(out.status.code(), Some(1), "a new failure fails the step");
    let gfm = stdout(&out);
    let new = gfm.find("test_new").expect("the new failure");
    let old = gfm.find("test_old").expect("the old failure");
    let flaky = gfm.find("### Flaky").expect("a Flaky section");
    let flip = gfm[flaky..].find("test_flip").map(|i| i + flaky);
    assert!(new < old && old < flaky && flip.is_some(), "{gfm}");
    assert!(gfm.contains("failing for 4 runs, since aaaaaaa"), "{gfm}");
    assert!(gfm.contains("failed 2 of the last 4 runs"), "{gfm}");
    // Run 5: the old failure and the flip fail again, test_new passes:
    // nothing is new.
    let out = report(&store, 5, &["--fail-on", "new"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let out = report(&store, 5, &["--fail-on", "failures"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_corrupt_store_is_one_warning_and_the_answer_is_whole() {
    let (_dir, root, counter) = flaky_project();
    let store = root.join("history.sqlite");
    std::fs::write(&store, vec![b'#'; 8192]).expect("write");
    let path = store.to_str().expect("UTF-8 path");
    let out = run(&root, &counter, &["--history", path, "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("whole JSON");
    assert_eq!(v["summary"]["total"], 3);
    let warning = stderr(&out);
    assert_eq!(warning.lines().count(), 1, "{warning}");
    assert!(warning.contains("not a history database"), "{warning}");
    assert_eq!(
        std::fs::read(&store).expect("read"),
        vec![b'#'; 8192],
        "left as it was"
    );
}

#[test]
fn an_unwritable_place_is_one_warning_and_the_answer_is_whole() {
    let (_dir, root, counter) = flaky_project();
    // /proc takes no new files, whoever runs the tests (root included).
    let out = run(
        &root,
        &counter,
        &["--history", "/proc/pytest-mcp/history.sqlite"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("### FAILED"), "{}", stdout(&out));
    let warning = stderr(&out);
    assert_eq!(warning.lines().count(), 1, "{warning}");
    assert!(
        warning.starts_with("pytest-mcp: warning: history not kept: "),
        "{warning}"
    );
}

#[test]
fn a_read_only_folder_is_one_warning_and_the_answer_is_whole() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, root, counter) = flaky_project();
    let folder = root.join("ro");
    std::fs::create_dir(&folder).expect("mkdir");
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    if std::fs::write(folder.join("probe"), "x").is_ok() {
        println!("read-only folder test skipped: this user writes anywhere (root)");
        return;
    }
    let store = folder.join("history.sqlite");
    let out = run(
        &root,
        &counter,
        &["--history", store.to_str().expect("UTF-8")],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("### FAILED"));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
}

#[test]
fn two_runs_at_once_both_answer_whole_and_both_are_recorded() {
    let (_dir, root, counter) = flaky_project();
    let other = root.parent().expect("parent").join("count2");
    let spawn = |counter: &Path| {
        clean_command(Path::new(env!("CARGO_BIN_EXE_pytest-mcp")))
            .arg("run")
            .arg("--root")
            .arg(&root)
            .arg("--python")
            .arg(test_python())
            .args(["--format", "json"])
            .env("FLIP_COUNTER", counter)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn")
    };
    let (a, b) = (spawn(&counter), spawn(&other));
    for out in [a.wait_with_output(), b.wait_with_output()] {
        let out = out.expect("wait");
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("whole JSON");
        assert_eq!(v["summary"]["total"], 3, "{v}");
        assert!(stderr(&out).lines().count() <= 1, "{}", stderr(&out));
    }
    // A third run sees both in its window.
    let out = run(&root, &counter, &["--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(v["history"]["runs"], 3, "{v}");
}

#[test]
fn no_history_keeps_nothing() {
    let (_dir, root, counter) = flaky_project();
    for _ in 0..2 {
        let out = run(&root, &counter, &["--no-history"]);
        assert!(!stdout(&out).contains("failing for"), "{}", stdout(&out));
    }
    assert!(!root.join(".pytest_cache/d/pytest-mcp").exists());
}

#[test]
fn pytest_cache_clear_clears_the_history() {
    let (_dir, root, counter) = flaky_project();
    run(&root, &counter, &[]);
    let store = root.join(".pytest_cache/d/pytest-mcp/history.sqlite");
    assert!(store.is_file(), "the history is kept in pytest's cache");
    let cleared = clean_command(&test_python())
        .args(["-m", "pytest", "--cache-clear", "-q"])
        .arg("--collect-only")
        .current_dir(&root)
        .output()
        .expect("pytest --cache-clear");
    assert!(cleared.status.success(), "{cleared:?}");
    assert!(!store.exists(), "pytest --cache-clear removes it");
    let md = stdout(&run(&root, &counter, &[]));
    assert!(!md.contains("failing for"), "{md}");
}
