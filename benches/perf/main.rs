//! pytest-mcp's benchmarks (issue 6). Prints figures; nothing here is a
//! timed test, and under `cargo test` it only says how to run it.
//!
//! ```text
//! bash benches/run.sh                      # everything (what BENCHMARKS.md shows)
//! bash benches/run.sh --only report,tokens # some sections
//! bash benches/run.sh --rounds 9           # more samples per command
//! bash benches/run.sh --only compare --baseline OLD/target/release/pytest-mcp
//! ```
//!
//! Sections, each one table:
//! - `overhead`: `pytest-mcp run` against `python -m pytest -q` on a
//!   generated 5,000-test suite, and what each result source costs inside
//!   pytest (JUnit XML, pytest-json-report, the event log), plus
//!   pytest-mcp's own fixed costs (the interpreter probe).
//! - `runcost`: `pytest-mcp run` at default settings and at
//!   `--verbosity -1` against pytest writing both sources itself (issue 13).
//! - `history`: `pytest-mcp run` recording its run in the history of runs
//!   against `run --no-history` (issue 32: under 5%), `report` of the
//!   suite's result files with and without `--history`, the history's steps
//!   timed in-process, and the store's size over 60 recorded runs.
//! - `report`: `pytest-mcp report` on a 100,000-case JUnit XML and its
//!   pytest-json-report twin, against a bare quick-xml event scan (the
//!   limit), the junit-parser crate and Python's junitparser.
//! - `shards`: `report` over 1 to 10 shard files of 100,000 cases each,
//!   one file at a time (`--threads 1`) against all cores (the default),
//!   and the `--baseline` build on all ten when given (issue 24).
//! - `untimed`: `report` over one and ten of those shards with no suite
//!   `time` (the duration the tests' sum), against ten single reads and
//!   100 MiB of peak RSS, and the `--baseline` build when given (issue 49).
//! - `tokens`: o200k_base tokens of the Markdown, the ADR-006 JSON and
//!   pytest's own `-q` output for the same runs.
//! - `server`: a `discover_tests` round trip through `pytest-mcp serve`
//!   against `pytest --collect-only -q`.
//! - `context`: o200k_base tokens of `run`/`execute_tests` and
//!   `discover`/`discover_tests` answers on issue 15's projects
//!   (`tests/projects/root_causes`, `tests/projects/discover_many`) against
//!   pytest's `-q` and `--collect-only -q` output, at the MCP tools'
//!   default token budget and at `max_tokens: 400`.
//! - `suites`: o200k_base tokens of `pytest -q`, `pytest -q --tb=line`,
//!   `pytest -q --tb=short` and `pytest-mcp run` on real libraries' own
//!   test suites with bugs injected (the testkit's `real_suites`, sdists in
//!   `.suites/`) and on `tests/projects/mixed` (issue 33).
//! - `plan`: the shard planner on a simulated suite of 100,000 tests in
//!   2,000 modules (heavy-tailed durations, module fixtures), 50 and 200
//!   shards: the slowest shard's true time against the lower bound and
//!   against pytest-split's two algorithms ported (the testkit's
//!   `sharding`), and the time planning takes (issue 42).
//! - `shardrun`: `tests/projects/sharding` recorded once, then split in 3
//!   by `pytest-mcp plan` and by pytest-split's two algorithms (from its
//!   own `--store-durations`), each shard run alone and timed (needs
//!   `.venv-bench`, which has pytest-split).
//! - `shardloop`: `tests/projects/sharding_loop` as a new user shards it
//!   (issue 49): one `pytest-mcp run`, `plan --shards 3 --root DIR` alone,
//!   then `run --plan plan.json --shard K`, against plain `pytest @ids` on
//!   each shard's ids and pytest-split's two algorithms (needs
//!   `.venv-bench-plain`: pytest and pytest-split, no pytest-json-report).
//! - `warm`: `execute_tests` warm against cold through `pytest-mcp serve`,
//!   driven by the MCP Python SDK (`benches/warm_driver.py`), one test and
//!   one file re-run after an edit, on three real suites (attrs, httpx,
//!   pydantic: sdists in `.suites/`) and `tests/projects/warm_numpy`
//!   (issue 50; needs `.venv-bench-warm`).
//! - `coverage`: `report --coverage coverage.xml` against `report` alone
//!   on a generated project of 50,000 statement lines with a change in 20
//!   modules (issue 48 item 6: within 2x).
//! - `compare` (with `--baseline BIN`, an earlier build): `report` on the
//!   100,000-case files by that build and this one, alternated, with
//!   ratios and callgrind instruction counts; and `--max-tokens 8000`.
//!
//! The machine is shared and noisy: commands compared are run in
//! alternating order, each round rotating which goes first, and figures are
//! medians (ratios: the median of the per-round ratios).
//!
//! The harness also runs itself as a subprocess in two internal modes, so
//! that the reference readers pay a process start like `pytest-mcp report`
//! does: `--scan FILE` (quick-xml event count) and `--junit-parser FILE`;
//! and a third, `--generate-reports DIR CASES`, so that the big inputs are
//! built in a process of their own: Linux counts the spawning process's
//! peak RSS in a child's `ru_maxrss` (the memory it had before `exec`), so
//! the harness must stay small for the peak RSS figures to be the child's.

