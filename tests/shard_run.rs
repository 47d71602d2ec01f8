//! `run --shard` (docs/sharding.md, "Running a shard") on suites generated
//! here and run by pytest: the shards of one plan together run every
//! collected test exactly once, whether each job reads the plan file or
//! plans for itself from the same history; `--shard auto` under GitLab's,
//! CircleCI's and Buildkite's variables (and what it says under GitHub
//! Actions or none); an empty shard passes (exit status 0); a plan that no
//! longer matches the collection is told test by test, each new test run
//! by one shard; bad shards are refused; and a shard of 30,000 tests, whose
//! ids are more than a command line holds, runs. Each shard is one pytest
//! process: its tests are chosen in the run's own collection.
//!
//! Interpreter: `PYTEST_MCP_TEST_PYTHON`, else `.venv/bin/python`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

mod common;
use common::headline::{Verdict, run_failed, says};
use common::support::{clean_command, test_python};

const BIN: &str = env!("CARGO_BIN_EXE_pytest-mcp");

/// The variables of every CI `--shard auto` reads, and GitHub's.
const CI_VARS: &[&str] = &[
    "CI_NODE_INDEX",
    "CI_NODE_TOTAL",
    "CIRCLE_NODE_INDEX",
    "CIRCLE_NODE_TOTAL",
    "BUILDKITE_PARALLEL_JOB",
    "BUILDKITE_PARALLEL_JOB_COUNT",
    "GITHUB_ACTIONS",
    "GITHUB_STEP_SUMMARY",
];

/// A suite of `modules` modules under `root/tests`, each a class of
/// `per_module` parametrized cases (the module's first case fails in
/// module 1) with names of `name_len` characters or so.
fn suite(root: &Path, modules: usize, per_module: usize, name_len: usize) {
    let pad = "x".repeat(name_len.saturating_sub(20));
    std::fs::create_dir_all(root.join("tests")).expect("tests/");
    std::fs::write(root.join("pytest.ini"), "[pytest]\n").expect("pytest.ini");
    for m in 0..modules {
        let body = format!(
            "import pytest\n\n\nclass TestCase{pad}:\n    @pytest.mark.parametrize(\"v\", [f\"value-{pad}-{{i:05d}}\" for i in range({per_module})])\n    def test_case(self, v):\n        assert not ({m} == 1 and v.endswith(\"-00000\"))\n"
        );
        std::fs::write(root.join(format!("tests/test_mod_{pad}_{m:03}.py")), body)
            .expect("a module");
    }
}

/// `pytest-mcp ARGS...` in `root` with the test interpreter, none of the
/// CIs' variables set but `env`'s.
fn pytest_mcp(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = clean_command(Path::new(BIN));
    for var in CI_VARS {
        c.env_remove(var);
    }
    c.current_dir(root)
        .args(args)
        .arg("--python")
        .arg(test_python())
        .envs(env.iter().copied())
        .output()
        .expect("run pytest-mcp")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The tests a `--format json` answer lists, with their outcomes.
fn outcomes(out: &Output) -> BTreeMap<String, String> {
    let value: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    value["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| {
            (
                t["node_id"].as_str().expect("id").to_string(),
                t["outcome"].as_str().expect("outcome").to_string(),
            )
        })
        .collect()
}

/// The node ids of each shard of the plan at `path`.
fn plan_shards(path: &Path) -> Vec<Vec<String>> {
    let plan: Value = serde_json::from_slice(&std::fs::read(path).expect("plan")).expect("JSON");
    plan["shards"]
        .as_array()
        .expect("shards")
        .iter()
        .map(|s| {
            s["tests"]
                .as_array()
                .expect("tests")
                .iter()
                .map(|t| t.as_str().expect("id").to_string())
                .collect()
        })
        .collect()
}

