//! `pytest-mcp run` and `pytest-mcp discover` end to end, against real
//! pytest projects (`tests/projects/`), with the real binary and a real
//! interpreter.
//!
//! Every project is copied into a temporary directory first, so nothing is
//! written into the repository. Counts are checked against pytest's own
//! summary of a plain run of the same copy, never against numbers written
//! into this file.
//!
//! Interpreters: `PYTEST_MCP_TEST_PYTHON`, else `.venv/bin/python` (pytest,
//! pytest-json-report, xdist); `.venv-nojson/bin/python` has pytest alone.
//! `bash scripts/setup.sh` creates both; a missing one fails the tests.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

mod common;
use common::support;
use support::{head, processes_in, reader};

const BIN: &str = env!("CARGO_BIN_EXE_pytest-mcp");
/// Longest any single invocation may take before the test gives up on it.
const DEADLINE: Duration = Duration::from_secs(90);
/// `process::DEFAULT_GRACE`: time between SIGTERM and SIGKILL when a run
/// is ended and `--kill-grace` is not given.
const DEFAULT_GRACE: Duration = Duration::from_secs(2);
/// The `--kill-grace` of the tests that do not check the default: pytest
/// and its child ignore SIGTERM there, so every such run waits it in full.
const SHORT_GRACE: Duration = Duration::from_millis(200);
const SHORT_GRACE_ARG: &str = "0.2";
/// The file the `runner_tripwire` project's conftest.py creates.
const TRIPWIRE: &str = "PYTEST_STARTED";

// ---------------------------------------------------------------------------
// Interpreters and projects
// ---------------------------------------------------------------------------

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn require_interpreter(path: PathBuf, what: &str) -> PathBuf {
    assert!(
        path.is_file(),
        "{what} {} does not exist: run `bash scripts/setup.sh` in {} to create the test \
         interpreters (.venv with pytest + pytest-json-report, .venv-nojson with pytest only)",
        path.display(),
        repo().display()
    );
    path
}

/// The interpreter with pytest and pytest-json-report.
fn python() -> PathBuf {
    match std::env::var_os("PYTEST_MCP_TEST_PYTHON").filter(|p| !p.is_empty()) {
        Some(p) => require_interpreter(PathBuf::from(p), "PYTEST_MCP_TEST_PYTHON"),
        None => require_interpreter(repo().join(".venv/bin/python"), "the test interpreter"),
    }
}

/// The interpreter with pytest but without pytest-json-report.
fn python_nojson() -> PathBuf {
    require_interpreter(
        repo().join(".venv-nojson/bin/python"),
        "the interpreter without pytest-json-report",
    )
}

/// A private copy of `tests/projects/<name>`.
struct Project {
    _dir: tempfile::TempDir,
    /// The copy, symlinks resolved (as pytest and the processes see it).
    root: PathBuf,
}

impl Project {
    fn copy(name: &str) -> Project {
        let source = repo().join("tests/projects").join(name);
        assert!(source.is_dir(), "no project {}", source.display());
        let dir = tempfile::Builder::new()
            .prefix("runner-it-")
            .tempdir()
            .expect("temporary directory");
        let root = dir.path().join(name);
        copy_tree(&source, &root);
        let root = root.canonicalize().expect("canonical root");
        Project { _dir: dir, root }
    }

    /// The directory that holds the copy (outside the root).
    fn parent(&self) -> &Path {
        self.root.parent().expect("parent")
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let name = entry.file_name();
        if name == "__pycache__" || name == ".pytest_cache" {
            continue;
        }
        let kind = entry.file_type().expect("file type");
        let target = to.join(&name);
        if kind.is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

// ---------------------------------------------------------------------------
// Running processes
// ---------------------------------------------------------------------------

/// What an invocation of the binary (or of pytest) gave back.
struct Answer {
    status: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
    elapsed: Duration,
}

impl Answer {
    /// Standard output, which must be valid UTF-8.
    fn text(&self) -> String {
        String::from_utf8(self.stdout.clone()).unwrap_or_else(|e| {
            panic!(
                "the answer is not valid UTF-8 ({e}); stderr: {}",
                self.stderr
            )
        })
    }

    /// Standard output parsed as JSON.
    fn json(&self) -> Value {
        serde_json::from_str(&self.text()).unwrap_or_else(|e| {
            panic!(
                "the answer is not JSON ({e}):\n{}\nstderr: {}",
                head(&self.text(), 3000),
                self.stderr
            )
        })
    }
}

fn command(program: &Path) -> Command {
    let mut c = support::clean_command(program);
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    c
}

/// Waits for `child`, calling `poll` every few milliseconds while it runs;
/// kills it and fails the test after [`DEADLINE`].
fn wait(mut child: Child, started: Instant, mut poll: impl FnMut(u32)) -> Answer {
    let out = reader(child.stdout.take().expect("piped stdout"));
    let err = reader(child.stderr.take().expect("piped stderr"));
    let pid = child.id();
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if started.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("process {pid} still running after {DEADLINE:?}; killed");
        }
        poll(pid);
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = started.elapsed();
    Answer {
        status: status.code(),
        stdout: out.join().expect("stdout reader"),
        stderr: String::from_utf8_lossy(&err.join().expect("stderr reader")).into_owned(),
        elapsed,
    }
}

fn pytest_mcp<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Answer {
    let started = Instant::now();
    let child = command(Path::new(BIN))
        .args(args)
        .spawn()
        .expect("start pytest-mcp");
    wait(child, started, |_| {})
}

/// `pytest-mcp run --root <project> --python <python> <extra...>`.
fn run(project: &Project, python: &Path, extra: &[&str]) -> Answer {
    let mut args: Vec<OsString> = vec![
        "run".into(),
        "--root".into(),
        project.root.clone().into(),
        "--python".into(),
        python.into(),
    ];
    args.extend(extra.iter().map(OsString::from));
    pytest_mcp(&args)
}

fn run_json(project: &Project, python: &Path, extra: &[&str]) -> (Answer, Value) {
    let mut args = vec!["--format", "json"];
    args.extend_from_slice(extra);
    let answer = run(project, python, &args);
    let value = answer.json();
    (answer, value)
}

fn run_markdown(project: &Project, python: &Path, extra: &[&str]) -> (Answer, String) {
    let mut args = vec!["--format", "markdown"];
    args.extend_from_slice(extra);
    let answer = run(project, python, &args);
    let text = answer.text();
    (answer, text)
}

fn discover(project: &Project, extra: &[&str]) -> Answer {
    let mut args: Vec<OsString> = vec![
        "discover".into(),
        "--root".into(),
        project.root.clone().into(),
        "--python".into(),
        python().into(),
    ];
    args.extend(extra.iter().map(OsString::from));
    pytest_mcp(&args)
}

/// `<python> -m pytest <args>` in the project, as a user would run it.
fn plain_pytest(project: &Project, python: &Path, args: &[&str]) -> Answer {
    let started = Instant::now();
    let child = command(python)
        .args(["-m", "pytest", "-p", "no:cacheprovider"])
        .args(args)
        .current_dir(&project.root)
        .spawn()
        .expect("start pytest");
    wait(child, started, |_| {})
}

// ---------------------------------------------------------------------------
// pytest's own summary, as the reference
// ---------------------------------------------------------------------------

/// Counts per test, the way our model counts (ARCHITECTURE.md, Outcomes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Counts {
    total: u64,
    passed: u64,
    failed: u64,
    skipped: u64,
    errors: u64,
    xfailed: u64,
    xpassed: u64,
}

impl Counts {
    fn from_summary(summary: &Value) -> Counts {
        let n = |key: &str| {
            summary[key]
                .as_u64()
                .unwrap_or_else(|| panic!("summary.{key} missing in {summary}"))
        };
        Counts {
            total: n("total"),
            passed: n("passed"),
            failed: n("failed"),
            skipped: n("skipped"),
            errors: n("errors"),
            xfailed: n("xfailed"),
            xpassed: n("xpassed"),
        }
    }
}

/// What a plain `pytest -q -rA` run of a copy said.
#[derive(Debug)]
struct Reference {
    exit: i32,
    /// The final counts line, word -> number ("errors", "warnings" plural).
    line: BTreeMap<String, u64>,
    /// Outcome per test id, as our model counts it.
    outcomes: BTreeMap<String, &'static str>,
    /// Files (or ids) that failed to collect.
    collection_errors: BTreeSet<String>,
    counts: Counts,
    output: String,
    /// True when pytest's standard output was valid UTF-8.
    utf8: bool,
}

