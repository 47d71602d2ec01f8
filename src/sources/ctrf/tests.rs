use super::*;
use crate::model::{Phase, Xfail};
use crate::sources::{InputFormat, read, sniff};

fn doc(tests: serde_json::Value) -> Vec<u8> {
    serde_json::json!({
        "reportFormat": "CTRF", "specVersion": "0.0.0",
        "results": {"tool": {"name": "jest"},
            "summary": {"tests": 0, "passed": 0, "failed": 0, "skipped": 0,
                        "pending": 0, "other": 0, "start": 1000, "stop": 4500},
            "tests": tests}
    })
    .to_string()
    .into_bytes()
}

fn parse(input: &[u8]) -> Result<Run, ParseError> {
    parse_with(input, "c.json", ReadOptions::default())
}

#[test]
fn a_ctrf_document_is_sniffed_by_its_report_format() {
    assert_eq!(sniff(&doc(serde_json::json!([]))), Ok(InputFormat::Ctrf));
    // Before `reportFormat`: `results` and no `tests`.
    assert_eq!(
        sniff(br#"{"results": {"tests": []}}"#),
        Ok(InputFormat::Ctrf)
    );
    // pytest-json-report, even one that mentions both keys in a string.
    let json_report = br#"{"tests": [{"nodeid": "t.py::a", "outcome": "passed",
        "call": {"longrepr": "\"reportFormat\" \"results\""}}]}"#;
    assert_eq!(sniff(json_report), Ok(InputFormat::JsonReport));
    assert_eq!(
        sniff(br#"{"reportFormat": "other", "tests": []}"#),
        Ok(InputFormat::JsonReport)
    );
    // Broken JSON that names CTRF's key is CTRF's to refuse.
    assert_eq!(
        sniff(br#"{"reportFormat": "CTRF", "#),
        Ok(InputFormat::Ctrf)
    );
}

#[test]
fn statuses_map_to_outcomes() {
    let input = doc(serde_json::json!([
        {"name": "p", "status": "passed", "duration": 1500},
        {"name": "f", "status": "failed", "duration": 2, "message": "boom"},
        {"name": "s", "status": "skipped", "duration": 0, "message": "later"},
        {"name": "w", "status": "pending", "duration": 0},
        {"name": "o", "status": "other", "duration": 0, "rawStatus": "interrupted",
         "message": "stopped"},
        {"name": "x", "status": "weird", "duration": 0}
    ]));
    let run = parse(&input).expect("parse");
    let [p, f, s, w, o, x] = &run.tests[..] else {
        panic!("{:?}", run.tests)
    };
    assert_eq!((p.outcome, p.duration), (Outcome::Passed, Some(1.5)));
    assert_eq!((f.outcome, f.message()), (Outcome::Failed, Some("boom")));
    assert_eq!((s.outcome, s.message()), (Outcome::Skipped, Some("later")));
    assert_eq!(
        (w.outcome, w.message()),
        (Outcome::Skipped, Some("pending"))
    );
    assert_eq!(
        (o.outcome, o.message()),
        (Outcome::Skipped, Some("other (interrupted): stopped"))
    );
    assert_eq!((x.outcome, x.message()), (Outcome::Skipped, Some("weird")));
    assert_eq!(run.sources[0].kind, SourceKind::Ctrf);
    assert_eq!(run.sources[0].entries, 6);
    assert_eq!(SourceKind::Ctrf.describe(), "CTRF");
}

#[test]
fn ids_keep_node_ids_and_join_suites_like_jest() {
    let input = doc(serde_json::json!([
        {"name": "tests/test_a.py::TestX::test_y[1]", "status": "passed", "duration": 1,
         "suite": ["tests/test_a.py"]},
        {"name": "rounds", "status": "passed", "duration": 1, "suite": ["cart", "totals"]},
        {"name": "cart totals adds", "status": "passed", "duration": 1,
         "suite": ["cart", "totals"]},
        {"name": "legacy", "status": "passed", "duration": 1, "suite": "a > b"},
        {"name": "alone", "status": "passed", "duration": 1, "suite": []}
    ]));
    let run = parse(&input).expect("parse");
    let ids: Vec<&str> = run.tests.iter().map(|t| t.node_id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "tests/test_a.py::TestX::test_y[1]",
            "cart › totals › rounds",
            "cart › totals › adds",
            "a › b › legacy",
            "alone"
        ]
    );
}

