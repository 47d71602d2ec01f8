//! What the JUnit reader makes of cases that share an id, cases without a
//! name and `status` attributes, and that nothing after the reader (merge,
//! baseline, the renderers) drops or merges two results that share an id.
//! Fixtures: `tests/fixtures/junit/`.

use pytest_mcp::frontend::report;
use std::path::{Path, PathBuf};

use pytest_mcp::frontend::report::Input;
use pytest_mcp::model::{Outcome, Run};
use pytest_mcp::request::OutputFormat;
use pytest_mcp::sources::junit;

mod common;
use common::headline::{Counts, counts};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/junit")
        .join(name)
}

fn read(name: &str) -> Run {
    let bytes = std::fs::read(fixture(name)).unwrap();
    junit::parse(&bytes, name).unwrap()
}

fn parse(xml: &str) -> Run {
    junit::parse(xml.as_bytes(), "inline.xml").unwrap()
}

/// (id, outcome, message) of every test, in order.
fn results(run: &Run) -> Vec<(&str, Outcome, Option<&str>)> {
    run.tests
        .iter()
        .map(|t| (t.node_id.as_str(), t.outcome, t.message()))
        .collect()
}

fn outcomes(run: &Run) -> Vec<Outcome> {
    run.tests.iter().map(|t| t.outcome).collect()
}

#[test]
fn four_unnamed_cases_are_four_tests_with_ids_by_position() {
    let run = read("unnamed_cases.xml");
    assert_eq!(
        results(&run),
        [
            ("unnamed > #1", Outcome::Passed, None),
            ("unnamed > #2", Outcome::Skipped, Some("not today")),
            ("unnamed > #3", Outcome::Failed, Some("boom")),
            ("unnamed > #4", Outcome::Error, Some("crash")),
        ]
    );
    let c = run.counts();
    assert_eq!(
        (c.total, c.passed, c.skipped, c.failed, c.errors),
        (4, 1, 1, 1, 1)
    );
    assert_eq!(run.sources[0].folded, 0);
}

#[test]
fn unnamed_ids_count_every_case_of_their_suite_and_restart_per_suite() {
    let run = parse(
        r#"<testsuites>
<testsuite name="a"><testcase name="named"/><testcase classname="K"/></testsuite>
<testsuite name="b"><testcase/><testsuite name="inner"><testcase/></testsuite><testcase/></testsuite>
</testsuites>"#,
    );
    let ids: Vec<&str> = run.tests.iter().map(|t| t.node_id.as_str()).collect();
    assert_eq!(
        ids,
        ["a > named", "K > #2", "b > #1", "inner > #1", "b > #2"]
    );
}

#[test]
fn a_rerun_after_a_failure_or_an_error_is_one_flaky_test() {
    let run = read("reruns.xml");
    assert_eq!(run.tests.len(), 2);
    assert_eq!(run.sources[0].folded, 2);
    for (test, earlier) in run.tests.iter().zip([
        (Outcome::Failed, "first attempt failed"),
        (Outcome::Error, "first attempt crashed"),
    ]) {
        assert_eq!(test.outcome, Outcome::Passed, "{}", test.node_id);
        assert!(test.is_flaky(), "{}", test.node_id);
        let reruns: Vec<(Outcome, Option<&str>)> = test
            .reruns()
            .iter()
            .map(|a| (a.outcome, a.message.as_deref()))
            .collect();
        assert_eq!(reruns, [(earlier.0, Some(earlier.1))]);
        // Both attempts' time.
        assert!((test.duration.unwrap() - 0.5).abs() < 1e-9);
    }
    assert_eq!(run.counts().flaky, 2);
}

