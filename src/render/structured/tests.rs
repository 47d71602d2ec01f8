use super::*;
use crate::budget::count_tokens;
use crate::model::discovery::Item;
use crate::model::exec_error::ErrorKind;
use crate::model::{Location, Outcome, Phase, TestResult};

/// `tests/t.py::test_total[<n>]` failing with `assert <n> == <n+1>` at
/// `lib.py:7`, for `n` in `cases`.
fn total_failures(cases: std::ops::Range<usize>) -> Vec<TestResult> {
    cases
        .map(|n| {
            let mut t = TestResult::new(format!("tests/t.py::test_total[{n}]"), Outcome::Failed);
            t.phase = Some(Phase::Call);
            t.set_message(Some(format!("AssertionError: assert {n} == {}", n + 1)));
            t.set_traceback(Some(format!(
                "    def test_total():\n>       assert total() == {n}\nE       assert {n} == {}\n\nlib.py:7: AssertionError",
                n + 1
            )));
            t
        })
        .collect()
}

fn passed(id: &str) -> TestResult {
    TestResult::new(id, Outcome::Passed)
}

/// A setup error of its own, with a place of its own.
fn setup_error() -> TestResult {
    let mut t = TestResult::new("tests/t.py::test_db", Outcome::Error);
    t.phase = Some(Phase::Setup);
    t.set_message(Some("ConnectionError: refused\nsecond line".into()));
    t.location = Some(Location::new("tests/t.py", Some(3)));
    t
}

fn tokens_of(value: &impl Serialize) -> usize {
    count_tokens(&compact(value))
}

#[test]
fn a_run_is_its_status_counts_and_failure_groups() {
    let mut tests = total_failures(0..3);
    tests.push(passed("tests/t.py::test_ok"));
    tests.push(setup_error());
    let run = Run {
        tests,
        recorded_exit: Some(1),
        duration: Some(1.23456),
        ..Run::default()
    };
    let r = crate::budget::fit(run_within(&run, Budget::NONE));
    assert_eq!(r.status, Verdict::Failure);
    assert_eq!((r.exit_code, r.duration), (Some(1), Some(1.235)));
    assert_eq!(
        (
            r.summary.total,
            r.summary.passed,
            r.summary.failed,
            r.summary.errors
        ),
        (5, 1, 3, 1)
    );
    assert_eq!(r.failures.len(), 2, "{r:?}");
    let total = &r.failures[0];
    assert_eq!(
        (
            total.kind.as_str(),
            total.count,
            total.message.as_str(),
            total.at.as_deref()
        ),
        (
            "failed",
            3,
            "AssertionError: assert 0 == 1",
            Some("lib.py:7")
        )
    );
    // Not every case of test_total failed (the function has only these
    // three, all failing, so it stands for them).
    assert_eq!(total.node_ids, ["tests/t.py::test_total"]);
    let db = &r.failures[1];
    assert_eq!(
        (
            db.kind.as_str(),
            db.count,
            db.message.as_str(),
            db.at.as_deref()
        ),
        (
            "setup error",
            1,
            "ConnectionError: refused",
            Some("tests/t.py:3")
        )
    );
    assert_eq!(r.end.truncated, None);
    let value = serde_json::to_value(&r).unwrap();
    assert_eq!(value["summary"]["xfailed"], 0);
    // Absent, never null: the schema says so.
    assert!(value.get("error").is_none() && value.get("truncated").is_none());
}

#[test]
fn the_status_follows_the_markdown_header() {
    let mut run = Run::default();
    assert_eq!(
        crate::budget::fit(run_within(&run, Budget::NONE)).status,
        Verdict::NoTests
    );
    run.tests.push(passed("t.py::a"));
    assert_eq!(
        crate::budget::fit(run_within(&run, Budget::NONE)).status,
        Verdict::Success
    );
    run.recorded_exit = Some(2);
    assert_eq!(
        crate::budget::fit(run_within(&run, Budget::NONE)).status,
        Verdict::Interrupted
    );
    run.recorded_exit = Some(3);
    assert_eq!(
        crate::budget::fit(run_within(&run, Budget::NONE)).status,
        Verdict::Error
    );
}

