use super::*;

/// Under pytest-xdist every phase's text starts with the worker's line,
/// and a crashed worker's test has a "???" phase.
#[test]
fn xdist_reports_read_as_plain_ones() {
    let header = "[gw1] linux -- Python 3.11.7 /v/bin/python";
    let doc = serde_json::json!({"root": "/p", "tests": [
        {"nodeid": "t.py::a", "lineno": 3, "outcome": "failed",
         "setup": {"outcome": "passed", "longrepr": header},
         "call": {"outcome": "failed", "crash": {"message": "assert 1 == 2"},
                  "longrepr": format!("{header}\n\n    def test_a():\n>       assert 1 == 2")}},
        {"nodeid": "t.py::b", "lineno": 5, "outcome": "skipped",
         "call": {"outcome": "skipped", "longrepr": format!("{header}\n('/p/t.py', 6, 'Skipped: later')")}},
        {"nodeid": "t.py::c", "lineno": 8, "outcome": "failed",
         "setup": {"outcome": "passed", "longrepr": header},
         "???": {"outcome": "failed", "longrepr": format!("{header}\nworker 'gw1' crashed while running 't.py::c'")}}
    ]});
    let run = parse(doc.to_string().as_bytes(), "r.json", false).expect("parse");
    let [a, b, c] = &run.tests[..] else {
        panic!("{:?}", run.tests)
    };
    assert_eq!(a.traceback(), Some("def test_a():\n>       assert 1 == 2"));
    assert_eq!(b.message(), Some("later"));
    assert_eq!(c.outcome, Outcome::Failed);
    assert_eq!(
        c.message(),
        Some("worker 'gw1' crashed while running 't.py::c'")
    );
}

#[test]
fn lone_surrogates_become_replacement_characters() {
    let raw = r#"{"a": "x\udce9y", "b": "\ud83d\ude00", "c": "\\udce9"}"#;
    // Invalid JSON with a multi-byte character after a backslash: no panic.
    let _ = replace_lone_surrogates("\\é \\udce9");
    let fixed = replace_lone_surrogates(raw);
    let v: serde_json::Value = serde_json::from_str(&fixed).expect("valid now");
    assert_eq!(v["a"], "x\u{fffd}y");
    assert_eq!(v["b"], "\u{1f600}");
    assert_eq!(v["c"], "\\udce9");
}

/// pytest-json-report keeps one entry per test, which a failed attempt
/// left with the outcome "rerun" and the last attempt's passed phases.
#[test]
fn pytest_json_reports_own_rerun_entry_is_a_flaky_pass() {
    let passed = serde_json::json!({"outcome": "passed"});
    let doc = serde_json::json!({"root": "/p", "tests": [
        {"nodeid": "t.py::flip", "lineno": 3, "outcome": "rerun",
         "setup": passed, "call": passed, "teardown": passed},
    ]});
    let run = parse(doc.to_string().as_bytes(), "r.json", false).expect("parse");
    let [flip] = &run.tests[..] else {
        panic!("{:?}", run.tests)
    };
    assert_eq!(flip.outcome, Outcome::Passed);
    assert!(flip.is_flaky());
    assert_eq!(flip.reruns(), &[Attempt::failed(None)]);
}

/// pytest-mcp's plugin writes each failed attempt as an entry of its own
/// before the test's: what it said, and where when in the test's file.
#[test]
fn attempt_entries_before_a_test_are_its_earlier_attempts() {
    let passed = serde_json::json!({"outcome": "passed"});
    let doc = serde_json::json!({"root": "/p", "tests": [
        {"nodeid": "t.py::flip", "lineno": 3, "outcome": "rerun",
         "call": {"outcome": "rerun", "longrepr": "E   AssertionError: not yet",
                  "crash": {"path": "/p/t.py", "lineno": 5, "message": "AssertionError: not yet"}}},
        {"nodeid": "t.py::flip", "lineno": 3, "outcome": "rerun", "setup": passed, "call": passed},
        {"nodeid": "t.py::fail", "lineno": 8, "outcome": "rerun",
         "call": {"outcome": "rerun", "crash": {"path": "/p/lib.py", "lineno": -1, "message": "E1"}}},
        {"nodeid": "t.py::fail", "lineno": 8, "outcome": "failed",
         "call": {"outcome": "failed", "crash": {"path": "/p/t.py", "lineno": 10, "message": "E2"}}},
    ]});
    let run = parse(doc.to_string().as_bytes(), "r.json", false).expect("parse");
    let [flip, fail] = &run.tests[..] else {
        panic!("{:?}", run.tests)
    };
    assert_eq!(
        flip.flaky_summary(),
        "passed after 1 failed attempt (first: AssertionError: not yet, at t.py:5)"
    );
    assert_eq!(fail.outcome, Outcome::Failed);
    assert_eq!(fail.message(), Some("E2"));
    // In another file: no location (and an odd line number costs nothing).
    assert_eq!(fail.reruns(), &[Attempt::failed(Some("E1".into()))]);
    assert_eq!(run.sources[0].folded, 2);
}

