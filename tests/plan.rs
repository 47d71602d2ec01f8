//! `pytest-mcp plan` (docs/sharding.md): the tests of a real project
//! (`tests/projects/sharding`: a module fixture of 4 s, a `setup_class` of
//! 3 s, slow and quick tests) collected by pytest and planned from the
//! durations of a recorded run (`tests/fixtures/sharding/`), without
//! running the tests. And the planner on a small simulated suite, against
//! pytest-split's two algorithms (the benches measure it at 100,000 tests).
//!
//! Interpreter: `PYTEST_MCP_TEST_PYTHON`, else `.venv/bin/python`.

use std::collections::BTreeSet;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

mod common;
use common::support::{clean_command, project_copy, test_python};
use pytest_mcp_testkit::sharding::{Shape, Suite, duration_based_chunks, least_duration};

const BIN: &str = env!("CARGO_BIN_EXE_pytest-mcp");

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sharding")
        .join(name)
}

/// `pytest-mcp plan --root ROOT --python PY ARGS...`.
fn plan(root: &Path, args: &[&str]) -> Output {
    clean_command(Path::new(BIN))
        .arg("plan")
        .arg("--root")
        .arg(root)
        .arg("--python")
        .arg(test_python())
        .args(args)
        .output()
        .expect("run pytest-mcp plan")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The plan printed on standard output, which must have succeeded.
fn plan_json(root: &Path, args: &[&str]) -> (Value, Output) {
    let out = plan(root, args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value = serde_json::from_slice(&out.stdout).expect("a JSON plan");
    (value, out)
}

fn shards(plan: &Value) -> &Vec<Value> {
    plan["shards"].as_array().expect("shards")
}

fn ids(shard: &Value) -> Vec<String> {
    shard["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| t.as_str().expect("an id").to_string())
        .collect()
}

/// The project's ids as `pytest --collect-only -q` lists them.
fn collected(root: &Path, args: &[&str]) -> Vec<String> {
    let out = clean_command(&test_python())
        .current_dir(root)
        .args([
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
        ])
        .args(args)
        .output()
        .expect("pytest --collect-only");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("::"))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_collected_test_is_in_one_shard_and_costly_scopes_stay_together() {
    let (_dir, root) = project_copy("sharding");
    let durations = fixture("report.json");
    let args = [
        "--shards",
        "3",
        "--durations",
        durations.to_str().expect("path"),
    ];
    let (made, out) = plan_json(&root, &args);
    let all: Vec<String> = shards(&made).iter().flat_map(ids).collect();
    let expected = collected(&root, &[]);
    assert_eq!(all.len(), expected.len(), "a test planned twice or lost");
    assert_eq!(
        all.iter().collect::<BTreeSet<_>>(),
        expected.iter().collect::<BTreeSet<_>>()
    );
    let indexes: Vec<u64> = shards(&made)
        .iter()
        .map(|s| s["index"].as_u64().expect("index"))
        .collect();
    assert_eq!(indexes, [1, 2, 3]);
    // The fixture's module, and the class with setup_class, on one shard each.
    for scope in [
        "tests/test_db.py::",
        "tests/test_api.py::TestAccounts::",
        "tests/test_reports.py::",
    ] {
        let holding = shards(&made)
            .iter()
            .filter(|s| ids(s).iter().any(|id| id.starts_with(scope)))
            .count();
        assert_eq!(holding, 1, "{scope} split: {made:#}");
    }
    assert_eq!(made["basis"]["runs"], 1);
    assert_eq!(made["basis"]["tests"], 274);
    assert_eq!(made["basis"]["estimated"], 0);
    let shared = made["basis"]["shared_setup"].as_f64().expect("seconds");
    assert!(
        (9.0..11.0).contains(&shared),
        "4 + 0.5 + 3 + 2 s of fixtures: {shared}"
    );
    // Balanced: the slowest expected within 10% of a third of the total.
    let seconds: Vec<f64> = shards(&made)
        .iter()
        .map(|s| s["seconds"].as_f64().expect("seconds"))
        .collect();
    let slowest = seconds.iter().copied().fold(0.0, f64::max);
    assert!(
        slowest <= 1.1 * seconds.iter().sum::<f64>() / 3.0,
        "{seconds:?}"
    );
    assert!(
        stderr(&out).contains("planned 274 tests in 3 shards"),
        "{}",
        stderr(&out)
    );
    // Byte for byte the same, planned again.
    let again = plan(&root, &args);
    assert_eq!(
        again.stdout, out.stdout,
        "the same input planned twice differs"
    );
}

/// The history of runs gives a plan what the file it was recorded from
/// gives: `report --history` keeps each test's phases, and `plan
/// --history` plans the same shards (seconds to within the history's
/// microseconds), the fixtures' modules kept together.
#[test]
fn the_history_plans_as_the_result_file_it_recorded() {
    let (dir, root) = project_copy("sharding");
    let durations = fixture("report.json");
    let history = dir.path().join("history.sqlite");
    let recorded = clean_command(Path::new(BIN))
        .arg("report")
        .arg(&durations)
        .arg("--history")
        .arg(&history)
        .args(["--commit", "abc1234", "-o"])
        .arg(dir.path().join("report.md"))
        .output()
        .expect("pytest-mcp report --history");
    assert_eq!(recorded.status.code(), Some(0), "{}", stderr(&recorded));
    let from_file = [
        "--shards",
        "3",
        "--durations",
        durations.to_str().expect("path"),
    ];
    let from_history = [
        "--shards",
        "3",
        "--history",
        history.to_str().expect("path"),
    ];
    let (file_plan, _) = plan_json(&root, &from_file);
    let (history_plan, out) = plan_json(&root, &from_history);
    assert!(
        stderr(&out).contains("durations of 274 from 1 run"),
        "{}",
        stderr(&out)
    );
    assert_eq!(history_plan["basis"]["runs"], 1);
    assert_eq!(history_plan["basis"]["estimated"], 0);
    for (a, b) in shards(&file_plan).iter().zip(shards(&history_plan)) {
        assert_eq!(ids(a), ids(b));
        let (a, b) = (a["seconds"].as_f64(), b["seconds"].as_f64());
        assert!(
            (a.expect("seconds") - b.expect("seconds")).abs() < 0.01,
            "{a:?} {b:?}"
        );
    }
    let shared = |p: &Value| p["basis"]["shared_setup"].as_f64().expect("seconds");
    assert!((shared(&file_plan) - shared(&history_plan)).abs() < 0.01);
    // Byte for byte the same from the same history.
    assert_eq!(plan(&root, &from_history).stdout, out.stdout);
}

#[test]
fn ids_files_are_what_pytest_runs_for_each_shard() {
    let (dir, root) = project_copy("sharding");
    let durations = fixture("report.json");
    let out_dir = dir.path().join("shards");
    let out = plan(
        &root,
        &[
            "--shards",
            "4",
            "--durations",
            durations.to_str().expect("path"),
            "--format",
            "ids",
            "-o",
            out_dir.to_str().expect("path"),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stdout.is_empty(), "the ids go to the files");
    let (made, _) = plan_json(
        &root,
        &[
            "--shards",
            "4",
            "--durations",
            durations.to_str().expect("path"),
        ],
    );
    for (k, shard) in shards(&made).iter().enumerate() {
        let file = out_dir.join(format!("shard-{}.txt", k + 1));
        let text = std::fs::read_to_string(&file).expect("a shard's file");
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        assert_eq!(lines, ids(shard), "{}", file.display());
        // pytest reads the file as arguments and collects exactly those tests.
        let at = format!("@{}", file.display());
        assert_eq!(collected(&root, &[&at]), lines, "pytest {at}");
    }
}

#[test]
fn tests_without_durations_are_estimated_and_counted() {
    let (dir, root) = project_copy("sharding");
    // The recorded run without test_fast_e.py's 40 tests.
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("report.json")).expect("fixture"))
            .expect("JSON");
    let mut partial = report.clone();
    partial["tests"].as_array_mut().expect("tests").retain(|t| {
        !t["nodeid"]
            .as_str()
            .is_some_and(|id| id.starts_with("tests/test_fast_e.py"))
    });
    let file = dir.path().join("partial.json");
    std::fs::write(&file, partial.to_string()).expect("write");
    let (made, out) = plan_json(
        &root,
        &["--shards", "2", "--durations", file.to_str().expect("path")],
    );
    assert_eq!(made["basis"]["estimated"], 40);
    assert!(stderr(&out).contains("40 estimated"), "{}", stderr(&out));
    // JUnit gives totals: every test timed, no shared setup told apart.
    let junit = fixture("junit.xml");
    let (made, _) = plan_json(
        &root,
        &[
            "--shards",
            "2",
            "--durations",
            junit.to_str().expect("path"),
        ],
    );
    assert_eq!(made["basis"]["estimated"], 0);
    assert_eq!(made["basis"]["shared_setup"], 0.0);
    // Ids that match nothing (written from another root): every test
    // estimated, and a warning says why.
    let mut elsewhere = report;
    for t in elsewhere["tests"].as_array_mut().expect("tests") {
        let id = format!("backend/{}", t["nodeid"].as_str().expect("an id"));
        t["nodeid"] = Value::from(id);
    }
    let file = dir.path().join("elsewhere.json");
    std::fs::write(&file, elsewhere.to_string()).expect("write");
    let (made, out) = plan_json(
        &root,
        &["--shards", "2", "--durations", file.to_str().expect("path")],
    );
    assert_eq!(made["basis"]["estimated"], made["basis"]["tests"]);
    assert!(
        stderr(&out).contains("do their node ids match"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_selection_is_runs_and_empty_shards_are_planned() {
    let (_dir, root) = project_copy("sharding");
    let durations = fixture("report.json");
    let d = durations.to_str().expect("path");
    let (made, out) = plan_json(&root, &["--shards", "6", "--durations", d, "-m", "slow"]);
    let sizes: Vec<usize> = shards(&made).iter().map(|s| ids(s).len()).collect();
    assert_eq!(sizes.iter().sum::<usize>(), 4, "{made:#}");
    assert_eq!(sizes.iter().filter(|&&n| n == 0).count(), 2);
    assert!(
        stderr(&out).contains("2 shards are empty"),
        "{}",
        stderr(&out)
    );
    // An empty shard's ids file runs nothing (an empty file would be no
    // arguments: the whole suite).
    let (dir, _) = project_copy("sharding");
    let out_dir = dir.path().join("ids");
    let o = out_dir.to_str().expect("path");
    let written = plan(
        &root,
        &[
            "--shards",
            "6",
            "--durations",
            d,
            "-m",
            "slow",
            "--format",
            "ids",
            "-o",
            o,
        ],
    );
    assert_eq!(written.status.code(), Some(0), "{}", stderr(&written));
    let empty = (1..=6)
        .map(|k| out_dir.join(format!("shard-{k}.txt")))
        .find(|f| {
            !std::fs::read_to_string(f)
                .expect("a shard file")
                .contains("::")
        })
        .expect("an empty shard's file");
    let at = format!("@{}", empty.display());
    let status = clean_command(&test_python())
        .current_dir(&root)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", &at])
        .output()
        .expect("pytest");
    assert_eq!(
        status.status.code(),
        Some(5),
        "no tests ran: {}",
        String::from_utf8_lossy(&status.stdout)
    );
    let (made, _) = plan_json(
        &root,
        &[
            "--shards",
            "2",
            "--durations",
            d,
            "tests/test_db.py",
            "-k",
            "test_row",
        ],
    );
    assert_eq!(made["basis"]["tests"], 24);
}

#[test]
fn bad_input_is_refused_and_nothing_is_planned() {
    let (dir, root) = project_copy("sharding");
    let missing = dir.path().join("missing.json");
    let out = plan(
        &root,
        &[
            "--shards",
            "2",
            "--durations",
            missing.to_str().expect("path"),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("missing.json"), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, "{\"tests\": [").expect("write");
    let out = plan(
        &root,
        &[
            "--shards",
            "2",
            "--durations",
            broken.to_str().expect("path"),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = plan(&root, &["--shards", "2", "--format", "ids"]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stderr(&out).contains("-o DIR"), "{}", stderr(&out));
    let out = plan(&root, &["--shards", "0"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "clap refuses it: {}",
        stderr(&out)
    );
    // A file pytest cannot import: no plan that would leave its tests out.
    let (_errors, errors_root) = project_copy("collection_errors");
    let out = plan(&errors_root, &["--shards", "2"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("could not collect"),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn the_help_says_what_a_plan_is_made_of() {
    let out = clean_command(Path::new(BIN))
        .args(["plan", "--help"])
        .output()
        .expect("help");
    let help = String::from_utf8_lossy(&out.stdout);
    for needed in [
        "--shards",
        "--durations",
        "pytest-json-report",
        "--format",
        "shard-K.txt",
        "estimated",
        "-m",
        "-k",
    ] {
        assert!(help.contains(needed), "{needed} not in:\n{help}");
    }
    let top = clean_command(Path::new(BIN))
        .arg("--help")
        .output()
        .expect("help");
    assert!(String::from_utf8_lossy(&top.stdout).contains("plan"));
}

/// A small simulated suite (the bench's shape at 1/20): the planner's
/// slowest shard, judged by the suite's true costs, within 5% of the lower
/// bound and faster than both of pytest-split's.
#[test]
fn on_a_simulated_suite_the_plan_beats_pytest_split() {
    let suite = Suite::generate(Shape {
        tests: 5_000,
        modules: 100,
        modules_per_package: 10,
        seed: 7,
    });
    let tests = suite.planner_input();
    let stored = suite.stored_durations();
    for n in [5, 10] {
        let made = pytest_mcp::plan::plan(pytest_mcp::plan::Input {
            tests: &tests,
            shards: NonZeroUsize::new(n).expect("n > 0"),
            runs: 1,
        });
        let slowest =
            |groups: &[Vec<usize>]| suite.shard_times(groups).into_iter().fold(0.0, f64::max);
        let ours = slowest(&suite.shards_of(&made));
        let bound = suite.lower_bound(n);
        let least = slowest(&least_duration(&suite.ids, &stored, n));
        let chunks = slowest(&duration_based_chunks(&stored, n));
        assert!(ours <= 1.05 * bound, "{n} shards: {ours} vs bound {bound}");
        assert!(
            ours < least && ours < chunks,
            "{n} shards: ours {ours}, least_duration {least}, duration_based_chunks {chunks}"
        );
    }
}
