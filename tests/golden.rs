//! Golden-file tests: every renderer output is pinned under `golden/`.
//!
//! Each scenario is a folder `golden/<scenario>/` holding `inputs` (one
//! result file per line, relative to the repository root: the fixtures under
//! `tests/fixtures/`, never the shared corpus) and the expected renderings
//! `expected.md`, `expected.json`, `expected.xml` (JUnit) and
//! `expected.github` (GitHub workflow commands), plus `expected.html` and
//! `expected.gfm` (the GitHub rendering, `--format gfm`, at its default
//! size; its links from the scenario's `link_base` file when there is one)
//! and `expected.ctrf.json` (`--format ctrf`) where those files exist. An
//! optional `max_chars` file holds a size budget for the Markdown
//! (`report --max-chars`); an optional `baseline` file lists the result
//! files of an earlier run to compare with (`report --baseline`), an
//! optional `plan` file names the plan the inputs are the shards of
//! (`report --plan`). A mismatch prints a unified diff.
//!
//! To accept new output after reviewing it:
//!
//! ```text
//! UPDATE_GOLDEN=1 cargo test --test golden
//! git diff golden/
//! ```

use pytest_mcp::render::view::Compared;
use std::path::{Path, PathBuf};

use pytest_mcp::budget::Budget;
use pytest_mcp::frontend::dispatch::{self, Style, Subject};
use pytest_mcp::frontend::report::{self, Input, InputError, Reading, RenderOnly};
use pytest_mcp::frontend::respond;
use pytest_mcp::render::gfm;
use pytest_mcp::request::OutputFormat;

mod common;
use common::golden::{check, every_format};
use common::support;

// The benchmarks' generator of large inputs (the testkit crate).
use pytest_mcp_testkit::inputs;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scenarios() -> Vec<PathBuf> {
    let dir = root().join("golden");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.join("inputs").is_file())
        .collect();
    out.sort();
    out
}

fn inputs(scenario: &Path) -> Vec<Input> {
    read_list(&scenario.join("inputs"))
}

/// The scenario's `baseline` file: result files of the run to compare with.
fn baseline(scenario: &Path) -> Vec<Input> {
    let path = scenario.join("baseline");
    if path.exists() {
        read_list(&path)
    } else {
        Vec::new()
    }
}

/// The scenario's `plan` file: the plan its inputs are the shards of
/// (`report --plan`), each shard's node ids.
fn plan(scenario: &Path) -> Option<Vec<Vec<String>>> {
    let list = std::fs::read_to_string(scenario.join("plan")).ok()?;
    let bytes = std::fs::read(root().join(list.trim())).expect("the plan");
    let plan = pytest_mcp::frontend::plan::read(&bytes).expect("a plan");
    Some(plan.shards.into_iter().map(|s| s.tests).collect())
}

/// What `pytest-mcp report --plan` prints for the shards' files in this
/// format, with `style`.
fn render_planned(
    inputs: &[Input],
    plan: &[Vec<String>],
    format: OutputFormat,
    style: &Style,
) -> String {
    match report::read_planned(inputs, Reading::for_format(format), plan) {
        Ok(run) => dispatch::output(Subject::run(&run), format, style).text,
        Err(errors) => respond::unreadable(&errors, inputs.len(), format).into_text(),
    }
}

fn read_list(path: &Path) -> Vec<Input> {
    let list = std::fs::read_to_string(path).expect("list of inputs");
    list.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|rel| Input {
            name: rel.to_string(),
            contents: std::fs::read(root().join(rel))
                .map_err(|e| format!("cannot read the file: {e}")),
        })
        .collect()
}

