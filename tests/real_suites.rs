//! The default Markdown answer on real libraries' own test suites with
//! bugs injected (issue 33; the suites and their bugs are in the testkit
//! crate, `real_suites`), and on `tests/projects/mixed`: every test pytest
//! -q lists as FAILED or ERROR is named verbatim, with the line of the test
//! that failed and its message (or the compared values); and the answer
//! costs at most 40% of pytest -q's tokens. A passing run costs at most 10
//! tokens more than pytest -q's closing line.
//!
//! Each case runs three times: `python -m pytest -q` (what an agent would
//! read otherwise), the same with pytest-json-report (where each failure's
//! line and message come from), and `pytest-mcp run --no-history`. The
//! sdists come from `.suites/` (`bash scripts/setup.sh` downloads them).

mod common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::support::{clean_command, project_copy, test_python};
use pytest_mcp_testkit::real_suites::{self, SUITES};
use pytest_mcp_testkit::tokens::count_tokens;
use serde_json::Value;

/// The answer's budget: at most this share of pytest -q's tokens.
const MAX_RATIO: f64 = 0.40;

/// How much of a message's first line must appear.
const MESSAGE_PREFIX: usize = 60;

/// One failing stage of a test, from pytest-json-report.
struct Failure {
    id: String,
    /// `path:line` of the test's own frame (else of the crash).
    place: String,
    /// The first line of the crash message.
    message: String,
}

/// What the three runs of one case said.
struct Outcome {
    case: String,
    /// The ids of pytest -q's FAILED and ERROR lines, as the JSON report
    /// spells them.
    listed: Vec<String>,
    /// pytest -q's lines that name no failing test of the JSON report.
    unmatched: Vec<String>,
    expected_failing: Option<usize>,
    failures: Vec<Failure>,
    pytest_q: String,
    answer: String,
}

/// A project ready to run, in a temporary directory.
struct Case {
    name: String,
    root: PathBuf,
    /// The suite's environment, and `PYTEST_ADDOPTS=--rootdir=<root>`:
    /// the project is its own rootdir even where the temporary directory
    /// is under another project's pyproject.toml (inflection has no pytest
    /// configuration of its own).
    env: Vec<(&'static str, OsString)>,
    expected_failing: Option<usize>,
    dir: tempfile::TempDir,
}

fn cases() -> Vec<Case> {
    let mut cases: Vec<Case> = SUITES
        .iter()
        .map(|suite| {
            let dir = tempfile::tempdir().expect("tempdir");
            let root = dir.path().join(suite.name);
            if let Err(e) = real_suites::prepare(suite, &root) {
                panic!("{}: {e}", suite.name);
            }
            let root = root.canonicalize().expect("canonical root");
            Case {
                name: format!("{} {}", suite.name, suite.version),
                env: with_rootdir(real_suites::environment(suite, &root), &root),
                root,
                expected_failing: Some(suite.failing),
                dir,
            }
        })
        .collect();
    let (dir, root) = project_copy("mixed");
    cases.push(Case {
        name: "tests/projects/mixed".into(),
        env: with_rootdir(Vec::new(), &root),
        root,
        expected_failing: None,
        dir,
    });
    cases
}

/// `env` with `PYTEST_ADDOPTS=--rootdir=<root>` (see [`Case::env`]).
fn with_rootdir(
    mut env: Vec<(&'static str, OsString)>,
    root: &Path,
) -> Vec<(&'static str, OsString)> {
    let mut rootdir = OsString::from("--rootdir=");
    rootdir.push(root);
    env.push(("PYTEST_ADDOPTS", rootdir));
    env
}

/// Every case's runs, made once for the tests of this file.
fn outcomes() -> &'static [Outcome] {
    static OUTCOMES: OnceLock<Vec<Outcome>> = OnceLock::new();
    OUTCOMES.get_or_init(|| cases().iter().map(run_case).collect())
}

fn run_case(case: &Case) -> Outcome {
    let python = test_python();
    let pytest = |extra: &[&OsString]| {
        let out = clean_command(&python)
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .args(extra)
            .envs(case.env.iter().map(|(k, v)| (k, v)))
            .current_dir(&case.root)
            .output()
            .expect("run pytest");
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}: pytest exited {}: {}",
            case.name,
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("UTF-8 pytest output")
    };
    let pytest_q = pytest(&[]);
    let report = case.dir.path().join("report.json");
    let mut file_arg = OsString::from("--json-report-file=");
    file_arg.push(&report);
    pytest(&[&"--json-report".into(), &file_arg]);
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("read the JSON report"))
            .expect("a JSON report");
    let failures = failures(&report);
    let (listed, unmatched) = listed_ids(&pytest_q, &failures);
    Outcome {
        case: case.name.clone(),
        listed,
        unmatched,
        expected_failing: case.expected_failing,
        failures,
        pytest_q,
        answer: answer(case),
    }
}

