//! Gaps that were there before, told apart (issue 48 item 4,
//! docs/coverage.md), on `tests/projects/coverage_change`:
//!
//! - CI: `report --coverage coverage.xml --baseline-coverage base.xml`,
//!   the base's coverage measured by pytest-cov before the edit. `refund`
//!   was never tested: its rewritten line 31 is `not run before either`;
//!   every other range is added code, `new`.
//! - The agent's loop: `run --coverage` twice, the history keeping the
//!   first run's lines. The second edit makes `total` return early (its
//!   last two lines, unchanged, ran before and no longer do: left behind)
//!   and adds `gift`: the ranges still untested since the first run are
//!   `not run before either`, `gift` is `new`.
//!
//! Interpreter: `PYTEST_MCP_TEST_PYTHON`, else `.venv/bin/python`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::support::{copy_tree, run_pytest_mcp, test_python};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_pytest-mcp");

fn project() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/projects/coverage_change")
}

fn command(program: &Path, root: &Path, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(root)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap_or_else(|e| panic!("{} runs: {e}", program.display()));
    assert!(
        out.status.success(),
        "{} {args:?}: {}{}",
        program.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The base committed in a fresh repository.
fn base() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("shop_project");
    copy_tree(&project().join("base"), &root);
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["add", "-A"],
        &["commit", "-q", "-m", "base"],
    ] {
        command(Path::new("git"), &root, args);
    }
    let root = root.canonicalize().expect("canonical");
    (dir, root)
}

fn pytest_cov(root: &Path, xml: &str) {
    let python = test_python();
    command(
        &python,
        root,
        &[
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--cov=shop",
            &format!("--cov-report=xml:{xml}"),
            "--junitxml=junit.xml",
        ],
    );
}

/// Each uncovered line of the JSON answer's coverage with what it was:
/// `path:line` and whether it was not run before either.
fn not_run_before(answer: &str) -> (Value, Vec<String>) {
    let json: Value = serde_json::from_str(answer).unwrap_or_else(|e| panic!("{e}\n{answer}"));
    let c = json["coverage"].clone();
    let mut lines = Vec::new();
    for file in c["uncovered"].as_array().into_iter().flatten() {
        for n in file["not_run_before"].as_array().into_iter().flatten() {
            lines.push(format!("{}:{n}", file["path"].as_str().unwrap_or_default()));
        }
    }
    (c, lines)
}

#[test]
fn report_with_the_bases_coverage_tells_a_rewritten_untested_line_from_new_code() {
    let (_dir, root) = base();
    pytest_cov(&root, "base.xml");
    copy_tree(&project().join("edit"), &root);
    pytest_cov(&root, "coverage.xml");
    let args = |format| {
        let python = test_python();
        let python = python.to_string_lossy().into_owned();
        let args = [
            "report",
            "junit.xml",
            "--coverage",
            "coverage.xml",
            "--baseline-coverage",
            "base.xml",
            "--python",
            &python,
            "--format",
            format,
        ];
        command(Path::new(BIN), &root, &args)
    };
    let (c, lines) = not_run_before(&args("json"));
    assert_eq!(lines, ["shop/pricing.py:31"], "{c}");
    assert_eq!(c["compared_with"], "the base's coverage", "{c}");
    assert!(c.get("left_behind").is_none(), "{c}");
    let md = args("markdown");
    for line in [
        "- shop/pricing.py:31 in refund (not run before either)\n",
        "- shop/pricing.py:14 in total (new)\n",
        "- shop/pricing.py:38-42 in bulk_price (new)\n",
        "- shop/discounts.py:3-6 (module level) (new)\n",
        "- shop/stock.py:17-20 in Stock.hold (new)\n",
    ] {
        assert!(md.contains(line), "{line}{md}");
    }
    let github = args("github");
    assert!(
        github.contains("Line 31 in refund changed and no test ran them (not run before either)"),
        "{github}"
    );
}

#[test]
fn the_agents_second_run_tells_gaps_still_open_and_lines_left_behind() {
    let (_dir, root) = base();
    copy_tree(&project().join("edit"), &root);
    let (_, first) = run_pytest_mcp(&root, &["--coverage", "--format", "json"]);
    let (c, lines) = not_run_before(&first);
    assert!(
        lines.is_empty() && c.get("compared_with").is_none(),
        "nothing to compare with yet: {c}"
    );
    // The agent's next edit: `total` returns before its last two lines,
    // and a new, untested `gift`.
    let pricing = root.join("shop/pricing.py");
    let text = std::fs::read_to_string(&pricing).expect("pricing.py");
    let text = text.replace("    if not items:\n", "    if items is not None:\n")
        + "\n\ndef gift(price):\n    return 0.0\n";
    std::fs::write(&pricing, text).expect("write");
    // The history as the first run left it, for the Markdown of the same
    // second run below.
    let cache = root.join(".pytest_cache");
    let kept = root.parent().expect("parent").join("cache-after-first-run");
    copy_tree(&cache, &kept);
    let (_, second) = run_pytest_mcp(&root, &["--coverage", "--format", "json"]);
    let (c, lines) = not_run_before(&second);
    assert_eq!(c["compared_with"], "the previous run", "{c}");
    // Still untested since the first run: refund's line, bulk_price, the
    // module no test imports, Stock's methods.
    for line in [
        "shop/pricing.py:31",
        "shop/pricing.py:38",
        "shop/pricing.py:42",
        "shop/stock.py:7",
        "shop/discounts.py:10",
    ] {
        assert!(lines.iter().any(|l| l == line), "{line}: {lines:?}\n{c}");
    }
    assert!(
        !lines.iter().any(|l| l == "shop/pricing.py:55"),
        "gift is new: {c}"
    );
    assert_eq!(
        c["left_behind"],
        serde_json::json!([{"path": "shop/pricing.py", "lines": [15, 16]}]),
        "{c}"
    );
    std::fs::remove_dir_all(&cache).expect("remove the cache");
    copy_tree(&kept, &cache);
    let (_, md) = run_pytest_mcp(&root, &["--coverage"]);
    assert!(md.contains("- shop/pricing.py:55 in gift (new)\n"), "{md}");
    assert!(
        md.contains("Ran before the change, not now: shop/pricing.py:15-16\n"),
        "{md}"
    );
}
