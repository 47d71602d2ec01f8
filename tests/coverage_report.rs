//! `report --coverage` (issue 48, docs/coverage.md) on `tests/projects/
//! coverage_change` as CI meets it: the edit's tests run by pytest with
//! pytest-cov, which writes coverage.xml, coverage.json and the `.coverage`
//! data file, beside pytest's JUnit XML. Each of the three, given to
//! `report`, must say exactly what `expect.json` says (the answer of the
//! judge `run --coverage` uses): the Rust reading of the reports and
//! coverage.py's own reading of its data file agree line for line. Shards'
//! data files are combined before anything is judged; a file that is no
//! coverage data is refused, naming it.
//!
//! Interpreter: `PYTEST_MCP_TEST_PYTHON`, else `.venv/bin/python` (pytest,
//! pytest-cov and coverage.py from requirements-dev.txt).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::support::copy_tree;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_pytest-mcp");

fn project() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/projects/coverage_change")
}

fn python() -> PathBuf {
    let path = std::env::var_os("PYTEST_MCP_TEST_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python"));
    assert!(
        path.is_file(),
        "{} is missing: run `bash scripts/setup.sh`",
        path.display()
    );
    path
}

fn command(program: &Path, root: &Path, args: &[&str]) -> std::process::Output {
    Command::new(program)
        .args(args)
        .current_dir(root)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap_or_else(|e| panic!("{} runs: {e}", program.display()))
}

