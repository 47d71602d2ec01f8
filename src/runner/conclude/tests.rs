use super::{Running, bound_strings, while_running};

#[test]
fn an_error_names_the_running_tests_up_to_a_few() {
    let running: Vec<Running> = (0..6)
        .map(|i| Running {
            node_id: format!("t.py::t{i}"),
            worker: Some(format!("gw{i}")),
        })
        .collect();
    assert_eq!(while_running(&[]), "");
    assert_eq!(while_running(&running[..1]), " while running t.py::t0");
    assert_eq!(
        while_running(&running[..2]),
        " while running 2 tests: t.py::t0, t.py::t1"
    );
    assert_eq!(
        while_running(&running),
        " while running 6 tests: t.py::t0, t.py::t1, t.py::t2, t.py::t3 +2 more"
    );
}

#[test]
fn long_strings_are_bounded_on_char_boundaries() {
    let mut v = serde_json::json!({"a": ["é".repeat(100)], "b": "short"});
    let dropped = bound_strings(&mut v, 50);
    assert!(dropped > 0);
    let a = v["a"][0].as_str().unwrap();
    assert!(a.contains("bytes dropped by pytest-mcp"));
    assert_eq!(v["b"], "short");
}

/// Without pytest-json-report the tests come from JUnit, one time each:
/// the event log's phases split it (issue 49).
#[test]
fn junit_times_are_split_by_the_event_logs_phases() {
    use super::{JsonReport, LeftBehind, assemble};
    use crate::runner::process::{Ending, Finished};
    let junit = r#"<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" errors="0" failures="0" skipped="0" tests="2" time="5.3"><testcase classname="tests.test_store" name="test_first" file="tests/test_store.py" line="3" time="2.300" /><testcase classname="tests.test_store" name="test_second" file="tests/test_store.py" line="6" time="0.300" /></testsuite></testsuites>"#;
    let events = r#"{"event": "begin"}
{"event": "collected", "count": 2, "ids": ["tests/test_store.py::test_first", "tests/test_store.py::test_second"]}
{"event": "start", "nodeid": "tests/test_store.py::test_first"}
{"event": "report", "nodeid": "tests/test_store.py::test_first", "when": "call", "outcome": "passed", "duration": 2.3004, "setup": 2.000300, "teardown": 0.000100}
{"event": "finish", "nodeid": "tests/test_store.py::test_first"}
{"event": "start", "nodeid": "tests/test_store.py::test_second"}
{"event": "report", "nodeid": "tests/test_store.py::test_second", "when": "call", "outcome": "passed", "duration": 0.3002, "setup": 0.000100, "teardown": 0.200000}
{"event": "finish", "nodeid": "tests/test_store.py::test_second"}
{"event": "end", "exitstatus": 0, "duration": 2.7}
"#;
    let finished = Finished {
        ending: Ending::Exited(0),
        stdout: Default::default(),
        stderr: Default::default(),
        duration: std::time::Duration::from_secs(3),
    };
    let left = LeftBehind {
        json_report: JsonReport::NotInstalled("/usr/bin/python3".into()),
        junit: Some(junit.as_bytes().to_vec()),
        events: events.to_string(),
    };
    let (run, _) = assemble(left, false, &finished);
    let times: Vec<(&str, [f64; 3])> = run
        .tests
        .iter()
        .map(|t| {
            let p = t.phase_times().expect("phases");
            (t.node_id.as_str(), [p.setup, p.call, p.teardown])
        })
        .collect();
    let [(first, [setup, call, teardown]), (second, [_, _, last])] = times[..] else {
        panic!("{times:?}")
    };
    assert_eq!(first, "tests/test_store.py::test_first");
    assert_eq!(second, "tests/test_store.py::test_second");
    // JUnit's 2.3 s, in the log's shares.
    assert!((setup - 2.3 * 2.0003 / 2.3004).abs() < 1e-3, "{times:?}");
    assert!((call - 0.3).abs() < 1e-3 && teardown < 1e-3, "{times:?}");
    assert!((last - 0.3 * 0.2 / 0.3002).abs() < 1e-3, "{times:?}");
    assert_eq!(run.tests[0].duration, Some(2.3));
}
