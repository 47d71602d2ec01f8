//! Warm runs (issue 50): `execute_tests` through `pytest-mcp serve`, driven
//! by the MCP Python SDK (`benches/warm_driver.py`, run with
//! `.venv-bench-warm`'s Python), warm (`warm: true`: the run forked from a
//! Python that has pytest, the plugins and the project's libraries
//! imported) against cold (`warm: false`: a fresh Python), as an agent
//! re-runs after an edit: one test, and one file. Three real libraries'
//! own suites, unchanged (their sdists, pinned in `requirements-suites.txt`,
//! from `.suites/`; their libraries and test dependencies in
//! `requirements-bench-warm.txt`), and `tests/projects/warm_numpy`, whose
//! code imports numpy and pandas.
//!
//! One server session per suite (`serve --root SUITE --python
//! .venv-bench-warm/bin/python`). Per case, an untimed warm call and cold
//! call, then `--rounds` paired rounds (7 when not given): a comment line
//! appended to the test file, a warm call; another line, a cold call (the
//! order turning each round). Wall time of each call in the client; the ratio is the median
//! of the per-round ratios. The warm answers' `saved_seconds`
//! (`structuredContent.warm`) and the warm process's resident memory (its
//! command line holds `pytest_mcp_warm`) are reported beside them. Targets
//! (issue 50's "Done means"): warm at most 0.35x cold for one test, 0.8x
//! for one file.
//!
//! Every input is a copy under `target/bench-inputs/warm/`; the driver
//! restores the files it edits when a case ends.

use std::process::{Command, Stdio};

use pytest_mcp_testkit::real_suites;
use serde_json::{Value, json};

use crate::overhead::verdict;
use crate::proc::median;
use crate::{Env, secs};

/// Warm against cold, one test (issue 50).
const ONE_TEST: f64 = 0.35;
/// Warm against cold, one file (issue 50).
const ONE_FILE: f64 = 0.8;

/// Paired rounds per case without `--rounds`.
const ROUNDS: usize = 7;