/// A generated suite with one full run recorded in `history.sqlite`.
fn recorded_suite() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().to_path_buf();
    suite(&root, 5, 6, 20);
    let full = pytest_mcp(&root, &["run", "--history", "history.sqlite"], &[]);
    assert_eq!(full.status.code(), Some(1), "{}", stderr(&full));
    (dir, root)
}

#[test]
fn the_shards_of_one_plan_run_every_test_once_from_the_file_or_the_history() {
    let (_dir, root) = recorded_suite();
    let plan = ["plan", "--shards", "3", "--history", "history.sqlite"];
    let made = pytest_mcp(&root, &[&plan[..], &["-o", "plan.json"]].concat(), &[]);
    assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
    assert!(
        stderr(&made).contains("durations of 30 from 1 run"),
        "{}",
        stderr(&made)
    );
    // Byte for byte the same plan from the same history and collection.
    let again = pytest_mcp(&root, &plan, &[]);
    assert_eq!(
        String::from_utf8_lossy(&again.stdout),
        std::fs::read_to_string(root.join("plan.json")).expect("plan")
    );
    let shards = plan_shards(&root.join("plan.json"));
    let mut ran: BTreeMap<String, usize> = BTreeMap::new();
    for k in 1..=3 {
        let shard = k.to_string();
        let args = ["run", "--history", "history.sqlite", "--format", "json"];
        let out = pytest_mcp(
            &root,
            &[&args[..], &["--plan", "plan.json", "--shard", &shard]].concat(),
            &[],
        );
        let tests = outcomes(&out);
        assert_eq!(
            tests.keys().cloned().collect::<Vec<_>>(),
            {
                let mut ids = shards[k - 1].clone();
                ids.sort();
                ids
            },
            "shard {k} runs its planned tests"
        );
        for id in tests.keys() {
            *ran.entry(id.clone()).or_default() += 1;
        }
        // A job that plans for itself from the same history runs the same
        // tests: the shards recorded meanwhile are not read by plans.
        let k_of_n = format!("{k}/3");
        let own = pytest_mcp(&root, &[&args[..], &["--shard", &k_of_n]].concat(), &[]);
        assert_eq!(
            outcomes(&own).keys().collect::<Vec<_>>(),
            tests.keys().collect::<Vec<_>>()
        );
    }
    assert_eq!(ran.len(), 30, "every collected test ran");
    assert!(ran.values().all(|&n| n == 1), "no test ran twice: {ran:?}");
}

/// The recorded suite and a plan of 3 shards made from its history.
fn planned_in_three() -> (tempfile::TempDir, PathBuf) {
    let (dir, root) = recorded_suite();
    let made = pytest_mcp(
        &root,
        &[
            "plan",
            "--shards",
            "3",
            "--history",
            "history.sqlite",
            "-o",
            "plan.json",
        ],
        &[],
    );
    assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
    (dir, root)
}

/// `run --plan plan.json --shard auto`, answering in JSON.
const AUTO_RUN: [&str; 8] = [
    "run",
    "--no-history",
    "--format",
    "json",
    "--plan",
    "plan.json",
    "--shard",
    "auto",
];

#[test]
fn auto_takes_the_shard_from_each_cis_variables() {
    let (_dir, root) = planned_in_three();
    let mut second = plan_shards(&root.join("plan.json"))[1].clone();
    second.sort();
    let run = AUTO_RUN;
    for (ci, env) in [
        (
            "GitLab CI",
            [("CI_NODE_INDEX", "2"), ("CI_NODE_TOTAL", "3")],
        ),
        (
            "CircleCI",
            [("CIRCLE_NODE_INDEX", "1"), ("CIRCLE_NODE_TOTAL", "3")],
        ),
        (
            "Buildkite",
            [
                ("BUILDKITE_PARALLEL_JOB", "1"),
                ("BUILDKITE_PARALLEL_JOB_COUNT", "3"),
            ],
        ),
    ] {
        let out = pytest_mcp(&root, &run, &env);
        assert!(
            stderr(&out).contains(&format!("shard 2 of 3 ({ci}'s parallel job)")),
            "{}",
            stderr(&out)
        );
        assert_eq!(
            outcomes(&out).into_keys().collect::<Vec<_>>(),
            second,
            "{ci}"
        );
    }
}