/// 400 failures of one shape: five ids named, `more` counts the rest;
/// when even that does not fit, one id each, the counts still exact, and
/// `truncated` says how many tests went unnamed.
#[test]
fn a_few_ids_are_named_and_one_to_fit_the_budget() {
    let mut tests = total_failures(0..400);
    tests.push(passed("tests/t.py::test_total[400]"));
    tests.push(setup_error());
    let run = Run {
        tests,
        ..Run::default()
    };
    let whole = crate::budget::fit(run_within(&run, Budget::NONE));
    assert_eq!(whole.failures[0].node_ids.len(), 5);
    assert_eq!(
        (whole.failures[0].count, whole.failures[0].more),
        (400, 395)
    );
    assert_eq!(whole.end.truncated, None);
    let value = serde_json::to_value(&whole).unwrap();
    assert_eq!(value["failures"][0]["more"], 395);
    assert!(value["failures"][1].get("more").is_none(), "absent when 0");
    let limit = tokens_of(&whole) - 1;
    let r = crate::budget::fit(run_within(&run, Budget::tokens(limit)));
    assert!(tokens_of(&r) <= limit, "{}", tokens_of(&r));
    assert_eq!(r.summary, whole.summary);
    assert_eq!(r.failures.len(), 2);
    assert_eq!(r.failures[0].node_ids, whole.failures[0].node_ids[..1]);
    assert_eq!((r.failures[0].count, r.failures[0].more), (400, 399));
    let t = r.end.truncated.expect("truncated");
    assert_eq!(t.dropped, ["node ids"]);
    assert_eq!((t.tests_omitted, t.groups_omitted), (399, 0));
    assert_eq!(t.max_tokens, Some(limit));
}

/// Many groups: their messages go, then the smallest groups, each still
/// counted.
#[test]
fn the_smallest_groups_go_when_fewer_ids_are_not_enough() {
    let run = crate::model::testing::distinct_failures(300);
    assert_eq!(
        crate::budget::fit(run_within(&run, Budget::NONE))
            .failures
            .len(),
        300
    );
    for limit in [300, 1_000, 3_000] {
        let r = crate::budget::fit(run_within(&run, Budget::tokens(limit)));
        let used = tokens_of(&r);
        assert!(used <= limit, "{used} > {limit}");
        let t = r.end.truncated.clone().expect("truncated");
        // Messages go before groups: each group kept names its test.
        assert_eq!(t.dropped, ["messages", "failure groups"]);
        assert!(r.failures.iter().all(|g| g.message.is_empty()));
        assert_eq!(t.groups_omitted, 300 - r.failures.len());
        assert_eq!(t.tests_omitted, t.groups_omitted);
        // The largest number of groups that fits: one more would not.
        let mut more = r.clone();
        more.failures = crate::budget::fit(run_within(&run, Budget::NONE)).failures
            [..r.failures.len() + 1]
            .to_vec();
        assert!(
            tokens_of(&more) > limit - 10,
            "{limit}: {} groups",
            r.failures.len()
        );
        assert_eq!(
            r.failures.first().map(|g| g.node_ids[0].as_str()),
            Some("tests/t0.py::test_x")
        );
    }
    // Characters too.
    let r = crate::budget::fit(run_within(&run, Budget::chars(2_000)));
    assert!(compact(&r).chars().count() <= 2_000);
    assert!(!r.failures.is_empty());
}

/// A budget smaller than the counts alone: no group, the collection errors
/// that fit, the counts exact.
#[test]
fn a_tiny_budget_keeps_the_counts() {
    let run = Run {
        tests: total_failures(0..50),
        collection_errors: (0..40)
            .map(|n| CollectionError {
                file: format!("tests/test_{n}.py"),
                error_type: Some("ImportError".into()),
                message: format!("ImportError: no module named m{n}"),
                line: None,
                traceback: None,
            })
            .collect(),
        ..Run::default()
    };
    let r = crate::budget::fit(run_within(&run, Budget::tokens(200)));
    assert!(tokens_of(&r) <= 200, "{}", tokens_of(&r));
    assert!(r.failures.is_empty());
    assert!(r.collection_errors.len() < 40);
    assert_eq!(r.summary.failed, 50);
    let t = r.end.truncated.expect("truncated");
    // Every case of test_total failed: one id named them all.
    assert_eq!(
        t.dropped,
        ["messages", "failure groups", "collection errors"]
    );
    assert_eq!((t.groups_omitted, t.tests_omitted), (1, 50));
}