/// Parses pytest's final counts line ("1 failed, 3 passed, 5 errors in
/// 0.07s", "no tests ran in 0.01s").
fn counts_line(output: &str) -> BTreeMap<String, u64> {
    for line in output.lines().rev() {
        let line = line.trim().trim_matches('=').trim();
        if line.starts_with("no tests ran in ") {
            return BTreeMap::new();
        }
        let Some((counts, _)) = line.rsplit_once(" in ") else {
            continue;
        };
        let parsed: Option<BTreeMap<String, u64>> = counts
            .split(", ")
            .map(|part| {
                let (n, word) = part.split_once(' ')?;
                let word = match word {
                    "error" => "errors",
                    "warning" => "warnings",
                    w => w,
                };
                Some((word.to_string(), n.parse().ok()?))
            })
            .collect();
        if let Some(map) = parsed {
            return map;
        }
    }
    panic!("no counts line in pytest's output:\n{output}");
}

/// Runs pytest on the copy and derives the per-test counts from its
/// summary: the `-rA` lines say which test got which reports, the counts
/// line says how many reports of each kind there were.
fn reference(project: &Project, python: &Path, extra: &[&str]) -> Reference {
    let mut args = vec!["-q", "-rA"];
    args.extend_from_slice(extra);
    let answer = plain_pytest(project, python, &args);
    let output = String::from_utf8_lossy(&answer.stdout).into_owned();
    let utf8 = std::str::from_utf8(&answer.stdout).is_ok();
    let line = counts_line(&output);
    let collection_errors: BTreeSet<String> = output
        .lines()
        .filter_map(|l| l.split_once(" ERROR collecting ").map(|(_, rest)| rest))
        .map(|rest| rest.trim_end_matches(['_', ' ']).to_string())
        .collect();
    let mut reports: BTreeMap<String, BTreeSet<&'static str>> = BTreeMap::new();
    let mut seen: BTreeMap<&'static str, u64> = BTreeMap::new();
    for l in output.lines() {
        for word in ["PASSED", "FAILED", "ERROR", "XFAIL", "XPASS"] {
            let Some(rest) = l.strip_prefix(word).and_then(|r| r.strip_prefix(' ')) else {
                continue;
            };
            let id = rest.split(" - ").next().unwrap_or(rest).trim().to_string();
            *seen.entry(word).or_default() += 1;
            if !collection_errors.contains(&id) {
                reports.entry(id).or_default().insert(word);
            }
        }
    }
    // The -rA lines agree with pytest's own counts line.
    let from_line = |w: &str| line.get(w).copied().unwrap_or(0);
    for (word, key) in [
        ("PASSED", "passed"),
        ("FAILED", "failed"),
        ("ERROR", "errors"),
        ("XFAIL", "xfailed"),
        ("XPASS", "xpassed"),
    ] {
        assert_eq!(
            seen.get(word).copied().unwrap_or(0),
            from_line(key),
            "pytest's {word} lines disagree with its counts line:\n{output}"
        );
    }
    let outcomes: BTreeMap<String, &'static str> = reports
        .iter()
        .map(|(id, r)| {
            let outcome = if r.contains("ERROR") {
                "error"
            } else if r.contains("FAILED") {
                "failed"
            } else if r.contains("XFAIL") {
                "xfailed"
            } else if r.contains("XPASS") {
                "xpassed"
            } else {
                "passed"
            };
            (id.clone(), outcome)
        })
        .collect();
    let count = |o: &str| outcomes.values().filter(|v| **v == o).count() as u64;
    let mut counts = Counts {
        passed: count("passed") + count("xpassed"),
        failed: count("failed"),
        errors: count("error"),
        xfailed: count("xfailed"),
        xpassed: count("xpassed"),
        skipped: from_line("skipped") + count("xfailed"),
        total: 0,
    };
    counts.total = counts.passed + counts.failed + counts.skipped + counts.errors;
    Reference {
        exit: answer.status.expect("pytest exited"),
        line,
        outcomes,
        collection_errors,
        counts,
        output,
        utf8,
    }
}

/// Our outcome for a reference outcome.
fn model_outcome(reference: &str) -> &str {
    match reference {
        "xfailed" => "skipped",
        "xpassed" => "passed",
        o => o,
    }
}

/// The status word ARCHITECTURE.md gives for a result.
fn status_word(exit: i32, counts: &Counts, collection_errors: usize) -> &'static str {
    if collection_errors > 0 || counts.failed + counts.errors > 0 {
        "FAILURE"
    } else if exit == 5 || counts.total == 0 {
        "NO TESTS"
    } else {
        "SUCCESS"
    }
}

/// `run` on a copy of `name`, both formats, against a plain pytest run.
/// Returns the JSON and the Markdown answers for further checks.
fn matches_pytest(name: &str, python: &Path, expected_exit: i32) -> (Value, String) {
    let project = Project::copy(name);
    let (answer, value) = run_json(&project, python, &[]);
    let (md_answer, markdown) = run_markdown(&project, python, &[]);
    let pytest = reference(&project, python, &[]);
    println!(
        "{name}: pytest exit {} counts line {:?}; expected per test {:?}",
        pytest.exit, pytest.line, pytest.counts
    );
    assert_eq!(
        pytest.exit, expected_exit,
        "the project {name} no longer does what this test expects:\n{}",
        pytest.output
    );

    // JSON: the ADR-006 object.
    assert_eq!(answer.status, Some(pytest.exit), "{}", answer.stderr);
    assert!(
        value.get("error").is_none(),
        "a result, not an error: {value}"
    );
    assert_eq!(value["exit_code"], pytest.exit);
    let counts = Counts::from_summary(&value["summary"]);
    assert_eq!(counts, pytest.counts, "summary of {name} vs pytest's");
    let tests = value["tests"].as_array().expect("tests");
    let ours: BTreeMap<String, String> = tests
        .iter()
        .map(|t| {
            (
                t["node_id"].as_str().expect("node_id").to_string(),
                t["outcome"].as_str().expect("outcome").to_string(),
            )
        })
        .collect();
    assert_eq!(ours.len(), tests.len(), "duplicate test ids: {tests:?}");
    let expected: BTreeMap<String, String> = pytest
        .outcomes
        .iter()
        .map(|(id, o)| (id.clone(), model_outcome(o).to_string()))
        .collect();
    // Skipped tests appear in -rA by location, not by id: compare the rest.
    let ours_not_skipped: BTreeMap<String, String> = ours
        .iter()
        .filter(|(id, o)| *o != "skipped" || expected.contains_key(*id))
        .map(|(id, o)| (id.clone(), o.clone()))
        .collect();
    assert_eq!(ours_not_skipped, expected, "outcome per test of {name}");
    for t in tests {
        let id = t["node_id"].as_str().unwrap_or_default();
        match pytest.outcomes.get(id).copied() {
            Some("xfailed") => assert!(
                t["message"].as_str().unwrap_or("").starts_with("XFAIL"),
                "{t}"
            ),
            Some("xpassed") => assert!(
                t["message"].as_str().unwrap_or("").starts_with("XPASS"),
                "{t}"
            ),
            _ => {}
        }
    }
    let errors: BTreeSet<String> = value["collection_errors"]
        .as_array()
        .expect("collection_errors")
        .iter()
        .map(|e| e["file"].as_str().expect("file").to_string())
        .collect();
    assert_eq!(errors, pytest.collection_errors, "collection errors");
    assert_eq!(
        counts.errors + errors.len() as u64,
        pytest.line.get("errors").copied().unwrap_or(0),
        "pytest's `N errors` = test errors + collection errors"
    );

    // Markdown.
    assert_eq!(md_answer.status, Some(pytest.exit), "{}", md_answer.stderr);
    let word = status_word(pytest.exit, &pytest.counts, errors.len());
    let header = markdown.lines().next().unwrap_or_default();
    assert!(
        header.starts_with(&format!("Test {word} (")),
        "header of {name}: {header}"
    );
    let c = pytest.counts;
    let mut parts = vec![format!("— {} run, {} failed", c.total, c.failed)];
    if c.errors > 0 {
        parts.push(format!(", {} error", c.errors));
    }
    if c.skipped > 0 {
        parts.push(format!(", {} skipped", c.skipped));
    }
    if c.xpassed > 0 {
        parts.push(format!(", {} xpassed", c.xpassed));
    }
    if !errors.is_empty() {
        parts.push(format!(", {} collection error", errors.len()));
    }
    for part in parts {
        assert!(header.contains(&part), "{name}: `{part}` not in {header}");
    }
    // Its own section, or named in the section of the group it shares (same
    // shape: "Same failure in N more: ids"), by its id or its function
    // ("tests/t.py::test_f (all 30 cases)"); the rest are counted in the
    // groups' "+N more".
    let named = |id: &str| {
        markdown.lines().any(|l| {
            (l.starts_with("### ") && l.ends_with(&format!(": {id}")))
                || l.trim_start()
                    .strip_prefix("Same failure in ")
                    .and_then(|l| l.split_once(": "))
                    .is_some_and(|(_, ids)| {
                        ids.split(", ").any(|i| {
                            i == id
                                || i.split_once(" (all ").is_some_and(|(f, _)| {
                                    pytest_mcp::pytest_text::parametrized_function(id) == Some(f)
                                })
                        })
                    })
        })
    };
    let more: usize = markdown
        .lines()
        .filter(|l| l.trim_start().starts_with("Same failure in "))
        .filter_map(|l| {
            l.rsplit_once(", +")?
                .1
                .strip_suffix(" more")?
                .parse::<usize>()
                .ok()
        })
        .sum();
    let unnamed: Vec<&String> = pytest
        .outcomes
        .iter()
        .filter(|(id, outcome)| (**outcome == "failed" || **outcome == "error") && !named(id))
        .map(|(id, _)| id)
        .collect();
    assert!(
        unnamed.len() <= more,
        "{name}: no section for {unnamed:?} ({more} counted in groups):\n{markdown}"
    );
    for file in &errors {
        assert!(
            markdown.contains(&format!("### COLLECTION ERROR: {file}")),
            "{name}: no section for the collection error in {file}:\n{markdown}"
        );
    }
    (value, markdown)
}

