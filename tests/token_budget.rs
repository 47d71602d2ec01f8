//! The token budget: on every failure scenario the Markdown costs at most 40%
//! of the tokens of the compact ADR-006 JSON of the same run (tiktoken
//! `o200k_base`), and still carries every failing node id, the first line of
//! its message and a `file:line` for it; for collection errors the file and
//! `L<line>`.
//!
//! Figures: `cargo test --test token_budget -- --nocapture`, or
//! `cargo bench --bench token_cost` for the table with a breakdown.

use pytest_mcp::frontend::report;
use pytest_mcp_testkit::corpus_dir;
use pytest_mcp_testkit::tokens::{
    Measurement, cases, check_coverage, heading_id, measure, own_junit_cases, path_lines, table,
};

fn measure_where(pytest: bool) -> Vec<Measurement> {
    cases()
        .iter()
        .filter(|c| c.pytest == pytest)
        .map(measure)
        .collect()
}

fn name(m: &Measurement) -> String {
    format!("{} [{}]", m.case.scenario, m.case.inputs_label)
}

fn over_budget(measurements: &[Measurement]) -> Vec<String> {
    measurements
        .iter()
        .filter(|m| !m.within_budget())
        .map(|m| {
            format!(
                "{}: Markdown {} tokens / JSON {} tokens = {:.3} > {}",
                name(m),
                m.markdown_tokens,
                m.json_tokens,
                m.ratio(),
                m.budget()
            )
        })
        .collect()
}

fn not_carried(measurements: &[Measurement]) -> Vec<String> {
    let mut problems = Vec::new();
    for m in measurements {
        if m.coverage.tests + m.coverage.collection_errors == 0 {
            problems.push(format!(
                "{}: nothing failed, not a failure scenario",
                name(m)
            ));
        }
        for missing in &m.coverage.missing {
            problems.push(format!("{}: {missing}", name(m)));
        }
    }
    problems
}

/// The requirement: pytest's failure scenarios, with report.json +
/// junit-xunit1.xml and with junit-xunit1.xml alone.
#[test]
fn pytest_failure_scenarios_cost_at_most_40_percent_of_json() {
    let measurements = measure_where(true);
    println!("{}", table(&measurements));
    let over = over_budget(&measurements);
    assert!(
        over.is_empty(),
        "over the token budget:\n{}",
        over.join("\n")
    );
}

/// JUnit files with failures from other frameworks, held to the regression
/// bounds documented at `OTHER_MAX_RATIO` and `SMALL_FILE_MAX_RATIO`.
/// Reads the shared corpus: skipped (with one printed line) without it.
#[test]
fn other_frameworks_junit_stays_within_its_token_bounds() {
    if corpus_dir().is_none() {
        return;
    }
    let measurements = measure_where(false);
    assert!(measurements.len() >= 7, "{} cases", measurements.len());
    println!("{}", table(&measurements));
    let over = over_budget(&measurements);
    assert!(
        over.is_empty(),
        "over the token budget:\n{}",
        over.join("\n")
    );
}

#[test]
fn pytest_markdown_carries_every_failing_id_message_and_place() {
    let problems = not_carried(&measure_where(true));
    assert!(problems.is_empty(), "not carried:\n{}", problems.join("\n"));
}

/// On this repository's JUnit fixtures and, when it is there, the corpus.
#[test]
fn other_frameworks_markdown_carries_every_failing_id_message_and_place() {
    let mut measurements: Vec<Measurement> = own_junit_cases().iter().map(measure).collect();
    measurements.extend(measure_where(false));
    let problems = not_carried(&measurements);
    assert!(problems.is_empty(), "not carried:\n{}", problems.join("\n"));
}

/// The coverage check itself notices a missing id, message or place.
#[test]
fn coverage_check_notices_what_is_missing() {
    let case = cases()
        .into_iter()
        .find(|c| c.pytest && c.scenario == "setup_teardown" && c.inputs_label == "xunit1")
        .expect("setup_teardown case");
    let m = measure(&case);
    assert!(m.coverage.complete(), "{:?}", m.coverage.missing);
    assert_eq!(m.coverage.tests, 5);
    let run = report::read_run(
        &[pytest_mcp::frontend::report::Input {
            name: "junit-xunit1.xml".into(),
            contents: std::fs::read(&case.files[0]).map_err(|e| e.to_string()),
        }],
        report::Reading::for_format(pytest_mcp::request::OutputFormat::Json),
    )
    .expect("readable");

    let without_places: String = m
        .markdown
        .lines()
        .filter(|l| !l.trim_start().starts_with("at "))
        .map(|l| format!("{}\n", heading_id(l)))
        .collect();
    let cov = check_coverage(&m.json, &run, &without_places);
    assert_eq!(cov.missing.len(), 5, "{:?}", cov.missing);
    assert!(cov.missing.iter().all(|p| p.contains("places")));

    let without_messages = m.markdown.replace("db.DatabaseError: unsupported", "x");
    let cov = check_coverage(&m.json, &run, &without_messages);
    assert_eq!(cov.missing.len(), 3, "{:?}", cov.missing);

    let without_id = m.markdown.replace(
        "### ERROR at setup: tests/test_fixtures.py::test_remote_query",
        "###",
    );
    let cov = check_coverage(&m.json, &run, &without_id);
    assert_eq!(cov.missing.len(), 1, "{:?}", cov.missing);
    assert!(cov.missing[0].contains("test_remote_query"));
}

#[test]
fn places_are_found_in_tracebacks_of_several_frameworks() {
    assert_eq!(
        path_lines("tests/test_calc.py:17: AssertionError"),
        ["tests/test_calc.py:17"]
    );
    assert_eq!(
        path_lines("\tat a.b.FooTest.test x(FooTest.kt:27)"),
        ["FooTest.kt:27"]
    );
    assert_eq!(
        path_lines(r"at Object.<anonymous> (C:\w\__tests__\main.test.js:10:21)"),
        [r"C:\w\__tests__\main.test.js:10"]
    );
    assert_eq!(
        path_lines("    stdout_test.go:11: single-line error"),
        ["stdout_test.go:11"]
    );
    // A host and port is not a place in a file.
    assert!(path_lines("catalog server unreachable: library.example.org:443").is_empty());
}
