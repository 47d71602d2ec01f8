//! What changed since the last run, end to end with real pytest runs of
//! `tests/projects/agent_loop` (three root causes in three modules): the
//! loop an agent goes through (run, fix, run, break, run), a cache written
//! by a plain `pytest`, a narrower selection, a renamed test, pytest-xdist
//! workers, and the runs that have no cache to compare with (the line is
//! left out, nothing else changes).
//!
//! Interpreter: `PYTEST_MCP_TEST_PYTHON`, else `.venv/bin/python`.

use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;
use common::support;

const SINCE: &str = "Since the last run: ";

/// A private copy of the project, without any cache.
fn project() -> (tempfile::TempDir, PathBuf) {
    support::project_copy("agent_loop")
}

fn run(root: &Path, args: &[&str]) -> String {
    support::run_pytest_mcp(root, args).1
}

/// The answer's "Since the last run" line, if any.
fn since(answer: &str) -> Option<&str> {
    answer.lines().find(|l| l.starts_with(SINCE))
}

/// Replaces `from` by `to` in the project's `file`.
fn edit(root: &Path, file: &str, from: &str, to: &str) {
    let path = root.join(file);
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains(from), "{file} has no {from:?}");
    std::fs::write(&path, text.replace(from, to)).expect("write");
}

fn fix_cart(root: &Path) {
    edit(root, "shop/cart.py", "return amount + 1", "return amount");
}

fn break_users(root: &Path) {
    edit(
        root,
        "shop/users.py",
        "(first[:1] + last[:1]).upper()",
        "(first[:1] + last[:1])",
    );
}

/// The `### ...` headings, in order.
fn headings(answer: &str) -> Vec<&str> {
    answer.lines().filter(|l| l.starts_with("### ")).collect()
}

#[test]
fn the_loop_says_what_was_fixed_and_what_broke() {
    let (_dir, root) = project();
    let first = run(&root, &[]);
    assert_eq!(since(&first), None, "no cache yet: no line\n{first}");
    assert_eq!(headings(&first).len(), 3, "{first}");

    fix_cart(&root);
    let second = run(&root, &[]);
    let lines: Vec<&str> = second.lines().collect();
    assert_eq!(
        lines[1], "Since the last run: 4 fixed, 5 still failing",
        "right under the status line\n{second}"
    );
    assert_eq!(
        lines[2],
        "Fixed: tests/test_cart.py::test_total (all 4 cases)"
    );
    assert!(!second.contains("(new)"), "{second}");
    assert_eq!(headings(&second).len(), 2, "{second}");

    break_users(&root);
    let third = run(&root, &[]);
    assert_eq!(
        since(&third),
        Some("Since the last run: 1 new failure, 5 still failing"),
        "{third}"
    );
    assert_eq!(
        headings(&third)[0],
        "### FAILED (new): tests/test_users.py::test_initials (line 13)",
        "the new failure first\n{third}"
    );
    assert!(headings(&third)[1..].iter().all(|h| !h.contains("(new)")));

    // The JSON answer says the same, with the ids.
    let json = run_json(&root, &[]);
    let changes = &json["changes"];
    assert_eq!(changes["still_failing"]["count"], 6, "{changes}");
    assert_eq!(changes["new_failures"]["count"], 0);
    assert_eq!(changes["fixed"]["ids"], serde_json::json!([]));
}

