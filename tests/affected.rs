//! `run --affected` (`execute_tests` with `affected`), end to end with real
//! pytest runs of `tests/projects/agent_loop` under pytest-testmon: its
//! first run records and runs everything, later runs run only the tests
//! that ran the changed code (a function, not a whole module) and the ones
//! failing before, and say how many were
//! left out; it combines with workers, `--last-failed`, ids and `-k`; a
//! project without pytest-testmon, or one that turns it off, is refused
//! naming `affected`.
//!
//! Interpreter: `PYTEST_MCP_TEST_PYTHON`, else `.venv/bin/python` (with
//! pytest-testmon); `.venv-nojson/bin/python` has pytest alone.

use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;
use common::headline::before_counts;
use common::support;

const AFFECTED: &str = "Affected only (pytest-testmon): ";

/// A private copy of the project, with no record of any run.
fn project() -> (tempfile::TempDir, PathBuf) {
    support::project_copy("agent_loop")
}

/// The Markdown answer of `run --affected <args>`.
fn affected(root: &Path, args: &[&str]) -> String {
    let mut all = vec!["--affected"];
    all.extend_from_slice(args);
    support::run_pytest_mcp(root, &all).1
}

/// The JSON answer of `run --affected <args>`.
fn affected_json(root: &Path, args: &[&str]) -> Value {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    let text = affected(root, &all);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The answer's "Affected only" line.
fn line(answer: &str) -> &str {
    answer
        .lines()
        .find(|l| l.starts_with(AFFECTED))
        .unwrap_or_else(|| panic!("no affected line\n{answer}"))
}

/// Tests run, from the status line's "N run".
fn ran(answer: &str) -> usize {
    let status = answer.lines().next().unwrap_or_default();
    let (_, counts) = status.split_once(&before_counts()).expect("status line");
    counts
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {status:?}"))
}

fn edit(root: &Path, file: &str, from: &str, to: &str) {
    let path = root.join(file);
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains(from), "{file} has no {from:?}");
    std::fs::write(&path, text.replace(from, to)).expect("write");
}

fn fix_stock(root: &Path) {
    edit(
        root,
        "shop/stock.py",
        "return STOCK[name]",
        "return STOCK.get(name, 0)",
    );
}

fn break_users(root: &Path) {
    edit(
        root,
        "shop/users.py",
        "(first[:1] + last[:1]).upper()",
        "(first[:1] + last[:1])",
    );
}

#[test]
fn the_first_run_records_then_only_what_an_edit_touches_runs() {
    let (_dir, root) = project();
    let first = affected(&root, &[]);
    assert_eq!(ran(&first), 14, "{first}");
    assert!(
        line(&first).contains("first run, so all 14 ran while it records"),
        "{first}"
    );
    assert!(
        root.join(".testmondata").exists(),
        "pytest-testmon's record"
    );

    // Nothing changed: only last run's 9 failures run again.
    let again = affected_json(&root, &[]);
    assert_eq!(again["summary"]["total"], 9, "{again}");
    assert_eq!(
        again["affected"],
        serde_json::json!({"selected": 9, "left_out": 5})
    );

    // An edit to stock.py: its 4 tests (3 were failing) and the other 6
    // failures run; the users' 3 tests and the cart's passing one do not.
    fix_stock(&root);
    let fixed = affected(&root, &[]);
    assert_eq!(ran(&fixed), 10, "{fixed}");
    assert_eq!(
        line(&fixed),
        "Affected only (pytest-testmon): 10 ran, 4 unaffected left out."
    );
    assert!(
        fixed.contains("Since the last run: 3 fixed, 6 still failing"),
        "{fixed}"
    );

    // A break in users.initials: the one test that runs it (not the
    // users' other two) and the 6 failures run, the new failure first.
    break_users(&root);
    let broken = affected(&root, &[]);
    assert_eq!(
        ran(&broken),
        7,
        "test_initials and the 6 failures\n{broken}"
    );
    assert!(line(&broken).contains("7 unaffected left out"), "{broken}");
    let first_heading = broken.lines().find(|l| l.starts_with("### ")).unwrap_or("");
    assert_eq!(
        first_heading, "### FAILED (new): tests/test_users.py::test_initials (line 13)",
        "{broken}"
    );
}