// ---------------------------------------------------------------------------
// Ordinary runs: results, both formats, counts equal to pytest's
// ---------------------------------------------------------------------------

#[test]
fn all_passing_exits_0_with_pytests_counts() {
    matches_pytest("all_pass", &python(), 0);
}

#[test]
fn a_failure_exits_1_with_pytests_counts() {
    matches_pytest("one_failure", &python(), 1);
}

#[test]
fn setup_and_teardown_errors_count_each_test_once() {
    matches_pytest("setup_teardown", &python(), 1);
}

#[test]
fn xfail_and_xpass_match_pytest() {
    matches_pytest("xfail_xpass", &python(), 1);
}

#[test]
fn collection_errors_are_a_result_with_exit_2() {
    matches_pytest("collection_errors", &python(), 2);
}

#[test]
fn no_tests_is_a_result_with_exit_5() {
    matches_pytest("empty", &python(), 5);
}

#[test]
fn a_mixed_project_matches_pytest() {
    matches_pytest("mixed", &python(), 1);
}

// ---------------------------------------------------------------------------
// Timeout: the whole process group ends, the hanging test is named
// ---------------------------------------------------------------------------

const HANGING: &str = "tests/test_hang.py::test_hangs_with_stubborn_child";

/// Waits for runner_hang's pytest and child and everything else of the run
/// to be gone ([`support::nothing_left`]).
fn nothing_left(project: &Project) -> Result<(), String> {
    support::nothing_left(&project.root, &["pytest.pid", "child.pid"])
}

/// The run ended within a few seconds of its time limit and its grace, and
/// not before both had passed (SIGTERM is ignored, so only SIGKILL after
/// the grace ends it).
fn assert_prompt(answer: &Answer, timeout: u64, grace: Duration) {
    let earliest = Duration::from_secs(timeout) + grace;
    let limit = earliest + Duration::from_secs(5);
    println!(
        "timeout {timeout}s: pytest-mcp returned after {:.2}s ({:.2}s after the time limit; \
         SIGTERM is ignored, so SIGKILL after the {:.1}s grace)",
        answer.elapsed.as_secs_f64(),
        answer.elapsed.as_secs_f64() - timeout as f64,
        grace.as_secs_f64()
    );
    assert!(
        (earliest..limit).contains(&answer.elapsed),
        "took {:?} with --timeout {timeout} and a {grace:?} grace",
        answer.elapsed
    );
}

/// Both formats at once: each run spends most of its time waiting.
#[test]
fn a_hang_times_out_names_the_test_and_kills_everything() {
    let json_project = Project::copy("runner_hang");
    let md_project = Project::copy("runner_hang");
    let args = ["--timeout", "3", "--kill-grace", SHORT_GRACE_ARG];
    let ((answer, value), (md_answer, text)) = std::thread::scope(|scope| {
        let md = scope.spawn(|| run_markdown(&md_project, &python(), &args));
        let json = run_json(&json_project, &python(), &args);
        (json, md.join().expect("the Markdown run"))
    });
    let left = [nothing_left(&json_project), nothing_left(&md_project)];
    assert!(left.iter().all(Result::is_ok), "{left:#?}");

    // JSON: the ADR-007 timeout error with what finished.
    assert_eq!(answer.status, Some(124), "{value}");
    assert_prompt(&answer, 3, SHORT_GRACE);
    let error = &value["error"];
    assert_eq!(error["code"], -32000, "{value}");
    assert!(
        error["message"]
            .as_str()
            .unwrap_or("")
            .contains("timeout of 3 seconds"),
        "{error}"
    );
    let data = &error["data"];
    assert_eq!(data["error_type"], "timeout");
    assert_eq!(data["running_test"], HANGING);
    assert_eq!(data["exit_code"], Value::Null);
    let tests = data["tests"].as_array().expect("data.tests");
    assert_eq!(tests.len(), 1, "{tests:?}");
    assert_eq!(tests[0]["node_id"], "tests/test_hang.py::test_quick");
    assert_eq!(tests[0]["outcome"], "passed");
    assert_eq!(data["summary"]["total"], 1);
    assert_eq!(data["summary"]["passed"], 1);
    assert!(data["command"].is_array() && data["duration"].is_number());

    // Markdown.
    assert_eq!(md_answer.status, Some(124), "{text}");
    assert_prompt(&md_answer, 3, SHORT_GRACE);
    assert!(text.starts_with("Test TIMEOUT ("), "{text}");
    assert!(text.contains(HANGING), "{text}");
}

/// SIGTERM, SIGINT or SIGHUP to `pytest-mcp run` while a test hangs with a
/// child that ignores SIGTERM: the CLI ends the whole pytest process group
/// before it exits (dying at once used to leave that child running, as only
/// pytest itself gets the parent-death signal), answers CANCELLED naming
/// the running test, and exits 128+N. One run per signal, at once; the
/// SIGHUP run keeps the default grace (no `--kill-grace`), so that default
/// is checked too, the others take the short one.
#[test]
fn a_signal_to_the_cli_ends_the_whole_run() {
    let signals = [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP];
    let grace = |signal: Signal| match signal {
        Signal::SIGHUP => None,
        _ => Some(SHORT_GRACE_ARG),
    };
    let projects: Vec<Project> = signals
        .iter()
        .map(|_| Project::copy("runner_hang"))
        .collect();
    // (answer, seconds from the signal to the exit)
    let answers: Vec<(Answer, Option<f64>)> = std::thread::scope(|scope| {
        let runs: Vec<_> = signals
            .iter()
            .zip(&projects)
            .map(|(signal, project)| {
                scope.spawn(move || {
                    let started = Instant::now();
                    let child = command(Path::new(BIN))
                        .arg("run")
                        .arg("--root")
                        .arg(&project.root)
                        .arg("--python")
                        .arg(python())
                        .args(["--timeout", "60"])
                        .args(grace(*signal).map(|g| ["--kill-grace", g]).iter().flatten())
                        .spawn()
                        .expect("start pytest-mcp");
                    let mut sent = None;
                    let answer = wait(child, started, |pid| {
                        if sent.is_none() && project.root.join("child.pid").exists() {
                            let _ = kill(Pid::from_raw(pid as i32), *signal);
                            sent = Some(Instant::now());
                        }
                    });
                    let after =
                        sent.map(|at| (answer.elapsed - at.duration_since(started)).as_secs_f64());
                    (answer, after)
                })
            })
            .collect();
        runs.into_iter()
            .map(|r| r.join().expect("a signalled run"))
            .collect()
    });
    let left: Vec<_> = projects.iter().map(nothing_left).collect();
    assert!(left.iter().all(Result::is_ok), "{left:#?}");
    for (signal, (answer, after)) in signals.iter().zip(&answers) {
        let exited_after = after.unwrap_or_else(|| {
            panic!(
                "{signal}: the hanging test never started: {}",
                answer.stderr
            )
        });
        let grace = grace(*signal).map_or(DEFAULT_GRACE, |_| SHORT_GRACE);
        println!(
            "{signal} to pytest-mcp run: exit {:?} {exited_after:.2}s after the signal \
             (pytest and its child ignore SIGTERM: SIGKILL after the {:.1}s grace)",
            answer.status,
            grace.as_secs_f64()
        );
        assert_eq!(
            answer.status,
            Some(128 + *signal as i32),
            "{signal}: {}",
            answer.stderr
        );
        // Not before the grace (only SIGKILL ends the run), not long after.
        assert!(
            (grace.as_secs_f64()..(grace + Duration::from_secs(5)).as_secs_f64())
                .contains(&exited_after),
            "{signal}: exited {exited_after:.2}s after the signal, with a {grace:?} grace"
        );
        let text = answer.text();
        assert!(text.starts_with("Test CANCELLED ("), "{signal}: {text}");
        assert!(
            text.contains(&format!("Running at the end: {HANGING}")),
            "{signal}: {text}"
        );
    }
}

