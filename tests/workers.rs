//! `run -n/--workers` (the tool's `workers`) against real projects: a run on
//! pytest-xdist workers gives what a plain run gives, a hang under workers
//! ends every process and names the test each worker was running, a
//! worker's crash is a result, and a project without pytest-xdist is told
//! how to get it. The MCP side is `tests/mcp/test_workers.py`.
//!
//! Interpreters: `PYTEST_MCP_TEST_PYTHON`, else `.venv/bin/python` (with
//! pytest-xdist); `.venv-nojson/bin/python` has pytest alone.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod common;
use common::headline::{Counts, Verdict, before_counts, counts, says};
use common::support;
use support::{clean_command, copy_tree, nothing_left, test_python};

const BIN: &str = env!("CARGO_BIN_EXE_pytest-mcp");

/// A private copy of `tests/projects/<name>`: the directory to keep, and
/// the copy's resolved path.
fn project(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("workers-it-")
        .tempdir()
        .expect("temporary directory");
    let root = dir.path().join(name);
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/projects")
            .join(name),
        &root,
    );
    let root = root.canonicalize().expect("canonical root");
    (dir, root)
}

/// `pytest-mcp run --root <root> --python <python> <args>`: exit status,
/// standard output, time taken.
fn run(root: &Path, python: &Path, args: &[&str]) -> (Option<i32>, String, Duration) {
    let started = Instant::now();
    let out = clean_command(Path::new(BIN))
        .arg("run")
        .arg("--root")
        .arg(root)
        .arg("--python")
        .arg(python)
        .args(args)
        .output()
        .expect("run pytest-mcp");
    let text = String::from_utf8(out.stdout).expect("UTF-8 answer");
    assert!(
        !text.is_empty(),
        "no answer; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text, started.elapsed())
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// Each test's outcome and message, by id.
fn outcomes(value: &Value) -> BTreeMap<String, (Value, Value)> {
    value["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| {
            let id = t["node_id"].as_str().expect("node_id").to_string();
            (id, (t["outcome"].clone(), t["message"].clone()))
        })
        .collect()
}

#[test]
fn workers_give_the_same_counts_ids_and_messages() {
    let (_dir, root) = project("workers");
    let python = test_python();
    let (plain_status, plain, plain_time) = run(&root, &python, &["-f", "json"]);
    let (status, workers, workers_time) = run(&root, &python, &["-n", "2", "-f", "json"]);
    println!(
        "workers project: {:.2}s without workers, {:.2}s with 2 (pytest-mcp's wall time)",
        plain_time.as_secs_f64(),
        workers_time.as_secs_f64()
    );
    let (plain, workers) = (json_of(&plain), json_of(&workers));
    // The run really was on two xdist workers.
    let output = workers["text_output"].as_str().unwrap_or_default();
    assert!(output.contains("2 workers ["), "{output}");
    assert!(
        !plain["text_output"]
            .as_str()
            .unwrap_or_default()
            .contains("workers ["),
        "{plain}"
    );

    assert_eq!((status, plain_status), (Some(1), Some(1)));
    assert_eq!(workers["exit_code"], plain["exit_code"]);
    let counts = |v: &Value| {
        let mut summary = v["summary"].clone();
        summary["duration"] = Value::Null;
        summary
    };
    assert_eq!(counts(&workers), counts(&plain));
    let summary = &plain["summary"];
    for key in [
        "passed", "failed", "errors", "skipped", "xfailed", "xpassed",
    ] {
        assert!(summary[key].as_u64() > Some(0), "{key}: {summary}");
    }
    assert_eq!(outcomes(&workers), outcomes(&plain));
    // In the same order too: collection order, whichever worker finished first.
    let order = |v: &Value| -> Vec<Value> {
        let tests = v["tests"].as_array().cloned().unwrap_or_default();
        tests.iter().map(|t| t["node_id"].clone()).collect()
    };
    assert_eq!(order(&workers), order(&plain));
    assert_eq!(
        outcomes(&plain).len() as u64,
        summary["total"].as_u64().unwrap_or(0)
    );
    // Tracebacks too, xdist's "[gw0] linux -- Python ..." line left out
    // (object addresses aside).
    let traceback = |v: &Value, id: &str| {
        let t = v["tests"].as_array().and_then(|ts| {
            ts.iter()
                .find(|t| t["node_id"] == id)
                .and_then(|t| t["traceback"].as_str())
        });
        t.unwrap_or_default().to_string()
    };
    let id = "tests/test_work.py::test_fails";
    assert_eq!(traceback(&workers, id), traceback(&plain, id));
    assert!(
        traceback(&plain, id).starts_with("def test_fails"),
        "{plain}"
    );
}

/// The time limit of the hanging run: room for starting two workers on a
/// busy machine before both tests hang.
const HANG_TIMEOUT: u64 = 12;

#[test]
fn a_hang_under_workers_ends_every_process_and_names_each_test() {
    let (_dir, root) = project("workers_hang");
    let timeout = HANG_TIMEOUT.to_string();
    let args = [
        "-n",
        "2",
        "--timeout",
        &timeout,
        "--kill-grace",
        "0.2",
        "-f",
        "json",
    ];
    let (status, text, elapsed) = run(&root, &test_python(), &args);
    let left = nothing_left(
        &root,
        &["one.pid", "one.child.pid", "two.pid", "two.child.pid"],
    );
    assert!(left.is_ok(), "{left:?}");
    println!(
        "hang under 2 workers, timeout {HANG_TIMEOUT}s: answered after {:.2}s",
        elapsed.as_secs_f64()
    );
    let limit = Duration::from_secs(HANG_TIMEOUT);
    assert!(
        (limit..limit + Duration::from_secs(6)).contains(&elapsed),
        "{elapsed:?}"
    );

    assert_eq!(status, Some(124), "{text}");
    let value = json_of(&text);
    let error = &value["error"];
    assert_eq!(error["code"], -32000, "{value}");
    let data = &error["data"];
    assert_eq!(data["error_type"], "timeout");
    let hung = [
        "tests/test_hang.py::test_hangs_one",
        "tests/test_hang.py::test_hangs_two",
    ];
    let mut running: Vec<(&str, &str)> = data["running_tests"]
        .as_array()
        .expect("running_tests")
        .iter()
        .map(|r| {
            let id = r["node_id"].as_str().unwrap_or_default();
            (id, r["worker"].as_str().unwrap_or_default())
        })
        .collect();
    running.sort();
    assert_eq!(
        running.iter().map(|r| r.0).collect::<Vec<_>>(),
        hung,
        "{data}"
    );
    assert!(running.iter().all(|(_, w)| w.starts_with("gw")), "{data}");
    assert_ne!(running[0].1, running[1].1, "one test per worker: {data}");
    assert!(hung.contains(&data["running_test"].as_str().unwrap_or_default()));
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!(
            "timeout of {HANG_TIMEOUT} seconds while running 2 tests: "
        )),
        "{message}"
    );
    assert!(hung.iter().all(|id| message.contains(id)), "{message}");
    assert_eq!(data["collected"], 3);
    assert_eq!(
        data["tests"],
        json!([{"node_id": "tests/test_hang.py::test_quick", "outcome": "passed",
                "duration": data["tests"][0]["duration"], "message": null, "traceback": null}])
    );
}

