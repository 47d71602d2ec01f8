//! Every answer fits an agent's context (issue 15): the root-cause project
//! (`tests/projects/root_causes`: 1,001 failures of three shapes, 50 setup
//! errors from one fixture, 100 passes and one unique failure) run once
//! through the same code as `execute_tests`, then answered at the tools'
//! default budget and at smaller ones. Tokens are counted with tiktoken's
//! `o200k_base` (the dev-dependency's own count, not the binary's).
//!
//! Interpreter: `PYTEST_MCP_TEST_PYTHON`, else `.venv/bin/python`.

use pytest_mcp::frontend::dispatch;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use pytest_mcp::budget::{Budget, DEFAULT_MCP_TOKENS};
use pytest_mcp::frontend::respond;
use pytest_mcp::model::Run;
use pytest_mcp::model::rerun::RerunHint;
use pytest_mcp::request::{ExecuteTestsRequest, OutputFormat};
use pytest_mcp::runner::execute::{self, Settings};
use pytest_mcp::runner::params::Root;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

mod common;
use common::headline::{Counts, Verdict, counts, says};
use common::support;

/// The groups of the project, largest first: size, a word of the
/// exception or message, and the crash location.
const GROUPS: [(usize, &str, &str); 5] = [
    (400, "assert", "tests/test_totals.py:18"),
    (350, "KeyError", "ledger/rates.py:10"),
    (250, "ValueError", "ledger/parsing.py:25"),
    (50, "LedgerUnavailable", "ledger/store.py:11"),
    (1, "assert '1,234.5'", "tests/test_totals.py:27"),
];
const UNIQUE: &str = "tests/test_totals.py::test_format_money_pads_cents";

/// Whether `text` gives `place` (`file:line`): written out, or as the
/// file of a heading's id and its ` (line N)`.
fn gives_place(text: &str, place: &str) -> bool {
    text.contains(place)
        || text
            .lines()
            .filter_map(pytest_mcp_testkit::tokens::heading_place)
            .any(|p| p == place)
}

fn tokens(text: &str) -> usize {
    static BPE: OnceLock<tiktoken_rs::CoreBPE> = OnceLock::new();
    BPE.get_or_init(|| tiktoken_rs::o200k_base().expect("o200k_base loads"))
        .encode_with_special_tokens(text)
        .len()
}

/// A private copy of the project (pytest writes its cache there).
fn project() -> &'static (tempfile::TempDir, PathBuf) {
    static PROJECT: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    PROJECT.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("root_causes");
        let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/projects/root_causes");
        support::copy_tree(&source, &root);
        let root = root.canonicalize().expect("canonical");
        (dir, root)
    })
}

/// The server's settings for the project's private copy.
fn settings() -> Settings {
    Settings {
        root: Root::new(&project().1).expect("root"),
        python: Some(support::test_python()),
        default_timeout: Duration::from_secs(300),
        kill_grace: Duration::from_secs(2),
        history: None,
        results: None,
        warm: None,
    }
}

/// The project's run, as `execute_tests` gets it.
fn run() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| {
        let settings = settings();
        let params = ExecuteTestsRequest::default()
            .validate(&settings.root, settings.default_timeout)
            .expect("valid");
        let mut run =
            execute::run_tests(&settings, &params, &CancellationToken::new(), &mut |_| {})
                .expect("the run completes");
        run.rerun_hint = Some(RerunHint::Tool);
        run
    })
}

/// The tool's answer text within `budget` (compact JSON, as the server).
fn answer(format: OutputFormat, budget: &Budget) -> (String, bool) {
    match respond::run(
        run(),
        format,
        &dispatch::Style {
            pretty: false,
            ..dispatch::Style::within(*budget)
        },
    ) {
        respond::Answer::Text {
            text, truncation, ..
        } => (text, truncation.is_some()),
        other => panic!("not a result: {other:?}"),
    }
}

