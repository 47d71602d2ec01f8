use super::*;

#[test]
fn pytest_json_report_gives_each_phase() {
    let json = br#"{"created": 1.0, "duration": 3.5, "exitcode": 0, "root": "/p",
        "tests": [
          {"nodeid": "t.py::a", "lineno": 1, "outcome": "passed",
           "setup": {"duration": 2.5, "outcome": "passed"},
           "call": {"duration": 0.25, "outcome": "passed"},
           "teardown": {"duration": 0.5, "outcome": "passed"}},
          {"nodeid": "t.py::b", "lineno": 4, "outcome": "skipped",
           "setup": {"duration": 0.001, "outcome": "skipped", "longrepr": "x"}},
          {"nodeid": "t.py::c", "lineno": 7, "outcome": "passed"}
        ]}"#;
    let read = read(json, "report.json").expect("read");
    assert_eq!(
        read,
        [
            ("t.py::a".to_string(), Timing::phased(2.5, 0.25, 0.5)),
            ("t.py::b".to_string(), Timing::phased(0.001, 0.0, 0.0)),
        ]
    );
}

#[test]
fn a_reruns_last_attempt_is_the_tests_duration() {
    let json = br#"{"tests": [
        {"nodeid": "t.py::a", "outcome": "rerun", "call": {"duration": 1.0}},
        {"nodeid": "t.py::a", "outcome": "passed", "call": {"duration": 2.0}}
    ]}"#;
    let read = read(json, "report.json").expect("read");
    assert_eq!(
        read,
        [("t.py::a".to_string(), Timing::phased(0.0, 2.0, 0.0))]
    );
}

#[test]
fn junit_xml_gives_totals() {
    let xml = br#"<?xml version="1.0"?><testsuites><testsuite name="pytest" tests="2">
        <testcase classname="t" name="a" file="t.py" line="1" time="1.5"/>
        <testcase classname="t" name="b" file="t.py" line="2" time="0.5"/>
        </testsuite></testsuites>"#;
    let read = read(xml, "junit.xml").expect("read");
    assert_eq!(read.len(), 2);
    assert_eq!(read[0].1, Timing::total(1.5));
    assert!(read[0].0.ends_with("::a"), "{read:?}");
}

#[test]
fn a_document_of_another_shape_is_an_error_with_its_place() {
    let e = read(br#"{"tests": [{"nodeid": 3}]}"#, "x.json").expect_err("refused");
    assert!(e.line > 0 && e.message.contains("nodeid"), "{e:?}");
}
