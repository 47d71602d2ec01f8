//! CTRF out (`--format ctrf`): the document is strictly valid CTRF, counts
//! as the JSON report does, and reads back to the run it came from.
//!
//! - Round trip: for every golden scenario that reads, the Markdown of
//!   the run converted to CTRF and read back equals the Markdown of the
//!   run, but for the `> Sources:` line (which names CTRF then).
//! - Reference validation: the CTRF of the golden scenarios that pin one
//!   (`expected.ctrf.json`) and of `report --format ctrf` is checked with
//!   npm `ctrf`'s `validateStrict` (tests/ctrf/, pinned to 0.3.0 and
//!   installed by `scripts/setup.sh`). Without Node or the package
//!   installed, that test prints one line saying why and passes.

use std::path::{Path, PathBuf};

use pytest_mcp::budget::Budget;
use pytest_mcp::frontend::dispatch::{self, Style, Subject};
use pytest_mcp::frontend::report::{self, Input, Reading};
use pytest_mcp::model::Run;
use pytest_mcp::request::Format;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every golden scenario with an `inputs` list, in name order.
fn scenarios() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root().join("golden"))
        .expect("golden/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("inputs").is_file())
        .collect();
    out.sort();
    out
}

fn inputs(scenario: &Path) -> Vec<Input> {
    let list = std::fs::read_to_string(scenario.join("inputs")).expect("inputs");
    list.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|rel| Input {
            name: rel.to_string(),
            contents: std::fs::read(root().join(rel)).map_err(|e| e.to_string()),
        })
        .collect()
}

/// The scenario's run, as `report` reads it for CTRF; `None` when an
/// input does not read (such a scenario pins an error, not a run).
fn run_of(scenario: &Path) -> Option<Run> {
    report::read_run(&inputs(scenario), Reading::for_format(Format::Ctrf)).ok()
}

/// The whole agent Markdown of a run, without its `> Sources:` line.
fn markdown(run: &Run) -> String {
    let text = dispatch::output(
        Subject::run(run),
        Format::Markdown,
        &Style::report(Budget::NONE),
    )
    .text;
    text.lines()
        .filter(|l| !l.starts_with("> Sources:"))
        .collect::<Vec<_>>()
        .join("\n")
        .trim_end()
        .to_string()
}

/// A CTRF document read back as `report` reads a file.
fn read_back(ctrf: &str) -> Run {
    let input = [Input {
        name: "converted.ctrf.json".into(),
        contents: Ok(ctrf.as_bytes().to_vec()),
    }];
    match report::read_run(&input, Reading::for_format(Format::Markdown)) {
        Ok(run) => run,
        Err(e) => panic!("our CTRF does not read back: {e:?}\n{ctrf}"),
    }
}

/// Scenarios whose Markdown CTRF cannot carry, and why.
const NOT_ROUND_TRIPPED: &[(&str, &str)] = &[
    (
        "budget_step1_no_output",
        "captured log records: CTRF has stdout and stderr only",
    ),
    (
        "pytest_captured_output",
        "captured log records: CTRF has stdout and stderr only",
    ),
    (
        "pytest_subtests",
        "failed subtests: CTRF has one entry per test and no subtests",
    ),
    (
        "pytest_subtests_pytest_files",
        "failed subtests: CTRF has one entry per test and no subtests",
    ),
    (
        "pytest_warnings",
        "pytest's warnings: CTRF has no place for them",
    ),
];

#[test]
fn markdown_of_ctrf_equals_markdown_of_the_inputs() {
    let mut compared = Vec::new();
    let mut failures = Vec::new();
    for scenario in scenarios() {
        let name = scenario.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if NOT_ROUND_TRIPPED.iter().any(|(n, _)| *n == name) {
            continue;
        }
        let Some(run) = run_of(&scenario) else {
            continue;
        };
        let ctrf = dispatch::whole(&run, Format::Ctrf);
        let back = read_back(&ctrf);
        let (want, got) = (markdown(&run), markdown(&back));
        if want != got {
            let diff = similar::TextDiff::from_lines(&want, &got)
                .unified_diff()
                .header("inputs", "CTRF")
                .to_string();
            failures.push(format!("{name}:\n{diff}"));
        }
        compared.push(name.to_string());
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        compared.len(),
        failures.join("\n")
    );
    assert!(compared.len() >= 40, "only {} compared", compared.len());
}