#[test]
fn a_run_without_affected_says_nothing_of_it() {
    let (_dir, root) = project();
    let answer = support::run_pytest_mcp(&root, &[]).1;
    assert!(!answer.contains(AFFECTED), "{answer}");
    let json = support::run_pytest_mcp(&root, &["--format", "json"]).1;
    let value: Value = serde_json::from_str(&json).expect("JSON");
    assert!(value.get("affected").is_none(), "{value}");
    assert!(
        !root.join(".testmondata").exists(),
        "pytest-testmon stays off"
    );
}

#[test]
fn affected_combines_with_workers() {
    let (_dir, root) = project();
    let first = affected(&root, &["--workers", "2"]);
    assert_eq!(ran(&first), 14, "{first}");
    assert!(line(&first).contains("first run"), "{first}");
    break_users(&root);
    let broken = affected_json(&root, &["--workers", "2"]);
    assert_eq!(
        broken["affected"],
        serde_json::json!({"selected": 10, "left_out": 4}),
        "test_initials and the 9 failures: {broken}"
    );
    assert_eq!(broken["changes"]["new_failures"]["count"], 1, "{broken}");
    // The answer lists tests in collection order, as without workers.
    let ids: Vec<&str> = broken["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .filter_map(|t| t["nodeid"].as_str())
        .collect();
    let mut sorted = ids.clone();
    sorted.sort_by_key(|id| id.split("::").next().map(str::to_string));
    assert_eq!(ids, sorted, "by file, in collection order");
}

#[test]
fn affected_combines_with_last_failed_ids_and_keywords() {
    let (_dir, root) = project();
    affected(&root, &[]);
    break_users(&root);
    // The 9 recorded failures; the users' break is not one of them yet.
    let lf = affected(&root, &["--last-failed"]);
    assert_eq!(ran(&lf), 9, "{lf}");
    assert!(line(&lf).contains(": 9 ran"), "{lf}");
    // One file: only what is in it is counted as left out.
    let one = affected(&root, &["tests/test_users.py"]);
    assert_eq!(ran(&one), 1, "{one}");
    assert!(line(&one).contains("2 unaffected left out"), "{one}");
    // -k narrows what pytest-testmon selected (plain --testmon would
    // stop selecting under -k).
    let k = affected(&root, &["-k", "initials"]);
    assert_eq!(ran(&k), 1, "{k}");
    assert!(k.contains("test_initials"), "{k}");
}

/// `run --affected` with `python`, in `root`: exit status, stdout, stderr.
fn refused(root: &Path, python: &Path, format: &str) -> (Option<i32>, String, String) {
    let out = support::clean_command(Path::new(env!("CARGO_BIN_EXE_pytest-mcp")))
        .args(["run", "--affected", "--format", format, "--root"])
        .arg(root)
        .arg("--python")
        .arg(python)
        .output()
        .expect("run pytest-mcp");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn without_pytest_testmon_affected_is_refused_naming_it() {
    let (_dir, root) = project();
    let nojson = common::support::nojson_python();
    let (code, stdout, stderr) = refused(&root, &nojson, "json");
    assert_eq!(code, Some(4), "{stdout}{stderr}");
    let error: Value = serde_json::from_str(&stdout).expect("JSON error");
    assert_eq!(error["error"]["code"], -32602, "{error}");
    assert_eq!(error["error"]["data"]["field"], "affected", "{error}");
    let detail = error["error"]["data"]["detail"].as_str().unwrap_or("");
    assert!(
        detail.contains("needs pytest-testmon, which is not installed")
            && detail.contains("-m pip install pytest-testmon"),
        "{detail}"
    );
}

#[test]
fn a_project_that_turns_pytest_testmon_off_is_refused_naming_affected() {
    for (addopts, says) in [
        (
            "-p no:pytest-testmon",
            "needs pytest-testmon, which is installed for",
        ),
        (
            "--no-testmon",
            "needs pytest-testmon's selection, which is off in this project (testmon: deactivated through --no-testmon)",
        ),
    ] {
        let (_dir, root) = project();
        edit(
            &root,
            "pytest.ini",
            "[pytest]\n",
            &format!("[pytest]\naddopts = {addopts}\n"),
        );
        let (code, stdout, stderr) = refused(&root, &support::test_python(), "markdown");
        assert_eq!(code, Some(4), "{addopts}: {stdout}{stderr}");
        assert!(
            stdout.starts_with("Invalid params: affected ") && stdout.contains(says),
            "{addopts}: {stdout}"
        );
        // The refusal says how to go on.
        assert!(stdout.contains("or leave affected out"), "{stdout}");
    }
}
