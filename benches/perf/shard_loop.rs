//! Shards as a new user meets them (issue 49): `tests/projects/sharding_loop`
//! (93 tests: a 2 s module fixture shared by 12, a 1.5 s `setup_class`
//! shared by 8, four slow tests, 69 quick ones) in an environment with
//! pytest and pytest-split only (no pytest-json-report:
//! `.venv-bench-plain`). One `pytest-mcp run` records the history, then
//! `pytest-mcp plan --shards 3 --root DIR` with no other option, then each
//! shard as a CI job runs it: `pytest-mcp run --plan plan.json --shard K`.
//! Against: plain `pytest @ids` on the same shard's ids (what the shard's
//! tests cost in one pytest, the 1.05x target) and pytest-split's two
//! algorithms from its own `--store-durations` run. A shard's time is its
//! process's wall time, start and collection included; shard by shard,
//! the ways alternate, and each shard's median over the rounds is kept.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::overhead::verdict;
use crate::proc::{median, timed};
use crate::{Env, secs};

const SHARDS: usize = 3;

/// Our slowest shard may take this much more than the bound.
const WITHIN: f64 = 1.15;

/// `run --shard` may take this much more than plain pytest on its ids.
const RUN_OVERHEAD: f64 = 1.05;

/// The ways a shard is run, in the order each round runs them.
const WAYS: [&str; 4] = [
    "pytest-mcp run --plan plan.json --shard K",
    "pytest @ids (the same shard's ids)",
    "pytest-split least_duration",
    "pytest-split duration_based_chunks",
];

pub fn run(env: &Env) {
    let python = env.manifest.join(".venv-bench-plain/bin/python");
    if !python.exists() {
        println!(
            "## 5c. Shards from the history: skipped (no .venv-bench-plain; `bash benches/run.sh` makes it)\n"
        );
        return;
    }
    let dir = env.inputs.join("sharding_loop");
    let _ = std::fs::remove_dir_all(&dir);
    crate::loop_tokens::copy(&env.manifest.join("tests/projects/sharding_loop"), &dir);
    eprintln!("shardloop: one pytest-mcp run, then pytest-split's --store-durations ...");
    let test_time = recorded_run(env, &python, &dir);
    let stored = quiet(
        pytest(&python, &dir).args(["--store-durations", "--durations-path=.test_durations"]),
    );
    assert!(
        stored.success(),
        "pytest-split's --store-durations run failed"
    );
    let startup = median(
        &(0..3)
            .map(|_| timed(pytest(&python, &dir).args(["--collect-only"])).wall)
            .collect::<Vec<_>>(),
    );
    let summary = plan(env, &python, &dir);
    let rounds = env.rounds.max(1);
    // times[way][shard]: the rounds' samples.
    let mut times: Vec<Vec<Vec<f64>>> = vec![vec![Vec::new(); SHARDS]; WAYS.len()];
    for _ in 0..rounds {
        for k in 1..=SHARDS {
            for (w, way) in times.iter_mut().enumerate() {
                let sample = timed(&mut shard(env, &python, &dir, w, k));
                assert_eq!(sample.status, 0, "{} shard {k} failed", WAYS[w]);
                way[k - 1].push(sample.wall);
                eprint!(".");
            }
        }
    }
    eprintln!();
    let medians: Vec<Vec<f64>> = times
        .iter()
        .map(|way| way.iter().map(|samples| median(samples)).collect())
        .collect();
    print_table(&medians, test_time, startup, &summary, rounds);
}