mod compare;
mod context;
mod coverage_report;
mod history_cost;
mod history_store;
mod loop_tokens;
mod overhead;
mod plan;
mod proc;
mod run_cost;
mod server;
mod shard_loop;
mod shard_run;
mod shards;
mod suites;
mod throughput;
mod token_cost;
mod warm;

use std::path::{Path, PathBuf};

use pytest_mcp_testkit::inputs;

/// Where everything the harness needs lives.
pub struct Env {
    /// The release `pytest-mcp` binary cargo built for this bench.
    pub bin: PathBuf,
    /// This harness's own executable (for `--scan` / `--junit-parser`).
    pub me: PathBuf,
    /// `.venv/bin/python` (pytest 9.2.0, pytest-json-report, the MCP SDK).
    pub python: PathBuf,
    /// `.venv-bench/bin/python` with junitparser, when set up.
    pub bench_python: Option<PathBuf>,
    /// `target/bench-inputs/`: generated inputs, rewritten each run.
    pub inputs: PathBuf,
    pub manifest: PathBuf,
    /// Samples per command.
    pub rounds: usize,
    /// Whether `--rounds` was given (a section may default to more).
    pub rounds_given: bool,
    /// `--baseline BIN`: an earlier build of `pytest-mcp` for `compare`.
    pub baseline: Option<PathBuf>,
}