/// What `pytest-mcp report` prints for these inputs in this format,
/// compared with `baseline` when the scenario has one. Read as the command
/// reads them: without a baseline, a Markdown report of one file counts its
/// plain passing tests instead of listing them.
fn render(inputs: &[Input], baseline: &[Input], format: OutputFormat, budget: &Budget) -> String {
    let unreadable = |errors: Vec<InputError>, total: usize| {
        respond::unreadable(&errors, total, format).into_text()
    };
    if baseline.is_empty() {
        return match RenderOnly::read(inputs, format) {
            Ok(alone) => alone.render(&dispatch::Style::report(*budget)).text,
            Err(errors) => unreadable(errors, inputs.len()),
        };
    }
    let run = match report::read_run(inputs, Reading::for_format(format)) {
        Ok(run) => run,
        Err(errors) => return unreadable(errors, inputs.len()),
    };
    match report::read_run(baseline, Reading::for_format(OutputFormat::Markdown)) {
        Ok(base) => {
            dispatch::output(
                Subject::Run {
                    run: &run,
                    compared: Some(&Compared::of(&run, &base)),
                },
                format,
                &dispatch::Style::report(*budget),
            )
            .text
        }
        Err(errors) => unreadable(errors, baseline.len()),
    }
}

/// The scenario's `link_base` file: where the GitHub rendering's
/// `path:line` links lead (none without the file).
fn gfm_options(scenario: &Path) -> gfm::Options {
    gfm::Options {
        link_base: std::fs::read_to_string(scenario.join("link_base"))
            .ok()
            .map(|s| s.trim().to_string()),
        ..gfm::Options::default()
    }
}

/// What `pytest-mcp report --format gfm` prints for these inputs, at the
/// scenario's budget, else the default `--max-chars` (a comment's 65,536).
fn render_gfm(
    inputs: &[Input],
    baseline: &[Input],
    options: &gfm::Options,
    budget: &Budget,
) -> String {
    let budget = Budget {
        chars: budget.chars.or(Some(report::DEFAULT_MAX_CHARS)),
        ..*budget
    };
    let unreadable = |errors: Vec<InputError>, total: usize| {
        respond::unreadable(&errors, total, OutputFormat::Gfm).into_text()
    };
    if baseline.is_empty() {
        return match RenderOnly::read(inputs, OutputFormat::Gfm) {
            Ok(alone) => {
                let style = Style {
                    links: options.clone(),
                    ..Style::report(budget)
                };
                alone.render(&style).text
            }
            Err(errors) => unreadable(errors, inputs.len()),
        };
    }
    let run = match report::read_run(inputs, Reading::for_format(OutputFormat::Gfm)) {
        Ok(run) => run,
        Err(errors) => return unreadable(errors, inputs.len()),
    };
    match report::read_run(baseline, Reading::for_format(OutputFormat::Markdown)) {
        Ok(base) => {
            dispatch::output(
                Subject::Run {
                    run: &run,
                    compared: Some(&base).map(|b| Compared::of(&run, b)).as_ref(),
                },
                pytest_mcp::request::OutputFormat::Gfm,
                &dispatch::Style {
                    links: (options).clone(),
                    ..Style::report(budget)
                },
            )
            .text
        }
        Err(errors) => unreadable(errors, baseline.len()),
    }
}

/// The GitHub rendering of the 100,000-case JUnit file of the benchmarks
/// (`testkit/src/inputs.rs`, generated into cargo's target folder, nothing
/// large committed) at the default size, pinned in
/// `golden/gfm_100000_cases/expected.gfm`.
#[test]
fn gfm_of_100000_cases_at_the_default_size() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gfm-inputs");
    let (xml, _) = inputs::big_reports(&dir, 100_000);
    let mut input = one_input(&xml);
    input[0].name = "junit-100000.xml".to_string();
    let text = render_gfm(&input, &[], &gfm::Options::default(), &Budget::NONE);
    assert!(
        text.chars().count() <= report::DEFAULT_MAX_CHARS,
        "{} characters",
        text.chars().count()
    );
    let golden = root().join("golden/gfm_100000_cases/expected.gfm");
    if let Some(diff) = check(&golden, &text) {
        panic!("{diff}");
    }
}

/// The scenario's budget: its `max_chars` file (Markdown) and its
/// `max_tokens` file (Markdown and JSON), else none.
fn budget_of(scenario: &Path) -> Budget {
    let read = |file: &str| -> Option<usize> {
        std::fs::read_to_string(scenario.join(file))
            .ok()
            .and_then(|s| s.trim().parse().ok())
    };
    Budget {
        tokens: read("max_tokens"),
        chars: read("max_chars"),
        within: None,
    }
}

