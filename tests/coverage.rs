//! `run --coverage` (issue 48, docs/coverage.md) on `tests/projects/
//! coverage_change`: its `base/` committed to a fresh git repository, its
//! `edit/` copied over (a new branch never taken, a new function, a
//! multi-line statement changed in its middle, a module no test imports,
//! a `pragma: no cover` function, a README and a test changed, a covered
//! change; NOTES.md says which line is which). The changed lines no test
//! ran, each range with its function, are checked exactly in the Markdown
//! and the JSON against `expect.json`, which is what the judging script
//! (`src/runner/command/pytest_mcp_coverage.py`) must say of that edit.
//!
//! Honest edges: on pytest-xdist's workers, under pytest-testmon
//! (`--affected`), with `--last-failed` and on a shard, the answer is
//! expect.json's for the tests that ran, the lines only the others run not
//! run ([`RUNS`]); a project measuring with pytest-cov
//! (`tests/projects/coverage_pytest_cov`, its NOTES.md) gets expect.json's
//! answer, its own reports as a run without `--coverage` writes them, and
//! no other file.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use common::support::{clean_command, copy_tree, run_pytest_mcp, test_python};
use serde_json::Value;

fn project() -> PathBuf {
    projects().join("coverage_change")
}

fn projects() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/projects")
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
    edited_from(&project())
}

/// `project`'s base committed, its edit copied over it, in a fresh directory.
fn edited_from(project: &Path) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("shop_project");
    copy_tree(&project.join("base"), &root);
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "base"]);
    copy_tree(&project.join("edit"), &root);
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
    assert_eq!(said_uncovered(coverage), uncovered, "{coverage}");
    // The table of what each test runs agrees with expect.json.
    let covered = expect["covered_lines"].as_u64().unwrap_or_default();
    assert_eq!(judged_when(&expect, &every_test()), (covered, uncovered));
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

/// The changed lines of `shop/pricing.py` each test of coverage_change runs
/// (NOTES.md). Importing the module runs [`IMPORTED`]; no test runs a
/// changed line of another file.
const RUNS: [(&str, &[u64]); 3] = [
    ("tests/test_pricing.py::test_total", &[7, 13]),
    ("tests/test_pricing.py::test_describe", &[7, 23]),
    ("tests/test_pricing.py::test_unit_price_is_a_float", &[7]),
];

/// `bulk_price`'s new `def`, run as its module is imported.
const IMPORTED: u64 = 36;

/// How many of expect.json's changed lines ran when only the tests `ran`
/// did (their module collected), and per file those that did not.
fn judged_when(expect: &Value, ran: &[String]) -> (u64, Vec<(String, Vec<u64>)>) {
    let mut run = BTreeSet::from([IMPORTED]);
    for (id, lines) in RUNS {
        if ran.iter().any(|r| r == id) {
            run.extend(lines.iter().copied());
        }
    }
    let (mut covered, mut uncovered) = (0, Vec::new());
    for file in expect["files"].as_array().into_iter().flatten() {
        let path = file["path"].as_str().unwrap_or_default();
        let changed = file["changed"].as_array().into_iter().flatten();
        let (hit, missed): (Vec<u64>, Vec<u64>) = changed
            .filter_map(Value::as_u64)
            .partition(|n| path == "shop/pricing.py" && run.contains(n));
        covered += hit.len() as u64;
        if !missed.is_empty() {
            uncovered.push((path.to_string(), missed));
        }
    }
    (covered, uncovered)
}

/// The answer's changed lines no test ran, per file.
fn said_uncovered(coverage: &Value) -> Vec<(String, Vec<u64>)> {
    let uncovered = coverage["uncovered"].as_array().into_iter().flatten();
    uncovered
        .map(|u| {
            let lines = u["lines"].as_array().into_iter().flatten();
            let path = u["path"].as_str().unwrap_or_default().to_string();
            (path, lines.filter_map(Value::as_u64).collect())
        })
        .collect()
}

/// `run --coverage --format json <args>` passes and judges the change as
/// `expect` says for the tests it ran, whose ids it returns.
fn judged(root: &Path, expect: &Value, args: &[&str]) -> Vec<String> {
    let mut all = vec!["--coverage", "--format", "json", "--no-history"];
    all.extend_from_slice(args);
    let (status, json) = run_pytest_mcp(root, &all);
    assert_eq!(status, Some(0), "{args:?}: {json}");
    let answer: Value = serde_json::from_str(&json).expect("JSON");
    let tests = answer["tests"].as_array().into_iter().flatten();
    let ran: Vec<String> = tests
        .filter_map(|t| t["node_id"].as_str().map(str::to_string))
        .collect();
    let (covered, uncovered) = judged_when(expect, &ran);
    let coverage = &answer["coverage"];
    assert_eq!(
        coverage["changed_lines"], expect["changed_lines"],
        "{coverage}"
    );
    assert_eq!(
        coverage["covered_lines"], covered,
        "{args:?} ran {ran:?}: {coverage}"
    );
    assert_eq!(said_uncovered(coverage), uncovered, "{args:?} ran {ran:?}");
    ran
}