/// `-x` under workers: xdist ends the run as interrupted (exit status 2);
/// pytest-mcp answers the result, with pytest's exit status 1 and a note.
#[test]
fn failfast_under_workers_is_a_result() {
    let (_dir, root) = project("workers");
    let (status, text, _) = run(&root, &test_python(), &["-n", "2", "-x", "-f", "json"]);
    assert_eq!(status, Some(1), "{text}");
    let value = json_of(&text);
    assert_eq!(value["exit_code"], 1, "{value}");
    let summary = &value["summary"];
    let failing = summary["failed"].as_u64().unwrap_or(0) + summary["errors"].as_u64().unwrap_or(0);
    assert!(failing >= 1, "{summary}");
    let output = value["text_output"].as_str().unwrap_or_default();
    assert!(
        output.contains("xdist.dsession.Interrupted: stopping after"),
        "{output}"
    );
}

/// pytest-xdist's answer to a crashed worker: the test it was running
/// fails, the others run on; pytest exits 1, so this is a result. The
/// children both tests leave (ignoring SIGTERM) end with the run.
#[test]
fn a_crashed_worker_is_a_failed_test_and_nothing_is_left() {
    let (_dir, root) = project("runner_orphan");
    let (status, text, _) = run(
        &root,
        &test_python(),
        &["-n", "2", "--kill-grace", "0.2", "-f", "json"],
    );
    let left = nothing_left(&root, &["pytest.pid", "child.pid"]);
    assert!(left.is_ok(), "{left:?}");
    assert_eq!(status, Some(1), "{text}");
    let value = json_of(&text);
    let tests = outcomes(&value);
    let crashed = &tests["tests/test_orphan.py::test_segfaults_and_leaves_a_child"];
    assert_eq!(crashed.0, "failed", "{value}");
    let message = crashed.1.as_str().unwrap_or_default();
    assert!(message.contains("crashed while running"), "{message}");
    assert_eq!(
        tests["tests/test_orphan.py::test_passes_and_leaves_a_child"].0,
        "passed"
    );
    assert_eq!(value["summary"]["total"], 2);
}

