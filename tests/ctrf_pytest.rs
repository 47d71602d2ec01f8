//! The CTRF reader against the files pytest-json-ctrf 0.6.1 (`--ctrf FILE`)
//! really writes: pytest runs `tests/projects/mixed` and
//! `tests/projects/reruns` once each with pytest-json-report, JUnit and
//! pytest-json-ctrf at the same time (into a temporary directory), and
//! `pytest-mcp report` of the CTRF file must tell what the JSON report of
//! the same run tells: the same ids, outcomes, failures and flaky test.
//!
//! Where pytest-json-ctrf says less than pytest-json-report, the
//! difference is asserted as it is (it is the writer's, not the reader's):
//!
//! - a non-strict xpass is written as a plain `passed` (no `rawStatus`);
//! - collection errors are never seen by it (it listens to
//!   `pytest_runtest_logreport` only), so a run with one has none in CTRF;
//! - it writes no `line`: a failure's line comes from its traceback, so a
//!   failure without one (a strict xpass) has none;
//! - it keeps the first failed phase of a test only (a failed call, then
//!   an error in teardown, is the call's failure), and no captured output.
//!
//! Where the reader gets the file wrong, the test says how it should be
//! read and is ignored with the reason (`reader: ...`, `merge: ...`) until
//! the reader is fixed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;
use common::headline::{self, Counts, Verdict, before_counts, run_failed, says};
use common::support::{self, clean_command, test_python};

const TEARDOWN: &str = "tests/test_catalog.py::test_loan_checked_at_teardown";
const SETUP: &str = "tests/test_catalog.py::test_remote_search";
const XFAILED: &str = "tests/test_isbn.py::test_isbn13_979_prefix";
const XPASSED: [&str; 2] = [
    "tests/test_catalog.py::TestAvailability::test_availability_after_return",
    "tests/test_isbn.py::test_isbn10_lowercase_x",
];
/// The mixed project's failures in its call phase, with the first line of
/// each one's message (pytest's crash message).
const FAILURES: [(&str, &str); 5] = [
    (
        "tests/test_catalog.py::test_lend_due_date_over_month_end",
        "AssertionError: assert datetime.date(2024, 3, 5) == datetime.date(2024, 3, 6)",
    ),
    (
        "tests/test_catalog.py::test_search_multiple",
        "AssertionError: assert ['Effective J... and Systems'] == ['Effective J... 'The Hobbit']",
    ),
    (
        "tests/test_catalog.py::test_overdue",
        "AssertionError: assert [('ana', 'Sig...and Systems')] == [('ana', 'Sig...'The Hobbit')]",
    ),
    (
        "tests/test_catalog.py::test_lend_unknown_isbn",
        "KeyError: '000-0000000000'",
    ),
    (
        "tests/test_isbn.py::test_isbn10[0-306-4061X-2-False]",
        "ValueError: invalid literal for int() with base 10: 'X'",
    ),
];
const FLIP: &str = "tests/test_retry.py::test_flip";
const REAL_FAILURE: &str = "tests/test_retry.py::test_real_failure";

/// The three files of one pytest run, in a temporary directory that lives
/// as long as this.
struct PytestRun {
    _dir: tempfile::TempDir,
    out: PathBuf,
}

impl PytestRun {
    fn ctrf(&self) -> PathBuf {
        self.out.join("ctrf.json")
    }
    fn json(&self) -> PathBuf {
        self.out.join("report.json")
    }
    fn junit(&self) -> PathBuf {
        self.out.join("junit.xml")
    }
}

