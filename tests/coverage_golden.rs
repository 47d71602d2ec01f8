//! Golden files of the change's coverage (`run --coverage`,
//! docs/coverage.md) in every output that says it: the Markdown, the JSON,
//! the structured result, GitHub's rendering (`gfm`), the HTML page and
//! GitHub's annotations. JUnit XML and CTRF carry test results only: the
//! change's coverage is no test's.
//!
//! Each folder `golden/coverage/<scenario>/` holds `inputs` (result files,
//! as in tests/golden.rs), `coverage.json` (what the judging script,
//! `src/runner/command/pytest_mcp_coverage.py`, answered; `gaps` is its
//! answer for `tests/projects/coverage_change`), an optional
//! `before.json` (the files' states before the change, as the base's
//! coverage or the previous run gives them: `compared` tells its ranges
//! new or not run before either, and lists a line left behind) and an
//! optional `max_tokens` (a budget the Markdown shrinks to: the ranges
//! become one line per file with its count).
//!
//! To accept new output after reviewing it:
//! `UPDATE_GOLDEN=1 cargo test --test coverage_golden`.

use std::path::{Path, PathBuf};

use pytest_mcp::budget::{Budget, DEFAULT_MCP_TOKENS};
use pytest_mcp::frontend::dispatch;
use pytest_mcp::frontend::report::{self, Input};
use pytest_mcp::frontend::respond;
use pytest_mcp::model::Run;
use pytest_mcp::model::coverage::{ChangeCoverage, FileState, compare};
use pytest_mcp::render::structured;
use pytest_mcp::request::OutputFormat;

mod common;
use common::golden::{check, file_name};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scenarios() -> Vec<PathBuf> {
    let dir = root().join("golden/coverage");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.join("inputs").is_file())
        .collect();
    out.sort();
    out
}

/// The scenario's run with the change's coverage the judge answered.
fn run_of(scenario: &Path) -> Run {
    let list = std::fs::read_to_string(scenario.join("inputs")).expect("inputs");
    let inputs: Vec<Input> = list
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|rel| Input {
            name: rel.to_string(),
            contents: std::fs::read(root().join(rel)).map_err(|e| e.to_string()),
        })
        .collect();
    let mut run = report::read_run(&inputs, report::Reading::for_format(OutputFormat::Json))
        .expect("readable inputs");
    let answer = std::fs::read(scenario.join("coverage.json")).expect("coverage.json");
    let mut coverage = ChangeCoverage::from_judged("HEAD", &answer).expect("a judge's answer");
    if let Ok(before) = std::fs::read(scenario.join("before.json")) {
        let before: Vec<FileState> = serde_json::from_slice(&before).expect("before.json");
        compare(&mut coverage, &before, "the base's coverage");
    }
    run.coverage = Some(coverage);
    run
}

fn budget_of(scenario: &Path) -> Budget {
    let tokens = std::fs::read_to_string(scenario.join("max_tokens"))
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(DEFAULT_MCP_TOKENS);
    Budget::tokens(tokens)
}

#[test]
fn coverage_golden_files() {
    let scenarios = scenarios();
    assert!(scenarios.len() >= 5, "{scenarios:?}");
    let mut failures = Vec::new();
    for scenario in &scenarios {
        let run = run_of(scenario);
        let budget = budget_of(scenario);
        for format in [
            OutputFormat::Markdown,
            OutputFormat::Json,
            OutputFormat::Gfm,
            OutputFormat::Html,
            OutputFormat::Github,
        ] {
            let style = dispatch::Style {
                pretty: format == OutputFormat::Json,
                ..dispatch::Style::within(budget)
            };
            let text = respond::run(&run, format, &style).into_text();
            failures.extend(check(&scenario.join(file_name(format)), &text));
        }
        let style = pytest_mcp::render::Style::within(budget);
        let value = pytest_mcp::budget::fit(structured::offer(&run, None, &style));
        let structured = serde_json::to_string_pretty(&value).expect("JSON") + "\n";
        failures.extend(check(
            &scenario.join("expected.structured.json"),
            &structured,
        ));
    }
    assert!(
        failures.is_empty(),
        "{} golden file(s) differ (review, then UPDATE_GOLDEN=1 cargo test --test coverage_golden):\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}