#[test]
fn location_trace_and_output_are_read() {
    let input = doc(serde_json::json!([
        {"name": "f", "status": "failed", "duration": 3, "filePath": "src/sum.test.js",
         "line": 12, "message": "expected 3", "trace": "Error: expected 3\n    at Object.<anonymous> (src/sum.test.js:14:5)",
         "stdout": ["a", "b"], "stderr": ["warn"]}
    ]));
    let run = parse(&input).expect("parse");
    let f = &run.tests[0];
    assert_eq!(f.location, Some(Location::new("src/sum.test.js", Some(12))));
    assert_eq!(f.traceback().map(|t| t.lines().count()), Some(2));
    assert_eq!(f.stdout(), Some("a\nb"));
    assert_eq!(f.stderr(), Some("warn"));
    let crash = crate::model::crash::crash_line(f).expect("crash line");
    assert_eq!((crash.file, crash.line), ("src/sum.test.js", Some(14)));
}

#[test]
fn retry_attempts_make_a_passing_test_flaky() {
    let input = doc(serde_json::json!([
        {"name": "flip", "status": "passed", "duration": 5, "flaky": true, "retries": 2,
         "filePath": "f.js",
         "retryAttempts": [
            {"attempt": 1, "status": "failed", "message": "first", "line": 7},
            {"attempt": 2, "status": "failed", "message": "second"},
            {"attempt": 3, "status": "passed"}]},
        {"name": "counted", "status": "failed", "duration": 5, "retries": 2},
        {"name": "marked", "status": "passed", "duration": 5, "flaky": true},
        {"name": "final listed", "status": "failed", "duration": 5, "retries": 1,
         "retryAttempts": [{"attempt": 1, "status": "failed", "message": "a"},
                           {"attempt": 2, "status": "failed", "message": "b"}]},
        {"name": "huge", "status": "failed", "duration": 5, "retries": 1e30}
    ]));
    let run = parse(&input).expect("parse");
    let [flip, counted, marked, final_listed, huge] = &run.tests[..] else {
        panic!("{:?}", run.tests)
    };
    assert!(flip.is_flaky());
    assert_eq!(
        flip.flaky_summary(),
        "passed after 2 failed attempts (first: first, at f.js:7)"
    );
    assert_eq!(
        counted.reruns(),
        &[Attempt::failed(None), Attempt::failed(None)]
    );
    assert!(marked.is_flaky());
    assert_eq!(final_listed.reruns(), &[Attempt::failed(Some("a".into()))]);
    assert_eq!(huge.reruns().len(), MAX_COUNTED_RETRIES as usize);
}

/// `stop - start` is the run's wall time (the tests' sum only approximates
/// it, and is wrong under parallel workers): it is the duration whenever
/// it is positive; without it, the tests' sum.
#[test]
fn summary_times_are_the_duration_when_they_are_valid() {
    let with = parse(&doc(serde_json::json!([
        {"name": "a", "status": "passed", "duration": 250}
    ])))
    .expect("parse");
    assert_eq!((with.duration, with.duration_secs()), (Some(3.5), 3.5));
    let without = parse(&doc(serde_json::json!([
        {"name": "a", "status": "passed"}
    ])))
    .expect("parse");
    assert_eq!(without.duration, Some(3.5));
    // A reporter that knows no times writes zeros: the tests' sum then.
    let zeros = br#"{"reportFormat": "CTRF", "results": {"summary": {"start": 0, "stop": 0},
        "tests": [{"name": "a", "status": "passed", "duration": 250}]}}"#;
    let zeros = parse(zeros).expect("parse");
    assert_eq!((zeros.duration, zeros.duration_secs()), (None, 0.25));
    let backwards = br#"{"reportFormat": "CTRF", "results": {"summary": {"start": 9, "stop": 2},
        "tests": [{"name": "a", "status": "passed"}]}}"#;
    assert_eq!(parse(backwards).expect("parse").duration, None);
}

