//! Golden files of how runs end (issue: "never say SUCCESS when pytest did
//! not"): what real pytest runs left behind, given to the runner's pure end
//! (`runner::conclude`) as if pytest had just ended, and the answer in
//! every format pinned under `golden/endings/<scenario>/`.
//!
//! Each scenario holds what `scripts/capture-ending.py` captured from a
//! project of `tests/projects/ending_<scenario>` (the report files when
//! pytest wrote them, the event log, stdout, stderr and `ending`), and the
//! expected answers: `expected.md`, `.json`, `.gfm`, `.html`, `.github`,
//! `.xml`, `.ctrf.json` and `expected.structured.json` (the MCP tool's
//! structured result). The scenarios:
//!
//! - `exit_reason`: every test passed and pytest exited 1, its terminal
//!   summary saying why (a coverage gate): a FAILURE with the reason.
//! - `os_exit`: a test ended the process with `os._exit(1)`, as
//!   pytest-timeout's thread method does: a CRASH naming the running test
//!   and the three that never ran.
//! - `pytest_exit`: `pytest.exit(..., returncode=1)` stopped the session:
//!   INTERRUPTED, with its reason and the test that never ran.
//!
//! To accept new output after reviewing it:
//! `UPDATE_GOLDEN=1 cargo test --test endings_golden`.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::golden::{check, every_format};
use pytest_mcp::budget::{Budget, DEFAULT_MCP_TOKENS};
use pytest_mcp::frontend::dispatch::Style;
use pytest_mcp::frontend::respond;
use pytest_mcp::request::OutputFormat;
use pytest_mcp::runner::conclude::{JsonReport, LeftBehind, conclude};
use pytest_mcp::runner::process::{Captured, Ending, Finished, signal_name};

/// The command the answers name (the captured run's, without its paths).
const COMMAND: [&str; 5] = ["python", "-m", "pytest", "-p", "pytest_mcp_events"];

fn scenarios() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("golden/endings");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.join("ending").is_file())
        .collect();
    out.sort();
    out
}

fn read(scenario: &Path, name: &str) -> Option<Vec<u8>> {
    std::fs::read(scenario.join(name)).ok()
}

/// The process's end as `ending` says it: `exit N` or `signal N`.
fn ending(scenario: &Path) -> Ending {
    let text = std::fs::read_to_string(scenario.join("ending")).expect("ending");
    let (kind, n) = text.trim().split_once(' ').expect("`exit N` or `signal N`");
    let n: i32 = n.parse().expect("a number");
    match kind {
        "exit" => Ending::Exited(n),
        "signal" => Ending::Signaled {
            number: n,
            name: signal_name(n),
        },
        other => panic!("unknown ending {other}"),
    }
}

fn captured(bytes: Option<Vec<u8>>) -> Captured {
    Captured {
        head: bytes.unwrap_or_default(),
        ..Captured::default()
    }
}

/// What the runner concludes from the scenario's files, rendered in
/// `format` as `run` (and `report`) print it; the structured result as
/// `execute_tests` gives it with a Markdown answer.
fn answers(scenario: &Path) -> Vec<(&'static str, String)> {
    let concluded = || {
        let left = LeftBehind {
            json_report: read(scenario, "report.json")
                .map_or(JsonReport::Missing, JsonReport::Written),
            junit: read(scenario, "junit.xml"),
            events: String::from_utf8(read(scenario, "events.jsonl").unwrap_or_default())
                .expect("UTF-8 event log"),
        };
        let finished = Finished {
            ending: ending(scenario),
            stdout: captured(read(scenario, "stdout.txt")),
            stderr: captured(read(scenario, "stderr.txt")),
            duration: Duration::from_millis(1500),
        };
        let command = COMMAND.iter().map(|s| s.to_string()).collect();
        conclude(left, true, finished, command, Duration::from_secs(60))
    };
    let mut out = Vec::new();
    let tools = Budget::tokens(DEFAULT_MCP_TOKENS);
    for (format, file) in every_format() {
        let text = match concluded() {
            Ok(done) => respond::run(&done.run, format, &Style::report(Budget::NONE)).into_text(),
            Err(e) => respond::exec_error(&e, format, &Budget::NONE).into_text(),
        };
        out.push((file, text));
    }
    let tool = match concluded() {
        Ok(done) => respond::tool_run(&done.run, OutputFormat::Markdown, &tools),
        Err(e) => respond::tool_exec_error(&e, OutputFormat::Markdown, &tools, false),
    };
    let structured = serde_json::to_string_pretty(&tool.structured).expect("JSON") + "\n";
    out.push(("expected.structured.json", structured));
    out
}

#[test]
fn endings_golden_files() {
    let scenarios = scenarios();
    assert!(scenarios.len() >= 3, "{scenarios:?}");
    let failures: Vec<String> = scenarios
        .iter()
        .flat_map(|scenario| {
            answers(scenario)
                .into_iter()
                .filter_map(|(file, text)| check(&scenario.join(file), &text))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} golden file(s) differ (review, then UPDATE_GOLDEN=1 cargo test --test endings_golden):\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}