/// An attempt's odd line number (negative, a float, a string, a list)
/// costs its line, not its file, and the document still reads.
#[test]
fn an_attempts_odd_line_number_costs_only_the_line() {
    for odd in [
        serde_json::json!(-3),
        serde_json::json!(2.5),
        serde_json::json!("7"),
        serde_json::json!([7]),
        serde_json::json!({"n": 7}),
        serde_json::json!(null),
        serde_json::json!(u64::MAX),
    ] {
        let doc = serde_json::json!({"root": "/p", "tests": [
            {"nodeid": "t.py::flip", "lineno": 3, "outcome": "rerun",
             "call": {"outcome": "rerun", "crash": {"path": "/p/t.py", "lineno": odd, "message": "E1"}}},
            {"nodeid": "t.py::flip", "lineno": 3, "outcome": "passed"},
        ]});
        let run = parse(doc.to_string().as_bytes(), "r.json", false).expect("parse");
        let place = run.tests[0].reruns()[0]
            .location
            .as_ref()
            .map(|l| (&*l.file, l.line));
        assert_eq!(place, Some(("t.py", None)), "{odd}");
    }
}

/// pytest-mcp's plugin keeps each failed subtest in its test's entry:
/// read with what it was called, its message and its place; a test whose
/// own phases passed (unittest's subTest) is counted among the passed, as
/// pytest counts it, and gets pytest's words for its message.
#[test]
fn the_plugins_subtests_are_read_into_their_test() {
    let tb = "    def test_s(subtests):\n>       assert i < 2\nE       assert 2 < 2\n\nt.py:7: AssertionError";
    let doc = serde_json::json!({"root": "/p", "tests": [
        {"nodeid": "t.py::test_s", "lineno": 3, "outcome": "failed",
         "call": {"outcome": "failed", "longrepr": "contains 2 failed subtests"},
         "subtests": [
            {"msg": "size", "kwargs": {"i": "2", "a": "'x'"}, "longrepr": tb,
             "crash": {"path": "/p/t.py", "lineno": 7, "message": "assert 2 < 2"},
             "stdout": "checking 2\n"},
            {"msg": null, "kwargs": {"i": "3"},
             "crash": {"path": "/p/t.py", "lineno": 9, "message": "ValueError: odd"}},
            "not an object"
         ]},
        {"nodeid": "t.py::C::test_u", "lineno": 12, "outcome": "failed",
         "call": {"outcome": "passed", "stdout": "uu"},
         "subtests": [{"msg": null, "kwargs": {"n": 1}, "longrepr": tb}]},
        {"nodeid": "t.py::test_v", "lineno": 20, "outcome": "subtests passed",
         "call": {"outcome": "passed"}},
        {"nodeid": "t.py::test_w", "lineno": 30, "outcome": "failed",
         "call": {"outcome": "failed", "longrepr": "boom"}, "subtests": 7}
    ]});
    let run = parse(doc.to_string().as_bytes(), "r.json", false).expect("parse");
    let [s, u, v, w] = &run.tests[..] else {
        panic!("{:?}", run.tests)
    };
    let subtests = s.subtests().expect("subtests");
    assert!(!subtests.test_passed);
    let [two, three] = &subtests.failed[..] else {
        panic!("{subtests:?}")
    };
    let label = two.label.as_ref().expect("label");
    assert_eq!(label.to_string(), "[size] (i=2, a='x')");
    assert_eq!(two.message.as_deref(), Some("assert 2 < 2"));
    assert_eq!(two.location, Some(Location::new("t.py", Some(7))));
    assert_eq!(two.stdout.as_deref(), Some("checking 2\n"));
    // No traceback: the crash's place, in the test's own file.
    assert_eq!(three.location, Some(Location::new("t.py", Some(9))));
    assert_eq!(s.message(), Some("contains 2 failed subtests"));

    let unittest = u.subtests().expect("subtests");
    assert!(unittest.test_passed);
    let n = unittest.failed[0].label.as_ref().expect("label");
    assert_eq!(n.to_string(), "(n=1)");
    assert_eq!(u.message(), Some("contains 1 failed subtest"));
    assert_eq!(u.stdout(), None, "pytest's progress letters");

    assert_eq!(v.outcome, Outcome::Passed);
    assert_eq!((w.outcome, w.subtests()), (Outcome::Failed, None));
    let c = run.counts();
    assert_eq!(
        (c.total, c.passed, c.failed, c.subtests_failed),
        (7, 2, 5, 3)
    );
}

