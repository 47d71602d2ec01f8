//! `pytest-mcp discover` answers by file and test function, with
//! parametrizations counted under the function's id, not listed: checked
//! end to end on `tests/projects/many_cases` (one function of 300 cases,
//! stacked parametrizations, a class, plain tests) and on a generated
//! project of 5,000 cases. Every id printed is fed back to
//! `pytest --collect-only -q <id>`, which must collect exactly the cases
//! the answer counted. Token counts are tiktoken's `o200k_base`.
//!
//! The 5,000-case check is a scale test, like the MCP load tests: a plain
//! `cargo test` lists it as ignored, and `scripts/test.sh` (CI) runs it with
//! `--ignored`.
//!
//! Interpreter: `PYTEST_MCP_TEST_PYTHON`, else `.venv/bin/python`
//! (`bash scripts/setup.sh` creates it).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

use pytest_mcp::text::thousands;
use serde_json::Value;

mod common;
use common::headline::{Verdict, before_counts, discover_start};
use common::support::{clean_command as command, copy_tree};
use pytest_mcp_testkit::tokens::count_tokens;

const BIN: &str = env!("CARGO_BIN_EXE_pytest-mcp");

/// The bound of the done criterion: `discover` of 5,000
/// parametrizations of one function, in Markdown.
const MARKDOWN_TOKENS: usize = 500;
/// The JSON's bound here (there is no token budget yet): it must not grow
/// with the number of cases either.
const JSON_TOKENS: usize = 500;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn python() -> PathBuf {
    let path = match std::env::var_os("PYTEST_MCP_TEST_PYTHON").filter(|p| !p.is_empty()) {
        Some(p) => PathBuf::from(p),
        None => repo().join(".venv/bin/python"),
    };
    assert!(
        path.is_file(),
        "no test interpreter at {}: set PYTEST_MCP_TEST_PYTHON or run `bash scripts/setup.sh`",
        path.display()
    );
    path
}

/// A private copy of a project (nothing is written into the repository).
struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Project {
    fn copy(name: &str) -> Project {
        let dir = tempfile::tempdir().expect("temporary directory");
        let root = dir.path().join(name);
        copy_tree(&repo().join("tests/projects").join(name), &root);
        Project { _dir: dir, root }
    }

    /// A project of one test file, `tests/<file>`, with `source`.
    fn with_file(file: &str, source: &str) -> Project {
        let dir = tempfile::tempdir().expect("temporary directory");
        let root = dir.path().join("generated");
        std::fs::create_dir_all(root.join("tests")).expect("mkdir");
        std::fs::write(root.join("pytest.ini"), "[pytest]\ntestpaths = tests\n").expect("ini");
        std::fs::write(root.join("tests").join(file), source).expect("test file");
        Project { _dir: dir, root }
    }
}

fn text(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("UTF-8 answer")
}

/// `pytest-mcp discover --root <project> [--format json]`: its standard
/// output, after checking it exited 0.
fn discover(project: &Project, json: bool) -> String {
    let mut c = command(Path::new(BIN));
    c.arg("discover")
        .arg("--root")
        .arg(&project.root)
        .arg("--python")
        .arg(python());
    if json {
        c.args(["--format", "json"]);
    }
    let output = c.output().expect("run pytest-mcp");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        text(&output),
        String::from_utf8_lossy(&output.stderr)
    );
    text(&output)
}

/// The ids `pytest --collect-only -q [args]` prints, in its order; the
/// test fails when pytest refuses the arguments.
fn collected(project: &Project, args: &[&str]) -> Vec<String> {
    let output = command(&python())
        .args([
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--collect-only",
            "-q",
        ])
        .args(args)
        .current_dir(&project.root)
        .output()
        .expect("run pytest");
    let out = text(&output);
    assert_eq!(output.status.code(), Some(0), "pytest {args:?}:\n{out}");
    out.lines()
        .filter(|l| l.contains("::") && !l.starts_with(' '))
        .map(str::to_string)
        .collect()
}

/// One line of the Markdown: the full id it stands for and the number of
/// cases it counts (`None` for a plain test).
#[derive(Debug)]
struct Line {
    id: String,
    cases: Option<usize>,
}