#[test]
fn raw_statuses_give_errors_xfails_and_xpasses() {
    let input = doc(serde_json::json!([
        {"name": "t.py::s", "status": "failed", "duration": 1, "rawStatus": "setup_failed"},
        {"name": "t.py::t", "status": "failed", "duration": 1, "rawStatus": "teardown_failed"},
        {"name": "t.py::c", "status": "failed", "duration": 1, "rawStatus": "call_failed"},
        {"name": "S > e", "status": "failed", "duration": 1, "rawStatus": "error"},
        {"name": "t.py::ce", "status": "failed", "duration": 1, "rawStatus": "call_error"},
        {"name": "t.py::x", "status": "skipped", "duration": 1, "rawStatus": "xfailed",
         "message": "known bug"},
        {"name": "t.py::p", "status": "passed", "duration": 1, "rawStatus": "xpassed"},
        {"name": "t.py::odd", "status": "failed", "duration": 1, "rawStatus": "lunch_error"},
        {"name": "t.py::px", "status": "passed", "duration": 1, "rawStatus": "xfailed"}
    ]));
    let run = parse(&input).expect("parse");
    let got: Vec<(Outcome, Option<Phase>, Option<Xfail>)> = run
        .tests
        .iter()
        .map(|t| (t.outcome, t.phase, t.xfail))
        .collect();
    assert_eq!(
        got,
        [
            (Outcome::Error, Some(Phase::Setup), None),
            (Outcome::Error, Some(Phase::Teardown), None),
            (Outcome::Failed, Some(Phase::Call), None),
            (Outcome::Error, None, None),
            (Outcome::Error, Some(Phase::Call), None),
            (Outcome::Skipped, None, Some(Xfail::XFailed)),
            (Outcome::Passed, None, Some(Xfail::XPassed)),
            (Outcome::Failed, None, None),
            (Outcome::Passed, None, None),
        ]
    );
    assert_eq!(run.tests[5].message(), Some("known bug"));
}

#[test]
fn a_collection_error_entry_is_a_collection_error() {
    let input = doc(serde_json::json!([
        {"name": "tests/test_broken.py", "status": "failed", "duration": 0,
         "rawStatus": "collection_error", "message": "SyntaxError: invalid syntax", "line": 3,
         "trace": "E     def f(:\nE          ^\nE   SyntaxError: invalid syntax"},
        {"name": "Other", "status": "failed", "duration": 0, "rawStatus": "collection_error",
         "message": "could not load"},
        {"name": "t.py::ok", "status": "passed", "duration": 1},
        // Only a failure is a collection error.
        {"name": "t.py::odd", "status": "passed", "duration": 1, "rawStatus": "collection_error"}
    ]));
    let run = parse(&input).expect("parse");
    assert_eq!(run.tests.len(), 2);
    assert_eq!(run.sources[0].entries, 4);
    let [broken, other] = &run.collection_errors[..] else {
        panic!("{:?}", run.collection_errors)
    };
    assert_eq!(broken.file, "tests/test_broken.py");
    assert_eq!(broken.error_type.as_deref(), Some("SyntaxError"));
    assert_eq!(
        (broken.message.as_str(), broken.line),
        ("invalid syntax", Some(3))
    );
    assert!(broken.traceback.is_some());
    assert_eq!(
        (other.error_type.as_deref(), other.message.as_str()),
        (None, "could not load")
    );
}

#[test]
fn a_name_that_holds_its_suite_path_is_the_id() {
    let input = doc(serde_json::json!([
        {"name": "cart › totals › rounds", "status": "passed", "duration": 1,
         "suite": ["cart", "totals"]},
        {"name": "totals › rounds", "status": "passed", "duration": 1,
         "suite": ["cart", "totals"]},
        {"name": "cart › ", "status": "passed", "duration": 1, "suite": ["cart"]}
    ]));
    let run = parse(&input).expect("parse");
    let ids: Vec<&str> = run.tests.iter().map(|t| t.node_id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "cart › totals › rounds",
            "cart › totals › totals › rounds",
            "cart › "
        ]
    );
}

