use super::*;
use crate::model::{Outcome, SourceInfo, Xfail};

fn run(kind: SourceKind, tests: Vec<TestResult>, duration: f64) -> Run {
    Run {
        tests,
        duration: Some(duration),
        sources: vec![SourceInfo {
            kind,
            name: "x".into(),
            entries: 0,
            folded: 0,
        }],
        ..Run::default()
    }
}

#[test]
fn json_wins_and_junit_fills_gaps() {
    let mut from_json = TestResult::new("t.py::a", Outcome::Skipped);
    from_json.xfail = Some(Xfail::XFailed);
    let mut from_junit = TestResult::new("t.py::a", Outcome::Skipped);
    from_junit.set_message(Some("known bug".into()));
    from_junit.xfail = Some(Xfail::XFailed);
    let mut failed_junit = TestResult::new("t.py::b", Outcome::Failed);
    failed_junit.set_message(Some("boom".into()));
    let passed_json = TestResult::new("t.py::b", Outcome::Passed);

    // JUnit given first: JSON still wins.
    let merged = merge(vec![
        run(SourceKind::PytestJunit, vec![from_junit, failed_junit], 2.0),
        run(SourceKind::JsonReport, vec![from_json, passed_json], 1.0),
    ]);
    assert_eq!(merged.tests.len(), 2);
    assert_eq!(merged.tests[0].message(), Some("known bug"));
    assert_eq!(merged.tests[1].outcome, Outcome::Passed);
    assert_eq!(merged.tests[1].message(), None);
    assert_eq!(merged.duration, Some(1.0));
}

#[test]
fn shards_are_a_union_and_duplicates_within_a_file_stay() {
    let a = TestResult::new("a", Outcome::Passed);
    let b = TestResult::new("b", Outcome::Failed);
    let merged = merge(vec![
        run(SourceKind::Junit, vec![a.clone(), a.clone()], 1.0),
        run(SourceKind::Junit, vec![b], 2.0),
    ]);
    assert_eq!(merged.tests.len(), 3);
    assert_eq!(merged.duration, Some(3.0));
}

/// CTRF ranks between the JSON report and JUnit: it wins over JUnit, gives
/// way to the JSON report, and two CTRF shards are a union.
#[test]
fn ctrf_ranks_between_the_json_report_and_junit() {
    let failed = |id: &str, said: &str| {
        let mut t = TestResult::new(id, Outcome::Failed);
        t.set_message(Some(said.into()));
        t
    };
    let merged = merge(vec![
        run(SourceKind::PytestJunit, vec![failed("a", "junit")], 3.0),
        run(SourceKind::Ctrf, vec![failed("a", "ctrf")], 2.0),
    ]);
    assert_eq!(merged.tests.len(), 1);
    assert_eq!(merged.tests[0].message(), Some("ctrf"));
    assert_eq!(merged.duration, Some(2.0));

    let merged = merge(vec![
        run(SourceKind::Ctrf, vec![failed("a", "ctrf")], 2.0),
        run(SourceKind::PytestJunit, vec![failed("a", "junit")], 3.0),
        run(SourceKind::JsonReport, vec![failed("a", "json")], 1.0),
    ]);
    assert_eq!(merged.tests.len(), 1);
    assert_eq!(merged.tests[0].message(), Some("json"));
    assert_eq!(merged.duration, Some(1.0));

    let merged = merge(vec![
        run(SourceKind::Ctrf, vec![failed("a", "one")], 1.0),
        run(SourceKind::Ctrf, vec![failed("a", "two")], 2.0),
    ]);
    assert_eq!(merged.tests.len(), 2);
    assert_eq!(merged.duration, Some(3.0));
}

mod review_regressions {
    use crate::frontend::report::Input;
    use crate::request::OutputFormat;

    fn run_of(files: &[(&str, &str)]) -> crate::model::Run {
        let inputs: Vec<Input> = files
            .iter()
            .map(|(name, text)| Input {
                name: name.to_string(),
                contents: Ok(text.as_bytes().to_vec()),
            })
            .collect();
        crate::frontend::report::read_run(
            &inputs,
            crate::frontend::report::Reading::for_format(OutputFormat::Json),
        )
        .expect("readable")
    }