#[test]
fn markdown_at_the_default_budget_has_every_group_and_the_unique_failure() {
    let (md, truncated) = answer(OutputFormat::Markdown, &Budget::tokens(DEFAULT_MCP_TOKENS));
    let n = tokens(&md);
    println!("execute_tests Markdown: {n} tokens\n{md}");
    assert!(n < 2_000, "{n} tokens");
    assert!(!truncated, "under the budget, nothing is left out");
    assert!(
        says(&md, Verdict::Failure)
            && md.contains(&counts(Counts {
                total: 1151,
                failed: 1001,
                errors: 50,
                ..Counts::default()
            })),
        "{md}"
    );
    for (count, word, location) in GROUPS {
        assert!(gives_place(&md, location), "{location} missing");
        assert!(md.contains(word), "{word} missing");
        if count > 1 {
            assert!(
                md.contains(&format!("Same failure in {} more", count - 1)),
                "group of {count}"
            );
        }
    }
    // The unique failure in full: its section, message, crash line, source.
    let section = md
        .split("\n### ")
        .find(|s| s.starts_with(&format!("FAILED: {UNIQUE}")))
        .expect("the unique failure's section");
    assert!(
        section.contains("assert '1,234.5' == '1,234.05'"),
        "{section}"
    );
    assert!(section.contains("> assert"), "{section}");
    assert!(md.ends_with("> Rerun the failures: execute_tests with last_failed: true\n"));
    ids_are_accepted_by_pytest(&md);
}

#[test]
fn json_at_the_default_budget_keeps_exact_counts_and_every_group() {
    let (text, truncated) = answer(OutputFormat::Json, &Budget::tokens(DEFAULT_MCP_TOKENS));
    let n = tokens(&text);
    let full = pytest_mcp::render::json::render(run(), false);
    println!(
        "execute_tests JSON: {n} tokens (the whole answer: {} bytes)",
        full.len()
    );
    assert!(n <= DEFAULT_MCP_TOKENS, "{n} tokens");
    assert!(truncated);
    let v: Value = serde_json::from_str(&text).expect("JSON");
    for key in [
        "exit_code",
        "summary",
        "tests",
        "json_report",
        "text_output",
        "collection_errors",
        "truncated",
        "failure_groups",
    ] {
        assert!(v.get(key).is_some(), "{key} missing");
    }
    let s = &v["summary"];
    assert_eq!(
        (&s["total"], &s["passed"], &s["failed"], &s["errors"]),
        (&1151.into(), &100.into(), &1001.into(), &50.into())
    );
    let groups = v["failure_groups"].as_array().expect("groups");
    let counts: Vec<u64> = groups.iter().filter_map(|g| g["count"].as_u64()).collect();
    assert_eq!(counts, [400, 350, 250, 50, 1]);
    for (g, (_, _, location)) in groups.iter().zip(GROUPS) {
        assert_eq!(g["location"], location);
    }
    assert_eq!(groups[1]["rerun"], "tests/test_rates.py::test_convert");
    let t = &v["truncated"];
    assert_eq!(t["max_tokens"], DEFAULT_MCP_TOKENS);
    let listed = v["tests"].as_array().map_or(0, Vec::len) as u64;
    assert_eq!(t["tests_omitted"].as_u64(), Some(1151 - listed));
    assert!(listed > 0, "some failing tests still listed in full");
    assert_eq!(v["json_report"], Value::Null);
}

/// `max_tokens: 400`: within 10% of the budget by o200k, with the summary
/// and the largest group, in both formats.
#[test]
fn four_hundred_tokens_keep_the_summary_and_the_largest_group() {
    for format in [OutputFormat::Markdown, OutputFormat::Json] {
        let (text, truncated) = answer(format, &Budget::tokens(400));
        let n = tokens(&text);
        println!("max_tokens 400, {format:?}: {n} tokens\n{text}");
        assert!(n <= 440, "{format:?}: {n} tokens");
        assert!(truncated);
        assert!(text.contains("1151"), "{format:?}: the summary");
        assert!(
            text.contains("tests/test_totals.py::test_total") && text.contains("400"),
            "{format:?}: the largest group"
        );
        assert!(gives_place(&text, "tests/test_totals.py:18"), "{format:?}");
    }
}