/// Reads the Markdown's `### <file>` sections, checking that no file is
/// shown twice.
fn markdown_lines(md: &str) -> (Vec<String>, Vec<Line>) {
    let mut files: Vec<String> = Vec::new();
    let mut lines = Vec::new();
    for line in md.lines() {
        if let Some(file) = line.strip_prefix("### ") {
            assert!(!files.iter().any(|f| f == file), "{file} twice:\n{md}");
            files.push(file.to_string());
        } else if let Some(rest) = line.strip_prefix("- L") {
            let (_, rest) = rest.split_once(' ').expect("`- L<line> <id>`");
            let file = files.last().expect("a line under a file");
            let (rest, cases) = match rest.split_once(" — ") {
                Some((rest, count)) => {
                    let n = count
                        .strip_suffix(" cases")
                        .or_else(|| count.strip_suffix(" case"))
                        .expect("`<n> cases`")
                        .replace(',', "");
                    (rest, Some(n.parse().expect("a count")))
                }
                None => (rest, None),
            };
            lines.push(Line {
                id: format!("{file}::{rest}"),
                cases,
            });
        }
    }
    (files, lines)
}

/// Feeds `id` back to pytest: it must be accepted, and select `cases`
/// tests (the id itself for a plain test). Returns what it selected.
fn feed_back(project: &Project, id: &str, cases: Option<usize>) -> Vec<String> {
    let selected = collected(project, &[id]);
    match cases {
        None => assert_eq!(selected, [id], "a plain test's id selects itself"),
        Some(n) => {
            assert_eq!(selected.len(), n, "{id} selects what the answer counted");
            let prefix = format!("{id}[");
            assert!(
                selected.iter().all(|s| s.starts_with(&prefix)),
                "{id}: {selected:?}"
            );
        }
    }
    selected
}

#[test]
fn markdown_is_one_line_per_function_with_an_id_pytest_accepts() {
    let project = Project::copy("many_cases");
    let md = discover(&project, false);
    let all = collected(&project, &[]);
    assert!(all.len() > 300, "{all:?}");
    let first = md.lines().next().unwrap_or_default();
    let expected = format!(
        "{}{} tests in 2 files",
        before_counts(),
        thousands(all.len())
    );
    assert!(
        first.starts_with(&discover_start(Verdict::Success)) && first.ends_with(&expected),
        "{md}"
    );

    let (files, lines) = markdown_lines(&md);
    let pytest_files: BTreeSet<&str> = all.iter().filter_map(|i| i.split("::").next()).collect();
    assert_eq!(
        files.iter().map(String::as_str).collect::<BTreeSet<_>>(),
        pytest_files
    );
    // Every function once, parametrized or not: pytest's ids without their
    // parameters.
    let functions: BTreeSet<String> = all
        .iter()
        .map(|id| {
            let file_end = id.find("::").expect("::") + 2;
            match id[file_end..].find('[') {
                Some(at) => id[..file_end + at].to_string(),
                None => id.clone(),
            }
        })
        .collect();
    let shown: BTreeSet<String> = lines.iter().map(|l| l.id.clone()).collect();
    assert_eq!(shown.len(), lines.len(), "{md}");
    assert_eq!(shown, functions, "{md}");
    let mut covered: Vec<String> = Vec::new();
    for line in &lines {
        covered.extend(feed_back(&project, &line.id, line.cases));
    }
    covered.sort();
    let mut every = all.clone();
    every.sort();
    assert_eq!(covered, every, "the lines' ids select every test once");
    assert!(lines.iter().any(|l| l.cases == Some(300)), "{md}");
    let cases = all.iter().filter(|id| id.ends_with(']')).count();
    let parametrized = functions.iter().filter(|f| !all.contains(f)).count();
    let note =
        format!("\n> {cases} cases of {parametrized} parametrized functions counted, not listed");
    assert!(md.contains(&note), "{note}\n{md}");
    let n = count_tokens(&md);
    println!(
        "many_cases ({} tests): Markdown {n} tokens\n{md}",
        all.len()
    );
    assert!(n < MARKDOWN_TOKENS / 2, "{n} tokens:\n{md}");
}