#[test]
fn reruns_that_keep_failing_stay_one_failed_test_with_its_attempts() {
    let run = parse(
        r#"<testsuite name="s">
<testcase classname="C" name="t"><failure message="one"/></testcase>
<testcase classname="C" name="t"><error message="two"/></testcase>
<testcase classname="C" name="t"><failure message="three"/></testcase>
</testsuite>"#,
    );
    assert_eq!(results(&run), [("C#t", Outcome::Failed, Some("three"))]);
    let earlier: Vec<Outcome> = run.tests[0].reruns().iter().map(|a| a.outcome).collect();
    assert_eq!(earlier, [Outcome::Failed, Outcome::Error]);
}

#[test]
fn a_repeat_after_a_pass_or_a_skip_is_a_second_test() {
    let run = read("repeats.xml");
    assert_eq!(
        results(&run),
        [
            ("pkg#TestAfterPass", Outcome::Passed, None),
            (
                "pkg#TestAfterPass",
                Outcome::Failed,
                Some("second run failed")
            ),
            ("pkg#TestAfterSkip", Outcome::Skipped, Some("flag not set")),
            ("pkg#TestAfterSkip", Outcome::Passed, None),
            (
                "pkg#TestSkipAfterFailure",
                Outcome::Failed,
                Some("failed first")
            ),
            (
                "pkg#TestSkipAfterFailure",
                Outcome::Skipped,
                Some("skipped on retry")
            ),
        ]
    );
    assert!(run.tests.iter().all(|t| t.reruns().is_empty()));
    assert_eq!(run.sources[0].folded, 0);
}

#[test]
fn a_pass_after_a_flaky_pass_is_a_second_test() {
    let run = parse(
        r#"<testsuite name="s">
<testcase classname="C" name="t"><failure message="once"/></testcase>
<testcase classname="C" name="t"/>
<testcase classname="C" name="t"/>
</testsuite>"#,
    );
    assert_eq!(outcomes(&run), [Outcome::Passed, Outcome::Passed]);
    assert!(run.tests[0].is_flaky());
    assert!(!run.tests[1].is_flaky());
}

#[test]
fn status_words_that_mean_not_run_are_skips_with_the_word_as_reason() {
    let run = read("status_words.xml");
    assert_eq!(
        results(&run),
        [
            ("Words#isDisabled", Outcome::Skipped, Some("disabled")),
            ("Words#isNotRun", Outcome::Skipped, Some("notrun")),
            ("Words#isIgnored", Outcome::Skipped, Some("ignored")),
            ("Words#isSkipped", Outcome::Skipped, Some("skipped")),
            (
                "Words#isDisabledUpperCase",
                Outcome::Skipped,
                Some("disabled")
            ),
            ("Words#wasRun", Outcome::Passed, None),
            ("Words#hasPassed", Outcome::Passed, None),
            ("Words#isSuccess", Outcome::Passed, None),
            (
                "Words#disabledButFailed",
                Outcome::Failed,
                Some("ran anyway")
            ),
            (
                "Words#disabledButErrored",
                Outcome::Error,
                Some("crashed anyway")
            ),
            (
                "Words#disabledWithReason",
                Outcome::Skipped,
                Some("DISABLED_ prefix")
            ),
        ]
    );
}

#[test]
fn pytest_second_report_of_one_test_is_still_folded() {
    // pytest's JUnit: a test that failed, then errored in teardown, is two
    // `<testcase>` elements with one id; as before, one test.
    let run = parse(
        r#"<testsuites name="pytest tests"><testsuite name="pytest">
<testcase classname="tests.test_a" name="test_x" file="tests/test_a.py" line="3"><failure message="assert 0">E assert 0</failure></testcase>
<testcase classname="tests.test_a" name="test_x" file="tests/test_a.py" line="3"><error message="failed on teardown with &quot;RuntimeError: bye&quot;">E RuntimeError: bye</error></testcase>
<testcase classname="tests.test_a" name="test_y" file="tests/test_a.py" line="9"/>
<testcase classname="tests.test_a" name="test_y" file="tests/test_a.py" line="9"><error message="failed on teardown with &quot;RuntimeError: bye&quot;">E RuntimeError: bye</error></testcase>
</testsuite></testsuites>"#,
    );
    let ids: Vec<&str> = run.tests.iter().map(|t| t.node_id.as_str()).collect();
    assert_eq!(ids, ["tests/test_a.py::test_x", "tests/test_a.py::test_y"]);
    assert_eq!(outcomes(&run), [Outcome::Error, Outcome::Error]);
    assert_eq!(run.sources[0].folded, 2);
}

