//! Shards run for real (issue 42): `tests/projects/sharding` (a module
//! fixture of 4 s, a `setup_class` of 3 s, four slow tests, 200 quick
//! ones) recorded once in full with pytest-json-report and pytest-split's
//! `--store-durations` together, then split in 3 three ways and each shard
//! run alone as a CI job would: our plan (`pytest-mcp plan --durations
//! report.json --format ids`, run as `pytest @shard-K.txt`), and
//! pytest-split's `least_duration` and `duration_based_chunks` from its own
//! durations file. A shard's time is its process's wall time, start and
//! collection included. Needs `.venv-bench` (pytest-split): `bash
//! benches/run.sh` makes it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::overhead::verdict;
use crate::proc::{median, timed};
use crate::{Env, secs};

const SHARDS: usize = 3;

/// Our slowest shard may take this much more than a third of the tests'
/// time plus one shard's start.
const WITHIN: f64 = 1.15;

/// The three ways to split.
const WAYS: [&str; 3] = ["pytest-mcp plan", "least_duration", "duration_based_chunks"];

pub fn run(env: &Env) {
    let Some(python) = env.bench_python.clone() else {
        println!("## 5b. Shards run: skipped (no .venv-bench; `bash benches/run.sh` makes it)\n");
        return;
    };
    let dir = env.inputs.join("sharding");
    let _ = std::fs::remove_dir_all(&dir);
    crate::loop_tokens::copy(&env.manifest.join("tests/projects/sharding"), &dir);
    eprintln!("shardrun: recording a full run of tests/projects/sharding ...");
    let full = pytest(&python, &dir)
        .args(["--json-report", "--json-report-file=report.json"])
        .args(["--store-durations", "--durations-path=.test_durations"])
        .status()
        .expect("the recorded run");
    assert!(full.success(), "the recorded run failed");
    let test_time = tests_time(&dir.join("report.json"));
    let startup = median(
        &(0..3)
            .map(|_| timed(pytest(&python, &dir).args(["--collect-only"])).wall)
            .collect::<Vec<_>>(),
    );
    let planned = plan(env, &python, &dir);
    // Shard by shard, the three ways one after the other: a slower spell
    // of the machine falls on all three alike.
    let mut times = vec![Vec::with_capacity(SHARDS); WAYS.len()];
    for k in 1..=SHARDS {
        for (w, way) in times.iter_mut().enumerate() {
            let sample = timed(&mut shard(&python, &dir, w, k));
            assert_eq!(sample.status, 0, "{} shard {k} failed", WAYS[w]);
            way.push(sample.wall);
            eprint!(".");
        }
    }
    eprintln!();
    print_table(&times, &planned, test_time, startup);
}

/// `python -m pytest -q -p no:cacheprovider` in `dir`, output dropped.
fn pytest(python: &Path, dir: &Path) -> Command {
    let mut c = Command::new(python);
    c.current_dir(dir)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .env_remove("PYTEST_ADDOPTS")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// Our plan: the ids files for the shards, and each shard's expected
/// seconds from the JSON plan.
fn plan(env: &Env, python: &Path, dir: &Path) -> Vec<f64> {
    let common = |c: &mut Command| {
        c.arg("plan")
            .args(["--shards", &SHARDS.to_string(), "--durations"])
            .arg(dir.join("report.json"))
            .arg("--root")
            .arg(dir)
            .arg("--python")
            .arg(python)
            .stdin(Stdio::null())
            .stderr(Stdio::null());
    };
    let mut ids = Command::new(&env.bin);
    common(&mut ids);
    let status = ids
        .args(["--format", "ids", "-o"])
        .arg(dir.join("shards"))
        .status();
    assert!(
        status.is_ok_and(|s| s.success()),
        "pytest-mcp plan --format ids failed"
    );
    let mut json = Command::new(&env.bin);
    common(&mut json);
    let out = json.output().expect("pytest-mcp plan");
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON plan");
    plan["shards"]
        .as_array()
        .expect("shards")
        .iter()
        .map(|s| s["seconds"].as_f64().expect("seconds"))
        .collect()
}

/// Shard `k` (1-based) of way `w`.
fn shard(python: &Path, dir: &Path, w: usize, k: usize) -> Command {
    let mut c = pytest(python, dir);
    if w == 0 {
        c.arg(format!("@{}", shard_file(dir, k).display()));
    } else {
        c.args(["--splits", &SHARDS.to_string(), "--group", &k.to_string()])
            .args(["--splitting-algorithm", WAYS[w]])
            .arg("--durations-path=.test_durations");
    }
    c
}

fn shard_file(dir: &Path, k: usize) -> PathBuf {
    dir.join("shards").join(format!("shard-{k}.txt"))
}

/// The recorded run's tests' time: every phase of every test.
fn tests_time(report: &Path) -> f64 {
    let text = std::fs::read_to_string(report).expect("the recorded report");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    doc["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .flat_map(|t| {
            ["setup", "call", "teardown"].map(|p| t[p]["duration"].as_f64().unwrap_or(0.0))
        })
        .sum()
}

fn print_table(times: &[Vec<f64>], planned: &[f64], test_time: f64, startup: f64) {
    let ideal = test_time / SHARDS as f64 + startup;
    println!("## 5b. Shards run: tests/projects/sharding in {SHARDS} shards, each run alone\n");
    println!(
        "The recorded full run's tests took {} (every phase of every test); one shard's start and collection (`pytest --collect-only`, median of 3) {}; so the ideal shard takes {}. Wall time of each shard's process, one round.\n",
        secs(test_time),
        secs(startup),
        secs(ideal)
    );
    println!("| split | shard 1 | shard 2 | shard 3 | slowest | slowest / ideal |");
    println!("|---|---|---|---|---|---|");
    let slowest = |w: usize| times[w].iter().copied().fold(0.0, f64::max);
    for (w, way) in WAYS.iter().enumerate() {
        let cells: Vec<String> = times[w].iter().map(|&t| secs(t)).collect();
        println!(
            "| {way} | {} | {} | {:.2}x |",
            cells.join(" | "),
            secs(slowest(w)),
            slowest(w) / ideal
        );
    }
    let expected: Vec<String> = planned.iter().map(|&s| secs(s + startup)).collect();
    println!(
        "| pytest-mcp plan, expected (seconds + start) | {} | | |",
        expected.join(" | ")
    );
    let ours = slowest(0);
    let theirs = slowest(1).min(slowest(2));
    println!("\nTargets:");
    println!(
        "- our slowest shard within {WITHIN}x of the ideal: {:.2}x {}",
        ours / ideal,
        verdict(ours <= WITHIN * ideal)
    );
    println!(
        "- faster than pytest-split's slowest (the better of its two): {} vs {} {}\n",
        secs(ours),
        secs(theirs),
        verdict(ours < theirs)
    );
}