/// The base committed, the edit copied over it, its tests run under
/// pytest-cov (`--cov=shop`: unimported modules of the package are
/// reported too) writing every report, as a CI job would.
fn measured() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("shop_project");
    copy_tree(&project().join("base"), &root);
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["add", "-A"],
        &["commit", "-q", "-m", "base"],
    ] {
        let out = command(Path::new("git"), &root, args);
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    copy_tree(&project().join("edit"), &root);
    let out = command(
        &python(),
        &root,
        &[
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--cov=shop",
            "--cov-report=xml",
            "--cov-report=json",
            "--junitxml=junit.xml",
        ],
    );
    assert!(
        out.status.success(),
        "pytest: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    (dir, root)
}

fn report(root: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let python = python();
    let mut all = vec!["report", "junit.xml"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--python", python.to_str().expect("utf-8 path")]);
    let out = command(Path::new(BIN), root, &all);
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

fn expected() -> Value {
    let text = std::fs::read_to_string(project().join("expect.json")).expect("expect.json");
    serde_json::from_str(&text).expect("expect.json is JSON")
}

/// The JSON answer's coverage must be expect.json's: counts, and per file
/// the changed lines no test ran.
fn assert_expected(json: &str, what: &str) {
    let answer: Value =
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{what}: {e}\n{json}"));
    let c = &answer["coverage"];
    let expect = expected();
    assert_eq!(c["changed_lines"], expect["changed_lines"], "{what}: {c}");
    assert_eq!(c["covered_lines"], expect["covered_lines"], "{what}: {c}");
    let want: Vec<Value> = expect["files"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            let covered: Vec<&Value> = f["covered"].as_array().into_iter().flatten().collect();
            let lines: Vec<&Value> = f["changed"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|n| !covered.contains(n))
                .collect();
            serde_json::json!({"path": f["path"], "lines": lines})
        })
        .collect();
    let got: Vec<Value> = c["uncovered"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|u| serde_json::json!({"path": u["path"], "lines": u["lines"]}))
        .collect();
    assert_eq!(got, want, "{what}: {c}");
}

#[test]
fn pytest_covs_xml_json_and_data_file_each_give_the_judges_answer() {
    let (_dir, root) = measured();
    for file in ["coverage.xml", "coverage.json", ".coverage"] {
        let (status, out, err) = report(&root, &["--coverage", file, "--format", "json"]);
        assert_eq!(status, Some(0), "{file}: {err}");
        assert_expected(&out, file);
    }
}

#[test]
fn the_markdown_lists_every_range_with_its_function() {
    let (_dir, root) = measured();
    let (status, md, err) = report(
        &root,
        &["--coverage", "coverage.xml", "--format", "markdown"],
    );
    assert_eq!(status, Some(0), "{err}");
    assert!(
        md.contains("### CHANGE COVERAGE: 4 of 22 changed lines ran"),
        "{md}"
    );
    for range in [
        "- shop/discounts.py:3-6 (module level)",
        "- shop/discounts.py:9-11 in seasonal",
        "- shop/pricing.py:14 in total",
        "- shop/pricing.py:31 in refund",
        "- shop/pricing.py:38-42 in bulk_price",
        "- shop/stock.py:7 in Stock.__init__",
        "- shop/stock.py:17-20 in Stock.hold",
        "- shop/stock.py:22 in Stock.release",
    ] {
        assert!(md.contains(&format!("{range}\n")), "{range}:\n{md}");
    }
}

#[test]
fn shards_data_files_are_combined_before_the_change_is_judged() {
    let (_dir, root) = measured();
    let python = python();
    // Two shards, each measuring its own tests into `.coverage.<suffix>`.
    for shard in [
        "tests/test_pricing.py::test_total",
        "tests/test_pricing.py::test_describe",
    ] {
        let out = command(
            &python,
            &root,
            &[
                "-m",
                "coverage",
                "run",
                "-p",
                "--source=shop",
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                shard,
            ],
        );
        assert!(
            out.status.success(),
            "{shard}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let (status, one, err) = report(&root, &["--coverage", ".coverage.*", "--format", "json"]);
    assert_eq!(status, Some(0), "{err}");
    let c: Value = serde_json::from_str::<Value>(&one).expect("json")["coverage"].clone();
    // test_unit_price_is_a_float ran in neither shard: its line 7 did run
    // under test_total, so the two shards together ran all four.
    assert_eq!(
        (c["changed_lines"].as_u64(), c["covered_lines"].as_u64()),
        (Some(22), Some(4)),
        "{c}"
    );
    // Either shard alone runs fewer: the combination is what is judged.
    let first = std::fs::read_dir(&root)
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with(".coverage."))
        .expect("a shard's data file");
    let (_, alone, _) = report(&root, &["--coverage", &first, "--format", "json"]);
    let alone: Value = serde_json::from_str::<Value>(&alone).expect("json")["coverage"].clone();
    assert!(alone["covered_lines"].as_u64() < Some(4), "{alone}");
}

#[test]
fn a_file_that_is_no_coverage_data_is_refused_naming_it() {
    let (_dir, root) = measured();
    std::fs::write(root.join("notes.txt"), "hello").expect("write");
    let (status, out, err) = report(&root, &["--coverage", "notes.txt"]);
    assert_eq!(status, Some(2), "{out}");
    assert!(err.contains("notes.txt: not coverage.py's data"), "{err}");
    let (status, _, err) = report(
        &root,
        &["--coverage", "coverage.xml", "--coverage", ".coverage"],
    );
    assert_eq!(status, Some(2));
    assert!(err.contains("not both"), "{err}");
    let (status, _, err) = report(&root, &["--coverage", "missing-*.xml"]);
    assert_eq!(status, Some(2));
    assert!(
        err.contains("--coverage missing-*.xml: matches no files"),
        "{err}"
    );
}

#[test]
fn a_revision_git_does_not_know_leaves_the_tests_answer() {
    let (_dir, root) = measured();
    let (status, md, err) = report(
        &root,
        &["--coverage", "coverage.xml", "--base", "no-such-branch"],
    );
    assert_eq!(status, Some(0), "{err}");
    assert!(
        md.contains(
            "could not be judged: git cannot compare the working tree with `no-such-branch`"
        ),
        "{md}"
    );
}

#[test]
fn a_folder_outside_git_says_so_and_leaves_the_tests_answer() {
    let (_dir, root) = measured();
    let outside = tempfile::tempdir().expect("tempdir");
    for file in ["junit.xml", "coverage.xml"] {
        std::fs::copy(root.join(file), outside.path().join(file)).expect("copy");
    }
    let (status, md, err) = report(outside.path(), &["--coverage", "coverage.xml"]);
    assert_eq!(status, Some(0), "{err}");
    assert!(
        md.contains("could not be judged: ") && md.contains("is not in a git work tree"),
        "{md}"
    );
    assert!(md.starts_with("Test SUCCESS"), "{md}");
}