/// pytest on a copy of `tests/projects/<project>` (plus `extra` files
/// written into it), writing the JSON report, JUnit and CTRF at once.
fn pytest(project: &str, extra: &[(&str, &str)], args: &[&str]) -> PytestRun {
    let (dir, root) = support::project_copy(project);
    for (name, text) in extra {
        std::fs::write(root.join(name), text).expect("write extra file");
    }
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).expect("mkdir out");
    let run = PytestRun { _dir: dir, out };
    let output = clean_command(&test_python())
        .current_dir(&root)
        .args(["-m", "pytest", "-p", "no:cacheprovider", "-q"])
        .arg("--json-report")
        .arg(format!("--json-report-file={}", run.json().display()))
        .arg(format!("--junitxml={}", run.junit().display()))
        .arg(format!("--ctrf={}", run.ctrf().display()))
        .args(args)
        .output()
        .expect("run pytest");
    for file in [run.ctrf(), run.json(), run.junit()] {
        assert!(
            file.is_file(),
            "pytest wrote no {}: is pytest-json-ctrf installed (bash scripts/setup.sh)?\n{}{}",
            file.display(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    run
}

/// `pytest-mcp report FILES --format FORMAT`'s standard output.
fn report(files: &[PathBuf], format: &str) -> String {
    let output = clean_command(Path::new(env!("CARGO_BIN_EXE_pytest-mcp")))
        .arg("report")
        .args(files)
        .args(["--format", format])
        .output()
        .expect("run pytest-mcp");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8")
}

fn json(files: &[PathBuf]) -> Value {
    serde_json::from_str(&report(files, "json")).expect("JSON answer")
}

/// Every test of a JSON answer by id; fails when an id is listed twice.
fn by_id(value: &Value) -> BTreeMap<String, Value> {
    let mut tests = BTreeMap::new();
    for test in value["tests"].as_array().expect("tests") {
        let id = test["node_id"].as_str().expect("node_id").to_string();
        let again = tests.insert(id.clone(), test.clone());
        assert!(again.is_none(), "{id} listed twice");
    }
    tests
}

/// How many times each id is listed.
fn id_counts(value: &Value) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for test in value["tests"].as_array().expect("tests") {
        let id = test["node_id"].as_str().expect("node_id").to_string();
        *counts.entry(id).or_default() += 1;
    }
    counts
}

/// The first line of a test's message ("" when it has none).
fn first_line(test: &Value) -> &str {
    test["message"]
        .as_str()
        .and_then(|m| m.lines().next())
        .unwrap_or("")
}

/// The summary's counts (its duration left out).
fn counts(value: &Value) -> BTreeMap<String, Value> {
    let summary = value["summary"].as_object().expect("summary");
    summary
        .iter()
        .filter(|(k, _)| *k != "duration")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

#[test]
fn mixed_ctrf_lists_the_json_reports_tests_failures_and_messages() {
    let run = pytest("mixed", &[], &[]);
    let ctrf = by_id(&json(&[run.ctrf()]));
    let report = by_id(&json(&[run.json()]));
    assert_eq!(ctrf.len(), 30);
    let ids = |m: &BTreeMap<String, Value>| m.keys().cloned().collect::<BTreeSet<_>>();
    assert_eq!(ids(&ctrf), ids(&report));
    // Every test but the errors, the xfail and the xpasses (below) has the
    // same outcome and the same first line of its message.
    let told_apart: Vec<&str> = [TEARDOWN, SETUP, XFAILED]
        .into_iter()
        .chain(XPASSED)
        .collect();
    for (id, test) in &ctrf {
        if told_apart.contains(&id.as_str()) {
            continue;
        }
        assert_eq!(test["outcome"], report[id]["outcome"], "{id}");
        assert_eq!(first_line(test), first_line(&report[id]), "{id}");
    }
    let failed: Vec<(&str, &str)> = ctrf
        .iter()
        .filter(|(id, t)| t["outcome"] == "failed" && ![SETUP, TEARDOWN].contains(&id.as_str()))
        .map(|(id, t)| (id.as_str(), first_line(t)))
        .collect();
    let mut want = FAILURES.to_vec();
    want.sort();
    assert_eq!(failed, want);
    // The traceback is pytest's long report in both.
    for (id, _) in FAILURES {
        assert_eq!(ctrf[id]["traceback"], report[id]["traceback"], "{id}");
    }
}

/// What pytest-json-ctrf does not write, asserted as it is: a non-strict
/// xpass is a plain pass (no `rawStatus`), so the xpasses are counted as
/// passes, not as xpasses; the Markdown says where each failure is from
/// the traceback's line, as the JSON report's does.
#[test]
fn mixed_ctrf_says_less_of_an_xpass_only() {
    let run = pytest("mixed", &[], &[]);
    let raw: Value =
        serde_json::from_str(&std::fs::read_to_string(run.ctrf()).expect("ctrf")).expect("JSON");
    let entries = raw["results"]["tests"].as_array().expect("tests");
    for id in XPASSED {
        let entry = entries.iter().find(|t| t["name"] == id).expect("xpass");
        assert_eq!(entry["status"], "passed", "{entry}");
        assert!(entry.get("rawStatus").is_none(), "{entry}");
    }
    let ctrf = json(&[run.ctrf()]);
    let report = json(&[run.json()]);
    let tests = by_id(&ctrf);
    for id in XPASSED {
        assert_eq!(tests[id]["outcome"], "passed", "{id}");
        assert_eq!(tests[id]["message"], Value::Null, "{id}");
        assert_eq!(by_id(&report)[id]["message"], "XPASS", "{id}");
    }
    assert_eq!(ctrf["summary"]["xpassed"], 0);
    assert_eq!(report["summary"]["xpassed"], 2);
    assert_eq!(ctrf["summary"]["total"], 30);
    assert_eq!(ctrf["summary"]["passed"], 20);
    assert_eq!(ctrf["summary"]["skipped"], 3);
    assert_eq!(ctrf["collection_errors"], serde_json::json!([]));
    // No `line` in pytest-json-ctrf's file: the heading's line is the
    // traceback's, the same as the JSON report's.
    let md = report_md(&run.ctrf());
    let md_json = report_md(&run.json());
    for line in [
        "### FAILED: tests/test_catalog.py::test_overdue (line 72)\n",
        "### FAILED: tests/test_isbn.py::test_isbn10[0-306-4061X-2-False] (line 21)\n",
    ] {
        assert!(md.contains(line), "{line:?} in:\n{md}");
        assert!(md_json.contains(line), "{line:?} in:\n{md_json}");
    }
    assert!(md.ends_with("\n> Sources: CTRF\n"), "{md}");
}

fn report_md(file: &Path) -> String {
    report(&[file.to_path_buf()], "markdown")
}

/// pytest-json-ctrf writes an error in setup or teardown as `"status":
/// "failed"` with `"rawStatus": "setup_failed"` / `"teardown_failed"`:
/// pytest counts them as errors, as the JSON report does.
#[test]
fn setup_and_teardown_failures_are_errors() {
    let run = pytest("mixed", &[], &[]);
    let ctrf = json(&[run.ctrf()]);
    let tests = by_id(&ctrf);
    assert_eq!(tests[SETUP]["outcome"], "error");
    assert_eq!(tests[TEARDOWN]["outcome"], "error");
    assert_eq!(ctrf["summary"]["errors"], 2);
    assert_eq!(ctrf["summary"]["failed"], 5);
    let md = report_md(&run.ctrf());
    assert!(
        md.contains(&format!("### ERROR at setup: {SETUP} (line 30)\n")),
        "{md}"
    );
    assert!(
        md.contains(&format!("### ERROR at teardown: {TEARDOWN} (line 25)\n")),
        "{md}"
    );
}

/// pytest-json-ctrf writes an xfail as `"status": "skipped"`, `"rawStatus":
/// "xfailed"`, the reason as its message: an xfail, as in the JSON report.
#[test]
fn an_xfail_is_an_xfail() {
    let run = pytest("mixed", &[], &[]);
    let ctrf = json(&[run.ctrf()]);
    assert_eq!(ctrf["summary"]["xfailed"], 1);
    let test = &by_id(&ctrf)[XFAILED];
    assert_eq!(test["outcome"], "skipped");
    assert_eq!(
        test["message"],
        "XFAIL: ISBN-13 with 979 prefix not supported yet"
    );
    assert_eq!(json(&[run.json()])["summary"]["xfailed"], 1);
}

/// The run's duration: pytest-json-ctrf's summary has the session's
/// `start` and `stop` (and `duration`); the tests' whole milliseconds
/// summed leave out collection and rounding, so a run of 0.3 s reads 0.0 s.
#[test]
fn the_runs_duration_is_the_sessions() {
    let run = pytest("reruns", &[], &[]);
    let raw: Value =
        serde_json::from_str(&std::fs::read_to_string(run.ctrf()).expect("ctrf")).expect("JSON");
    let summary = &raw["results"]["summary"];
    let ms = summary["stop"].as_f64().expect("stop") - summary["start"].as_f64().expect("start");
    let ctrf = json(&[run.ctrf()]);
    let duration = ctrf["summary"]["duration"].as_f64().expect("duration");
    assert!(
        (duration - ms / 1000.0).abs() < 0.0015,
        "{duration} vs {ms} ms"
    );
}

/// The counts phrase of a run of `total` tests up to its number of
/// failures (`30 run, `): where the phrases of 0 and of 1 failure part.
fn run_of(total: usize) -> String {
    let none = run_failed(total, 0);
    let one = run_failed(total, 1);
    let same = none
        .char_indices()
        .zip(one.chars())
        .find(|((_, a), b)| a != b)
        .map_or(none.len(), |((i, _), _)| i);
    none[..same].to_string()
}

/// What the counts phrase of `c` says after its tests run and failed
/// (`, 1 collection error`).
fn after_failed(c: Counts) -> String {
    let phrase = headline::counts(c);
    let start = run_failed(c.total, c.failed);
    phrase
        .strip_prefix(start.as_str())
        .unwrap_or_else(|| panic!("{phrase:?} does not start with {start:?}"))
        .to_string()
}

const BROKEN: (&str, &str) = (
    "tests/test_broken.py",
    "import nonexistent_module\n\n\ndef test_never_collected():\n    pass\n",
);

/// pytest-json-ctrf never sees a collection error: a run with one has the
/// same tests in CTRF as without it, and no collection error; pytest
/// stopped by it (without `--continue-on-collection-errors`) is a CTRF
/// file with no tests at all. The JSON report has the error either way.
#[test]
fn collection_errors_are_only_in_the_json_report() {
    let run = pytest("mixed", &[BROKEN], &["--continue-on-collection-errors"]);
    let ctrf = json(&[run.ctrf()]);
    let report = json(&[run.json()]);
    assert_eq!(ctrf["collection_errors"], serde_json::json!([]));
    let errors = report["collection_errors"].as_array().expect("errors");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["file"], BROKEN.0);
    assert_eq!(ctrf["summary"]["total"], 30);
    assert_eq!(report["summary"]["total"], 30);
    let md = report_md(&run.ctrf());
    assert!(
        says(&md, Verdict::Failure) && md.contains(&format!("{}{}", before_counts(), run_of(30))),
        "{md}"
    );
    assert!(!md.contains("collection error"), "{md}");
    assert!(
        report_md(&run.json()).contains(&format!(
            "{}\n",
            after_failed(Counts {
                collection_errors: 1,
                ..Counts::default()
            })
        )),
        "the JSON report's Markdown counts the collection error"
    );

    let stopped = pytest("mixed", &[BROKEN], &[]);
    let md = report_md(&stopped.ctrf());
    assert!(says(&md, Verdict::NoTests), "{md}");
    assert!(
        md.contains(&format!("{}{}\n", before_counts(), run_failed(0, 0))),
        "{md}"
    );
    let md = report_md(&stopped.json());
    assert!(
        says(&md, Verdict::Failure)
            && md.contains(&format!(
                "{}{}\n",
                before_counts(),
                headline::counts(Counts {
                    collection_errors: 1,
                    ..Counts::default()
                })
            )),
        "{md}"
    );
}

/// pytest-rerunfailures (`--reruns 2` in the project): the flip passed on
/// its second attempt, the real failure failed all three. CTRF keeps
/// every earlier attempt with its message (`retryAttempts`); the JSON
/// report keeps one entry per test, so it knows only that the flip was
/// rerun. The counts are the same.
#[test]
fn reruns_ctrf_has_the_flaky_test_and_its_failed_attempt() {
    let run = pytest("reruns", &[], &[]);
    let ctrf = json(&[run.ctrf()]);
    let report = json(&[run.json()]);
    assert_eq!(counts(&ctrf), counts(&report));
    for (key, want) in [("total", 4), ("passed", 3), ("failed", 1), ("flaky", 1)] {
        assert_eq!(ctrf["summary"][key], want, "summary.{key}");
    }
    let tests = by_id(&ctrf);
    let json_tests = by_id(&report);
    assert_eq!(tests[FLIP]["outcome"], "passed");
    let message = tests[FLIP]["message"].as_str().expect("flip message");
    assert!(
        message.starts_with(
            "FLAKY: passed after 1 failed attempt (first: AssertionError: service not ready yet"
        ),
        "{message}"
    );
    assert_eq!(
        json_tests[FLIP]["message"],
        "FLAKY: passed after 1 failed attempt"
    );
    assert_eq!(tests[REAL_FAILURE]["outcome"], "failed");
    assert_eq!(
        first_line(&tests[REAL_FAILURE]),
        first_line(&json_tests[REAL_FAILURE])
    );
    let md = report_md(&run.ctrf());
    assert!(
        md.contains(&format!("### FAILED: {REAL_FAILURE} (line 21)\n")),
        "{md}"
    );
    assert!(md.contains("\n  Rerun: failed all 3 attempts\n"), "{md}");
    assert!(
        !report_md(&run.json()).contains("Rerun: failed all"),
        "the JSON report does not know the failure's attempts"
    );
}

/// The flip's failed attempt has no `line` but its trace ends
/// `tests/test_retry.py:17: AssertionError`: the attempt is at that line,
/// as the final failure's heading takes its line from its traceback.
#[test]
fn the_flaky_attempt_says_its_line() {
    let run = pytest("reruns", &[], &[]);
    let tests = by_id(&json(&[run.ctrf()]));
    let message = tests[FLIP]["message"].as_str().expect("flip message");
    assert!(
        message.ends_with(", at tests/test_retry.py:17)"),
        "{message}"
    );
}

/// The CTRF file and the JSON report of one run: each test once (the JSON
/// report wins, CTRF fills), the counts the JSON report's alone; the
/// failure's attempts come from CTRF.
#[test]
fn ctrf_with_the_json_report_of_its_run_gives_each_test_once() {
    for (project, total) in [("mixed", 30), ("reruns", 4)] {
        let run = pytest(project, &[], &[]);
        for files in [vec![run.ctrf(), run.json()], vec![run.json(), run.ctrf()]] {
            let merged = json(&files);
            assert_eq!(by_id(&merged).len(), total, "{project} {files:?}");
            assert_eq!(
                counts(&merged),
                counts(&json(&[run.json()])),
                "{project} {files:?}"
            );
            let md = report(&files, "markdown");
            assert!(
                md.ends_with("\n> Sources: pytest-json-report, CTRF\n"),
                "{md}"
            );
            if project == "reruns" {
                assert!(md.contains("\n  Rerun: failed all 3 attempts\n"), "{md}");
            }
        }
    }
}

/// Merged with the JSON report, which knows only that the flip's attempt
/// failed, the flip keeps what CTRF says that attempt said.
#[test]
fn ctrf_with_the_json_report_keeps_the_flaky_attempts_message() {
    let run = pytest("reruns", &[], &[]);
    let merged = by_id(&json(&[run.json(), run.ctrf()]));
    let message = merged[FLIP]["message"].as_str().expect("flip message");
    assert!(
        message.starts_with(
            "FLAKY: passed after 1 failed attempt (first: AssertionError: service not ready yet"
        ),
        "{message}"
    );
}

/// The CTRF file and the JUnit file of one run are one run: each test
/// once, the counts those of either file alone (JUnit knows the setup and
/// teardown errors as errors).
#[test]
fn ctrf_with_the_junit_of_its_run_gives_each_test_once() {
    let run = pytest("mixed", &[], &[]);
    for files in [vec![run.ctrf(), run.junit()], vec![run.junit(), run.ctrf()]] {
        let merged = json(&files);
        let twice: Vec<String> = id_counts(&merged)
            .into_iter()
            .filter(|(_, n)| *n > 1)
            .map(|(id, _)| id)
            .collect();
        assert!(twice.is_empty(), "{files:?}: listed twice: {twice:?}");
        for (key, want) in [
            ("total", 30),
            ("passed", 20),
            ("failed", 5),
            ("errors", 2),
            ("skipped", 3),
        ] {
            assert_eq!(merged["summary"][key], want, "{files:?}: summary.{key}");
        }
    }
}

const EDGE: (&str, &str) = (
    "tests/test_edge.py",
    r#"import pytest


@pytest.fixture
def broken_teardown():
    yield
    raise RuntimeError("teardown broke")


def test_fails_and_teardown_errors(broken_teardown):
    assert 1 == 2


@pytest.mark.xfail(strict=True, reason="strict one")
def test_strict_xpass():
    pass


def test_prints():
    print("hello from stdout")
    assert False, "printed first"
"#,
);

/// What pytest-json-ctrf leaves out of a failure, asserted as it is: the
/// teardown error after a failed call, the place of a failure without a
/// traceback, captured output.
#[test]
fn pytest_json_ctrf_keeps_one_phase_no_output_and_no_line() {
    let run = pytest("mixed", &[EDGE], &[]);
    let ctrf = by_id(&json(&[run.ctrf()]));
    let report = by_id(&json(&[run.json()]));
    let both = "tests/test_edge.py::test_fails_and_teardown_errors";
    assert_eq!(ctrf[both]["outcome"], "failed");
    assert_eq!(ctrf[both]["message"], "assert 1 == 2");
    assert_eq!(report[both]["outcome"], "error");
    assert_eq!(
        report[both]["message"],
        "RuntimeError: teardown broke\ncall also failed: assert 1 == 2"
    );
    let strict = "tests/test_edge.py::test_strict_xpass";
    for tests in [&ctrf, &report] {
        assert_eq!(tests[strict]["outcome"], "failed");
        assert_eq!(tests[strict]["message"], "[XPASS(strict)] strict one");
    }
    let md = report_md(&run.ctrf());
    let md_json = report_md(&run.json());
    assert!(md.contains(&format!("### FAILED: {strict}\n")), "{md}");
    assert!(
        md_json.contains(&format!("### FAILED: {strict} (line 14)\n")),
        "{md_json}"
    );
    assert!(
        md_json.contains("  Captured stdout:\n  hello from stdout\n"),
        "{md_json}"
    );
    assert!(!md.contains("hello from stdout"), "{md}");
}