fn run_json(root: &Path, args: &[&str]) -> Value {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    let text = run(root, &all);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

#[test]
fn a_cache_written_by_a_plain_pytest_run_is_read() {
    let (_dir, root) = project();
    let out = support::clean_command(&support::test_python())
        .args(["-m", "pytest", "-q"])
        .current_dir(&root)
        .output()
        .expect("pytest");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    fix_cart(&root);
    let answer = run(&root, &[]);
    assert_eq!(
        since(&answer),
        Some("Since the last run: 4 fixed, 5 still failing"),
        "{answer}"
    );
}

#[test]
fn a_narrower_selection_compares_only_what_it_ran() {
    let (_dir, root) = project();
    run(&root, &[]);
    let one_file = run(&root, &["tests/test_stock.py"]);
    assert_eq!(
        since(&one_file),
        Some("Since the last run: 3 still failing"),
        "{one_file}"
    );
    fix_cart(&root);
    let by_keyword = run(&root, &["-k", "total"]);
    assert_eq!(
        since(&by_keyword),
        Some("Since the last run: 4 fixed"),
        "the stock and price failures were not selected\n{by_keyword}"
    );
    // What the narrower runs did not select is still on record.
    let all = run(&root, &[]);
    assert_eq!(
        since(&all),
        Some("Since the last run: 5 still failing"),
        "{all}"
    );
}

#[test]
fn a_renamed_test_is_gone_once_neither_fixed_nor_new() {
    let (_dir, root) = project();
    run(&root, &[]);
    edit(
        &root,
        "tests/test_stock.py",
        "def test_unknown_fruit_is_zero",
        "def test_unknown_fruit_counts_zero",
    );
    let renamed = run(&root, &["-k", "not total"]);
    assert_eq!(
        since(&renamed),
        Some("Since the last run: 1 new failure, 4 still failing, 1 gone"),
        "{renamed}"
    );
    assert!(
        renamed.contains(
            "\nGone (no longer collected): tests/test_stock.py::test_unknown_fruit_is_zero\n"
        ),
        "{renamed}"
    );
    // It fails as two old failures do: one group, led by the new one.
    assert_eq!(
        headings(&renamed)[0],
        "### FAILED (1 of 3 new): tests/test_stock.py::test_unknown_fruit_counts_zero (line 9)",
        "{renamed}"
    );
    let again = run(&root, &[]);
    assert_eq!(
        since(&again),
        Some("Since the last run: 9 still failing"),
        "said once, then forgotten\n{again}"
    );
    // A deleted file's failures are gone too; a file outside the selection
    // says nothing.
    std::fs::remove_file(root.join("tests/test_prices.py")).expect("rm");
    let only_stock = run(&root, &["tests/test_stock.py"]);
    assert!(!only_stock.contains("gone"), "{only_stock}");
    let deleted = run(&root, &[]);
    assert_eq!(
        since(&deleted),
        Some("Since the last run: 7 still failing, 2 gone"),
        "{deleted}"
    );
}

#[test]
fn workers_compare_as_one_process_does() {
    let (_dir, root) = project();
    run(&root, &["-n", "2"]);
    fix_cart(&root);
    break_users(&root);
    let answer = run(&root, &["-n", "2"]);
    assert_eq!(
        since(&answer),
        Some("Since the last run: 4 fixed, 1 new failure, 5 still failing"),
        "{answer}"
    );
    assert_eq!(
        headings(&answer)[0],
        "### FAILED (new): tests/test_users.py::test_initials (line 13)"
    );
    edit(
        &root,
        "tests/test_users.py",
        "def test_initials",
        "def test_initials_upper",
    );
    let renamed = run(&root, &["-n", "2"]);
    assert!(renamed.contains(", 1 gone\n"), "{renamed}");
    let again = run(&root, &["-n", "2"]);
    assert!(
        !again.contains("gone"),
        "forgotten by the controller too\n{again}"
    );
}

/// Without a cache to compare with, the answer is what it was before this
/// feature: no line, no mark, no `changes` key.
#[test]
fn without_a_cache_nothing_is_said() {
    // The project turns the cache off.
    let (_dir, root) = project();
    edit(
        &root,
        "pytest.ini",
        "pythonpath = .",
        "pythonpath = .\naddopts = -p no:cacheprovider",
    );
    for _ in 0..2 {
        let answer = run(&root, &[]);
        assert_eq!(since(&answer), None, "{answer}");
        assert!(!answer.contains("(new)"), "{answer}");
        assert!(run_json(&root, &[]).get("changes").is_none());
    }
    // A cache pytest cannot write (its directory cannot be made): pytest
    // warns and records nothing, and nothing is compared.
    let (_dir, root) = project();
    std::fs::write(root.join("not_a_dir"), "").expect("file");
    edit(
        &root,
        "pytest.ini",
        "pythonpath = .",
        "pythonpath = .\ncache_dir = not_a_dir/cache",
    );
    for _ in 0..2 {
        let answer = run(&root, &[]);
        assert_eq!(since(&answer), None, "{answer}");
    }
}