#[test]
fn an_execution_error_is_its_kind_with_what_finished() {
    let mut e = ExecError::spawn(
        "pytest execution exceeded timeout of 3 seconds".into(),
        vec![],
    );
    e.kind = ErrorKind::Timeout;
    e.duration = 3.2;
    e.collected = Some(7);
    e.partial.tests = total_failures(0..2);
    let r = crate::budget::fit(error_within(&e, Budget::NONE));
    assert_eq!(r.status, Verdict::Timeout);
    assert_eq!((r.exit_code, r.summary.failed), (None, 2));
    assert_eq!(r.end.error.as_deref(), Some(e.message.as_str()));
    assert_eq!(r.failures[0].count, 2);
    let d = crate::budget::fit(discovery_error_within(&e, Budget::NONE));
    assert_eq!((d.status, d.count, d.tests.len()), (Verdict::Timeout, 7, 0));
    e.kind = ErrorKind::UsageError;
    e.exit_code = Some(4);
    assert_eq!(
        crate::budget::fit(error_within(&e, Budget::NONE)).status,
        Verdict::Error
    );
}

fn item(nodeid: &str, function: &str, line: u32) -> Item {
    Item {
        nodeid: nodeid.into(),
        file: Some("tests/t.py".into()),
        line: Some(line),
        function: Some(function.into()),
        ..Item::default()
    }
}

#[test]
fn a_discovery_is_its_functions_within_the_budget() {
    let mut items: Vec<Item> = (0..300)
        .map(|n| item(&format!("tests/t.py::test_case[{n}]"), "test_case", 5))
        .collect();
    items.extend((0..200).map(|n| {
        item(
            &format!("tests/t.py::test_{n}"),
            &format!("test_{n}"),
            10 + n,
        )
    }));
    let d = Discovery {
        items,
        duration: 0.25,
        ..Discovery::default()
    };
    let whole = crate::budget::fit(discovery_within(&d, Budget::NONE));
    assert_eq!(
        (whole.status, whole.exit_code, whole.count),
        (Verdict::Success, Some(0), 500)
    );
    assert_eq!(whole.tests.len(), 201);
    assert_eq!(
        whole.tests[0],
        TestFunction {
            node_id: "tests/t.py::test_case".into(),
            line: Some(5),
            cases: Some(300)
        }
    );
    assert_eq!(whole.tests[1].cases, None);
    let r = crate::budget::fit(discovery_within(&d, Budget::tokens(400)));
    assert!(tokens_of(&r) <= 400, "{}", tokens_of(&r));
    assert!(
        r.tests.len() > 5 && r.tests.len() < 201,
        "{}",
        r.tests.len()
    );
    assert_eq!(r.tests[..], whole.tests[..r.tests.len()]);
    let t = r.end.truncated.expect("truncated");
    assert_eq!(t.dropped, ["test functions"]);
    assert_eq!(t.tests_omitted, 201 - r.tests.len());
    let none = crate::budget::fit(discovery_within(&Discovery::default(), Budget::tokens(400)));
    assert_eq!((none.status, none.exit_code), (Verdict::NoTests, Some(5)));
}

#[test]
fn long_messages_are_cut() {
    let long = "é".repeat(MAX_MESSAGE_CHARS + 5);
    let cut = short(&long);
    assert_eq!(cut.chars().count(), MAX_MESSAGE_CHARS + 1);
    assert!(cut.ends_with('…'));
    assert_eq!(short("short"), "short");
}

/// The structured result of `run` offered within `budget`.
fn run_within(run: &Run, budget: Budget) -> Offer<'static, RunResult> {
    offer(run, None, &Style::within(budget))
}

fn error_within(e: &ExecError, budget: Budget) -> Offer<'static, RunResult> {
    error_offer(e, &Style::within(budget))
}

fn discovery_within(d: &Discovery, budget: Budget) -> Offer<'static, DiscoveryResult> {
    discovery_offer(d, &Style::within(budget))
}

fn discovery_error_within(e: &ExecError, budget: Budget) -> Offer<'static, DiscoveryResult> {
    discovery_error_offer(e, &Style::within(budget))
}