fn every_test() -> Vec<String> {
    RUNS.iter().map(|(id, _)| id.to_string()).collect()
}

#[test]
fn on_pytest_xdist_workers_every_worker_measures() {
    let (_dir, root) = edited();
    assert_eq!(
        judged(&root, &expected(), &["--workers", "2"]),
        every_test()
    );
}

#[test]
fn under_pytest_testmon_the_tests_it_selects_are_measured() {
    let (_dir, root) = edited();
    // pytest-testmon measures each test itself (before the fix, ours saw
    // none of them): its first run records, running every test.
    assert_eq!(judged(&root, &expected(), &["--affected"]), every_test());
    // `describe` changed again, on its changed line: its test alone runs,
    // on two workers, and the lines only the others run are not run.
    let pricing = root.join("shop/pricing.py");
    let text = std::fs::read_to_string(&pricing).expect("pricing.py");
    let again = text.replace(
        "round(unit_price(name, catalogue), 2)",
        "round(unit_price(name, catalogue), 3)",
    );
    assert_ne!(again, text);
    std::fs::write(&pricing, again).expect("write");
    let ran = judged(&root, &expected(), &["--affected", "--workers", "2"]);
    assert_eq!(ran, ["tests/test_pricing.py::test_describe"]);
}

#[test]
fn last_failed_measures_the_failures_it_runs_again() {
    let (_dir, root) = edited();
    let test = root.join("tests/test_pricing.py");
    let good = std::fs::read_to_string(&test).expect("test_pricing.py");
    let bad = good.replace("\"tea: 2.50 EUR\"", "\"tea: 2.5 EUR\"");
    assert_ne!(bad, good);
    std::fs::write(&test, bad).expect("write");
    let (status, md) = run_pytest_mcp(&root, &["--no-history"]);
    assert_eq!(status, Some(1), "{md}");
    std::fs::write(&test, good).expect("write");
    let ran = judged(&root, &expected(), &["--last-failed"]);
    assert_eq!(ran, ["tests/test_pricing.py::test_describe"]);
}

#[test]
fn each_shard_answers_for_the_tests_it_ran() {
    let (dir, root) = edited();
    let plan = dir.path().join("plan.json");
    let out = clean_command(Path::new(env!("CARGO_BIN_EXE_pytest-mcp")))
        .args(["plan", "--shards", "2", "--root"])
        .arg(&root)
        .arg("--python")
        .arg(test_python())
        .arg("-o")
        .arg(&plan)
        .output()
        .expect("plan runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plan = plan.to_str().expect("UTF-8 path");
    let mut ran = Vec::new();
    for shard in ["1", "2"] {
        let one = judged(&root, &expected(), &["--plan", plan, "--shard", shard]);
        assert!(
            !one.is_empty() && one.len() < RUNS.len(),
            "shard {shard}: {one:?}"
        );
        ran.extend(one);
    }
    ran.sort();
    let mut every = every_test();
    every.sort();
    assert_eq!(ran, every);
}

/// Every file under `root` but git's and the caches, with coverage.xml's
/// text (its timestamp left out).
fn files_left(root: &Path, dir: &Path, found: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).expect("read_dir").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if [".git", "__pycache__", ".pytest_cache"].contains(&name.as_str()) {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            files_left(root, &path, found);
            continue;
        }
        let mut text = String::new();
        if name == "coverage.xml" {
            text = std::fs::read_to_string(&path).expect("coverage.xml");
            if let Some((head, rest)) = text.split_once(" timestamp=\"") {
                text = format!("{head}{}", rest.split_once('"').map_or("", |(_, r)| r));
            }
        }
        let relative = path.strip_prefix(root).expect("under root");
        found.insert(relative.to_string_lossy().into_owned(), text);
    }
}

#[test]
fn a_project_measuring_with_pytest_cov_keeps_its_reports_and_gets_the_answer() {
    let project = projects().join("coverage_pytest_cov");
    let text = std::fs::read_to_string(project.join("expect.json")).expect("expect.json");
    let expect: Value = serde_json::from_str(&text).expect("expect.json is JSON");
    for workers in [&[][..], &["--workers", "2"]] {
        let (_dir, root) = edited_from(&project);
        // What the project's own run leaves: its reports, as it asks.
        let mut args = vec!["--no-history"];
        args.extend_from_slice(workers);
        let (status, md) = run_pytest_mcp(&root, &args);
        assert_eq!(status, Some(0), "{md}");
        let mut own = BTreeMap::new();
        files_left(&root, &root, &mut own);
        for report in [".coverage", "reports/coverage.xml"] {
            assert!(own.contains_key(report), "{report}: {own:?}");
        }
        std::fs::remove_file(root.join(".coverage")).expect("rm .coverage");
        std::fs::remove_dir_all(root.join("reports")).expect("rm reports");
        // Before the fix, ours was paused under pytest-cov's: 0 of 22.
        assert_eq!(judged(&root, &expect, workers), every_test());
        let mut left = BTreeMap::new();
        files_left(&root, &root, &mut left);
        assert_eq!(left, own, "{workers:?}");
    }
}