/// `python -m pytest -q` in `dir`, output dropped (the cache on, as a
/// user's pytest has it).
fn pytest(python: &Path, dir: &Path) -> Command {
    let mut c = Command::new(python);
    c.current_dir(dir)
        .args(["-m", "pytest", "-q"])
        .env_remove("PYTEST_ADDOPTS")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

fn quiet(c: &mut Command) -> std::process::ExitStatus {
    c.status().expect("start a process")
}

/// `pytest-mcp run` once, as the user does: it records the history under
/// `.pytest_cache`. Returns the tests' time (every test's duration).
fn recorded_run(env: &Env, python: &Path, dir: &Path) -> f64 {
    let out = Command::new(&env.bin)
        .args(["run", "--format", "json", "--root"])
        .arg(dir)
        .arg("--python")
        .arg(python)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .expect("pytest-mcp run");
    assert!(out.status.success(), "the recorded run failed");
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    answer["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| t["duration"].as_f64().unwrap_or(0.0))
        .sum()
}

/// `pytest-mcp plan --shards 3 --root DIR`, nothing else: the plan, and
/// the ids file of each shard for plain pytest. Returns its summary line.
fn plan(env: &Env, python: &Path, dir: &Path) -> String {
    let out = Command::new(&env.bin)
        .args(["plan", "--shards", &SHARDS.to_string(), "--root"])
        .arg(dir)
        .arg("--python")
        .arg(python)
        .arg("-o")
        .arg(dir.join("plan.json"))
        .stdin(Stdio::null())
        .output()
        .expect("pytest-mcp plan");
    assert!(out.status.success(), "pytest-mcp plan failed");
    let text = std::fs::read_to_string(dir.join("plan.json")).expect("plan.json");
    let plan: serde_json::Value = serde_json::from_str(&text).expect("a JSON plan");
    for (k, shard) in plan["shards"]
        .as_array()
        .expect("shards")
        .iter()
        .enumerate()
    {
        let ids: String = shard["tests"]
            .as_array()
            .expect("tests")
            .iter()
            .map(|id| format!("{}\n", id.as_str().expect("an id")))
            .collect();
        std::fs::write(ids_file(dir, k + 1), ids).expect("an ids file");
    }
    let said = String::from_utf8_lossy(&out.stderr);
    said.lines()
        .last()
        .unwrap_or_default()
        .trim_start_matches("pytest-mcp: ")
        .to_string()
}

fn ids_file(dir: &Path, k: usize) -> PathBuf {
    dir.join(format!("ids-{k}.txt"))
}

/// Shard `k` (1-based) of way `w`.
fn shard(env: &Env, python: &Path, dir: &Path, w: usize, k: usize) -> Command {
    if w == 0 {
        let mut c = Command::new(&env.bin);
        c.args(["run", "--no-history", "--plan"])
            .arg(dir.join("plan.json"))
            .args(["--shard", &k.to_string(), "--root"])
            .arg(dir)
            .arg("--python")
            .arg(python)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        return c;
    }
    let mut c = pytest(python, dir);
    if w == 1 {
        c.arg(format!("@{}", ids_file(dir, k).display()));
    } else {
        c.args(["--splits", &SHARDS.to_string(), "--group", &k.to_string()])
            .args([
                "--splitting-algorithm",
                WAYS[w].trim_start_matches("pytest-split "),
            ])
            .arg("--durations-path=.test_durations");
    }
    c
}

fn print_table(times: &[Vec<f64>], test_time: f64, startup: f64, summary: &str, rounds: usize) {
    let bound = test_time / SHARDS as f64 + startup;
    println!("## 5c. Shards from the history: tests/projects/sharding_loop in {SHARDS} shards\n");
    println!(
        "After one `pytest-mcp run` (pytest and pytest-split installed, not pytest-json-report), `pytest-mcp plan --shards {SHARDS} --root DIR` said: \"{summary}\"\n"
    );
    println!(
        "The recorded run's tests took {}; one start and collection (`pytest --collect-only`, median of 3) {}; the bound: {} / {SHARDS} + {} = {}. Each shard's process run alone, wall time, median of {rounds} round(s).\n",
        secs(test_time),
        secs(startup),
        secs(test_time),
        secs(startup),
        secs(bound)
    );
    println!("| way | shard 1 | shard 2 | shard 3 | slowest | slowest / bound |");
    println!("|---|---|---|---|---|---|");
    let slowest = |w: usize| times[w].iter().copied().fold(0.0, f64::max);
    for (w, way) in WAYS.iter().enumerate() {
        let cells: Vec<String> = times[w].iter().map(|&t| secs(t)).collect();
        println!(
            "| {way} | {} | {} | {:.2}x |",
            cells.join(" | "),
            secs(slowest(w)),
            slowest(w) / bound
        );
    }
    let ours = slowest(0);
    let theirs = slowest(2).min(slowest(3));
    let worst_overhead = (0..SHARDS)
        .map(|k| times[0][k] / times[1][k])
        .fold(0.0, f64::max);
    println!("\nTargets:");
    println!(
        "- our slowest shard within {WITHIN}x of the bound: {:.2}x {}",
        ours / bound,
        verdict(ours <= WITHIN * bound)
    );
    println!(
        "- faster than pytest-split's slowest (the better of its two): {} vs {} {}",
        secs(ours),
        secs(theirs),
        verdict(ours < theirs)
    );
    println!(
        "- `run --shard` at most {RUN_OVERHEAD}x plain pytest on the shard's ids, shard by shard: worst {:.3}x {}\n",
        worst_overhead,
        verdict(worst_overhead <= RUN_OVERHEAD)
    );
}
