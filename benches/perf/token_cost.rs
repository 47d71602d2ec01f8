//! Token cost: o200k_base tokens of what an agent would read for the same
//! pytest run: `pytest-mcp run` Markdown, `pytest-mcp run --format json`
//! (ADR-006, compact, with `json_report` and `text_output`), and pytest's
//! own `python -m pytest -q` output (stdout). Every failing node id, message
//! and `file:line` must still be in the Markdown (checked with the same code
//! as `tests/token_budget.rs`).

use std::path::Path;
use std::process::{Command, Stdio};

use pytest_mcp::frontend::report::{Input, build_run};
use pytest_mcp::request::Format;

use crate::overhead::verdict;
use crate::{Env, inputs};

#[path = "../../tests/common/tokens.rs"]
pub(crate) mod tokens;

/// Markdown / JSON and Markdown / pytest -q budgets on failure scenarios.
const MAX_VS_JSON: f64 = 0.35;
const MAX_VS_PYTEST: f64 = 0.60;

/// Runs `cmd` and returns its stdout (stderr is dropped).
pub(crate) fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .expect("spawn");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Writes one scenario's project into the directory.
type MakeProject = Box<dyn Fn(&Path)>;

pub fn run(env: &Env) {
    let base = env.inputs.join("tokens");
    let scenarios: Vec<(&str, bool, MakeProject)> = vec![
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
    ];
    println!("## 3. Token cost (tiktoken o200k_base)\n");
    println!(
        "| scenario | pytest -q | JSON (ADR-006) | JSON without json_report, text_output | Markdown | MD / JSON | MD / pytest -q | Markdown carries every failing id, message, file:line |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let mut missed = Vec::new();
    for (i, (name, failures, make)) in scenarios.iter().enumerate() {
        let dir = base.join(format!("s{i}"));
        make(&dir);
        let pytest_q = stdout_of(
            Command::new(&env.python)
                .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
                .current_dir(&dir),
        );
        let pytest_mcp = |format: &str| {
            stdout_of(
                Command::new(&env.bin)
                    .arg("run")
                    .arg("--root")
                    .arg(&dir)
                    .arg("--python")
                    .arg(&env.python)
                    .args(["--format", format]),
            )
        };
        let markdown = pytest_mcp("markdown");
        let json = pytest_mcp("json");
        let (q, j, m) = (
            tokens::count_tokens(&pytest_q),
            tokens::count_tokens(json.trim_end()),
            tokens::count_tokens(&markdown),
        );
        // The run the coverage check compares with: the JSON report the
        // JSON answer carries, read back by the crate.
        let value: serde_json::Value =
            serde_json::from_str(&json).expect("run --format json prints JSON");
        let report = serde_json::to_vec(&value["json_report"]).expect("serialize");
        let run = build_run(
            &[Input {
                name: "report.json".into(),
                contents: Ok(report),
            }],
            Format::Json,
        )
        .expect("the embedded JSON report reads back");
        let coverage = tokens::check_coverage(&json, &run, &markdown);
        // The same JSON without the two keys that repeat pytest's own
        // records (what the structure alone costs).
        let mut lean = value.clone();
        lean["json_report"] = serde_json::Value::Null;
        lean["text_output"] = serde_json::Value::Null;
        let lean = tokens::count_tokens(&lean.to_string());
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
        let mark = |r: f64, max: f64| {
            if *failures && r > max {
                " (MISSED)"
            } else {
                ""
            }
        };
        println!(
            "| {name} | {q} | {j} | {lean} | {m} | {:.0}%{} | {:.0}%{} | {carried} |",
            vj * 100.0,
            mark(vj, MAX_VS_JSON),
            vq * 100.0,
            mark(vq, MAX_VS_PYTEST)
        );
        if *failures && (vj > MAX_VS_JSON || vq > MAX_VS_PYTEST || !coverage.complete()) {
            missed.push(*name);
        }
        std::fs::write(dir.join("pytest-q.txt"), &pytest_q).expect("write");
        std::fs::write(dir.join("run.md"), &markdown).expect("write");
        std::fs::write(dir.join("run.json"), &json).expect("write");
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