/// Every budget from the whole answer down to the smallest a request may
/// ask: never over it, the status line first, the rerun line last, and
/// one line at least for the largest group.
#[test]
fn every_budget_is_kept() {
    let (full, _) = answer(OutputFormat::Markdown, &Budget::NONE);
    let whole = tokens(&full);
    let mut steps = std::collections::BTreeSet::new();
    let mut budget = whole;
    while budget >= 200 {
        let (md, _) = answer(OutputFormat::Markdown, &Budget::tokens(budget));
        let n = tokens(&md);
        assert!(n <= budget, "{n} > {budget}:\n{md}");
        assert!(says(&md, Verdict::Failure));
        assert!(
            md.ends_with("execute_tests with last_failed: true\n"),
            "{md}"
        );
        assert!(md.contains("tests/test_totals.py::test_total"), "{budget}");
        for step in [
            "ONE LINE EACH",
            "### FAILURES (",
            "ids beyond the first",
            "traceback lines beyond",
            "captured output",
        ] {
            if md.contains(step) {
                steps.insert(step);
                break;
            }
        }
        budget = budget * 9 / 10;
    }
    println!("steps seen: {steps:?}");
    assert!(steps.len() >= 2, "{steps:?}");
}

/// The JSON answer at budgets from the default down to the smallest: never
/// over, always the exact summary and the largest group.
#[test]
fn every_json_budget_is_kept() {
    let mut budget = DEFAULT_MCP_TOKENS;
    while budget >= 200 {
        let (text, truncated) = answer(OutputFormat::Json, &Budget::tokens(budget));
        let n = tokens(&text);
        assert!(n <= budget, "{n} > {budget}:\n{text}");
        assert!(truncated);
        let v: Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(v["summary"]["total"], 1151);
        assert_eq!(v["failure_groups"][0]["count"], 400, "{budget}");
        budget = budget * 4 / 5;
    }
}