/// Wrong values are refused before pytest starts (the tripwire project's
/// conftest.py would leave a file); so is `workers` where pytest-xdist is
/// missing or turned off, each saying how to fix it.
#[test]
fn workers_are_refused_naming_workers() {
    let (_dir, root) = project("runner_tripwire");
    for bad in ["0", "-1", "many", "257"] {
        let (status, text, _) = run(&root, &test_python(), &["-n", bad, "-f", "json"]);
        assert_eq!(status, Some(4), "{bad}: {text}");
        let error = &json_of(&text)["error"];
        assert_eq!(error["code"], -32602, "{text}");
        assert_eq!(error["data"]["field"], "workers", "{text}");
        let received = bad.parse::<i64>().map_or_else(|_| json!(bad), |n| json!(n));
        assert_eq!(error["data"]["received_value"], received, "{text}");
    }
    assert!(!root.join("PYTEST_STARTED").exists(), "pytest started");

    let nojson = common::support::nojson_python();
    let (status, text, _) = run(&root, &nojson, &["--workers", "auto", "-f", "json"]);
    assert_eq!(status, Some(4), "{text}");
    let error = &json_of(&text)["error"];
    assert_eq!(error["code"], -32602, "{text}");
    assert_eq!(error["data"]["field"], "workers", "{text}");
    assert_eq!(error["data"]["received_value"], "auto", "{text}");
    let detail = error["data"]["detail"].as_str().unwrap_or_default();
    assert!(
        detail.starts_with("needs pytest-xdist, which is not installed for "),
        "{detail}"
    );
    assert!(detail.contains("-m pip install pytest-xdist"), "{detail}");

    // Installed, but the project turns it off.
    std::fs::write(
        root.join("pytest.ini"),
        "[pytest]\ntestpaths = tests\naddopts = -p no:xdist\n",
    )
    .expect("write pytest.ini");
    let (status, text, _) = run(&root, &test_python(), &["-n", "2"]);
    assert_eq!(status, Some(4), "{text}");
    assert!(
        text.starts_with("Invalid params: workers needs pytest-xdist, which is installed for "),
        "{text}"
    );
    assert!(text.contains("`-p no:xdist`"), "{text}");
    assert!(text.trim_end().ends_with("(received 2)"), "{text}");
}

/// `--last-failed` under workers: the workers narrow what they collected to
/// the recorded failures and the controller says what the cache did, so the
/// answer is the one without workers, word for word bar the time (the
/// results in collection order, so each group has the same representative),
/// with nothing recorded too (nothing runs).
#[test]
fn last_failed_under_workers_reruns_the_same() {
    let (_dir, root) = project("last_failed");
    let python = test_python();
    let header_cut = |text: &str| text.split_once('\n').map(|(_, rest)| rest.to_string());
    let (status, none, _) = run(&root, &python, &["--lf", "-n", "2"]);
    assert_eq!(status, Some(5), "{none}");
    assert!(
        none.contains("> No test ran: pytest's cache records no failed tests"),
        "{none}"
    );
    let (status, all, _) = run(&root, &python, &["-n", "2"]);
    assert_eq!(status, Some(1), "{all}");
    // Without the history of runs, which would count the second rerun as
    // one run longer than the first.
    let (_, plain, _) = run(&root, &python, &["--lf", "--no-history"]);
    let (status, workers, _) = run(&root, &python, &["--lf", "-n", "2", "--no-history"]);
    assert_eq!(status, Some(1), "{workers}");
    assert!(
        workers.contains("> Reran the failures pytest's cache records (3 tests)"),
        "{workers}"
    );
    assert_eq!(header_cut(&workers), header_cut(&plain));
    assert!(says(&workers, Verdict::Failure), "{workers}");
    let tail = format!(
        "{}{}",
        before_counts().trim_start(),
        counts(Counts {
            total: 3,
            failed: 2,
            errors: 1,
            ..Counts::default()
        })
    );
    assert!(workers.lines().next().unwrap_or_default().ends_with(&tail));
}
