//! Token cost: o200k_base tokens of what an agent would read for the same
//! pytest run: `pytest-mcp run` Markdown, `pytest-mcp run --format json`
//! (ADR-006, compact, with `json_report` and `text_output`), and pytest's
//! own `python -m pytest -q` output (stdout). The targets are on the whole
//! Markdown answer (no character limit): every failing node id, message
//! and `file:line` must be in it (checked with the same code as
//! `tests/token_budget.rs`). The answer `run` prints by default, fitted to
//! 65,536 characters, is counted beside it: where it is shorter it cannot
//! carry every id, and must say what it left out.

use pytest_mcp::frontend::report;
use std::path::Path;
use std::process::Command;

use pytest_mcp::frontend::report::Input;
use pytest_mcp::request::OutputFormat;
use pytest_mcp_testkit::{inputs, tokens};

use crate::Env;
use crate::context::shortened;
use crate::overhead::verdict;
use crate::proc::stdout_of;

/// Markdown / JSON and Markdown / pytest -q budgets on failure scenarios.
const MAX_VS_JSON: f64 = 0.35;
const MAX_VS_PYTEST: f64 = 0.60;

/// Writes one scenario's project into the directory.
type MakeProject = Box<dyn Fn(&Path)>;

/// The scenarios: name, whether something fails, the project.
fn scenarios() -> Vec<(&'static str, bool, MakeProject)> {
    vec![
        (
            "all pass (100 tests)",
            false,
            Box::new(|d| inputs::pytest_project(d, 5, 20, &|_, _| false)),
        ),
        (
            "one failure (100 tests)",
            true,
            Box::new(|d| inputs::pytest_project(d, 5, 20, &|f, t| f == 2 && t == 11)),
        ),
        (
            "20 failures (100 tests)",
            true,
            Box::new(|d| inputs::pytest_project(d, 5, 20, &|_, t| t % 5 == 2)),
        ),
        (
            "collection errors (3 modules)",
            true,
            Box::new(inputs::collection_error_project),
        ),
        (
            "1,000 failures (2,000 tests)",
            true,
            Box::new(|d| inputs::pytest_project(d, 20, 100, &|_, t| t % 2 == 0)),
        ),
    ]
}

/// What each reader got in one scenario.
struct Texts {
    pytest_q: String,
    json: String,
    /// The whole Markdown answer (no character limit).
    whole: String,
    /// The Markdown `run` prints by default (fitted to 65,536 characters).
    fitted: String,
}

/// Runs pytest -q and pytest-mcp (JSON, whole Markdown, default Markdown)
/// in the scenario's project. Each pytest-mcp answer is a first run's:
/// pytest's cache is removed before it, so no answer says what changed
/// since the one before.
fn texts(env: &Env, dir: &Path) -> Texts {
    let pytest_q = stdout_of(
        Command::new(&env.python)
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .current_dir(dir),
    );
    let pytest_mcp = |args: &[&str]| {
        let _ = std::fs::remove_dir_all(dir.join(".pytest_cache"));
        stdout_of(
            Command::new(&env.bin)
                .arg("run")
                .arg("--root")
                .arg(dir)
                .arg("--python")
                .arg(&env.python)
                .args(args),
        )
    };
    Texts {
        pytest_q,
        json: pytest_mcp(&["--format", "json"]),
        whole: pytest_mcp(&["--format", "markdown", "--max-chars", "1000000000"]),
        fitted: pytest_mcp(&["--format", "markdown"]),
    }
}

/// Whether the whole Markdown carries every failing id, message and place
/// of the run the JSON answer's embedded JSON report (in `value`, the JSON
/// answer parsed) describes.
fn coverage_of(t: &Texts, value: &serde_json::Value) -> tokens::Coverage {
    let report = serde_json::to_vec(&value["json_report"]).expect("serialize");
    let run = report::read_run(
        &[Input {
            name: "report.json".into(),
            contents: Ok(report),
        }],
        report::Reading::for_format(OutputFormat::Json),
    )
    .expect("the embedded JSON report reads back");
    tokens::check_coverage(&t.json, &run, &t.whole)
}

/// Tokens of the JSON answer without the two keys that repeat pytest's own
/// records (what the structure alone costs).
fn lean_tokens(mut lean: serde_json::Value) -> usize {
    lean["json_report"] = serde_json::Value::Null;
    lean["text_output"] = serde_json::Value::Null;
    tokens::count_tokens(&lean.to_string())
}

pub fn run(env: &Env) {
    let base = env.inputs.join("tokens");
    println!("## 3. Token cost (tiktoken o200k_base)\n");
    println!(
        "| scenario | pytest -q | JSON (ADR-006) | JSON without json_report, text_output | Markdown | MD / JSON | MD / pytest -q | Markdown carries every failing id, message, file:line | Markdown at the default 65,536 characters |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut missed = Vec::new();
    for (i, (name, failures, make)) in scenarios().iter().enumerate() {
        let dir = base.join(format!("s{i}"));
        make(&dir);
        let t = texts(env, &dir);
        let (q, j, m, f) = (
            tokens::count_tokens(&t.pytest_q),
            tokens::count_tokens(t.json.trim_end()),
            tokens::count_tokens(&t.whole),
            tokens::count_tokens(&t.fitted),
        );
        let value: serde_json::Value =
            serde_json::from_str(&t.json).expect("run --format json prints JSON");
        let coverage = coverage_of(&t, &value);
        let lean = lean_tokens(value);
        let (vj, vq) = (m as f64 / j as f64, m as f64 / q as f64);
        let carried = if coverage.complete() {
            format!(
                "yes ({} tests, {} collection errors)",
                coverage.tests, coverage.collection_errors
            )
        } else {
            format!(
                "NO: {} missing, e.g. {}",
                coverage.missing.len(),
                coverage.missing[0]
            )
        };
        // The first line holds the run's duration, which differs by run.
        let fitted = if t.fitted.lines().skip(1).eq(t.whole.lines().skip(1)) {
            format!("{f} (the same)")
        } else if shortened(&t.fitted) {
            format!("{f} (shortened; says what it left out)")
        } else {
            format!("{f} (shortened WITHOUT saying so)")
        };
        let mark = |r: f64, max: f64| {
            if *failures && r > max {
                " (MISSED)"
            } else {
                ""
            }
        };
        println!(
            "| {name} | {q} | {j} | {lean} | {m} | {:.0}%{} | {:.0}%{} | {carried} | {fitted} |",
            vj * 100.0,
            mark(vj, MAX_VS_JSON),
            vq * 100.0,
            mark(vq, MAX_VS_PYTEST)
        );
        if *failures && (vj > MAX_VS_JSON || vq > MAX_VS_PYTEST || !coverage.complete()) {
            missed.push(*name);
        }
        std::fs::write(dir.join("pytest-q.txt"), &t.pytest_q).expect("write");
        std::fs::write(dir.join("run.md"), &t.whole).expect("write");
        std::fs::write(dir.join("run-default.md"), &t.fitted).expect("write");
        std::fs::write(dir.join("run.json"), &t.json).expect("write");
    }
    println!(
        "\nTargets on the failure scenarios: Markdown ≤ {:.0}% of the JSON and ≤ {:.0}% of pytest -q, complete: {}",
        MAX_VS_JSON * 100.0,
        MAX_VS_PYTEST * 100.0,
        if missed.is_empty() {
            verdict(true).to_string()
        } else {
            format!("{} {}", verdict(false), missed.join("; "))
        }
    );
    println!(
        "(the three texts of each scenario are kept in {}/s<N>/)\n",
        base.strip_prefix(&env.manifest).unwrap_or(&base).display()
    );
}