#[test]
fn json_has_the_style_guide_keys_one_entry_per_function() {
    let project = Project::copy("many_cases");
    let text = discover(&project, true);
    let value: Value = serde_json::from_str(&text).expect("JSON");
    let all = collected(&project, &[]);
    assert_eq!(value["count"], all.len(), "count is every test collected");
    assert_eq!(value["collection_errors"], serde_json::json!([]));
    let keys: BTreeSet<&str> = ["node_id", "module", "class", "function", "file", "line"].into();
    let mut covered: Vec<String> = Vec::new();
    let mut listed = 0;
    for t in value["tests"].as_array().expect("tests") {
        let id = t["node_id"].as_str().expect("node_id");
        let has: BTreeSet<&str> = t
            .as_object()
            .expect("entry")
            .keys()
            .map(String::as_str)
            .collect();
        let cases = t["cases"].as_u64().map(|n| n as usize);
        let selected = feed_back(&project, id, cases);
        if cases.is_some() {
            assert_eq!(has, &keys | &["cases", "case_ids"].into(), "{t}");
            let ids: Vec<&str> = t["case_ids"]
                .as_array()
                .expect("case_ids")
                .iter()
                .filter_map(Value::as_str)
                .collect();
            assert_eq!(
                ids,
                selected
                    .iter()
                    .take(3)
                    .map(String::as_str)
                    .collect::<Vec<_>>(),
                "{t}"
            );
            listed += ids.len();
        } else {
            assert_eq!(has, keys, "{t}");
            listed += 1;
        }
        assert_eq!(t["file"].as_str(), id.split("::").next(), "{t}");
        assert!(t["line"].as_u64().is_some_and(|l| l > 0), "{t}");
        covered.extend(selected);
    }
    covered.sort();
    let mut every = all.clone();
    every.sort();
    assert_eq!(covered, every, "the entries' ids select every test once");
    assert_eq!(
        value["truncated"]["case_ids_omitted"],
        all.len() - listed,
        "{value}"
    );
    let class_entry = value["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .find(|t| t["node_id"] == "tests/test_ranges.py::TestSlices::test_odd_ids")
        .expect("the class's parametrized method");
    assert_eq!(class_entry["class"], "TestSlices");
    assert_eq!(class_entry["function"], "test_odd_ids");
    assert_eq!(class_entry["module"], "tests.test_ranges");
}

/// The criterion: 5,000 parametrizations of one function, under
/// 500 tokens in Markdown; the JSON (compact as the server sends it, and
/// indented as the command line prints it) as small.
#[test]
#[ignore = "scale test, slow: scripts/test.sh runs it (cargo test --test discovery -- --ignored)"]
fn five_thousand_cases_take_a_few_hundred_tokens() {
    let project = Project::with_file(
        "test_many.py",
        "import pytest\n\n\n@pytest.mark.parametrize(\"n\", range(5000))\ndef test_many(n):\n    assert n >= 0\n\n\ndef test_plain():\n    pass\n",
    );
    let md = discover(&project, false);
    let pretty = discover(&project, true);
    let value: Value = serde_json::from_str(&pretty).expect("JSON");
    let compact = serde_json::to_string(&value).expect("compact");
    assert!(
        md.contains("\n- L5 test_many — 5,000 cases\n- L9 test_plain\n"),
        "{md}"
    );
    assert_eq!(value["count"], 5001);
    assert_eq!(value["tests"][0]["cases"], 5000);
    feed_back(&project, "tests/test_many.py::test_many", Some(5000));
    let (md_n, pretty_n, compact_n) = (
        count_tokens(&md),
        count_tokens(&pretty),
        count_tokens(&compact),
    );
    println!("5,000 cases: Markdown {md_n} tokens, JSON {compact_n} compact / {pretty_n} indented");
    assert!(md_n < MARKDOWN_TOKENS, "{md_n} tokens:\n{md}");
    assert!(
        compact_n < JSON_TOKENS && pretty_n < JSON_TOKENS,
        "{pretty}"
    );
}

/// `discover_tests` is annotated read-only (`src/frontend/tools.rs`): a
/// discovery writes nothing into the project, neither pytest's cache (where
/// pytest records files that fail to import, for a later `--last-failed`)
/// nor bytecode, even when the environment would let Python write it.
#[test]
fn discovery_writes_nothing_into_the_project() {
    let project = Project::copy("collection_errors");
    let before = files_in(&project.root);
    let output = command(Path::new(BIN))
        .env_remove("PYTHONDONTWRITEBYTECODE")
        .args(["discover", "--root"])
        .arg(&project.root)
        .arg("--python")
        .arg(python())
        .output()
        .expect("run pytest-mcp");
    // Collection errors: exit status 2, and the answer lists them.
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(
        text(&output).contains("test_import_error.py"),
        "{}",
        text(&output)
    );
    assert_eq!(files_in(&project.root), before);
    // pytest itself would have written both here.
    let written = command(&python())
        .env_remove("PYTHONDONTWRITEBYTECODE")
        .args(["-m", "pytest", "--collect-only", "-q"])
        .current_dir(&project.root)
        .output()
        .expect("run pytest");
    assert_eq!(written.status.code(), Some(2), "{}", text(&written));
    let after: Vec<String> = files_in(&project.root)
        .into_iter()
        .filter(|f| !before.contains(f))
        .collect();
    assert!(
        after.iter().any(|f| f.contains(".pytest_cache"))
            && after.iter().any(|f| f.contains("__pycache__")),
        "{after:?}"
    );
}

/// Every file and directory under `root`, relative to it, sorted.
fn files_in(root: &Path) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("list a directory") {
            let path = entry.expect("entry").path();
            let rel = path
                .strip_prefix(root)
                .expect("inside")
                .display()
                .to_string();
            found.insert(rel);
            if path.is_dir() {
                stack.push(path);
            }
        }
    }
    found
}