/// `pytest-mcp run --no-history` on the case: its standard output.
fn answer(case: &Case) -> String {
    let out = clean_command(Path::new(env!("CARGO_BIN_EXE_pytest-mcp")))
        .arg("run")
        .arg("--root")
        .arg(&case.root)
        .arg("--python")
        .arg(test_python())
        .arg("--no-history")
        .envs(case.env.iter().map(|(k, v)| (k, v)))
        .output()
        .expect("run pytest-mcp");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}: pytest-mcp exited {}: {}",
        case.name,
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 answer")
}

/// Each failed stage (setup, call, teardown) of each test in the report.
fn failures(report: &Value) -> Vec<Failure> {
    let mut found = Vec::new();
    for test in report["tests"].as_array().expect("the report's tests") {
        let id = test["nodeid"].as_str().expect("a node id");
        let file = id.split("::").next().unwrap_or(id);
        for stage in ["setup", "call", "teardown"] {
            let s = &test[stage];
            if s["outcome"] != "failed" {
                continue;
            }
            let own = s["traceback"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|e| e["path"] == file);
            let at = own.unwrap_or(&s["crash"]);
            let message = s["crash"]["message"].as_str().unwrap_or_default();
            found.push(Failure {
                id: id.to_string(),
                place: format!(
                    "{}:{}",
                    at["path"].as_str().unwrap_or_default(),
                    at["lineno"]
                ),
                message: message.lines().next().unwrap_or_default().to_string(),
            });
        }
    }
    found
}

/// The ids pytest -q's short summary lists (`FAILED id` or `FAILED id -
/// message`, and ERROR alike), matched against the JSON report's failing
/// ids (an id may itself contain " - "); and the lines that match none.
fn listed_ids(pytest_q: &str, failures: &[Failure]) -> (Vec<String>, Vec<String>) {
    let (mut listed, mut unmatched) = (Vec::new(), Vec::new());
    for line in pytest_q.lines() {
        let Some(rest) = line
            .strip_prefix("FAILED ")
            .or_else(|| line.strip_prefix("ERROR "))
        else {
            continue;
        };
        let id = failures
            .iter()
            .map(|f| f.id.as_str())
            .filter(|id| {
                rest.strip_prefix(id)
                    .is_some_and(|after| after.is_empty() || after.starts_with(" - "))
            })
            .max_by_key(|id| id.len());
        match id {
            Some(id) if !listed.iter().any(|l| l == id) => listed.push(id.to_string()),
            Some(_) => {}
            None => unmatched.push(line.to_string()),
        }
    }
    (listed, unmatched)
}

/// Whether `text` holds `needle` as a whole: not followed by a character
/// that would make it part of a longer id, name or number.
fn mentions(text: &str, needle: &str) -> bool {
    text.match_indices(needle).any(|(at, _)| {
        let after = text[at + needle.len()..].chars().next();
        let before = text[..at].chars().next_back();
        let word = |c: char| c.is_alphanumeric() || "_[.-/".contains(c);
        !after.is_some_and(|c| word(c) || c == '[') && !before.is_some_and(word)
    })
}

/// The first `n` characters of `s`.
fn prefix(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(at, _)| &s[..at])
}

/// Whether the answer tells `message` (a crash's first line): a prefix of
/// it, with or without its exception type, or for `assert A == B` both
/// compared values.
fn tells_message(answer: &str, message: &str) -> bool {
    let bare = message
        .split_once(": ")
        .filter(|(kind, _)| kind.ends_with("Error") || kind.ends_with("Exception"))
        .map_or(message, |(_, rest)| rest);
    if [message, bare]
        .iter()
        .any(|m| answer.contains(prefix(m, MESSAGE_PREFIX)))
    {
        return true;
    }
    bare.strip_prefix("assert ")
        .and_then(|c| c.split_once(" == "))
        .is_some_and(|(left, right)| {
            answer.contains(prefix(left, MESSAGE_PREFIX / 2))
                && answer.contains(prefix(right, MESSAGE_PREFIX / 2))
        })
}