fn input(name: &str, xml: &str) -> Input {
    Input {
        name: name.to_string(),
        contents: Ok(xml.as_bytes().to_vec()),
    }
}

fn repeats_xml() -> String {
    std::fs::read_to_string(fixture("repeats.xml")).unwrap()
}

#[test]
fn renderers_show_both_results_of_a_shared_id() {
    let run = report::read_run(
        &[input("repeats.xml", &repeats_xml())],
        report::Reading::for_format(OutputFormat::Markdown),
    )
    .unwrap();
    let md = pytest_mcp::render::markdown::render(&run);
    assert!(
        md.contains(&counts(Counts {
            total: 6,
            failed: 2,
            skipped: 2,
            ..Counts::default()
        })),
        "{}",
        md.lines().next().unwrap_or_default()
    );
    assert!(md.contains("second run failed"), "{md}");
    assert!(md.contains("failed first"), "{md}");

    let json = pytest_mcp::render::json::to_value(&run);
    let tests = json["tests"].as_array().unwrap();
    let listed: Vec<(&str, &str)> = tests
        .iter()
        .map(|t| {
            (
                t["node_id"].as_str().unwrap(),
                t["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            ("pkg#TestAfterPass", "passed"),
            ("pkg#TestAfterPass", "failed"),
            ("pkg#TestAfterSkip", "skipped"),
            ("pkg#TestAfterSkip", "passed"),
            ("pkg#TestSkipAfterFailure", "failed"),
            ("pkg#TestSkipAfterFailure", "skipped"),
        ]
    );

    // Our JUnit, read back by our reader: the same six results.
    let xml = pytest_mcp::render::junit::render(&run);
    let back = junit::parse(xml.as_bytes(), "back.xml").unwrap();
    assert_eq!(results(&back), results(&run), "{xml}");
}

#[test]
fn a_merge_keeps_both_results_of_a_shared_id() {
    let run = report::read_run(&[
            input("repeats.xml", &repeats_xml()),
            input(
                "shard.xml",
                r#"<testsuite name="shard"><testcase classname="pkg" name="TestAfterPass"/></testsuite>"#,
            ),
        ], report::Reading::for_format(OutputFormat::Markdown))
    .unwrap();
    assert_eq!(run.tests.len(), 7);
    assert_eq!(run.counts().failed, 2);
}

#[test]
fn a_baseline_comparison_sees_a_failure_beside_a_pass_of_the_same_id() {
    let before = parse(
        r#"<testsuite name="repeats"><testcase classname="pkg" name="TestAfterPass"/><testcase classname="pkg" name="TestSkipAfterFailure"/></testsuite>"#,
    );
    let now = read("repeats.xml");
    let c = pytest_mcp::model::baseline::compare(&now, &before);
    assert_eq!(
        c.new_failures,
        ["pkg#TestAfterPass", "pkg#TestSkipAfterFailure"]
    );
    assert_eq!(c.added, ["pkg#TestAfterSkip"]);
    assert!(c.fixed.is_empty() && c.still_failing.is_empty() && c.removed.is_empty());

    // And the other way round: failing before (in one of two results),
    // passing now in both, is fixed; a removed id is listed once.
    let c = pytest_mcp::model::baseline::compare(&before, &now);
    assert_eq!(c.fixed, ["pkg#TestAfterPass", "pkg#TestSkipAfterFailure"]);
    assert_eq!(c.removed, ["pkg#TestAfterSkip"]);
    assert!(c.new_failures.is_empty());
}
