//! `run --coverage` (issue 48, docs/coverage.md) on `tests/projects/
//! coverage_change`: its `base/` committed to a fresh git repository, its
//! `edit/` copied over (a new branch never taken, a new function, a
//! multi-line statement changed in its middle, a module no test imports,
//! a `pragma: no cover` function, a README and a test changed, a covered
//! change; NOTES.md says which line is which). The changed lines no test
//! ran, each range with its function, are checked exactly in the Markdown
//! and the JSON against `expect.json`, which is what the judging script
//! (`src/runner/command/pytest_mcp_coverage.py`) must say of that edit.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::support::{copy_tree, run_pytest_mcp};
use serde_json::Value;

fn project() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/projects/coverage_change")
}

fn git(root: &Path, args: &[&str]) {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The base committed, the edit copied over it, in a fresh directory.
fn edited() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("shop_project");
    copy_tree(&project().join("base"), &root);
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "base"]);
    copy_tree(&project().join("edit"), &root);
    let root = root.canonicalize().expect("canonical");
    (dir, root)
}

fn expected() -> Value {
    let text = std::fs::read_to_string(project().join("expect.json")).expect("expect.json");
    serde_json::from_str(&text).expect("expect.json is JSON")
}

/// `path:33-35 in f` for each uncovered range of `expect.json`, in order.
fn expected_ranges(expect: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    for file in expect["files"].as_array().into_iter().flatten() {
        for gap in file["uncovered"].as_array().into_iter().flatten() {
            let (start, end) = (&gap["start"], &gap["end"]);
            let at = match start == end {
                true => format!("{}:{start}", file["path"].as_str().unwrap_or_default()),
                false => format!(
                    "{}:{start}-{end}",
                    file["path"].as_str().unwrap_or_default()
                ),
            };
            lines.push(match gap["function"].as_str() {
                Some(f) => format!("- {at} in {f}"),
                None => format!("- {at} (module level)"),
            });
        }
    }
    lines
}

#[test]
fn the_changed_lines_no_test_ran_are_listed_with_their_functions() {
    let (_dir, root) = edited();
    let expect = expected();
    let (status, md) = run_pytest_mcp(&root, &["--coverage", "--no-history"]);
    assert_eq!(status, Some(0), "{md}");
    let changed = expect["changed_lines"].as_u64().unwrap_or_default();
    let covered = expect["covered_lines"].as_u64().unwrap_or_default();
    let heading =
        format!("### CHANGE COVERAGE: {covered} of {changed} changed lines ran (against HEAD)\n");
    let section = md
        .split_once(&heading)
        .unwrap_or_else(|| panic!("no `{heading}` in:\n{md}"))
        .1;
    let listed: Vec<&str> = section
        .lines()
        .take_while(|l| l.starts_with("- "))
        .collect();
    assert_eq!(listed, expected_ranges(&expect), "{md}");
    // README.md and the test file changed too: neither is listed.
    assert!(
        !md.contains("README.md") && !md.contains("test_pricing.py:"),
        "{md}"
    );
}

#[test]
fn the_json_answer_carries_the_changed_lines_themselves() {
    let (_dir, root) = edited();
    let expect = expected();
    let (status, json) = run_pytest_mcp(&root, &["--coverage", "--format", "json", "--no-history"]);
    assert_eq!(status, Some(0), "{json}");
    let answer: Value = serde_json::from_str(&json).expect("JSON");
    let coverage = &answer["coverage"];
    assert_eq!(coverage["base"], "HEAD");
    assert_eq!(coverage["changed_lines"], expect["changed_lines"]);
    assert_eq!(coverage["covered_lines"], expect["covered_lines"]);
    let uncovered: Vec<(String, Vec<u64>)> = expect["files"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            let covered: Vec<&Value> = f["covered"].as_array().into_iter().flatten().collect();
            let lines = f["changed"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|l| !covered.contains(l))
                .filter_map(Value::as_u64)
                .collect();
            (f["path"].as_str().unwrap_or_default().to_string(), lines)
        })
        .filter(|(_, lines): &(String, Vec<u64>)| !lines.is_empty())
        .collect();
    let said: Vec<(String, Vec<u64>)> = coverage["uncovered"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|u| {
            let lines = u["lines"].as_array().into_iter().flatten();
            (
                u["path"].as_str().unwrap_or_default().to_string(),
                lines.filter_map(Value::as_u64).collect(),
            )
        })
        .collect();
    assert_eq!(said, uncovered, "{coverage}");
}

