//! Golden files of what changed since the last run (`model::changes`), as
//! `execute_tests` and `run` answer: the Markdown (`expected.md`), the JSON
//! (`expected.json`) and the structured result (`expected.structured.json`).
//!
//! Each folder `golden/changes/<scenario>/` holds `inputs` (result files,
//! as in tests/golden.rs), `last_run.json` (what pytest's cache recorded
//! of the run before, as the event-log plugin reports it: `failed`, and
//! `missing` for the ids this run would have collected and did not), an
//! optional `affected.json` (a run with `affected`: what pytest-testmon
//! selected) and an optional `max_tokens`. The goldens of runs without a cache are
//! tests/golden.rs's, unchanged by this feature.
//!
//! To accept new output after reviewing it:
//! `UPDATE_GOLDEN=1 cargo test --test changes_golden`.

use pytest_mcp::frontend::dispatch;
use pytest_mcp::frontend::report;
use std::path::{Path, PathBuf};

use pytest_mcp::budget::{Budget, DEFAULT_MCP_TOKENS};
use pytest_mcp::frontend::report::Input;
use pytest_mcp::frontend::respond;
use pytest_mcp::model::Run;
use pytest_mcp::model::affected::{Affected, AllRan};
use pytest_mcp::model::changes::{self, LastRun};
use pytest_mcp::model::rerun::RerunHint;
use pytest_mcp::render::structured;
use pytest_mcp::request::OutputFormat;

mod common;
use common::golden::check;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scenarios() -> Vec<PathBuf> {
    let dir = root().join("golden/changes");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.join("inputs").is_file())
        .collect();
    out.sort();
    out
}

/// The scenario's run as the runner makes it: every test, compared with
/// the last run, ending with the tool's rerun line.
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
    let last: LastRun = serde_json::from_str(
        &std::fs::read_to_string(scenario.join("last_run.json")).expect("last_run.json"),
    )
    .expect("a last run record");
    run.changes = Some(changes::since(&run, &last));
    run.affected = affected_of(scenario);
    run.rerun_hint = Some(RerunHint::Tool);
    run
}

/// The scenario's optional `affected.json`: what pytest-testmon selected,
/// as the event-log plugin reports it (`left_out`, and `all_ran`:
/// `first_run` or `packages_changed`).
fn affected_of(scenario: &Path) -> Option<Affected> {
    let text = std::fs::read_to_string(scenario.join("affected.json")).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).expect("affected.json");
    let all_ran = match value["all_ran"].as_str() {
        None => None,
        Some("first_run") => Some(AllRan::FirstRun),
        Some("packages_changed") => Some(AllRan::PackagesChanged),
        Some(other) => panic!("affected.json: all_ran {other:?}"),
    };
    Some(Affected {
        left_out: value["left_out"].as_u64().expect("left_out") as usize,
        all_ran,
    })
}

fn budget_of(scenario: &Path) -> Budget {
    let tokens = std::fs::read_to_string(scenario.join("max_tokens"))
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(DEFAULT_MCP_TOKENS);
    Budget::tokens(tokens)
}

#[test]
fn changes_golden_files() {
    let scenarios = scenarios();
    assert!(scenarios.len() >= 2, "{scenarios:?}");
    let mut failures = Vec::new();
    for scenario in &scenarios {
        let run = run_of(scenario);
        let budget = budget_of(scenario);
        let md = respond::run(
            &run,
            OutputFormat::Markdown,
            &dispatch::Style {
                pretty: false,
                ..dispatch::Style::within(budget)
            },
        )
        .into_text();
        let json = respond::run(
            &run,
            OutputFormat::Json,
            &dispatch::Style {
                pretty: true,
                ..dispatch::Style::within(budget)
            },
        )
        .into_text();
        let style = pytest_mcp::render::Style::within(budget);
        let value = pytest_mcp::budget::fit(structured::offer(&run, None, &style));
        let structured = serde_json::to_string_pretty(&value).expect("JSON") + "\n";
        failures.extend(check(&scenario.join("expected.md"), &md));
        failures.extend(check(&scenario.join("expected.json"), &json));
        failures.extend(check(
            &scenario.join("expected.structured.json"),
            &structured,
        ));
    }
    assert!(
        failures.is_empty(),
        "{} golden file(s) differ (review, then UPDATE_GOLDEN=1 cargo test --test changes_golden):\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}