#[test]
fn other_failing_phases_are_split_back() {
    let mut t = TestResult::new("t.py::a", Outcome::Error);
    t.phase = Some(Phase::Teardown);
    t.set_message(Some("RuntimeError: closed".into()));
    t.set_traceback(Some("tb teardown".into()));
    t.add_phase_failure(
        Phase::Call,
        Some("assert 1 == 2\n + where"),
        Some("tb call\nE assert"),
    );
    t.add_phase_failure(Phase::Setup, None, None);
    let input = doc(serde_json::json!([
        {"name": "t.py::a", "status": "failed", "duration": 1, "rawStatus": "teardown_failed",
         "message": t.joined_message().map(|m| m.into_owned()),
         "trace": t.joined_traceback().map(|m| m.into_owned())}
    ]));
    let run = parse(&input).expect("parse");
    let back = &run.tests[0];
    assert_eq!(back.message(), t.message());
    assert_eq!(back.traceback(), t.traceback());
    assert_eq!(back.phase_failures(), t.phase_failures());
    // Without notes in the message, the text is the test's own.
    let plain = doc(serde_json::json!([
        {"name": "t.py::b", "status": "failed", "duration": 1, "rawStatus": "setup_failed",
         "message": "boom", "trace": "a\n\n[call]\nb"}
    ]));
    let run = parse(&plain).expect("parse");
    assert_eq!(run.tests[0].traceback(), Some("a\n\n[call]\nb"));
    assert!(run.tests[0].phase_failures().is_empty());
}

#[test]
fn wrong_shapes_are_named() {
    let err = |text: &str| parse(text.as_bytes()).expect_err(text);
    let e = err(r#"{"reportFormat": "CTRF"}"#);
    assert!(e.message.contains("no \"results\" object"), "{e}");
    let e = err(r#"{"reportFormat": "CTRF", "results": {"tool": {}}}"#);
    assert!(e.message.contains("no \"tests\" list"), "{e}");
    let e = err("{\"reportFormat\": \"CTRF\",\n \"results\": {\"tests\": {}}}");
    assert!(e.message.contains("expected a sequence"), "{e}");
    assert_eq!(e.line, 2);
    let e = err(r#"{"results": {"tests": [{"name": 3, "status": "passed"}]}}"#);
    assert!(e.message.starts_with("not a CTRF document"), "{e}");
    let e = err(r#"{"results": {"tests": [{"status": "passed"}]}}"#);
    assert!(e.message.contains("missing field `name`"), "{e}");
    let e = err("{\"reportFormat\": \"CTRF\",\n  \"results\": {\"tests\": [}");
    assert!(e.message.starts_with("malformed JSON"), "{e}");
    assert_eq!((e.line, e.column), (2, 25));
    let e = err(r#"{"reportFormat": "CTRF", "results": "#);
    assert!(e.message.starts_with("the JSON ends early"), "{e}");
}

#[test]
fn a_key_given_twice_keeps_the_last() {
    let input = br#"{"reportFormat": "CTRF", "results": {"tests": [
        {"name": "a", "status": "passed", "status": "failed", "duration": 1}]}}"#;
    let run = parse(input).expect("parse");
    assert_eq!(run.tests[0].outcome, Outcome::Failed);
}

#[test]
fn deep_nesting_and_huge_strings_do_not_crash() {
    let deep = format!(
        "{{\"reportFormat\": \"CTRF\", \"extra\": {}{}, \"results\": {{\"tests\": []}}}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    // A key the reader does not use is skipped, however deep.
    let run = read(deep.as_bytes(), "deep.json", ReadOptions::default()).expect("read");
    assert_eq!(run.sources[0].kind, SourceKind::Ctrf);
    assert!(run.tests.is_empty());
    let deep_suite = format!(
        "{{\"reportFormat\": \"CTRF\", \"results\": {{\"tests\": [{{\"name\": \"a\", \"status\": \"passed\", \"suite\": {}{}}}]}}}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let e = read(deep_suite.as_bytes(), "deep.json", ReadOptions::default()).expect_err("too deep");
    assert!(e.message.contains("nests too deeply"), "{e}");
    assert_eq!(e.line, 1);
    let big = "x".repeat(10 * 1024 * 1024);
    let input = doc(serde_json::json!([
        {"name": "a", "status": "failed", "duration": 1, "message": big}
    ]));
    let run = read(&input, "big.json", ReadOptions::default()).expect("parse");
    assert_eq!(run.tests[0].message().map(str::len), Some(10 * 1024 * 1024));
}