const SECTIONS: &[&str] = &[
    "overhead",
    "runcost",
    "history",
    "report",
    "shards",
    "untimed",
    "tokens",
    "loop",
    "server",
    "context",
    "suites",
    "plan",
    "shardrun",
    "shardloop",
    "warm",
    "coverage",
    "compare",
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--scan") => return throughput::scan_main(Path::new(&args[1])),
        Some("--junit-parser") => return throughput::junit_parser_main(Path::new(&args[1])),
        Some("--json-scan") => return throughput::json_scan_main(Path::new(&args[1])),
        Some("--generate-shards") => {
            shards::generate_main(Path::new(&args[1]), args[2].parse().expect("a shard count"));
            return;
        }
        Some("--generate-reports") => {
            inputs::big_reports(Path::new(&args[1]), args[2].parse().expect("a case count"));
            return;
        }
        _ => {}
    }
    // `cargo test --all-targets` runs bench targets too, without `--bench`
    // (a manifest flag cannot exclude a bench from it): the benchmarks
    // take minutes, so they run only under `cargo bench` / benches/run.sh.
    if !args.iter().any(|a| a == "--bench") {
        println!(
            "benches/perf: not a test; run `bash benches/run.sh` (or `cargo bench --bench perf`)"
        );
        return;
    }
    let mut rounds = 5;
    let mut rounds_given = false;
    let mut baseline = None;
    let mut only: Vec<String> = SECTIONS.iter().map(|s| s.to_string()).collect();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--rounds" => {
                rounds = it
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|&n: &usize| n >= 1)
                    .expect("--rounds takes a number >= 1");
                rounds_given = true;
            }
            "--only" => {
                only = it
                    .next()
                    .expect("--only takes a comma-separated list")
                    .split(',')
                    .map(str::to_string)
                    .collect();
                for s in &only {
                    assert!(
                        SECTIONS.contains(&s.as_str()),
                        "unknown section {s}; known: {SECTIONS:?}"
                    );
                }
            }
            "--baseline" => {
                let bin = PathBuf::from(it.next().expect("--baseline takes a pytest-mcp binary"));
                assert!(bin.exists(), "--baseline: {} does not exist", bin.display());
                baseline = Some(bin);
            }
            // cargo bench passes --bench to harness=false targets.
            "--bench" => {}
            other => panic!("unknown argument {other}; see benches/perf/main.rs"),
        }
    }
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let python = manifest.join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run `bash scripts/setup.sh` (or `bash benches/run.sh`, which does)",
        python.display()
    );
    let bench_python = Some(manifest.join(".venv-bench/bin/python")).filter(|p| p.exists());
    let env = Env {
        bin: PathBuf::from(env!("CARGO_BIN_EXE_pytest-mcp")),
        me: std::env::current_exe().expect("own path"),
        python,
        bench_python,
        inputs: manifest.join("target/bench-inputs"),
        manifest,
        rounds,
        rounds_given,
        baseline,
    };
    std::fs::create_dir_all(&env.inputs).expect("create target/bench-inputs");
    println!("# pytest-mcp benchmarks\n");
    println!("{}\n", machine());
    for section in SECTIONS.iter().filter(|s| only.iter().any(|o| o == *s)) {
        match *section {
            "overhead" => overhead::run(&env),
            "runcost" => run_cost::run(&env),
            "history" => history_cost::run(&env),
            "report" => throughput::run(&env),
            "coverage" => coverage_report::run(&env),
            "shards" => shards::run(&env),
            "untimed" => shards::run_untimed(&env),
            "tokens" => token_cost::run(&env),
            "loop" => loop_tokens::run(&env),
            "server" => server::run(&env),
            "context" => context::run(&env),
            "suites" => suites::run(&env),
            "plan" => plan::run(&env),
            "shardrun" => shard_run::run(&env),
            "shardloop" => shard_loop::run(&env),
            "warm" => warm::run(&env),
            "compare" => compare::run(&env),
            _ => unreachable!(),
        }
    }
}

/// One line saying what ran where.
fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let mem_gb = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .next()
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map(|kb| kb / 1024.0 / 1024.0)
        .unwrap_or(0.0);
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load: Vec<&str> = load.split_whitespace().take(3).collect();
    format!(
        "Machine: {cores} cores, {cpu}, {mem_gb:.1} GiB RAM; load average at start {}",
        load.join(" ")
    )
}

/// Seconds as the table shows them.
pub fn secs(s: f64) -> String {
    if s < 1.0 {
        format!("{:.1} ms", s * 1000.0)
    } else {
        format!("{s:.2} s")
    }
}

/// Rotates `0..n` by `round`: each command goes first in some round.
pub fn order(n: usize, round: usize) -> Vec<usize> {
    (0..n).map(|i| (i + round) % n).collect()
}

/// Times `n` commands (`command(i)`, named `name(i)`) over `rounds`
/// alternated rounds, each writing its output to the file `out`, as
/// `report ... > comment.md` would, and its stderr to `stderr()`. Each must
/// succeed. Returns every command's samples and its output's size.
pub fn alternated(
    n: usize,
    rounds: usize,
    out: &Path,
    name: impl Fn(usize) -> String,
    command: impl Fn(usize) -> std::process::Command,
    stderr: impl Fn() -> std::process::Stdio,
) -> (Vec<Vec<proc::Sample>>, Vec<u64>) {
    let mut samples = vec![Vec::new(); n];
    let mut outputs = vec![0u64; n];
    for round in 0..rounds {
        for i in order(n, round) {
            let sink = std::fs::File::create(out).expect("output file");
            let mut c = command(i);
            c.stdin(std::process::Stdio::null())
                .stdout(sink)
                .stderr(stderr());
            let s = proc::timed(&mut c);
            assert_eq!(s.status, 0, "{} exited {}", name(i), s.status);
            outputs[i] = std::fs::metadata(out).map_or(0, |m| m.len());
            samples[i].push(s);
            eprint!(".");
        }
    }
    eprintln!();
    (samples, outputs)
}