    #[test]
    fn a_failure_in_a_second_junit_shard_is_not_hidden() {
        let run = run_of(&[
            (
                "s1.xml",
                r#"<testsuite name="s"><testcase classname="C" name="t"/></testsuite>"#,
            ),
            (
                "s2.xml",
                r#"<testsuite name="s"><testcase classname="C" name="t"><failure message="broke on linux"/></testcase></testsuite>"#,
            ),
        ]);
        assert_eq!(run.counts().failed, 1);
        assert_eq!(run.exit_code(), 1);
    }

    #[test]
    fn disagreeing_exit_codes_are_derived_from_the_results() {
        let run = run_of(&[
            (
                "a.json",
                r#"{"exitcode": 0, "tests": [{"nodeid": "t.py::a", "outcome": "passed"}]}"#,
            ),
            (
                "b.json",
                r#"{"exitcode": 1, "tests": [{"nodeid": "t.py::b", "outcome": "failed"}]}"#,
            ),
        ]);
        assert_eq!(run.exit_code(), 1);
    }

    #[test]
    fn two_suite_level_errors_in_one_file_are_both_kept() {
        let run = run_of(&[(
            "dup.xml",
            r#"<testsuite name="com.A"><error message="first"/><error message="second"/></testsuite>"#,
        )]);
        assert_eq!(run.collection_errors.len(), 2);
    }

    #[test]
    fn an_xfail_that_errors_in_teardown_is_an_error_only() {
        let run = run_of(&[(
            "x.json",
            r#"{"tests": [{"nodeid": "t.py::x", "outcome": "xfailed", "call": {"outcome": "skipped"}, "teardown": {"outcome": "failed", "longrepr": "E   RuntimeError: td boom"}}]}"#,
        )]);
        let c = run.counts();
        assert_eq!((c.errors, c.xfailed, c.skipped), (1, 0, 0));
    }

    #[test]
    fn no_durations_give_zero_not_minus_zero() {
        let run = run_of(&[(
            "n.xml",
            r#"<testsuite name="s"><testcase classname="C" name="t"/></testsuite>"#,
        )]);
        assert!(run.duration_secs().is_sign_positive());
        assert!(crate::render::markdown::render(&run).contains("(0.0s)"));
    }

    #[test]
    fn a_pytest_suite_does_not_turn_other_suites_into_pytest_ids() {
        let run = run_of(&[(
            "mix.xml",
            r#"<testsuites><testsuite name="pytest"><testcase classname="tests.test_a" name="test_x"/></testsuite><testsuite name="java"><testcase classname="com.B" name="u"/></testsuite></testsuites>"#,
        )]);
        let ids: Vec<&str> = run.tests.iter().map(|t| t.node_id.as_str()).collect();
        assert_eq!(ids, ["tests/test_a.py::test_x", "com.B#u"]);
    }

    #[test]
    fn an_id_cannot_forge_a_section() {
        let run = run_of(&[(
            "inj.xml",
            "<testsuite name=\"s\"><testcase classname=\"C\" name=\"t&#10;### FAILED: fake&#10;&gt; Sources: none\"><failure message=\"m\"/></testcase></testsuite>",
        )]);
        let md = crate::render::markdown::render(&run);
        assert_eq!(md.matches("\n### ").count(), 1, "{md}");
        assert!(!md.contains("\n> Sources: none"), "{md}");
    }
}

/// pytest-json-report's one entry of a rerun test knows only that an
/// attempt failed; JUnit counts them: the count wins. Attempts that say
/// something (pytest-mcp's own report) are kept.
#[test]
fn attempts_come_from_the_source_that_knows_more() {
    use crate::model::Attempt;
    let with = |id: &str, outcome: Outcome, attempts: Vec<Attempt>| {
        let mut t = TestResult::new(id, outcome);
        t.set_reruns(attempts);
        t
    };
    let json = run(
        SourceKind::JsonReport,
        vec![
            with("t.py::flip", Outcome::Passed, vec![Attempt::failed(None)]),
            with("t.py::fail", Outcome::Failed, vec![]),
            with(
                "t.py::said",
                Outcome::Passed,
                vec![Attempt::failed(Some("E".into()))],
            ),
        ],
        1.0,
    );
    let two = || vec![Attempt::failed(None), Attempt::failed(None)];
    let junit = run(
        SourceKind::PytestJunit,
        vec![
            with("t.py::flip", Outcome::Passed, two()),
            with("t.py::fail", Outcome::Failed, two()),
            with("t.py::said", Outcome::Passed, two()),
        ],
        1.0,
    );
    let merged = merge(vec![json, junit]);
    let counts: Vec<usize> = merged.tests.iter().map(|t| t.reruns().len()).collect();
    assert_eq!(counts, [2, 2, 1]);
}