/// Where a suite's tree comes from.
enum Source {
    /// An sdist in `.suites/` (`requirements-suites.txt`), extracted as is.
    Sdist(&'static str),
    /// A project of this repository, copied.
    Project(&'static str),
}

/// A suite and what is re-run in it: one test, and the file that holds it
/// (each little test time, so that the start is what is measured).
struct Suite {
    name: &'static str,
    source: Source,
    test: &'static str,
    file: &'static str,
}

const SUITES: &[Suite] = &[
    // hypothesis (its tests' strategies) and attrs, installed: the suite
    // runs with --import-mode=importlib, src/ unimportable.
    Suite {
        name: "attrs 26.1.0",
        source: Source::Sdist("attrs-26.1.0.tar.gz"),
        test: "tests/test_filters.py::TestSplitWhat::test_splits",
        file: "tests/test_filters.py",
    },
    // conftest.py imports trustme, cryptography and uvicorn; httpx itself
    // from the sdist's root.
    Suite {
        name: "httpx 0.28.1",
        source: Source::Sdist("httpx-0.28.1.tar.gz"),
        test: "tests/models/test_url.py::test_url_eq_str",
        file: "tests/models/test_url.py",
    },
    // conftest.py imports pydantic (from the sdist's root) and
    // pydantic-core; pytest-benchmark and pytest-run-parallel load.
    Suite {
        name: "pydantic 2.14.4",
        source: Source::Sdist("pydantic-2.14.4.tar.gz"),
        test: "tests/test_computed_fields.py::test_computed_fields_get",
        file: "tests/test_computed_fields.py",
    },
    Suite {
        name: "tests/projects/warm_numpy",
        source: Source::Project("tests/projects/warm_numpy"),
        test: "tests/test_sales.py::test_moving_average",
        file: "tests/test_sales.py",
    },
];

pub fn run(env: &Env) {
    let python = env.manifest.join(".venv-bench-warm/bin/python");
    if !python.exists() {
        println!(
            "## 5e. Warm runs: skipped (no .venv-bench-warm; `bash benches/run.sh --only warm` makes it)\n"
        );
        return;
    }
    let rounds = if env.rounds_given { env.rounds } else { ROUNDS };
    let base = env.inputs.join("warm");
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).expect("create target/bench-inputs/warm");
    let mut suites = Vec::new();
    for suite in SUITES {
        let root = base.join(folder(suite.name));
        match suite.source {
            Source::Sdist(sdist) => {
                let path = real_suites::sdists_dir().join(sdist);
                if !path.is_file() {
                    println!(
                        "## 5e. Warm runs: skipped ({} is missing: `bash scripts/setup.sh` downloads the sdists of requirements-suites.txt into .suites/)\n",
                        path.display()
                    );
                    return;
                }
                real_suites::extract(&path, &root).unwrap_or_else(|e| panic!("{e}"));
            }
            Source::Project(dir) => crate::loop_tokens::copy(&env.manifest.join(dir), &root),
        }
        suites.push(json!({
            "name": suite.name,
            "root": root,
            "env": {},
            "cases": [
                {"case": "one test", "target": suite.test, "edit": suite.file},
                {"case": "one file", "target": suite.file, "edit": suite.file},
            ],
        }));
    }
    let config = base.join("config.json");
    let results = base.join("results.json");
    let cfg = json!({
        "bin": env.bin,
        "python": python,
        "rounds": rounds,
        "timeout": 300,
        "logs": base,
        "suites": suites,
    });
    std::fs::write(&config, serde_json::to_string_pretty(&cfg).expect("JSON"))
        .expect("write config.json");
    eprintln!(
        "warm: {} suites, {} paired rounds per case, through the MCP Python SDK ...",
        SUITES.len(),
        rounds
    );
    let status = Command::new(&python)
        .arg(env.manifest.join("benches/warm_driver.py"))
        .arg("--config")
        .arg(&config)
        .arg("--out")
        .arg(&results)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .expect("run benches/warm_driver.py");
    assert!(
        status.success(),
        "benches/warm_driver.py failed ({status}); the servers' stderr is in {}",
        base.display()
    );
    let results: Value = serde_json::from_str(
        &std::fs::read_to_string(&results).expect("read the driver's results"),
    )
    .expect("the driver's results are JSON");
    table(env, rounds, &results);
}

/// A suite's folder under `target/bench-inputs/warm/`.
fn folder(name: &str) -> String {
    let last = name.rsplit('/').next().unwrap_or(name);
    last.split_whitespace().next().unwrap_or(last).to_string()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

fn table(env: &Env, rounds: usize, results: &Value) {
    println!(
        "## 5e. Warm runs (issue 50): execute_tests through pytest-mcp serve (MCP Python SDK), {} paired rounds after an edit\n",
        rounds
    );
    let refused = results["refused"].as_str();
    if let Some(refusal) = refused {
        println!(
            "**This build refused the `warm` argument** (`{refusal}`): it has no warm runs. Cold runs only, with no `warm` argument.\n"
        );
    }
    println!(
        "| suite | case | tests | cold (median) | warm (median) | warm / cold (median of per-round ratios) | target | cold − warm (median) | saved_seconds (median) | answers marked warm | warm process RSS (median) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for suite in results["suites"].as_array().into_iter().flatten() {
        for case in suite["cases"].as_array().into_iter().flatten() {
            let name = case["case"].as_str().unwrap_or_default();
            let target = if name == "one test" {
                ONE_TEST
            } else {
                ONE_FILE
            };
            let cold = floats(&case["cold"]);
            let warm = floats(&case["warm"]);
            let saved = floats(&case["saved"]);
            let rss = floats(&case["rss"]);
            let cold_median = if cold.is_empty() {
                "n/a".to_string()
            } else {
                secs(median(&cold))
            };
            let (warm_median, ratio, gained, marked) = if refused.is_some() || warm.is_empty() {
                let na = || "n/a".to_string();
                (na(), na(), na(), na())
            } else {
                let ratios: Vec<f64> = warm.iter().zip(&cold).map(|(w, c)| w / c).collect();
                let r = median(&ratios);
                // What a warm run saved, as the client saw it: the same
                // round's cold call less the warm one.
                let gains: Vec<f64> = warm.iter().zip(&cold).map(|(w, c)| c - w).collect();
                let mut marked = format!("{} of {}", case["warm_marked"], warm.len());
                if case["cold_marked"].as_u64().unwrap_or(0) > 0 {
                    marked.push_str(&format!(
                        "; {} cold answers marked warm",
                        case["cold_marked"]
                    ));
                }
                (
                    secs(median(&warm)),
                    format!("**{r:.2}x** {}", verdict(r <= target)),
                    format!("{:.2} s", median(&gains)),
                    marked,
                )
            };
            let saved = if saved.is_empty() {
                "n/a".to_string()
            } else {
                format!("{:.2} s", median(&saved))
            };
            let rss = if rss.is_empty() {
                "not found".to_string()
            } else {
                format!("{:.1} MiB", median(&rss) / (1024.0 * 1024.0))
            };
            println!(
                "| {} | {name}: `{}` | {} | {cold_median} | {warm_median} | {ratio} | ≤ {target}x | {gained} | {saved} | {marked} | {rss} |",
                suite["name"].as_str().unwrap_or_default(),
                case["target"].as_str().unwrap_or_default(),
                case["tests"],
            );
        }
    }
    println!(
        "\nEach suite's tree is a copy under {} (the servers' stderr beside them).\n",
        env.inputs.join("warm").display()
    );
}