#[test]
fn auto_without_a_ci_or_beyond_the_plan_is_refused() {
    let (_dir, root) = planned_in_three();
    let run = AUTO_RUN;
    // A plan of 3 and a CI of 4 jobs: no such shard in the plan.
    let four = pytest_mcp(
        &root,
        &run,
        &[("CI_NODE_INDEX", "4"), ("CI_NODE_TOTAL", "4")],
    );
    assert_eq!(four.status.code(), Some(4), "{}", stderr(&four));
    assert!(
        stderr(&four).contains("a plan of 3 shards"),
        "{}",
        stderr(&four)
    );
    let github = pytest_mcp(&root, &run, &[("GITHUB_ACTIONS", "true")]);
    assert_eq!(github.status.code(), Some(4));
    assert!(
        stderr(&github).contains("matrix.shard"),
        "{}",
        stderr(&github)
    );
    let none = pytest_mcp(&root, &run, &[]);
    assert_eq!(none.status.code(), Some(4));
    assert!(
        stderr(&none).contains("CIRCLE_NODE_INDEX"),
        "{}",
        stderr(&none)
    );
}

#[test]
fn an_empty_shard_passes_and_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    suite(dir.path(), 1, 2, 20);
    let out = pytest_mcp(dir.path(), &["run", "--no-history", "--shard", "5/5"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Shard 5 of 5 (planned with no history: every test counted alike) is empty (the plan has more shards than there are tests): nothing ran, and that is a pass."),
        "{text}"
    );
    let json = pytest_mcp(
        dir.path(),
        &["run", "--no-history", "--shard", "3/5", "--format", "json"],
        &[],
    );
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    let value: Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(value["exit_code"], 0);
    assert_eq!(value["summary"]["total"], 0);
}

#[test]
fn a_plan_that_no_longer_matches_is_told_and_new_tests_run_once() {
    let (_dir, root) = recorded_suite();
    let made = pytest_mcp(
        &root,
        &[
            "plan",
            "--shards",
            "2",
            "--history",
            "history.sqlite",
            "-o",
            "plan.json",
        ],
        &[],
    );
    assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
    // Since the plan: a test deleted, and a new module.
    let mut plan: Value =
        serde_json::from_slice(&std::fs::read(root.join("plan.json")).expect("plan"))
            .expect("JSON");
    let first = plan["shards"][0]["tests"][0].as_str().expect("an id");
    let gone = format!("{}[deleted]", first.split('[').next().expect("a function"));
    plan["shards"][0]["tests"]
        .as_array_mut()
        .expect("tests")
        .push(Value::from(gone.as_str()));
    std::fs::write(root.join("plan.json"), plan.to_string()).expect("write");
    std::fs::write(
        root.join("tests/test_new.py"),
        "def test_one():\n    pass\n\n\ndef test_two():\n    pass\n",
    )
    .expect("new module");
    let mut ran = Vec::new();
    for k in ["1", "2"] {
        let args = [
            "run",
            "--no-history",
            "--format",
            "json",
            "--plan",
            "plan.json",
            "--shard",
            k,
        ];
        let out = pytest_mcp(&root, &args, &[]);
        let err = stderr(&out);
        assert!(
            err.contains("1 test of the plan is not collected now"),
            "{err}"
        );
        assert!(err.contains(&gone), "{err}");
        assert!(
            err.contains("2 tests collected are not in the plan"),
            "{err}"
        );
        assert!(
            err.contains("tests/test_new.py::test_one -> shard"),
            "{err}"
        );
        ran.extend(outcomes(&out).into_keys());
    }
    ran.sort();
    assert_eq!(ran.len(), 32, "30 planned and 2 new tests, each once");
    ran.dedup();
    assert_eq!(ran.len(), 32);
}