/// pytest-json-report keeps no subtest: pytest's JUnit gives them, and a
/// test the JSON report says failed with no phase of its own failing
/// (unittest's subTest) and one JUnit failure has that one subtest. The
/// JSON report's own subtests (pytest-mcp's plugin) win.
#[test]
fn junit_gives_the_subtests_pytest_json_report_keeps_none_of() {
    use crate::model::{Subtest, Subtests};
    let sub = |m: &str| Subtest::new(None, Some(m.into()), Some(format!("t.py:7: {m}")));
    let mut fixture_json = TestResult::new("t.py::s", Outcome::Failed);
    fixture_json.set_message(Some("contains 2 failed subtests".into()));
    let mut fixture_junit = TestResult::new("t.py::s", Outcome::Failed);
    fixture_junit.set_subtests(Subtests {
        failed: vec![sub("A"), sub("B")],
        test_passed: false,
    });
    let unittest_json = TestResult::new("t.py::U::u", Outcome::Failed);
    let mut unittest_junit = TestResult::new("t.py::U::u", Outcome::Failed);
    unittest_junit.set_message(Some("AssertionError: odd".into()));
    unittest_junit.set_traceback(Some("t.py:15: AssertionError".into()));
    let mut labelled_json = TestResult::new("t.py::l", Outcome::Failed);
    labelled_json.set_subtests(Subtests {
        failed: vec![sub("mine")],
        test_passed: true,
    });
    let mut labelled_junit = TestResult::new("t.py::l", Outcome::Failed);
    labelled_junit.set_message(Some("mine".into()));
    labelled_junit.set_traceback(Some("t.py:7: mine".into()));

    let merged = merge(vec![
        run(
            SourceKind::JsonReport,
            vec![fixture_json, unittest_json, labelled_json],
            1.0,
        ),
        run(
            SourceKind::PytestJunit,
            vec![fixture_junit, unittest_junit, labelled_junit],
            1.0,
        ),
    ]);
    let [s, u, l] = &merged.tests[..] else {
        panic!("{:?}", merged.tests)
    };
    let s_subs = s.subtests().expect("from JUnit");
    assert_eq!((s_subs.failed.len(), s_subs.test_passed), (2, false));
    let u_subs = u.subtests().expect("its one subtest");
    assert!(u_subs.test_passed);
    assert_eq!(
        u_subs.failed[0].message.as_deref(),
        Some("AssertionError: odd")
    );
    assert_eq!(u.message(), Some("contains 1 failed subtest"));
    assert_eq!(u.traceback(), None);
    assert_eq!(l.message(), Some("contains 1 failed subtest"));
    assert_eq!(l.traceback(), None, "the subtest's is not the test's");
    let c = merged.counts();
    assert_eq!((c.total, c.passed, c.failed), (7, 2, 5));
}

#[test]
fn a_line_of_another_file_is_never_the_test_file_s() {
    use crate::model::Location;
    // pytest-bdd: the test is a function of pytest_bdd/scenario.py; the
    // JSON report's `lineno` is that file's line, its id names the test file.
    let mut from_json = TestResult::new("tests/test_cart.py::test_undefined", Outcome::Failed);
    from_json.location = Some(Location::new("tests/test_cart.py", Some(303)));
    let mut from_junit = TestResult::new("tests/test_cart.py::test_undefined", Outcome::Failed);
    let scenario = "../venv/lib/python3.11/site-packages/pytest_bdd/scenario.py";
    from_junit.location = Some(Location::new(scenario, Some(303)));
    let merged = merge(vec![
        run(SourceKind::JsonReport, vec![from_json.clone()], 1.0),
        run(SourceKind::PytestJunit, vec![from_junit], 1.0),
    ]);
    let at = merged.tests[0].location.as_ref().expect("a place");
    assert_eq!((&*at.file, at.line), (scenario, Some(303)));
    // The same file spelt two ways keeps the JSON report's.
    let mut absolute = TestResult::new("tests/test_cart.py::test_undefined", Outcome::Failed);
    absolute.location = Some(Location::new("/work/tests/test_cart.py", Some(303)));
    let merged = merge(vec![
        run(SourceKind::JsonReport, vec![from_json], 1.0),
        run(SourceKind::PytestJunit, vec![absolute], 1.0),
    ]);
    let at = merged.tests[0].location.as_ref().expect("a place");
    assert_eq!((&*at.file, at.line), ("tests/test_cart.py", Some(303)));
}
