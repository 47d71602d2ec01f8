//! The size budget of `report --max-chars`: a report never exceeds it, stays
//! well-formed Markdown (read back with pulldown-cmark), keeps the summary
//! line, says how many tests failed and what was cut, and keeps every
//! failing id for as long as detail can be shortened instead.

use pulldown_cmark::{Event, Parser, Tag, TagEnd};
use pytest_mcp::budget::Budget;
use pytest_mcp::frontend::dispatch;
use pytest_mcp::model::Run;
use pytest_mcp::render::markdown;

mod common;
use common::headline::{Verdict, run_failed, says};

/// The agent's Markdown of `run` within `max` characters.
fn within(run: &Run, max: usize) -> String {
    let style = dispatch::Style::within(Budget::chars(max));
    pytest_mcp::budget::fit(markdown::offer(run, None, &style)).text
}
use pytest_mcp::sources::junit;

/// A JUnit file with `failures` failing tests (long tracebacks and output)
/// and as many passing ones.
fn junit_with_failures(failures: usize) -> String {
    let mut xml = String::from("<testsuites name=\"pytest tests\"><testsuite name=\"pytest\">");
    for i in 0..failures {
        let trace = (0..12)
            .map(|l| format!("    frame {l} of a long traceback line for case {i}"))
            .collect::<Vec<_>>()
            .join("\n");
        xml.push_str(&format!(
            "<testcase classname=\"tests.test_generated_module_{m}\" name=\"test_case_number_{i}[param-{i}]\" file=\"tests/test_generated_module_{m}.py\" line=\"{i}\" time=\"0.01\"><failure message=\"AssertionError: value {i} was not what the test expected\">{trace}\ntests/test_generated_module_{m}.py:{i}: AssertionError</failure><system-out>{out}</system-out></testcase>",
            m = i % 37,
            out = "captured line\n".repeat(30),
        ));
        xml.push_str(&format!(
            "<testcase classname=\"tests.test_ok\" name=\"test_ok_{i}\" file=\"tests/test_ok.py\" line=\"{i}\" time=\"0.01\"/>"
        ));
    }
    xml.push_str("</testsuite></testsuites>");
    xml
}

/// The headings and list items of a Markdown text as pulldown-cmark reads
/// it; fails when a code block is left open.
fn structure(text: &str) -> (usize, usize) {
    let (mut headings, mut items, mut depth) = (0, 0, 0i64);
    for event in Parser::new(text) {
        match event {
            Event::Start(Tag::Heading { .. }) => headings += 1,
            Event::Start(Tag::Item) => items += 1,
            Event::Start(Tag::CodeBlock(_)) => depth += 1,
            Event::End(TagEnd::CodeBlock) => depth -= 1,
            _ => {}
        }
    }
    assert_eq!(depth, 0, "a code block is left open");
    (headings, items)
}

#[test]
fn two_thousand_failures_fit_a_github_comment() {
    let xml = junit_with_failures(2000);
    let run = junit::parse(xml.as_bytes(), "big.xml").expect("readable");
    let full = markdown::render(&run);
    let budget = 65_536;
    let text = within(&run, budget);
    let chars = text.chars().count();
    println!(
        "2,000 failures: full Markdown {} characters, budgeted {chars}",
        full.chars().count()
    );
    assert!(
        full.chars().count() > budget,
        "the test needs a report over budget"
    );
    assert!(chars <= budget, "{chars} characters > {budget}");
    assert!(says(&text, Verdict::Failure), "{}", &text[..200]);
    // 2,000 failing tests and as many passing ones.
    assert!(
        text.lines()
            .next()
            .unwrap_or("")
            .contains(&run_failed(4000, 2000))
    );
    assert!(
        text.contains("Shortened to fit 65,536 characters"),
        "says what was cut"
    );
    let (_, items) = structure(&text);
    assert!(
        items > 100,
        "a useful number of failing ids stays listed ({items})"
    );
    assert!(text.contains("left out"), "says how many ids were left out");
}

#[test]
fn detail_is_shortened_before_any_id_is_dropped() {
    let xml = junit_with_failures(60);
    let run = junit::parse(xml.as_bytes(), "mid.xml").expect("readable");
    let full = markdown::render(&run);
    let budget = full.chars().count() / 3;
    let text = within(&run, budget);
    assert!(text.chars().count() <= budget);
    for t in run.tests.iter().filter(|t| t.is_problem()) {
        assert!(
            text.contains(&t.node_id),
            "{} dropped while detail could go",
            t.node_id
        );
    }
    assert!(text.contains("Shortened to fit"));
    structure(&text);
}

#[test]
fn a_report_within_budget_is_unchanged() {
    let xml = junit_with_failures(3);
    let run = junit::parse(xml.as_bytes(), "small.xml").expect("readable");
    assert_eq!(within(&run, 1 << 20), markdown::render(&run));
}

#[test]
fn even_a_tiny_budget_is_respected() {
    let xml = junit_with_failures(50);
    let run = junit::parse(xml.as_bytes(), "tiny.xml").expect("readable");
    for budget in [400, 1_000, 5_000] {
        let text = within(&run, budget);
        assert!(
            text.chars().count() <= budget,
            "{budget}: {}",
            text.chars().count()
        );
        assert!(says(&text, Verdict::Failure));
        structure(&text);
    }
}

#[test]
fn long_failures_fold_into_details_in_reports_only() {
    let xml = junit_with_failures(3);
    let run = junit::parse(xml.as_bytes(), "long.xml").expect("readable");
    let report = dispatch::output(
        dispatch::Subject::run(&run),
        pytest_mcp::request::OutputFormat::Markdown,
        &dispatch::Style::report(Budget::chars(65_536)),
    )
    .text;
    let agent = markdown::render(&run);
    assert!(!agent.contains("<details>"), "agents get no HTML");
    assert_eq!(report.matches("<details><summary>").count(), 3, "{report}");
    // Heading and message stay visible; the rest is a fenced block inside.
    for t in run.tests.iter().filter(|t| t.is_problem()) {
        let heading = format!("### FAILED: {}", t.node_id);
        let at = report.find(&heading).expect("heading");
        let next = &report[at..];
        let next = &next[next.find('\n').map_or(next.len(), |i| i + 1)..];
        assert!(next.starts_with("AssertionError: value"), "{next}");
        assert!(
            next.lines()
                .nth(1)
                .unwrap_or("")
                .starts_with("<details><summary>")
        );
    }
    // pulldown-cmark reads each fold as HTML around one closed code block.
    let mut html_blocks = 0;
    let mut open_code = 0i32;
    for event in Parser::new(&report) {
        match event {
            Event::Html(h) if h.contains("<details>") => html_blocks += 1,
            Event::Start(Tag::CodeBlock(_)) => open_code += 1,
            Event::End(TagEnd::CodeBlock) => open_code -= 1,
            _ => {}
        }
    }
    assert_eq!(html_blocks, 3);
    assert_eq!(open_code, 0);
}
