use super::*;
use crate::model::{Location, SourceKind};

fn parsed(run: &Run) -> serde_json::Value {
    serde_json::from_str(&render(run)).expect("CTRF is JSON")
}

#[test]
fn suites_follow_pytest_json_ctrf_and_jest_ids() {
    assert_eq!(
        suite("tests/test_a.py::TestX::test_y[a::b]"),
        Some(vec!["tests/test_a.py", "TestX"])
    );
    assert_eq!(
        suite("tests/test_a.py::test_y"),
        Some(vec!["tests/test_a.py"])
    );
    assert_eq!(
        suite("cart › totals › rounds"),
        Some(vec!["cart", "totals"])
    );
    assert_eq!(suite("a.B#m"), None);
    assert_eq!(suite("tests/test_mod.py"), None);
}

#[test]
fn errors_xfails_and_xpasses_keep_their_words() {
    let mut run = Run::default();
    let mut setup = TestResult::new("t.py::a", Outcome::Error);
    setup.phase = Some(Phase::Setup);
    let mut teardown = TestResult::new("t.py::b", Outcome::Error);
    teardown.phase = Some(Phase::Teardown);
    let unknown = TestResult::new("S > c", Outcome::Error);
    let mut xfailed = TestResult::new("t.py::d", Outcome::Skipped);
    xfailed.xfail = Some(Xfail::XFailed);
    let mut xpassed = TestResult::new("t.py::e", Outcome::Passed);
    xpassed.xfail = Some(Xfail::XPassed);
    run.tests = vec![setup, teardown, unknown, xfailed, xpassed];
    let doc = parsed(&run);
    let tests = doc["results"]["tests"].as_array().expect("tests");
    let words: Vec<(&str, &str)> = tests
        .iter()
        .map(|t| {
            (
                t["status"].as_str().unwrap_or_default(),
                t["rawStatus"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        words,
        [
            ("failed", "setup_failed"),
            ("failed", "teardown_failed"),
            ("failed", "error"),
            ("skipped", "xfailed"),
            ("passed", "xpassed"),
        ]
    );
    let s = &doc["results"]["summary"];
    assert_eq!(
        (s["tests"].as_u64(), s["failed"].as_u64()),
        (Some(5), Some(3))
    );
    assert_eq!(
        (s["skipped"].as_u64(), s["passed"].as_u64()),
        (Some(1), Some(1))
    );
}

#[test]
fn a_flaky_test_lists_its_attempts_and_durations_are_milliseconds() {
    let mut run = Run::default();
    let mut flip = TestResult::new("t.py::flip", Outcome::Passed);
    flip.duration = Some(0.0126);
    flip.location = Some(Location::new("t.py", Some(3)));
    flip.set_reruns(vec![Attempt {
        outcome: Outcome::Failed,
        message: Some("boom".into()),
        location: Some(Location::new("t.py", Some(5))),
    }]);
    flip.set_stdout(Some("one\ntwo\n".into()));
    run.tests = vec![flip];
    run.duration = Some(1.2345);
    let doc = parsed(&run);
    let t = &doc["results"]["tests"][0];
    assert_eq!(t["duration"], 13);
    assert_eq!(t["flaky"], true);
    assert_eq!(t["retries"], 1);
    assert_eq!(
        t["retryAttempts"],
        serde_json::json!([{"attempt": 1, "status": "failed", "message": "boom", "line": 5}])
    );
    assert_eq!(t["stdout"], serde_json::json!(["one", "two", ""]));
    let s = &doc["results"]["summary"];
    assert_eq!(
        (s["start"].as_u64(), s["stop"].as_u64()),
        (Some(0), Some(1235))
    );
    assert_eq!(
        (s["duration"].as_u64(), s["flaky"].as_u64()),
        (Some(1235), Some(1))
    );
}

#[test]
fn collection_errors_come_first_as_failed_entries() {
    let mut run = Run::default();
    run.collection_errors.push(CollectionError {
        file: "tests/test_broken.py".into(),
        error_type: Some("SyntaxError".into()),
        message: "invalid syntax".into(),
        line: Some(3),
        traceback: Some("E   SyntaxError: invalid syntax".into()),
    });
    run.tests.push(TestResult::new("t.py::ok", Outcome::Passed));
    let doc = parsed(&run);
    let e = &doc["results"]["tests"][0];
    assert_eq!(e["name"], "tests/test_broken.py");
    assert_eq!(
        (&e["status"], &e["rawStatus"]),
        (&"failed".into(), &"collection_error".into())
    );
    assert_eq!(e["line"], 3);
    assert_eq!(doc["results"]["summary"]["failed"], 1);
    assert_eq!(doc["results"]["summary"]["tests"], 2);
}

#[test]
fn the_tool_is_named_by_the_sources() {
    use crate::model::SourceInfo;
    let source = |kind| SourceInfo {
        kind,
        name: "f".into(),
        entries: 0,
        folded: 0,
    };
    let mut run = Run::default();
    assert_eq!(tool_name(&run), "pytest-mcp");
    run.sources = vec![
        source(SourceKind::JsonReport),
        source(SourceKind::PytestJunit),
    ];
    assert_eq!(tool_name(&run), "pytest");
    run.sources = vec![source(SourceKind::Junit)];
    assert_eq!(tool_name(&run), "JUnit XML");
    run.sources.push(source(SourceKind::PytestJunit));
    assert_eq!(tool_name(&run), "pytest-mcp");
}

#[test]
fn history_rates_are_insights() {
    use std::collections::HashMap;
    let mut run = Run::default();
    run.tests
        .push(TestResult::new("t.py::flip", Outcome::Failed));
    run.tests.push(TestResult::new("t.py::ok", Outcome::Passed));
    let mut tests = HashMap::new();
    tests.insert(
        "t.py::flip".to_string(),
        TestHistory {
            runs: 3,
            failed: 2,
            flaky: true,
            failing_since: None,
            ..TestHistory::default()
        },
    );
    run.history = Some(History {
        runs: 4,
        run: 4,
        commit: Some("1a2b3c4".into()),
        tests,
        ..History::default()
    });
    let doc = parsed(&run);
    assert_eq!(doc["results"]["environment"]["commit"], "1a2b3c4");
    assert_eq!(doc["insights"]["runsAnalyzed"], 4);
    assert_eq!(doc["insights"]["extra"]["flaky"], 1);
    let i = &doc["results"]["tests"][0]["insights"];
    assert_eq!(i["failRate"]["current"], 0.6667);
    assert_eq!(i["passRate"]["current"], 0.3333);
    assert_eq!(i["flakyRate"]["current"], 0.6667);
    assert_eq!(i["executedInRuns"], 3);
    assert!(doc["results"]["tests"][1].get("insights").is_none());
}

#[test]
fn odd_numbers_and_names_stay_valid() {
    let mut run = Run::default();
    let mut t = TestResult::new("", Outcome::Passed);
    t.duration = Some(f64::NAN);
    run.tests.push(t);
    run.duration = Some(-1.0);
    let doc = parsed(&run);
    assert_eq!(doc["results"]["tests"][0]["name"], "(unnamed)");
    assert_eq!(doc["results"]["tests"][0]["duration"], 0);
    assert_eq!(doc["results"]["summary"]["duration"], 0);
    assert_eq!(doc["specVersion"], SPEC_VERSION);
    assert!(doc["results"].get("environment").is_none());
    assert!(doc.get("insights").is_none());
    assert_eq!(doc["generatedBy"], "pytest-mcp");
}
