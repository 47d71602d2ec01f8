//! JSON inputs with wrong types (pytest-json-report and CTRF): refused
//! with a place or read, never a crash, in every format.

use super::*;

#[test]
fn json_with_wrong_types_is_refused_or_read_never_a_crash() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases: &[(&str, &str)] = &[
        ("null", "null"),
        ("array", "[1, 2, 3]"),
        ("tests-string", r#"{"tests": "all of them"}"#),
        ("tests-object", r#"{"tests": {"nodeid": "a"}}"#),
        ("test-number", r#"{"tests": [5]}"#),
        (
            "nodeid-number",
            r#"{"tests": [{"nodeid": 5, "outcome": "passed"}]}"#,
        ),
        (
            "outcome-list",
            r#"{"tests": [{"nodeid": "a.py::t", "outcome": ["failed"]}]}"#,
        ),
        (
            "outcome-unknown",
            r#"{"tests": [{"nodeid": "a.py::t", "outcome": "exploded"}]}"#,
        ),
        (
            "duration-string",
            r#"{"duration": "long", "tests": [{"nodeid": "a.py::t", "outcome": "passed", "call": {"duration": "x"}}]}"#,
        ),
        (
            "duration-huge",
            r#"{"duration": 1e308, "tests": [{"nodeid": "a.py::t", "outcome": "passed", "call": {"duration": -1e308, "outcome": "passed"}}]}"#,
        ),
        (
            "number-overflow",
            r#"{"duration": 1e400, "exitcode": 99999999999999999999999, "tests": []}"#,
        ),
        ("exitcode-string", r#"{"exitcode": "1", "tests": []}"#),
        ("summary-list", r#"{"summary": [1], "tests": []}"#),
        ("collectors-string", r#"{"collectors": "x", "tests": []}"#),
        (
            "call-string",
            r#"{"tests": [{"nodeid": "a.py::t", "outcome": "failed", "call": "boom"}]}"#,
        ),
        (
            "crash-wrong",
            r#"{"tests": [{"nodeid": "a.py::t", "outcome": "failed", "call": {"outcome": "failed", "crash": {"path": 1, "lineno": "x", "message": []}}}]}"#,
        ),
        (
            "traceback-wrong",
            r#"{"tests": [{"nodeid": "a.py::t", "outcome": "failed", "call": {"outcome": "failed", "traceback": "x", "longrepr": {"a": 1}}}]}"#,
        ),
        (
            "keywords-wrong",
            r#"{"tests": [{"nodeid": "a.py::t", "outcome": "passed", "keywords": 7, "lineno": -3}]}"#,
        ),
        (
            "warnings-wrong",
            r#"{"warnings": [{"message": 1, "lineno": "x"}], "tests": []}"#,
        ),
        (
            "duplicate-keys",
            r#"{"tests": [], "tests": [{"nodeid": "a.py::t", "outcome": "passed"}]}"#,
        ),
        (
            "lone-surrogates",
            r#"{"tests": [{"nodeid": "a.py::t\udc80", "outcome": "failed", "call": {"outcome": "failed", "longrepr": "\ud800 \udfff"}}]}"#,
        ),
        ("trailing-garbage", r#"{"tests": []} {"tests": []}"#),
        (
            "truncated",
            r#"{"tests": [{"nodeid": "a.py::t", "outcome": "pass"#,
        ),
        (
            "escaped-nul",
            r#"{"tests": [{"nodeid": "a.py::t\u0000b", "outcome": "passed"}]}"#,
        ),
        // A byte-order mark, as Windows tools write it: still a report.
        (
            "bom",
            "\u{FEFF}{\"tests\": [{\"nodeid\": \"a.py::t\", \"outcome\": \"passed\"}]}",
        ),
    ];
    let mut problems = Vec::new();
    let mut refused = Vec::new();
    for (name, json) in cases {
        let file = write(dir.path(), &format!("{name}.json"), json.as_bytes());
        for format in formats() {
            let answer = report(&file, format);
            if format == "markdown" && answer.status == Some(2) {
                refused.push(*name);
            }
            problems.extend(check_sane(&file, format, &answer));
        }
    }
    println!("refused: {refused:?}");
    // Documents that are not a report at all must not pass for one.
    for name in [
        "null",
        "array",
        "tests-string",
        "truncated",
        "trailing-garbage",
    ] {
        if !refused.contains(&name) {
            problems.push(format!("{name}.json was accepted as a report"));
        }
    }
    // Well-formed reports must not be refused.
    for name in ["escaped-nul", "bom", "lone-surrogates"] {
        if refused.contains(&name) {
            problems.push(format!("{name}.json was refused"));
        }
    }
    assert_no_problems(problems);
}

/// CTRF of the wrong shape: refused with a location or read, in every
/// format, never a crash.
#[test]
fn ctrf_with_wrong_types_is_refused_or_read_never_a_crash() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ctrf = |results: &str| format!(r#"{{"reportFormat": "CTRF", "results": {results}}}"#);
    let test = |fields: &str| ctrf(&format!(r#"{{"tests": [{{{fields}}}]}}"#));
    let cases: Vec<(&str, String)> = vec![
        ("no-results", r#"{"reportFormat": "CTRF"}"#.to_string()),
        ("results-list", ctrf("[]")),
        ("tests-string", ctrf(r#"{"tests": "all"}"#)),
        ("test-number", ctrf(r#"{"tests": [5]}"#)),
        ("name-number", test(r#""name": 5, "status": "passed""#)),
        ("status-list", test(r#""name": "a", "status": ["failed"]"#)),
        ("truncated", test(r#""name": "a", "status": "pass"#)),
        (
            "odd-values",
            test(
                r#""name": "a", "status": "failed", "duration": -5, "line": -3,
                "retries": 1e300, "suite": {"a": 1}, "stdout": 7"#,
            ),
        ),
        (
            "odd-numbers",
            test(
                r#""name": "a", "status": "failed", "duration": 1e308, "line": 1e20,
                "retries": -2, "flaky": true, "retryAttempts": [{"attempt": -1}]"#,
            ),
        ),
        (
            "escaped-nul",
            test(r#""name": "a\u0000b", "status": "failed", "message": "\u001b[31mred""#),
        ),
        (
            "lone-surrogates",
            test(r#""name": "a\udc80", "status": "failed", "trace": "\ud800 x""#),
        ),
        (
            "bom",
            format!("\u{FEFF}{}", test(r#""name": "a", "status": "passed""#)),
        ),
        (
            "no-report-format",
            r#"{"results": {"tests": [{"name": "a", "status": "passed"}]}}"#.to_string(),
        ),
    ];
    let mut problems = Vec::new();
    let mut refused = Vec::new();
    for (name, json) in &cases {
        let file = write(dir.path(), &format!("{name}.json"), json.as_bytes());
        for format in formats() {
            let answer = report(&file, format);
            if format == "markdown" && answer.status == Some(2) {
                refused.push(*name);
                // What was expected: CTRF's shape, or JSON's syntax.
                if !answer.stderr.contains("CTRF") && !answer.stderr.contains("JSON") {
                    problems.push(format!("{name}.json: unclear: {}", answer.stderr));
                }
            }
            problems.extend(check_sane(&file, format, &answer));
        }
    }
    println!("refused: {refused:?}");
    for name in [
        "no-results",
        "results-list",
        "tests-string",
        "test-number",
        "name-number",
        "status-list",
        "truncated",
        "odd-values",
    ] {
        if !refused.contains(&name) {
            problems.push(format!("{name}.json was accepted as a report"));
        }
    }
    for name in [
        "odd-numbers",
        "escaped-nul",
        "lone-surrogates",
        "bom",
        "no-report-format",
    ] {
        if refused.contains(&name) {
            problems.push(format!("{name}.json was refused"));
        }
    }
    assert_no_problems(problems);
}

// ---------------------------------------------------------------------------
// Enormous input
// ---------------------------------------------------------------------------