/// The ids the answer names, fed back to pytest as they are, select tests.
fn ids_are_accepted_by_pytest(md: &str) {
    let mut ids: Vec<String> = Vec::new();
    for line in md.lines() {
        let line = line.trim_start();
        if let Some(rest) = line.strip_prefix("Same failure in ") {
            let list = rest.split_once(": ").map_or("", |(_, l)| l);
            for item in list.split(", ") {
                let id = pytest_mcp_testkit::tokens::heading_id(item);
                let id = id.split(" (all ").next().unwrap_or("");
                if id.contains("::") {
                    ids.push(id.to_string());
                }
            }
        } else if let Some(rest) = line.strip_prefix("### ") {
            if let Some((_, id)) = pytest_mcp_testkit::tokens::heading_id(rest).split_once(": ")
                && id.contains("::")
            {
                ids.push(id.to_string());
            }
        }
    }
    assert!(ids.len() >= 5, "{ids:?}");
    let out = support::clean_command(&support::test_python())
        .current_dir(&project().1)
        .args([
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
        ])
        .args(&ids)
        .output()
        .expect("pytest");
    assert!(
        out.status.success(),
        "pytest refused an id: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `last_failed` after the run reruns exactly its 1,001 failures and 50
/// errors, through pytest's own cache: no pass runs again.
#[test]
fn last_failed_reruns_exactly_the_failures_and_errors() {
    let first = run();
    let settings = settings();
    let params = ExecuteTestsRequest {
        last_failed: Some(true),
        ..Default::default()
    }
    .validate(&settings.root, settings.default_timeout)
    .expect("valid");
    let again = execute::run_tests(&settings, &params, &CancellationToken::new(), &mut |_| {})
        .expect("the rerun completes");
    let problems = |r: &Run| -> Vec<String> {
        let mut ids: Vec<String> = r
            .tests
            .iter()
            .filter(|t| t.is_problem())
            .map(|t| t.node_id.clone())
            .collect();
        ids.sort();
        ids
    };
    let c = again.counts();
    assert_eq!((c.total, c.failed, c.errors, c.passed), (1051, 1001, 50, 0));
    assert_eq!(problems(&again), problems(first));
}

/// The first id of each failure group an answer's text names: Markdown
/// headings (`### FAILED: <id>`) and the one-line list under
/// `### FAILURES (...)`; JSON's `failure_groups`, or, in a whole answer,
/// every failing test (all groups).
fn text_groups(format: OutputFormat, text: &str) -> Vec<String> {
    let first_id = |line: &str| {
        line.split_whitespace()
            .find(|w| w.contains("::"))
            .map(str::to_string)
    };
    if format == OutputFormat::Json {
        let v: Value = serde_json::from_str(text).expect("JSON");
        return match v["failure_groups"].as_array() {
            Some(groups) => groups
                .iter()
                .filter_map(|g| g["ids"][0].as_str().map(str::to_string))
                .collect(),
            None => v["tests"]
                .as_array()
                .expect("tests")
                .iter()
                .filter(|t| t["outcome"] != "passed")
                .filter_map(|t| t["node_id"].as_str().map(str::to_string))
                .collect(),
        };
    }
    let mut in_list = false;
    let mut ids = Vec::new();
    for line in text.lines() {
        if line.starts_with("### ") {
            in_list = line.starts_with("### FAILURES");
            ids.extend(first_id(line));
        } else if in_list && line.starts_with("- ") {
            ids.extend(first_id(line));
        }
    }
    ids
}

/// Whether a structured result names `id`: in the Markdown it carries, or
/// in a group's ids, as itself or as the parametrized function it is a
/// case of.
fn names(structured: &Value, id: &str) -> bool {
    if structured["markdown"]
        .as_str()
        .is_some_and(|md| md.contains(id))
    {
        return true;
    }
    let groups = structured["failures"].as_array().expect("failures");
    groups.iter().any(|g| {
        g["node_ids"].as_array().is_some_and(|ids| {
            ids.iter().filter_map(Value::as_str).any(|named| {
                named == id || id.strip_prefix(named).is_some_and(|r| r.starts_with('['))
            })
        })
    })
}

/// Claude Code shows a model only `structuredContent`: at every budget it
/// names each failure group the text names, in the Markdown it carries or
/// in its own `failures` (one id each at the least), within the budget, in
/// both formats; at 400 tokens and under, a group the Markdown fits and
/// JSON cannot is counted in `truncated.groups_omitted`.
#[test]
fn the_structured_result_names_every_group_the_text_names() {
    for max in [200, 400, 1_000, 8_000] {
        for format in [OutputFormat::Markdown, OutputFormat::Json] {
            let t = respond::tool_run(run(), format, &Budget::tokens(max));
            let respond::Answer::Text { text, .. } = &t.answer else {
                panic!("not a result: {:?}", t.answer);
            };
            let structured = t.structured.expect("a structured result");
            let compact = serde_json::to_string(&structured).expect("JSON");
            let groups = text_groups(format, text);
            println!(
                "max_tokens {max}, {format:?}: text {} tokens, {} groups; structured {} tokens, {} groups{}",
                tokens(text),
                groups.len(),
                tokens(&compact),
                structured["failures"].as_array().map_or(0, Vec::len),
                if structured.get("markdown").is_some() {
                    ", carries the Markdown"
                } else {
                    ""
                }
            );
            assert!(
                max < 8_000 || groups.len() == GROUPS.len(),
                "{format:?} at {max}: every group\n{text}"
            );
            assert!(
                max > 200 || format == OutputFormat::Json || groups.len() >= 3,
                "the text at 200 tokens names 3 groups\n{text}"
            );
            // At the smallest budgets the Markdown, leaner per group than
            // JSON, may name a group more; the structured result then
            // counts it among the groups it left out.
            let unnamed: Vec<&String> =
                groups.iter().filter(|id| !names(&structured, id)).collect();
            let omitted = structured["truncated"]["groups_omitted"]
                .as_u64()
                .unwrap_or(0);
            assert!(
                unnamed.is_empty() || (max <= 400 && omitted as usize >= unnamed.len()),
                "{format:?} at {max}: the text names {unnamed:?}, the structured result neither names nor counts them\n{text}\n{structured:#}"
            );
            assert!(tokens(&compact) <= max, "{format:?} at {max}: {compact}");
            if format == OutputFormat::Markdown && structured.get("markdown").is_none() {
                let dropped = &structured["truncated"]["dropped"];
                assert!(
                    dropped
                        .as_array()
                        .is_some_and(|d| d.contains(&"markdown".into())),
                    "it says it left the Markdown out: {dropped}"
                );
            }
        }
    }
}
