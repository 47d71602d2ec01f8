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