/// What pytest's terminal writes for unittest's subtests while the test's
/// output is captured is left out of it; the test's own output stays.
#[test]
fn pytests_progress_for_unittest_subtests_is_no_captured_output() {
    assert_eq!(subtests::without_progress("uu", true).as_deref(), Some(""));
    assert_eq!(subtests::without_progress("uu", false), None);
    assert_eq!(
        subtests::without_progress("hello\nu\n", true).as_deref(),
        Some("hello")
    );
    let verbose =
        "SUBPASSED(n=0)            [ 83%]\nt.py::C::test_u SUBFAILED(n=1)    [ 83%]\nmine";
    assert_eq!(
        subtests::without_progress(verbose, false).as_deref(),
        Some("mine")
    );
    assert_eq!(subtests::without_progress("usual output", true), None);
}

/// In verbose mode a subtest's word (`skipped`, `xfailed`) is left as
/// the test's outcome by pytest-json-report when every phase passed.
#[test]
fn a_subtests_word_left_as_the_tests_outcome_is_a_pass() {
    let passed = serde_json::json!({"outcome": "passed"});
    let doc = serde_json::json!({"root": "/p", "tests": [
        {"nodeid": "t.py::a", "outcome": "skipped", "setup": passed, "call": passed},
        {"nodeid": "t.py::b", "outcome": "skipped",
         "setup": {"outcome": "skipped", "longrepr": "('/p/t.py', 2, 'Skipped: no')"}},
        {"nodeid": "t.py::c", "outcome": "xfailed", "setup": passed,
         "call": {"outcome": "skipped"}}
    ]});
    let run = parse(doc.to_string().as_bytes(), "r.json", false).expect("parse");
    let outcomes: Vec<Outcome> = run.tests.iter().map(|t| t.outcome).collect();
    assert_eq!(
        outcomes,
        [Outcome::Passed, Outcome::Skipped, Outcome::Skipped]
    );
}

/// A doctest's place, which pytest writes whole, reads relative to the
/// report's rootdir, as every id is; a path among compared values stays.
#[test]
fn places_pytest_wrote_whole_read_relative_to_the_root() {
    let doc = serde_json::json!({"root": "/home/u/shop", "tests": [
        {"nodeid": "shop/calc.py::shop.calc.total", "lineno": 1, "outcome": "failed",
         "call": {"outcome": "failed",
                  "crash": {"path": "/home/u/shop/shop/calc.py", "lineno": 4,
                            "message": "/home/u/shop/shop/calc.py:4: DocTestFailure"},
                  "longrepr": "003 >>> total([1, 2])\nExpected:\n    4\nGot:\n    3\n\n/home/u/shop/shop/calc.py:4: DocTestFailure"}},
        {"nodeid": "t.py::p", "lineno": 1, "outcome": "failed",
         "call": {"outcome": "failed", "crash": {"message": "assert '/home/u/shop/x' == 'x'"},
                  "longrepr": ">   assert p == 'x'\nE   assert '/home/u/shop/x' == 'x'\n\nt.py:2: AssertionError"}}
    ]});
    let run = parse(doc.to_string().as_bytes(), "r.json", false).expect("parse");
    let doctest = &run.tests[0];
    assert!(
        doctest.traceback().is_some_and(
            |tb| tb.ends_with("\nshop/calc.py:4: DocTestFailure") && !tb.contains("/home/u")
        ),
        "{:?}",
        doctest.traceback()
    );
    assert_eq!(
        run.tests[1].message(),
        Some("assert '/home/u/shop/x' == 'x'")
    );
}