// ---------------------------------------------------------------------------
// Crash: death by SIGSEGV
// ---------------------------------------------------------------------------

const SEGFAULTING: &str = "tests/test_crash.py::test_segfaults";

#[test]
fn segfault_json_is_a_crash_with_sigsegv_and_the_test() {
    let project = Project::copy("runner_segfault");
    let (answer, value) = run_json(&project, &python(), &["--timeout", "30"]);
    assert_eq!(answer.status, Some(128 + 11), "{value}");
    let error = &value["error"];
    assert_eq!(error["code"], -32000);
    assert!(
        error["message"].as_str().unwrap_or("").contains("SIGSEGV"),
        "{error}"
    );
    let data = &error["data"];
    assert_eq!(data["error_type"], "crash");
    assert_eq!(data["signal"], "SIGSEGV");
    assert_eq!(data["exit_code"], Value::Null);
    assert_eq!(data["running_test"], SEGFAULTING);
    let tests = data["tests"].as_array().expect("data.tests");
    assert_eq!(tests.len(), 1, "{tests:?}");
    assert_eq!(
        tests[0]["node_id"],
        "tests/test_crash.py::test_before_the_crash"
    );
    assert_eq!(tests[0]["outcome"], "passed");
    // faulthandler's dump reaches us on stderr.
    assert!(
        data["stderr"]
            .as_str()
            .unwrap_or("")
            .contains("Segmentation fault"),
        "{}",
        data["stderr"]
    );
}

#[test]
fn segfault_markdown_is_a_crash_with_sigsegv_and_the_test() {
    let project = Project::copy("runner_segfault");
    let (answer, text) = run_markdown(&project, &python(), &["--timeout", "30"]);
    assert_eq!(answer.status, Some(139), "{text}");
    assert!(text.starts_with("Test CRASH ("), "{text}");
    assert!(text.contains("SIGSEGV"), "{text}");
    assert!(text.contains(SEGFAULTING), "{text}");
}

// ---------------------------------------------------------------------------
// A child left running by a test that passed, or that crashed
// ---------------------------------------------------------------------------

/// pytest exits (normally, or by SIGSEGV) while a child it started, which
/// ignores SIGTERM, still runs: the group is killed after pytest ends, so
/// the child is gone by the time the answer is out.
#[test]
fn a_child_left_behind_by_a_test_does_not_outlive_the_run() {
    for (test, status, header) in [
        (
            "tests/test_orphan.py::test_passes_and_leaves_a_child",
            0,
            "Test SUCCESS (",
        ),
        (
            "tests/test_orphan.py::test_segfaults_and_leaves_a_child",
            139,
            "Test CRASH (",
        ),
    ] {
        let project = Project::copy("runner_orphan");
        let (answer, text) = run_markdown(&project, &python(), &[test]);
        let left = nothing_left(&project);
        assert!(left.is_ok(), "{test}: {left:?}");
        assert_eq!(answer.status, Some(status), "{test}: {text}");
        assert!(text.starts_with(header), "{test}: {text}");
    }
}

// ---------------------------------------------------------------------------
// Faults before pytest starts: no pytest, no interpreter, no TMPDIR
// ---------------------------------------------------------------------------

/// A fresh virtual environment without pip or pytest, in `dir`.
fn python_without_pytest(dir: &Path) -> PathBuf {
    let venv = dir.join("venv-no-pytest");
    let status = command(&python())
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .expect("python -m venv");
    assert!(status.success(), "creating {} failed", venv.display());
    let python = venv.join("bin/python");
    let probe = command(&python)
        .args(["-c", "import pytest"])
        .status()
        .expect("probe");
    assert!(!probe.success(), "the fresh venv has pytest after all");
    python
}