#[test]
fn bad_shards_and_plans_are_refused_saying_why() {
    let dir = tempfile::tempdir().expect("tempdir");
    suite(dir.path(), 1, 2, 20);
    let no_shard = pytest_mcp(dir.path(), &["run", "--plan", "plan.json"], &[]);
    assert_eq!(no_shard.status.code(), Some(2), "--plan needs --shard");
    assert!(
        stderr(&no_shard).contains("--shard"),
        "{}",
        stderr(&no_shard)
    );
    std::fs::write(dir.path().join("not-a-plan.json"), "{\"shards\": 3}").expect("write");
    for (args, says) in [
        (&["--shard", "4/3"][..], "there is no shard 4 of 3"),
        (&["--shard", "0/3"], "count shards from 1"),
        (&["--shard", "two"], "K is not a number"),
        (&["--shard", "2"], "a shard number alone needs the plan"),
        (
            &["--shard", "1", "--plan", "missing.json"],
            "must be a plan file pytest-mcp can read",
        ),
        (
            &["--shard", "1", "--plan", "not-a-plan.json"],
            "is not a plan",
        ),
        (&["--shard", "1/2", "--last-failed"], "cannot be used with"),
    ] {
        let out = pytest_mcp(dir.path(), &[&["run"][..], args].concat(), &[]);
        assert!(
            matches!(out.status.code(), Some(2 | 4)),
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
}

/// The shard's ids pass between pytest and `select-shard` through pipes,
/// never a command line: a shard of more ids than a command line holds
/// runs, in one pytest process.
#[test]
fn a_shard_of_30000_tests_runs_past_the_command_lines_limit() {
    let dir = tempfile::tempdir().expect("tempdir");
    // 100 modules of 300 tests, ids of about 200 characters: 6 MB of ids,
    // three times what Linux lets a command line carry (2 MiB, ARG_MAX).
    suite(dir.path(), 100, 300, 80);
    let out = pytest_mcp(
        dir.path(),
        &[
            "run",
            "--no-history",
            "--shard",
            "1/1",
            "--max-chars",
            "2000",
            // What is tested is the command line's limit, not time: the
            // 30,000 tests take about two minutes on two idle cores, past
            // the default 300 s on a loaded CI machine (they once did).
            "--timeout",
            "1800",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(says(&text, Verdict::Failure), "{text}");
    assert!(text.contains(&run_failed(30000, 1)), "{text}");
    assert!(text.contains("Shard 1 of 1"), "{text}");
    let plan = pytest_mcp(dir.path(), &["plan", "--shards", "1"], &[]);
    let bytes: usize = plan_ids_bytes(&plan.stdout);
    assert!(bytes > 3 * 2 * 1024 * 1024, "{bytes} bytes of ids");
}

/// The bytes of all node ids of a plan, one argument each.
fn plan_ids_bytes(plan: &[u8]) -> usize {
    let value: Value = serde_json::from_slice(plan).expect("a plan");
    value["shards"]
        .as_array()
        .expect("shards")
        .iter()
        .flat_map(|s| s["tests"].as_array().expect("tests").iter())
        .map(|t| t.as_str().expect("id").len() + 1)
        .sum()
}

#[test]
fn report_plan_names_a_withheld_shards_tests_and_fails() {
    let (_dir, root) = recorded_suite();
    let made = pytest_mcp(
        &root,
        &[
            "plan",
            "--shards",
            "3",
            "--history",
            "history.sqlite",
            "-o",
            "plan.json",
        ],
        &[],
    );
    assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
    std::fs::create_dir_all(root.join("results")).expect("results/");
    for k in ["1", "2", "3"] {
        let out = format!("results/shard-{k}.xml");
        let args = ["run", "--no-history", "--plan", "plan.json", "--shard", k];
        let ran = pytest_mcp(
            &root,
            &[&args[..], &["--format", "junit", "-o", &out]].concat(),
            &[],
        );
        assert!(matches!(ran.status.code(), Some(0 | 1)), "{}", stderr(&ran));
    }
    // The plan kept beside the results is no result file.
    std::fs::copy(root.join("plan.json"), root.join("results/plan.json")).expect("copy");
    let report = |files: &[&str]| {
        let plan = ["report", "--plan", "results/plan.json", "--format", "json"];
        let args = [&plan[..], files].concat();
        let mut c = clean_command(Path::new(BIN));
        let out = c.current_dir(&root).args(args).output().expect("report");
        let value: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        (out.status.code(), value)
    };
    let (status, all) = report(&["results/"]);
    assert_eq!(status, Some(0), "every planned test ran once: {all:#}");
    assert_eq!(all["shards"]["came_back"], serde_json::json!([1, 2, 3]));
    assert_eq!(all["shards"]["not_run"], serde_json::json!([]));
    assert_eq!(all["summary"]["total"], 30);
    let (status, lost) = report(&["results/shard-1.xml", "results/shard-3.xml"]);
    assert_eq!(status, Some(1), "a lost shard fails the build");
    let second = plan_shards(&root.join("plan.json"))[1].clone();
    assert_eq!(lost["shards"]["missing"], serde_json::json!([2]));
    assert_eq!(lost["shards"]["not_run"], serde_json::json!(second));
    let errors: Vec<&str> = lost["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .filter(|t| t["outcome"] == "error")
        .map(|t| t["node_id"].as_str().expect("id"))
        .collect();
    assert_eq!(errors, second, "each an error of the run");
    // Markdown says it too.
    let md = clean_command(Path::new(BIN))
        .current_dir(&root)
        .args([
            "report",
            "--plan",
            "plan.json",
            "results/shard-1.xml",
            "results/shard-3.xml",
        ])
        .output()
        .expect("report");
    let text = String::from_utf8_lossy(&md.stdout);
    assert!(text.contains("shard 2 did not"), "{text}");
    assert!(text.contains(&second[0]), "{text}");
}

/// A shard is one pytest process, which collects once and runs the
/// shard's tests (the plugin chooses them in that collection); under
/// pytest-xdist each worker chooses alike and the shard runs once.
#[test]
fn a_shard_is_one_pytest_process_even_under_workers() {
    let (_dir, root) = planned_in_three();
    // Every pytest process that starts (not an xdist worker) leaves a line.
    std::fs::write(
        root.join("conftest.py"),
        "import os\n\n\ndef pytest_configure(config):\n    if not hasattr(config, 'workerinput'):\n        with open('starts.txt', 'a') as f:\n            f.write(f'{os.getpid()}\\n')\n",
    )
    .expect("conftest");
    let shards = plan_shards(&root.join("plan.json"));
    let mut first = shards[0].clone();
    first.sort();
    // AUTO_RUN with the shard named.
    let run = [&AUTO_RUN[..7], &["1"]].concat();
    let out = pytest_mcp(&root, &run, &[]);
    assert_eq!(
        outcomes(&out).into_keys().collect::<Vec<_>>(),
        first,
        "{}",
        stderr(&out)
    );
    let starts = std::fs::read_to_string(root.join("starts.txt")).expect("starts.txt");
    assert_eq!(starts.lines().count(), 1, "one pytest process: {starts}");
    let workers = pytest_mcp(&root, &[&run[..], &["--workers", "2"]].concat(), &[]);
    assert_eq!(
        outcomes(&workers).into_keys().collect::<Vec<_>>(),
        first,
        "{}",
        stderr(&workers)
    );
    assert!(
        stderr(&workers).contains("Shard 1 of 3 (plan.json)"),
        "{}",
        stderr(&workers)
    );
}