/// What one case's answer leaves out of what pytest -q and the report say.
fn missing(o: &Outcome) -> Vec<String> {
    let mut gaps: Vec<String> = o
        .unmatched
        .iter()
        .map(|l| format!("pytest -q lists a failure the JSON report lacks: {l}"))
        .collect();
    if let Some(n) = o.expected_failing.filter(|&n| n != o.listed.len()) {
        gaps.push(format!(
            "the bugs should fail {n} tests, pytest -q lists {}",
            o.listed.len()
        ));
    }
    for id in &o.listed {
        // By its id, or by its function when every case of it failed
        // (`test_x.py::test_f (all 8 cases)`, an id pytest runs as is).
        let by_function = pytest_mcp::pytest_text::parametrized_function(id)
            .is_some_and(|f| o.answer.contains(&format!("{f} (all ")));
        if !mentions(&o.answer, id) && !by_function {
            gaps.push(format!("id not named: {id}"));
        }
    }
    for f in &o.failures {
        // Or as a heading's `(line N)`: its own, or its group's.
        let in_heading = o
            .answer
            .lines()
            .filter_map(pytest_mcp_testkit::tokens::heading_place)
            .any(|p| p == f.place);
        if !mentions(&o.answer, &f.place) && !in_heading {
            gaps.push(format!("line not given: {} for {}", f.place, f.id));
        }
        if !tells_message(&o.answer, &f.message) {
            gaps.push(format!("message not told: {:?} for {}", f.message, f.id));
        }
    }
    gaps
}

#[test]
fn every_failure_is_named_with_its_line_and_message() {
    let mut report = String::new();
    for o in outcomes() {
        assert!(
            !o.listed.is_empty(),
            "{}: pytest -q lists no failure",
            o.case
        );
        let gaps = missing(o);
        if !gaps.is_empty() {
            report.push_str(&format!(
                "\n{} ({} failing):\n  {}\n--- the answer:\n{}\n",
                o.case,
                o.listed.len(),
                gaps.join("\n  "),
                o.answer
            ));
        }
    }
    assert!(report.is_empty(), "what the answers leave out:{report}");
}

#[test]
fn answers_cost_at_most_40_percent_of_pytest_q() {
    let mut table = String::new();
    let mut over = Vec::new();
    for o in outcomes() {
        let (ours, q) = (count_tokens(&o.answer), count_tokens(&o.pytest_q));
        let ratio = ours as f64 / q as f64;
        table.push_str(&format!(
            "\n  {}: pytest-mcp run {ours} tokens, pytest -q {q} tokens, ratio {ratio:.2}",
            o.case
        ));
        if ratio > MAX_RATIO {
            over.push(o.case.as_str());
        }
    }
    assert!(
        over.is_empty(),
        "over {MAX_RATIO} of pytest -q's tokens: {over:?}{table}"
    );
}

/// A passing run costs at most 10 tokens more than pytest -q's closing
/// line (`6 passed in 0.01s`): the status line and nothing else.
#[test]
fn a_passing_run_costs_at_most_ten_tokens_more_than_pytests_closing_line() {
    let (_dir, root) = project_copy("all_pass");
    let out = clean_command(&test_python())
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .current_dir(&root)
        .output()
        .expect("run pytest");
    let pytest_q = String::from_utf8(out.stdout).expect("UTF-8 pytest output");
    let closing = pytest_q
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    assert!(closing.contains(" passed in "), "{pytest_q}");
    let (status, answer) = common::support::run_pytest_mcp(&root, &["--no-history"]);
    assert_eq!(status, Some(0), "{answer}");
    let (ours, theirs) = (count_tokens(&answer), count_tokens(closing));
    println!("a passing run: ours {ours} tokens, pytest -q's closing line {theirs}:\n{answer}");
    assert!(
        ours <= theirs + 10,
        "{ours} tokens against {theirs}:\n{answer}"
    );
}