#[test]
fn no_pytest_or_no_interpreter_is_a_clear_error_with_exit_127() {
    let project = tripwire_project();
    let dir = tempfile::tempdir().expect("tempdir");
    let no_pytest = python_without_pytest(dir.path());
    let missing = dir.path().join("no/such/python");
    let mut problems = Vec::new();
    for (interpreter, words) in [
        (
            &no_pytest,
            ["pytest is not installed", "-m pip install pytest"],
        ),
        (
            &missing,
            ["cannot start the Python interpreter", "--python"],
        ),
    ] {
        for (sub, format) in [
            ("run", "json"),
            ("run", "markdown"),
            ("discover", "json"),
            ("discover", "markdown"),
        ] {
            let answer = pytest_mcp(&[
                OsString::from(sub),
                "--root".into(),
                project.root.clone().into(),
                "--python".into(),
                interpreter.into(),
                "--format".into(),
                format.into(),
            ]);
            let text = answer.text();
            let what = format!("{sub} {format} with {}", interpreter.display());
            if answer.status != Some(127) {
                problems.push(format!("{what}: exit {:?}", answer.status));
            }
            let message = if format == "json" {
                let value = answer.json();
                if value["error"]["code"] != -32000
                    || value["error"]["data"]["error_type"] != "spawn"
                {
                    problems.push(format!("{what}: {value}"));
                }
                value["error"]["message"].as_str().unwrap_or("").to_string()
            } else {
                if !text.starts_with("Test ERROR (") && !text.starts_with("Discover ERROR (") {
                    problems.push(format!("{what}: {text}"));
                }
                text
            };
            for word in words {
                if !message.contains(word) || !message.contains(&interpreter.display().to_string())
                {
                    problems.push(format!("{what}: {word:?} or the path missing in {message}"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(!project.root.join(TRIPWIRE).exists(), "pytest started");
    assert!(processes_in(&project.root).is_empty());
}

/// TMPDIR below a regular file or missing (not chmod: tests may run as
/// root): the answer names the path and TMPDIR; pytest never starts.
#[test]
fn an_unusable_tmpdir_is_a_clear_error() {
    let project = tripwire_project();
    let dir = tempfile::tempdir().expect("tempdir");
    let regular = dir.path().join("a-file");
    std::fs::write(&regular, "not a directory\n").expect("write");
    for tmpdir in [regular.join("sub"), dir.path().join("missing")] {
        for sub in ["run", "discover"] {
            let started = Instant::now();
            let child = command(Path::new(BIN))
                .env("TMPDIR", &tmpdir)
                .arg(sub)
                .arg("--root")
                .arg(&project.root)
                .arg("--python")
                .arg(python())
                .args(["--format", "json"])
                .spawn()
                .expect("start pytest-mcp");
            let answer = wait(child, started, |_| {});
            let value = answer.json();
            assert_eq!(answer.status, Some(127), "{value}");
            let message = value["error"]["message"].as_str().unwrap_or("");
            assert!(
                message.contains("cannot create a private temporary directory")
                    && message.contains(&tmpdir.display().to_string())
                    && message.contains("TMPDIR"),
                "{sub}: {message}"
            );
            assert_eq!(value["error"]["data"]["error_type"], "spawn");
        }
    }
    assert!(!project.root.join(TRIPWIRE).exists(), "pytest started");
}

// ---------------------------------------------------------------------------
// 30 MB of output: bounded memory, small answer, drop counted
// ---------------------------------------------------------------------------

/// `VmHWM` (peak resident set) of a process in KiB.
fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The only child of `pid` (our binary under /usr/bin/time).
fn only_child(pid: u32) -> Option<u32> {
    let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).ok()?;
    children.split_whitespace().next()?.parse().ok()
}

struct Measured {
    answer: Answer,
    /// Our process alone, sampled from /proc while it ran (a lower bound).
    sampled_kib: Option<u64>,
    /// /usr/bin/time's maximum resident set: our process and the
    /// processes it waited for (pytest), so an upper bound for ours.
    time_kib: Option<u64>,
}

/// Runs the binary, measuring its peak resident memory two ways.
fn measured_run(args: &[OsString]) -> Measured {
    let time = Path::new("/usr/bin/time");
    let report = tempfile::NamedTempFile::new().expect("time report");
    let started = Instant::now();
    let wrapped = time.is_file();
    let child = if wrapped {
        command(time)
            .arg("-v")
            .arg("-o")
            .arg(report.path())
            .arg(BIN)
            .args(args)
            .spawn()
            .expect("start /usr/bin/time")
    } else {
        command(Path::new(BIN))
            .args(args)
            .spawn()
            .expect("start pytest-mcp")
    };
    let mut sampled: Option<u64> = None;
    let answer = wait(child, started, |pid| {
        let ours = if wrapped { only_child(pid) } else { Some(pid) };
        if let Some(kib) = ours.and_then(vm_hwm_kib) {
            sampled = Some(sampled.map_or(kib, |s| s.max(kib)));
        }
    });
    let time_kib = if wrapped {
        let text = std::fs::read_to_string(report.path()).unwrap_or_default();
        let kib = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
            .and_then(|v| v.trim().parse().ok());
        assert!(
            kib.is_some(),
            "no maximum RSS in /usr/bin/time's report:\n{text}"
        );
        kib
    } else {
        None
    };
    Measured {
        answer,
        sampled_kib: sampled,
        time_kib,
    }
}

fn run_args(project: &Project, format: &str) -> Vec<OsString> {
    vec![
        "run".into(),
        "--root".into(),
        project.root.clone().into(),
        "--python".into(),
        python().into(),
        "--format".into(),
        format.into(),
        "--timeout".into(),
        "60".into(),
    ]
}

/// The number before a marker such as "bytes of output dropped".
fn dropped_before(text: &str, marker: &str) -> Vec<u64> {
    text.match_indices(marker)
        .filter_map(|(at, _)| {
            let before = text[..at].trim_end();
            let digits: String = before
                .chars()
                .rev()
                .take_while(char::is_ascii_digit)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            digits.parse().ok()
        })
        .collect()
}

const MAX_RSS_KIB: u64 = 300 * 1024;

#[test]
fn a_30_mb_flood_stays_bounded_in_memory_and_answer() {
    let project = Project::copy("runner_flood");
    let json = measured_run(&run_args(&project, "json"));
    let size = json.answer.stdout.len();
    let value = json.answer.json();
    let text = json.answer.text();
    let from_stdout = dropped_before(&text, " bytes of output dropped");
    let from_report = dropped_before(&text, " bytes dropped by pytest-mcp");
    println!(
        "flood (JSON): answer {size} bytes; peak RSS of pytest-mcp sampled from /proc {:?} KiB, \
         /usr/bin/time (pytest-mcp and the pytest it waited for) {:?} KiB; \
         dropped from captured stdout/stderr {from_stdout:?} bytes, \
         from strings of the JSON report {from_report:?} bytes; took {:.2}s",
        json.sampled_kib,
        json.time_kib,
        json.answer.elapsed.as_secs_f64()
    );
    assert_eq!(json.answer.status, Some(1), "{}", json.answer.stderr);
    assert!(size < 5 * 1024 * 1024, "the JSON answer is {size} bytes");
    assert!(
        !from_stdout.is_empty() || !from_report.is_empty(),
        "the answer does not say how much was dropped"
    );
    assert!(
        from_stdout
            .iter()
            .chain(&from_report)
            .any(|n| *n > 20_000_000),
        "less than 20 MB of the 30 MB said to be dropped: {from_stdout:?} {from_report:?}"
    );
    let summary = Counts::from_summary(&value["summary"]);
    assert_eq!((summary.total, summary.passed, summary.failed), (2, 1, 1));
    let peak = json.time_kib.or(json.sampled_kib).expect("a memory figure");
    assert!(
        peak < MAX_RSS_KIB,
        "peak resident memory {peak} KiB, limit {MAX_RSS_KIB} KiB"
    );
    if let Some(sampled) = json.sampled_kib {
        assert!(sampled < MAX_RSS_KIB, "sampled peak {sampled} KiB");
    }

    let md = measured_run(&run_args(&project, "markdown"));
    let text = md.answer.text();
    println!(
        "flood (Markdown): answer {} bytes; peak RSS sampled {:?} KiB, /usr/bin/time {:?} KiB",
        text.len(),
        md.sampled_kib,
        md.time_kib
    );
    assert_eq!(md.answer.status, Some(1), "{}", md.answer.stderr);
    assert!(
        text.len() < 1024 * 1024,
        "Markdown answer {} bytes",
        text.len()
    );
    assert!(
        text.contains("### FAILED: tests/test_flood.py::test_prints_thirty_megabytes"),
        "{}",
        head(&text, 2000)
    );
    let peak = md.time_kib.or(md.sampled_kib).expect("a memory figure");
    assert!(peak < MAX_RSS_KIB, "peak resident memory {peak} KiB");
}

// ---------------------------------------------------------------------------
// pytest's exit codes 2 (interrupted), 3 (internal error), 4 (usage error)
// ---------------------------------------------------------------------------

#[test]
fn keyboard_interrupt_is_an_interrupted_error_with_what_finished() {
    let project = Project::copy("runner_keyboard_interrupt");
    let (answer, value) = run_json(&project, &python(), &[]);
    let pytest = reference(&project, &python(), &[]);
    assert_eq!(pytest.exit, 2, "{}", pytest.output);
    assert!(pytest.collection_errors.is_empty());
    assert_eq!(answer.status, Some(2), "{value}");
    let error = &value["error"];
    assert_eq!(error["code"], -32000, "{value}");
    let data = &error["data"];
    assert_eq!(data["error_type"], "interrupted");
    assert_eq!(data["exit_code"], 2);
    assert_eq!(
        data["running_test"],
        "tests/test_interrupt.py::test_interrupts"
    );
    let tests = data["tests"].as_array().expect("data.tests");
    for (id, outcome) in [
        ("tests/test_interrupt.py::test_first", "passed"),
        ("tests/test_interrupt.py::test_second_fails", "failed"),
    ] {
        assert!(
            tests
                .iter()
                .any(|t| t["node_id"] == id && t["outcome"] == outcome),
            "{id} {outcome} missing from {tests:?}"
        );
    }
    assert!(
        !tests
            .iter()
            .any(|t| t["node_id"] == "tests/test_interrupt.py::test_never_reached"),
        "{tests:?}"
    );

    let (md_answer, text) = run_markdown(&project, &python(), &[]);
    assert_eq!(md_answer.status, Some(2), "{text}");
    assert!(text.starts_with("Test INTERRUPTED ("), "{text}");
    assert!(
        text.contains("tests/test_interrupt.py::test_interrupts"),
        "{text}"
    );
    assert!(
        text.contains("tests/test_interrupt.py::test_second_fails"),
        "{text}"
    );
}

#[test]
fn keyboard_interrupt_lists_exactly_the_tests_pytest_counted() {
    let project = Project::copy("runner_keyboard_interrupt");
    let (_, value) = run_json(&project, &python(), &[]);
    let pytest = reference(&project, &python(), &[]);
    let data = &value["error"]["data"];
    let ours: BTreeMap<String, String> = data["tests"]
        .as_array()
        .expect("data.tests")
        .iter()
        .map(|t| {
            (
                t["node_id"].as_str().unwrap_or("").to_string(),
                t["outcome"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let expected: BTreeMap<String, String> = pytest
        .outcomes
        .iter()
        .map(|(id, o)| (id.clone(), model_outcome(o).to_string()))
        .collect();
    assert_eq!(ours, expected, "pytest said: {:?}", pytest.line);
    assert_eq!(Counts::from_summary(&data["summary"]), pytest.counts);
}

#[test]
fn internal_error_from_a_hook_is_pytest_internal_with_exit_3() {
    let project = Project::copy("runner_internal_error");
    let (answer, value) = run_json(&project, &python(), &[]);
    assert_eq!(answer.status, Some(3), "{value}");
    let error = &value["error"];
    assert_eq!(error["code"], -32000);
    let data = &error["data"];
    assert_eq!(data["error_type"], "pytest_internal");
    assert_eq!(data["exit_code"], 3);
    let output = format!(
        "{}{}",
        data["stdout"].as_str().unwrap_or(""),
        data["stderr"].as_str().unwrap_or("")
    );
    assert!(output.contains("INTERNALERROR"), "{output}");
    assert!(
        output.contains("boom from pytest_collection_modifyitems"),
        "{output}"
    );

    let (md_answer, text) = run_markdown(&project, &python(), &[]);
    assert_eq!(md_answer.status, Some(3), "{text}");
    assert!(text.starts_with("Test ERROR ("), "{text}");
    assert!(text.contains("internal error"), "{text}");
    assert!(
        text.contains("boom from pytest_collection_modifyitems"),
        "{text}"
    );
}

#[test]
fn internal_error_reports_no_tests() {
    let project = Project::copy("runner_internal_error");
    let (_, value) = run_json(&project, &python(), &[]);
    let pytest = reference(&project, &python(), &[]);
    assert_eq!(pytest.exit, 3);
    assert!(pytest.outcomes.is_empty(), "{}", pytest.output);
    let data = &value["error"]["data"];
    assert_eq!(data["tests"], serde_json::json!([]), "{data}");
    assert_eq!(data["summary"]["total"], 0);
}

#[test]
fn usage_error_from_addopts_is_invalid_params_with_exit_4() {
    let project = Project::copy("runner_usage_error");
    let pytest = plain_pytest(&project, &python(), &[]);
    assert_eq!(pytest.status, Some(4), "{}", pytest.stderr);
    let (answer, value) = run_json(&project, &python(), &[]);
    assert_eq!(answer.status, Some(4), "{value}");
    let error = &value["error"];
    assert_eq!(error["code"], -32602, "{value}");
    assert_eq!(error["data"]["error_type"], "usage_error");
    assert_eq!(error["data"]["exit_code"], 4);
    let message = error["message"].as_str().unwrap_or("");
    assert!(
        message.contains("unrecognized arguments") && message.contains("--no-such-option"),
        "{message}"
    );

    let (md_answer, text) = run_markdown(&project, &python(), &[]);
    assert_eq!(md_answer.status, Some(4), "{text}");
    assert!(text.starts_with("Test ERROR ("), "{text}");
    assert!(
        text.contains("unrecognized arguments") && text.contains("--no-such-option"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------
// Output that is not UTF-8
// ---------------------------------------------------------------------------

#[test]
fn invalid_utf8_output_becomes_replacement_characters() {
    let project = Project::copy("runner_non_utf8");
    let pytest = reference(&project, &python(), &[]);
    assert_eq!(pytest.exit, 1);
    // The raw bytes really reach the process's stdout.
    assert!(!pytest.utf8, "pytest's output is valid UTF-8");

    let (answer, value) = run_json(&project, &python(), &[]);
    assert_eq!(answer.status, Some(1), "{}", answer.stderr);
    assert_eq!(Counts::from_summary(&value["summary"]), pytest.counts);
    let output = value["text_output"].as_str().expect("text_output");
    assert!(
        output.contains("RAW-STDOUT: caf\u{FFFD} \u{FFFD}\u{FFFD} \u{FFFD}( end"),
        "{}",
        head(output, 3000)
    );
    let failing = value["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .find(|t| t["node_id"] == "tests/test_bytes.py::test_writes_invalid_utf8")
        .expect("the failing test")
        .clone();
    assert_eq!(failing["outcome"], "failed");
    assert!(
        failing["message"]
            .as_str()
            .unwrap_or("")
            .contains("REPORT-LINE: caf"),
        "{failing}"
    );

    let (md_answer, text) = run_markdown(&project, &python(), &[]);
    assert_eq!(md_answer.status, Some(1));
    assert!(text.starts_with("Test FAILURE ("), "{text}");
    assert!(
        text.contains("### FAILED: tests/test_bytes.py::test_writes_invalid_utf8"),
        "{text}"
    );
}

#[test]
fn a_json_report_with_lone_surrogates_is_read_lossily() {
    let project = Project::copy("runner_non_utf8");
    let (_, value) = run_json(&project, &python(), &[]);
    assert!(value["json_report"].is_object(), "json_report is null");
    let failing = value["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .find(|t| t["node_id"] == "tests/test_bytes.py::test_writes_invalid_utf8")
        .expect("the failing test")
        .clone();
    assert!(
        failing["message"]
            .as_str()
            .unwrap_or("")
            .contains("REPORT-LINE: caf\u{FFFD}"),
        "{failing}"
    );
    let (_, text) = run_markdown(&project, &python(), &[]);
    assert!(!text.contains("could not be read"), "{text}");
    assert!(text.contains("CAPTURED-STDOUT: caf\u{FFFD}"), "{text}");
}

// ---------------------------------------------------------------------------
// An interpreter without pytest-json-report: JUnit alone
// ---------------------------------------------------------------------------

#[test]
fn without_pytest_json_report_junit_gives_the_result() {
    let (value, text) = matches_pytest("one_failure", &python_nojson(), 1);
    assert_eq!(value["json_report"], Value::Null);
    let summary = Counts::from_summary(&value["summary"]);
    assert_eq!((summary.total, summary.failed), (5, 1));
    assert!(
        text.contains("pytest-json-report is not installed"),
        "{text}"
    );
    assert!(
        text.contains("### FAILED: tests/test_calc.py::test_discount_fractional"),
        "{text}"
    );
}

/// A copy of `runner_tripwire` (its conftest marks that pytest started),
/// with a directory outside the root holding a test file, and a symlink
/// `link` inside the root pointing at it.
fn tripwire_project() -> Project {
    let project = Project::copy("runner_tripwire");
    let outside = project.parent().join("outside");
    std::fs::create_dir_all(&outside).expect("mkdir outside");
    std::fs::write(outside.join("test_out.py"), "def test_out():\n    pass\n")
        .expect("write outside test");
    std::os::unix::fs::symlink(&outside, project.root.join("link")).expect("symlink");
    std::os::unix::fs::symlink(
        outside.join("test_out.py"),
        project.root.join("link_file.py"),
    )
    .expect("file symlink");
    std::os::unix::fs::symlink("loop", project.root.join("loop")).expect("symlink loop");
    project
}

/// A request that must be refused, and what the refusal must say.
struct Refusal {
    sub: &'static str,
    args: Vec<String>,
    field: &'static str,
    detail: &'static str,
    /// The `received_value` expected, when it is worth checking.
    received: Option<Value>,
}

/// `sub [args...] field detail received;` lines into [`Refusal`]s.
macro_rules! refusals {
    ($($sub:literal [$($arg:expr),* $(,)?] $field:literal $detail:literal $received:expr;)*) => {
        vec![$(Refusal {
            sub: $sub,
            args: vec![$(String::from($arg)),*],
            field: $field,
            detail: $detail,
            received: $received,
        }),*]
    };
}

/// `pytest-mcp <sub> --root <project> --python <python> --format <format> <args...>`.
fn invoke(project: &Project, sub: &str, format: &str, args: &[String]) -> Answer {
    let mut all: Vec<OsString> = vec![
        sub.into(),
        "--root".into(),
        project.root.clone().into(),
        "--python".into(),
        python().into(),
        "--format".into(),
        format.into(),
    ];
    all.extend(args.iter().map(OsString::from));
    pytest_mcp(&all)
}

#[test]
fn every_invalid_parameter_is_refused_before_pytest_starts() {
    let project = tripwire_project();
    let outside_file = project.parent().join("outside/test_out.py");
    let outside = outside_file.display().to_string();
    let s = |v: &str| Some(Value::from(v));
    let n = |v: i64| Some(Value::from(v));
    let long_id = format!("tests/test_a.py::test_{}", "a".repeat(5000));
    let long_text = "x".repeat(5000);
    let cases = refusals! {
        "run" ["--verbosity", "5"]            "verbosity" "between -2 and 2" n(5);
        "run" ["--verbosity=-3"]              "verbosity" "between -2 and 2" n(-3);
        "run" ["--maxfail", "0"]              "maxfail"   "positive" n(0);
        "run" ["--maxfail=-1"]                "maxfail"   "positive" n(-1);
        "run" ["--timeout", "0"]              "timeout"   "between 1 and" n(0);
        "run" ["--timeout", "100000"]         "timeout"   "between 1 and" n(100000);
        "run" ["tests/../tests/test_a.py"]    "node_ids"  "'..'" s("tests/../tests/test_a.py");
        "run" ["../outside/test_out.py::test_out"] "node_ids" "'..'"
            s("../outside/test_out.py::test_out");
        "run" [&outside]                      "node_ids"  "inside the project root" s(&outside);
        "run" ["link/test_out.py::test_out"]  "node_ids"  "inside the project root"
            s("link/test_out.py::test_out");
        "run" ["tests/no_such_file.py"]       "node_ids"  "existing" s("tests/no_such_file.py");
        "run" ["--", "--pdb"]                 "node_ids"  "start with '-'" s("--pdb");
        "run" ["--", "-pno:terminal"]         "node_ids"  "start with '-'" s("-pno:terminal");
        "run" ["-m=--co"]                     "markers"   "start with '-'" s("--co");
        "run" ["-m", " --co"]                 "markers"   "start with '-'" None;
        "run" ["-m=-p evil"]                  "markers"   "start with '-'" s("-p evil");
        "run" ["-k", "a\nb"]                  "keywords"  "control" s("a\nb");
        "run" ["-k", "a\tb"]                  "keywords"  "control" s("a\tb");
        "run" ["-k", " "]                     "keywords"  "empty" s(" ");
        "discover" ["--path", "../outside"]   "path"      "'..'" s("../outside");
        "discover" ["--path", &outside]       "path"      "inside the project root" s(&outside);
        "discover" ["--path", "link"]         "path"      "inside the project root" s("link");
        "discover" ["--path=-x"]              "path"      "start with '-'" s("-x");
        "discover" ["--pattern", "a/test_*.py"] "pattern" "without directories" s("a/test_*.py");
        "discover" ["--pattern=--co"]         "pattern"   "start with '-'" s("--co");
        "discover" ["--timeout", "0"]         "timeout"   "between 1 and" n(0);
        // Symlinks: a file out of the root, a loop.
        "run" ["link_file.py::test_out"]      "node_ids"  "inside the project root"
            s("link_file.py::test_out");
        "run" ["loop/test_a.py"]              "node_ids"  "existing" s("loop/test_a.py");
        // Options hidden in values (NUL cannot be passed in argv at all:
        // the MCP tests cover it).
        "run" ["--", "--rootdir=/"]           "node_ids"  "start with '-'" s("--rootdir=/");
        "run" ["-m=--rootdir=/"]              "markers"   "start with '-'" s("--rootdir=/");
        "run" ["-k=-p evil"]                  "keywords"  "start with '-'" s("-p evil");
        "run" ["-k", "a\u{1b}[31mb"]          "keywords"  "control" s("a\u{1b}[31mb");
        "discover" ["--pattern", "test_\u{7f}.py"] "pattern" "control" s("test_\u{7f}.py");
        // Very long values.
        "run" [&long_id]                      "node_ids"  "at most 4096 characters" s(&long_id);
        "run" ["-k", &long_text]              "keywords"  "at most 4096 characters" s(&long_text);
        "discover" ["--path", &long_text]     "path"      "at most 4096 characters" s(&long_text);
    };
    let mut problems = Vec::new();
    for case in &cases {
        let what = format!("{} {:?}", case.sub, case.args);
        // JSON: the ADR-007 invalid-params object.
        let answer = invoke(&project, case.sub, "json", &case.args);
        if answer.status != Some(4) {
            problems.push(format!(
                "{what}: exit {:?}, stderr {}",
                answer.status, answer.stderr
            ));
        }
        match serde_json::from_slice::<Value>(&answer.stdout) {
            Err(e) => problems.push(format!(
                "{what}: not JSON ({e}): {}",
                String::from_utf8_lossy(&answer.stdout)
            )),
            Ok(value) => {
                let error = &value["error"];
                let data = &error["data"];
                let message = error["message"].as_str().unwrap_or("");
                if error["code"] != -32602
                    || data["field"] != case.field
                    || !data["detail"].as_str().unwrap_or("").contains(case.detail)
                    || case
                        .received
                        .as_ref()
                        .is_some_and(|r| data["received_value"] != *r)
                    || !message.starts_with(&format!("Invalid params: {}", case.field))
                {
                    problems.push(format!(
                        "{what}: expected field {} detail ~{:?} received {:?}, got {value}",
                        case.field, case.detail, case.received
                    ));
                }
            }
        }
        // Markdown: one line naming the field, the rule and the value.
        let answer = invoke(&project, case.sub, "markdown", &case.args);
        let text = String::from_utf8_lossy(&answer.stdout);
        if answer.status != Some(4)
            || !text.starts_with(&format!("Invalid params: {} ", case.field))
            || !text.contains(case.detail)
            || !text.contains("(received ")
        {
            problems.push(format!(
                "{what} (markdown): exit {:?}: {text}",
                answer.status
            ));
        }
        if project.root.join(TRIPWIRE).exists() {
            problems.push(format!("{what}: pytest started"));
            let _ = std::fs::remove_file(project.root.join(TRIPWIRE));
        }
    }

    // failfast together with maxfail: clap refuses it itself (exit 2), or
    // our validation does (exit 4, field failfast). Either way nothing runs.
    for format in ["json", "markdown"] {
        let args = ["-x".to_string(), "--maxfail".into(), "2".into()];
        let answer = invoke(&project, "run", format, &args);
        match answer.status {
            Some(2) => {
                if !answer.stderr.contains("cannot be used with") {
                    problems.push(format!("-x --maxfail 2: clap's refusal: {}", answer.stderr));
                }
            }
            Some(4) => {
                if !String::from_utf8_lossy(&answer.stdout).contains("failfast") {
                    problems.push("-x --maxfail 2: the refusal does not name failfast".into());
                }
            }
            other => problems.push(format!("-x --maxfail 2: exit {other:?}")),
        }
        if project.root.join(TRIPWIRE).exists() {
            problems.push("-x --maxfail 2: pytest started".into());
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );

    // The tripwire works: a valid request does start pytest.
    let answer = invoke(&project, "run", "json", &["tests/test_a.py".to_string()]);
    assert_eq!(answer.status, Some(0), "{}", answer.stderr);
    assert!(
        project.root.join(TRIPWIRE).exists(),
        "the tripwire did not fire"
    );
}

#[test]
fn a_refusal_reports_the_value_as_received() {
    let project = tripwire_project();
    let answer = invoke(&project, "run", "json", &["-m".into(), " --co".into()]);
    let value = answer.json();
    assert_eq!(value["error"]["data"]["received_value"], " --co", "{value}");
}

// ---------------------------------------------------------------------------
// discover
// ---------------------------------------------------------------------------

/// The test ids `pytest --collect-only -q` prints.
fn collected_ids(project: &Project, extra: &[&str]) -> BTreeSet<String> {
    let mut args = vec!["--collect-only", "-q"];
    args.extend_from_slice(extra);
    let answer = plain_pytest(project, &python(), &args);
    String::from_utf8_lossy(&answer.stdout)
        .lines()
        .filter(|l| l.contains("::") && !l.starts_with(' '))
        .map(str::to_string)
        .collect()
}

/// pytest's ids by test function, as discovery answers them: a
/// parametrized function's id (the id before its parameters, which pytest
/// accepts and which runs them all) with its number of cases, a plain
/// test's own id with 1.
fn by_function(ids: &BTreeSet<String>) -> BTreeMap<String, u64> {
    let mut out: BTreeMap<String, u64> = BTreeMap::new();
    for id in ids {
        let after_file = id.find("::").map_or(0, |i| i + 2);
        let function = match id[after_file..].find('[') {
            Some(at) if id.ends_with(']') => &id[..after_file + at],
            _ => id.as_str(),
        };
        *out.entry(function.to_string()).or_default() += 1;
    }
    out
}

/// The JSON discovery's entries as [`by_function`] shows pytest's ids:
/// `node_id` and `cases` (1 without). A parametrized entry's `case_ids`
/// must be its first cases as pytest collected them.
fn json_functions(value: &Value, collected: &BTreeSet<String>) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for t in value["tests"].as_array().expect("tests") {
        let id = t["node_id"].as_str().expect("node_id").to_string();
        let cases = t["cases"].as_u64().unwrap_or(1);
        if t.get("cases").is_some() {
            let shown = t["case_ids"].as_array().expect("case_ids");
            assert!(!shown.is_empty() && shown.len() as u64 <= cases, "{t}");
            for case in shown {
                let case = case.as_str().expect("a case id");
                assert!(case.starts_with(&format!("{id}[")), "{t}");
                assert!(
                    collected.contains(case),
                    "{case} is not an id pytest collected"
                );
            }
        }
        assert!(out.insert(id, cases).is_none(), "{t} listed twice");
    }
    out
}

/// 1-based numbers of the lines that define function `name`.
fn def_lines(source: &str, name: &str) -> Vec<u64> {
    let wanted = [format!("def {name}("), format!("async def {name}(")];
    source
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            wanted
                .iter()
                .any(|w| l.trim_start().starts_with(w.as_str()))
        })
        .map(|(i, _)| i as u64 + 1)
        .collect()
}

/// Checks every discovered item against the project's files. With
/// `exact_def`, `line` must be the `def` line even for decorated tests.
fn check_items(project: &Project, value: &Value, exact_def: bool) -> Vec<String> {
    let mut problems = Vec::new();
    let items = value["tests"].as_array().expect("tests");
    let cases: u64 = items.iter().map(|t| t["cases"].as_u64().unwrap_or(1)).sum();
    assert_eq!(value["count"], cases, "count is every case of every entry");
    for item in items {
        let id = item["node_id"].as_str().expect("node_id");
        let file = item["file"].as_str().expect("file");
        let function = item["function"].as_str().expect("function");
        let line = item["line"].as_u64().expect("line");
        if !id.starts_with(&format!("{file}::")) {
            problems.push(format!("{id}: file {file}"));
        }
        let module = item["module"].as_str().unwrap_or("");
        let stem = Path::new(file)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("");
        if module.rsplit('.').next() != Some(stem) {
            problems.push(format!("{id}: module {module:?}"));
        }
        let parts: Vec<&str> = id.split("::").collect();
        let last = parts.last().copied().unwrap_or("");
        let base = last.split('[').next().unwrap_or(last);
        if function != base {
            problems.push(format!("{id}: function {function}"));
        }
        let class = if parts.len() > 2 {
            Some(parts[1])
        } else {
            None
        };
        if item["class"].as_str() != class {
            problems.push(format!("{id}: class {}", item["class"]));
        }
        let source = std::fs::read_to_string(project.root.join(file)).expect("test file");
        let defs = def_lines(&source, function);
        let Some(def) = defs.first().copied().filter(|_| defs.len() == 1) else {
            problems.push(format!("{id}: `def {function}` found at {defs:?}"));
            continue;
        };
        if exact_def {
            if line != def {
                problems.push(format!("{id}: line {line}, def at line {def}"));
            }
        } else {
            // The def line, or the first decorator above it (pytest's own
            // location for decorated functions).
            let at = source
                .lines()
                .nth(line.saturating_sub(1) as usize)
                .unwrap_or("");
            let at = at.trim_start();
            if line == 0 || line > def || !(line == def || at.starts_with('@')) {
                problems.push(format!("{id}: line {line} ({at:?}), def at {def}"));
            }
        }
    }
    problems
}

/// Markdown discovery: one `### <file>` heading per file, each test
/// function under its file as `- L<line> <rest of the id>`, with
/// ` — <n> cases` for a parametrized one: the same functions and counts as
/// the JSON.
fn check_markdown_groups(text: &str, value: &Value) {
    let mut headings: Vec<&str> = Vec::new();
    let mut listed: BTreeMap<String, u64> = BTreeMap::new();
    let mut current: Option<&str> = None;
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("### ") {
            if h.starts_with("COLLECTION ERROR") {
                current = None;
                continue;
            }
            assert!(!headings.contains(&h), "file {h} listed twice:\n{text}");
            headings.push(h);
            current = Some(h);
        } else if let (Some(file), Some(rest)) = (current, line.strip_prefix("- L")) {
            let (_, rest) = rest.split_once(' ').expect("`- L<line> <id>`");
            let (rest, cases) = match rest.rsplit_once(" — ") {
                Some((rest, n)) => {
                    let n = n.split(' ').next().unwrap_or("").replace(',', "");
                    (rest, n.parse().expect("`<n> cases`"))
                }
                None => (rest, 1),
            };
            listed.insert(format!("{file}::{rest}"), cases);
        }
    }
    let entries: BTreeMap<String, u64> = value["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| {
            let id = t["node_id"].as_str().unwrap_or("").to_string();
            (id, t["cases"].as_u64().unwrap_or(1))
        })
        .collect();
    assert_eq!(listed, entries, "Markdown functions by file:\n{text}");
    let files: BTreeSet<&str> = value["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .filter_map(|t| t["file"].as_str())
        .collect();
    assert_eq!(headings.len(), files.len(), "{text}");
}

#[test]
fn discover_collection_errors_are_data() {
    let project = Project::copy("collection_errors");
    let answer = discover(&project, &["--format", "json"]);
    let value = answer.json();
    assert_eq!(answer.status, Some(2), "{value}");
    let collected = collected_ids(&project, &[]);
    assert_eq!(json_functions(&value, &collected), by_function(&collected));
    let problems = check_items(&project, &value, false);
    assert!(problems.is_empty(), "{problems:#?}");
    let errors = value["collection_errors"].as_array().expect("errors");
    let by_file: BTreeMap<&str, &Value> = errors
        .iter()
        .map(|e| (e["file"].as_str().unwrap_or(""), e))
        .collect();
    assert_eq!(
        by_file.keys().copied().collect::<Vec<_>>(),
        ["tests/test_import_error.py", "tests/test_syntax_error.py"]
    );
    let import = by_file["tests/test_import_error.py"];
    assert_eq!(import["error_type"], "ImportError");
    assert_eq!(import["line"], 1);
    assert!(
        import["message"]
            .as_str()
            .unwrap_or("")
            .contains("does_not_exist")
    );
    let syntax = by_file["tests/test_syntax_error.py"];
    assert_eq!(syntax["error_type"], "SyntaxError");
    assert_eq!(syntax["line"], 6);

    let answer = discover(&project, &[]);
    let text = answer.text();
    assert_eq!(answer.status, Some(2), "{text}");
    assert!(
        text.contains("### COLLECTION ERROR: tests/test_import_error.py"),
        "{text}"
    );
    assert!(
        text.contains("### COLLECTION ERROR: tests/test_syntax_error.py"),
        "{text}"
    );
    check_markdown_groups(&text, &value);
}

#[test]
fn discover_lists_every_item_of_a_project() {
    let project = Project::copy("mixed");
    let answer = discover(&project, &["--format", "json"]);
    let value = answer.json();
    assert_eq!(answer.status, Some(0), "{value}");
    let collected = collected_ids(&project, &[]);
    assert_eq!(json_functions(&value, &collected), by_function(&collected));
    assert_eq!(value["collection_errors"], serde_json::json!([]));
    let problems = check_items(&project, &value, false);
    assert!(problems.is_empty(), "{problems:#?}");
    let class_item = value["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .find(|t| {
            t["node_id"] == "tests/test_catalog.py::TestAvailability::test_initial_availability"
        })
        .expect("a method");
    assert_eq!(class_item["class"], "TestAvailability");
    assert_eq!(class_item["line"], 107);

    let answer = discover(&project, &[]);
    let text = answer.text();
    assert_eq!(answer.status, Some(0), "{text}");
    assert!(text.starts_with("Discover SUCCESS ("), "{text}");
    check_markdown_groups(&text, &value);
}

#[test]
fn discover_lines_are_the_def_lines() {
    let project = Project::copy("mixed");
    let value = discover(&project, &["--format", "json"]).json();
    let problems = check_items(&project, &value, true);
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn discover_pattern_narrows_the_files() {
    let project = Project::copy("mixed");
    let answer = discover(&project, &["--format", "json", "--pattern", "test_isb*.py"]);
    let value = answer.json();
    assert_eq!(answer.status, Some(0), "{value}");
    let ids: BTreeSet<String> = value["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| t["node_id"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(!ids.is_empty());
    assert!(
        ids.iter().all(|id| id.starts_with("tests/test_isbn.py::")),
        "{ids:?}"
    );
    let collected = collected_ids(&project, &["-o", "python_files=test_isb*.py"]);
    assert_eq!(json_functions(&value, &collected), by_function(&collected));
    // A pattern matching nothing: no tests, exit 5.
    let answer = discover(&project, &["--format", "json", "--pattern", "nothing_*.py"]);
    let value = answer.json();
    assert_eq!(answer.status, Some(5), "{value}");
    assert_eq!(value["count"], 0);
}

#[test]
fn discover_path_limits_to_one_file() {
    let project = Project::copy("mixed");
    let answer = discover(
        &project,
        &["--format", "json", "--path", "tests/test_isbn.py"],
    );
    let value = answer.json();
    assert_eq!(answer.status, Some(0), "{value}");
    let ids: BTreeSet<String> = value["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| t["node_id"].as_str().unwrap_or("").to_string())
        .collect();
    let collected = collected_ids(&project, &["tests/test_isbn.py"]);
    assert_eq!(json_functions(&value, &collected), by_function(&collected));
    assert!(
        ids.iter().all(|id| id.starts_with("tests/test_isbn.py::")),
        "{ids:?}"
    );
    let problems = check_items(&project, &value, false);
    assert!(problems.is_empty(), "{problems:#?}");
    let answer = discover(&project, &["--path", "tests/test_isbn.py"]);
    let text = answer.text();
    assert!(text.contains("### tests/test_isbn.py"), "{text}");
    check_markdown_groups(&text, &value);
}

// ---------------------------------------------------------------------------
// The private temporary directory
// ---------------------------------------------------------------------------

/// Each run writes its result files into a private directory under TMPDIR
/// and removes it afterwards, after a normal run and after a timeout alike.
#[test]
fn the_private_temporary_directory_is_removed() {
    for (project, extra) in [
        ("one_failure", vec![]),
        (
            "runner_hang",
            vec!["--timeout", "2", "--kill-grace", SHORT_GRACE_ARG],
        ),
    ] {
        let project = Project::copy(project);
        let tmp = tempfile::tempdir().expect("TMPDIR for the run");
        let started = Instant::now();
        let child = command(Path::new(BIN))
            .env("TMPDIR", tmp.path())
            .arg("run")
            .arg("--root")
            .arg(&project.root)
            .arg("--python")
            .arg(python())
            .args(&extra)
            .spawn()
            .expect("start pytest-mcp");
        // While it runs, the directory is there (so the check below can fail).
        let mut seen = false;
        let answer = wait(child, started, |_| {
            seen = seen
                || std::fs::read_dir(tmp.path()).is_ok_and(|mut d| {
                    d.any(|e| {
                        e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("pytest-mcp-"))
                    })
                });
        });
        assert!(
            matches!(answer.status, Some(1) | Some(124)),
            "{}",
            answer.stderr
        );
        assert!(
            seen,
            "no pytest-mcp-* directory appeared in TMPDIR during the run"
        );
        let left: Vec<_> = std::fs::read_dir(tmp.path())
            .expect("read TMPDIR")
            .map(|e| e.expect("entry").file_name())
            .filter(|n| n.to_string_lossy().starts_with("pytest-mcp-"))
            .collect();
        assert!(left.is_empty(), "left behind in TMPDIR: {left:?}");
    }
}