#[test]
fn a_revision_git_does_not_know_is_said_and_the_tests_answer_stands() {
    let (_dir, root) = edited();
    let (status, md) = run_pytest_mcp(
        &root,
        &["--coverage", "--base", "no-such-branch", "--no-history"],
    );
    assert_eq!(status, Some(0), "{md}");
    assert!(md.starts_with("Test SUCCESS"), "{md}");
    assert!(
        md.contains("### CHANGE COVERAGE: the change could not be judged: git cannot compare the working tree with `no-such-branch`"),
        "{md}"
    );
}

#[test]
fn a_persons_page_and_the_annotations_say_each_range_too() {
    let (_dir, root) = edited();
    let expect = expected();
    let changed = expect["changed_lines"].as_u64().unwrap_or_default();
    let covered = expect["covered_lines"].as_u64().unwrap_or_default();
    let percent = format!("{:.1}", 100.0 * covered as f64 / changed as f64);
    let (status, gfm) = run_pytest_mcp(&root, &["--coverage", "--format", "gfm", "--no-history"]);
    assert_eq!(status, Some(0), "{gfm}");
    let heading = format!(
        "### Change coverage: {covered} of {changed} changed lines ran ({percent}%, against HEAD)"
    );
    assert!(gfm.contains(&heading), "{gfm}");
    let (status, github) =
        run_pytest_mcp(&root, &["--coverage", "--format", "github", "--no-history"]);
    assert_eq!(status, Some(0), "{github}");
    let mut warned = Vec::new();
    for file in expect["files"].as_array().into_iter().flatten() {
        let path = file["path"].as_str().unwrap_or_default();
        for gap in file["uncovered"].as_array().into_iter().flatten() {
            let (start, end) = (&gap["start"], &gap["end"]);
            // The file as the repository names it: the run's directory
            // is the repository here (GitHub's workspace, else the
            // current directory).
            warned.push(format!("{path},line={start},endLine={end},"));
            let line = format!("- `{path}:{start}`");
            assert!(gfm.contains(&line), "{line} is not in:\n{gfm}");
        }
    }
    let said: Vec<&str> = github
        .lines()
        .filter(|l| l.starts_with("::warning "))
        .collect();
    assert_eq!(said.len(), warned.len(), "{github}");
    for (line, want) in said.iter().zip(&warned) {
        assert!(
            line.starts_with("::warning file=") && line.contains(want.as_str()),
            "{line} is not at {want}"
        );
    }
}

#[test]
fn the_html_page_shows_each_range_with_its_source() {
    let (_dir, root) = edited();
    let expect = expected();
    let (status, html) = run_pytest_mcp(&root, &["--coverage", "--format", "html", "--no-history"]);
    assert_eq!(status, Some(0));
    let section = html
        .split_once("<section id=coverage>")
        .and_then(|(_, rest)| rest.split_once("</section>"))
        .map(|(section, _)| section)
        .unwrap_or_else(|| panic!("no coverage section in the page"));
    for file in expect["files"].as_array().into_iter().flatten() {
        let path = file["path"].as_str().unwrap_or_default();
        for gap in file["uncovered"].as_array().into_iter().flatten() {
            let (start, end) = (&gap["start"], &gap["end"]);
            let lines = if start == end {
                start.to_string()
            } else {
                format!("{start}-{end}")
            };
            assert!(
                section.contains(&format!("<code>{path}:{lines}</code>")),
                "{path}:{lines}:\n{section}"
            );
        }
    }
    // The new function's body, numbered as the file numbers it.
    let source = std::fs::read_to_string(root.join("shop/pricing.py")).expect("pricing.py");
    let line_38 = source.lines().nth(37).unwrap_or_default().trim();
    assert!(
        !line_38.is_empty() && section.contains("   38  "),
        "{section}"
    );
    assert!(
        section.contains(&line_38.replace('"', "&quot;")),
        "{line_38}:\n{section}"
    );
}