/// pytest-retry leaves "retried" on a test that passed on a retry, and on
/// one that failed every attempt until pytest-json-report writes "failed";
/// a word no reader knows is read by the phases and said in a note.
#[test]
fn retried_and_unknown_words_are_read_by_their_phases() {
    let passed = serde_json::json!({"outcome": "passed"});
    let failed = serde_json::json!({"outcome": "failed", "crash": {"path": "/p/t.py", "lineno": 9, "message": "assert 1 == 2"}});
    let doc = serde_json::json!({"root": "/p", "pytest_mcp": {"attempts": true}, "tests": [
        {"nodeid": "t.py::flip", "lineno": 3, "outcome": "retried",
         "setup": passed, "call": passed, "teardown": passed},
        {"nodeid": "t.py::never", "lineno": 7, "outcome": "retried",
         "setup": passed, "call": failed, "teardown": passed},
        {"nodeid": "t.py::odd", "lineno": 11, "outcome": "wobbled",
         "setup": passed, "call": passed, "teardown": passed},
        {"nodeid": "t.py::odd_fail", "lineno": 13, "outcome": "wobbled",
         "setup": passed, "call": failed, "teardown": passed},
    ]});
    let run = parse(doc.to_string().as_bytes(), "r.json", false).expect("parse");
    let outcomes: Vec<Outcome> = run.tests.iter().map(|t| t.outcome).collect();
    assert_eq!(
        outcomes,
        [
            Outcome::Passed,
            Outcome::Failed,
            Outcome::Passed,
            Outcome::Failed
        ]
    );
    assert!(run.tests[0].is_flaky());
    assert!(!run.tests[2].is_flaky());
    assert_eq!(run.tests[3].message(), Some("assert 1 == 2"));
    assert!(run.attempts_recorded);
    assert_eq!(
        run.notes,
        [
            "pytest reported the outcome \"wobbled\" for 2 tests: each is counted by its phases (passed, failed, error or skipped)"
        ]
    );
}

/// An item's own words (no crash, no `E` lines) are its message, whole,
/// and its place the line they name; line 0 of a notebook is no line.
#[test]
fn an_items_own_words_are_its_message_at_the_line_they_name() {
    let doc = serde_json::json!({"root": "/p", "tests": [
        {"nodeid": "docs/usage.rst::line:19,column:1", "lineno": 19, "outcome": "failed",
         "call": {"outcome": "failed", "longrepr": "Example at /p/docs/usage.rst, line 19, column 1 did not evaluate as expected:\nExpected:\n    4\nGot:\n    5\n\nusage.rst:19: SybilFailure"}},
        {"nodeid": "nb/r.ipynb::Cell 2", "lineno": 0, "outcome": "failed",
         "call": {"outcome": "failed", "longrepr": "Notebook cell execution failed\nCell 2: Cell outputs differ\n  - ben 85\n  + bob 58"}},
    ]});
    let run = parse(doc.to_string().as_bytes(), "r.json", false).expect("parse");
    let [sybil, cell] = &run.tests[..] else {
        panic!("{:?}", run.tests)
    };
    assert_eq!(
        sybil.message(),
        Some(
            "Example at docs/usage.rst, line 19, column 1 did not evaluate as expected:\nExpected:\n    4\nGot:\n    5"
        )
    );
    assert_eq!(sybil.location.as_ref().and_then(|l| l.line), Some(19));
    assert!(cell.message().is_some_and(|m| m.ends_with("+ bob 58")));
    assert_eq!(cell.location.as_ref().map(|l| l.line), Some(None));
}