/// The formats a scenario has no golden for, from its `not_rendered`
/// file: one line each, `<format>: <why>` (`--format` names). Every other
/// format has its golden file; a missing one fails [`golden_files`].
fn not_rendered(scenario: &Path) -> Vec<OutputFormat> {
    let Ok(text) = std::fs::read_to_string(scenario.join("not_rendered")) else {
        return Vec::new();
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let (name, why) = line.split_once(':').unwrap_or((line, ""));
            assert!(
                !why.trim().is_empty(),
                "{}: `{line}` says no why",
                scenario.display()
            );
            <OutputFormat as clap::ValueEnum>::from_str(name.trim(), false)
                .unwrap_or_else(|e| panic!("{}: {e}", scenario.display()))
        })
        .collect()
}

#[test]
fn golden_files() {
    let scenarios = scenarios();
    assert!(
        scenarios.len() >= 20,
        "expected at least 20 golden scenarios, found {}",
        scenarios.len()
    );
    let mut failures = Vec::new();
    for scenario in &scenarios {
        let inputs = inputs(scenario);
        assert!(!inputs.is_empty(), "{}: no inputs", scenario.display());
        let budget = budget_of(scenario);
        let baseline = baseline(scenario);
        let plan = plan(scenario);
        let not_rendered = not_rendered(scenario);
        for (format, file) in every_format() {
            if not_rendered.contains(&format) {
                continue;
            }
            let actual = match (&plan, format) {
                (Some(plan), OutputFormat::Gfm) => {
                    let style = Style {
                        links: gfm_options(scenario),
                        ..Style::report(Budget {
                            chars: budget.chars.or(Some(report::DEFAULT_MAX_CHARS)),
                            ..budget
                        })
                    };
                    render_planned(&inputs, plan, format, &style)
                }
                (Some(plan), _) => render_planned(&inputs, plan, format, &Style::report(budget)),
                (None, OutputFormat::Gfm) => {
                    render_gfm(&inputs, &baseline, &gfm_options(scenario), &budget)
                }
                (None, _) => render(&inputs, &baseline, format, &budget),
            };
            if let Some(diff) = check(&scenario.join(file), &actual) {
                failures.push(diff);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden file(s) differ (review, then UPDATE_GOLDEN=1 cargo test --test golden):\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Counting plain passing tests instead of listing them (what `report`
/// does for Markdown of one file) changes nothing in the Markdown (nor in
/// the GitHub annotations): the same
/// text as from the full list, at every budget, for every scenario, every
/// result file under `tests/fixtures/` and, when it is beside the
/// repository, every file of the shared JUnit corpus.
#[test]
fn markdown_is_the_same_with_passing_tests_counted() {
    let mut own: Vec<Vec<Input>> = scenarios().iter().map(|s| inputs(s)).collect();
    let mut paths = support::own_junit_fixtures();
    let pytest = root().join("tests/fixtures/pytest");
    for run in std::fs::read_dir(&pytest).expect("pytest fixtures") {
        let run = run.expect("entry").path();
        for file in ["junit-xunit1.xml", "junit-xunit2.xml", "report.json"] {
            paths.push(run.join(file));
        }
    }
    own.extend(paths.iter().map(|p| one_input(p)));
    let (compared, counted) = same_markdown_counted(&own);
    println!("own inputs: {compared} compared, {counted} with passing tests counted");
    assert!(compared >= 60, "only {compared} own inputs compared");
    assert!(
        counted >= 40,
        "only {counted} own inputs had passing tests counted"
    );
    let Some(corpus) = support::corpus_dir() else {
        return;
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("list the corpus")
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    let files: Vec<Vec<Input>> = paths.iter().map(|p| one_input(p)).collect();
    let (compared, counted) = same_markdown_counted(&files);
    println!("corpus: {compared} compared, {counted} with passing tests counted");
    assert!(compared >= 40, "only {compared} corpus files compared");
    assert!(
        counted >= 30,
        "only {counted} corpus files had passing tests counted"
    );
}

/// A list of one input: the file at `path`.
fn one_input(path: &Path) -> Vec<Input> {
    vec![Input {
        name: path.display().to_string(),
        contents: std::fs::read(path).map_err(|e| e.to_string()),
    }]
}

/// Compares, for every list of one input that reads, the Markdown of the
/// full run and of the run with plain passes counted. Returns (inputs
/// compared, inputs where passing tests were counted).
fn same_markdown_counted(files: &[Vec<Input>]) -> (usize, usize) {
    let mut compared = 0;
    let mut counted = 0;
    for inputs in files.iter().filter(|i| i.len() == 1) {
        let (Ok(full), Ok(lean)) = (
            report::read_run(inputs, Reading::for_format(OutputFormat::Markdown)),
            RenderOnly::read(inputs, OutputFormat::Markdown),
        ) else {
            continue;
        };
        assert_eq!(full.counts(), lean.counts(), "{}", inputs[0].name);
        assert_eq!(full.exit_code(), lean.exit_code(), "{}", inputs[0].name);
        assert_eq!(
            dispatch::whole(&full, OutputFormat::Github),
            RenderOnly::read(inputs, OutputFormat::Github)
                .map(|github| github.render(&Style::report(Budget::NONE)).text)
                .unwrap_or_default(),
            "{}: GitHub annotations",
            inputs[0].name
        );
        counted += usize::from(lean.unlisted().passed > 0);
        for budget in [
            Budget::NONE,
            Budget::chars(65_536),
            Budget::chars(2_000),
            Budget::chars(300),
            Budget::tokens(400),
        ] {
            assert_eq!(
                dispatch::output(
                    Subject::run(&full),
                    OutputFormat::Markdown,
                    &Style::report(budget)
                ),
                lean.render(&Style::report(budget)),
                "{} at {budget:?}",
                inputs[0].name
            );
        }
        compared += 1;
    }
    (compared, counted)
}

#[test]
fn every_json_golden_has_every_adr006_key() {
    for scenario in scenarios() {
        let text = std::fs::read_to_string(scenario.join("expected.json")).unwrap_or_default();
        let value: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", scenario.display()));
        if value.get("error").is_some() {
            for key in ["code", "message", "data"] {
                assert!(
                    value["error"].get(key).is_some(),
                    "{}: error.{key}",
                    scenario.display()
                );
            }
            continue;
        }
        for key in [
            "exit_code",
            "summary",
            "tests",
            "json_report",
            "text_output",
            "collection_errors",
        ] {
            assert!(
                value.get(key).is_some(),
                "{}: missing {key}",
                scenario.display()
            );
        }
        let s = &value["summary"];
        let n = |k: &str| {
            s[k].as_u64()
                .unwrap_or_else(|| panic!("{}: summary.{k}", scenario.display()))
        };
        assert_eq!(
            n("total"),
            n("passed") + n("failed") + n("skipped") + n("errors"),
            "{}: summary invariant",
            scenario.display()
        );
        assert!(n("xfailed") <= n("skipped") && n("xpassed") <= n("passed"));
        for test in value["tests"].as_array().expect("tests array") {
            for key in ["node_id", "outcome", "duration", "message", "traceback"] {
                assert!(
                    test.get(key).is_some(),
                    "{}: test without {key}",
                    scenario.display()
                );
            }
        }
        for error in value["collection_errors"]
            .as_array()
            .expect("collection_errors array")
        {
            for key in ["file", "error_type", "message", "line", "traceback"] {
                assert!(
                    error.get(key).is_some(),
                    "{}: collection error without {key}",
                    scenario.display()
                );
            }
        }
    }
}

/// Discovery (`discover`, `discover_tests`) as both formats render it,
/// pinned under `golden/discovery_many_cases/`: the items and the
/// collection error of a real event log, written by our pytest plugin for
/// `tests/projects/many_cases` plus a file that fails to import
/// (`tests/fixtures/discovery/many_cases.events.jsonl`). It shows the
/// summary by file and test function, parametrizations counted under the
/// function's id, and what the JSON keeps of the case ids.
#[test]
fn discovery_golden_files() {
    let discovery = many_cases_discovery();
    let dir = root().join("golden/discovery_many_cases");
    let mut failures = Vec::new();
    for (format, file) in [
        (OutputFormat::Markdown, "expected.md"),
        (OutputFormat::Json, "expected.json"),
    ] {
        let actual = respond::discovery(
            &discovery,
            format,
            &dispatch::Style {
                pretty: true,
                ..dispatch::Style::within(Budget::NONE)
            },
        )
        .into_text();
        failures.extend(check(&dir.join(file), &actual));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What discovery found in `tests/projects/many_cases`, from the event log
/// our plugin wrote (`tests/fixtures/discovery/many_cases.events.jsonl`).
fn many_cases_discovery() -> pytest_mcp::model::discovery::Discovery {
    use pytest_mcp::sources::events::EventLog;

    let path = root().join("tests/fixtures/discovery/many_cases.events.jsonl");
    let log = EventLog::parse(&std::fs::read_to_string(&path).expect("event log"));
    assert!(log.items.len() > 300, "{} items", log.items.len());
    let discovery = pytest_mcp::model::discovery::Discovery {
        items: log.items.clone(),
        collection_errors: log.to_run().collection_errors,
        duration: 0.4,
        notes: Vec::new(),
    };
    assert_eq!(discovery.collection_errors.len(), 1);
    discovery
}

/// The tools' structured results (`structuredContent`), pinned under
/// `golden/structured/`: runs of the pytest scenarios' result files and the
/// many_cases discovery at the tools' default budget, the same within 300
/// and 200 tokens (ids, then groups or test functions left out, `truncated`
/// saying so), a timeout of the mixed run (what finished, and the error),
/// and the grouped run as `execute_tests` gives it with a Markdown answer.
#[test]
fn structured_golden_files() {
    use pytest_mcp::budget::DEFAULT_MCP_TOKENS;
    use pytest_mcp::model::exec_error::{ErrorKind, ExecError};
    use pytest_mcp::render::structured;

    let default = Budget::tokens(DEFAULT_MCP_TOKENS);
    let small = Budget::tokens(300);
    let dir = root().join("golden/structured");
    let run_of = |scenario: &str| {
        let inputs = inputs(&root().join("golden").join(scenario));
        report::read_run(&inputs, Reading::for_format(OutputFormat::Json)).expect("readable inputs")
    };
    let mut pinned: Vec<(String, String)> = Vec::new();
    for scenario in [
        "pytest_mixed",
        "pytest_grouped_failures",
        "pytest_collection_errors",
        "pytest_all_pass",
    ] {
        let run = run_of(scenario);
        pinned.push((
            scenario.into(),
            pretty(&pytest_mcp::budget::fit(structured::offer(
                &run,
                None,
                &Style::within(default),
            ))),
        ));
    }
    let grouped = run_of("pytest_grouped_failures");
    pinned.push((
        "pytest_grouped_failures_300_tokens".into(),
        pretty(&pytest_mcp::budget::fit(structured::offer(
            &grouped,
            None,
            &Style::within(small),
        ))),
    ));
    let discovery = many_cases_discovery();
    pinned.push((
        "discovery_many_cases".into(),
        pretty(&pytest_mcp::budget::fit(structured::discovery_offer(
            &discovery,
            &Style::within(default),
        ))),
    ));
    // The smallest budget a request may ask for.
    pinned.push((
        "discovery_many_cases_200_tokens".into(),
        pretty(&pytest_mcp::budget::fit(structured::discovery_offer(
            &discovery,
            &Style::within(Budget::tokens(200)),
        ))),
    ));
    let mut timeout = ExecError::spawn(
        "pytest execution exceeded timeout of 3 seconds while running tests/test_isbn.py::test_isbn13_checksum".into(),
        vec!["python".into(), "-m".into(), "pytest".into()],
    );
    timeout.kind = ErrorKind::Timeout;
    timeout.duration = 3.2;
    timeout.partial = run_of("pytest_one_failure");
    pinned.push((
        "timeout".into(),
        pretty(&pytest_mcp::budget::fit(structured::error_offer(
            &timeout,
            &Style::within(default),
        ))),
    ));
    // As `execute_tests` gives it for a Markdown answer: carrying the text.
    let tool = pytest_mcp::frontend::respond::tool_run(&grouped, OutputFormat::Markdown, &default);
    pinned.push((
        "pytest_grouped_failures_markdown_answer".into(),
        pretty(&tool.structured),
    ));
    let failures: Vec<String> = pinned
        .iter()
        .filter_map(|(name, actual)| check(&dir.join(format!("{name}.json")), actual))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Indented JSON ending in a newline.
fn pretty(value: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(value).expect("serializable") + "\n"
}
