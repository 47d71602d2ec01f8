//! Inputs the fuzzers (`fuzz/`) found, and handwritten inputs of the same
//! kind, replayed through the same pipeline the fuzz targets run
//! (`testkit/src/pipeline.rs`, which the fuzz crate uses too).
//!
//! Every file under `tests/fixtures/fuzz/<target>/` goes through its target
//! (each directory must exist and hold at least one file):
//! `junit_reader/` as JUnit XML, `json_report_reader/` as pytest-json-report
//! JSON, `ctrf_reader/` as CTRF JSON, `params/` as raw tool arguments. The pipeline panics on any broken
//! promise (a panic in the crate, JSON output that is not JSON, JUnit output
//! our reader cannot read back, Markdown over its budget, an accepted
//! parameter that breaks a rule). The tests after the replay loops say what
//! particular inputs must give.

use pytest_mcp::frontend::dispatch;
use pytest_mcp::frontend::report;
use std::path::{Path, PathBuf};

use pytest_mcp_testkit::pipeline;

/// Every file saved for `target`, sorted. A missing or empty directory
/// fails: a replay over nothing would pass without checking anything.
fn fixtures(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz")
        .join(target);
    let entries = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("no regression inputs for {target}: {}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "{} holds no regression inputs for {target}",
        dir.display()
    );
    files
}

fn fixture(target: &str, name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz")
        .join(target)
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_saved_junit_input_goes_through() {
    for path in fixtures("junit_reader") {
        let bytes = std::fs::read(&path).expect("read fixture");
        let _ = pipeline::junit(&bytes);
    }
}

#[test]
fn every_saved_json_report_input_goes_through() {
    for path in fixtures("json_report_reader") {
        let bytes = std::fs::read(&path).expect("read fixture");
        let _ = pipeline::json_report(&bytes);
    }
}

#[test]
fn every_saved_ctrf_input_goes_through() {
    for path in fixtures("ctrf_reader") {
        let bytes = std::fs::read(&path).expect("read fixture");
        let _ = pipeline::ctrf(&bytes);
    }
}

#[test]
fn every_saved_params_input_goes_through() {
    for path in fixtures("params") {
        let bytes = std::fs::read(&path).expect("read fixture");
        let _ = pipeline::params(&bytes);
    }
}

/// json_report_reader, 2026-11-21: an object with a key given twice (here a
/// test's `call`) was refused for Markdown ("duplicate field `call`") but
/// read for JSON, which parses into a `serde_json::Value` first (last key
/// wins). Now both read it, the last key winning as in Python's json.
#[test]
fn a_duplicate_key_reads_the_same_for_every_format() {
    use pytest_mcp::frontend::report::Input;
    use pytest_mcp::model::Outcome;
    use pytest_mcp::request::OutputFormat;

    for name in ["duplicate-key.json", "duplicate-key-fuzzed.json"] {
        let bytes = fixture("json_report_reader", name);
        let run = pipeline::json_report(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let inputs = [Input {
            name: name.to_string(),
            contents: Ok(bytes),
        }];
        let markdown =
            report::read_run(&inputs, report::Reading::for_format(OutputFormat::Markdown))
                .expect("read for Markdown");
        let json = report::read_run(&inputs, report::Reading::for_format(OutputFormat::Json))
            .expect("read for JSON");
        assert_eq!(markdown.tests, json.tests, "{name}");
        assert_eq!(run.tests, markdown.tests, "{name}");
    }
    let run =
        pipeline::json_report(&fixture("json_report_reader", "duplicate-key.json")).expect("reads");
    assert_eq!(run.tests.len(), 1);
    // The second `call` wins: the test failed with its message.
    assert_eq!(run.tests[0].outcome, Outcome::Failed);
    assert!(
        run.tests[0].message().is_some_and(|m| m.contains("boom")),
        "{:?}",
        run.tests[0].message()
    );
}

/// junit_reader: a file cut short inside hundreds of nested `<testsuite>`s
/// (what a killed CI job leaves; the fuzzers grow nesting and cut inputs
/// anywhere). It is refused with the place where it ends and the element
/// left open, not read as a partial run and not a stack overflow.
#[test]
fn a_truncated_deeply_nested_junit_says_where_it_ends() {
    let bytes = fixture("junit_reader", "deep-nesting-cut-short.xml");
    let e = pipeline::junit(&bytes).expect_err("a truncated file is refused");
    assert_eq!((e.line, e.column), (4, 126), "{e}");
    assert!(
        e.message.contains("<failure>") && e.message.contains("truncated"),
        "{e}"
    );
}

/// junit_reader: character references, predefined entities and an
/// undefined entity in attributes, a test name with quotes and `&`, a
/// negative time, a line number and a time too big for any number type.
#[test]
fn odd_references_and_numbers_in_attributes_still_read() {
    use pytest_mcp::model::Outcome;

    let bytes = fixture("junit_reader", "odd-entities-in-attributes.xml");
    let run = pipeline::junit(&bytes).expect("reads");
    let ids: Vec<&str> = run.tests.iter().map(|t| t.node_id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "tests/test_odd.py::test_refs",
            "tests/test_odd.py::test_\"quoted\"[a&b]",
            "tests/test_odd.py::test_huge_time",
        ]
    );
    let outcomes: Vec<Outcome> = run.tests.iter().map(|t| t.outcome).collect();
    assert_eq!(
        outcomes,
        [Outcome::Failed, Outcome::Skipped, Outcome::Failed]
    );
    // An undefined entity is kept as written, never looked up.
    let first = run.tests[0].message().unwrap_or_default();
    assert!(first.contains("&undefined;"), "{first}");
    // Markup in a reason is text: decoded once, shown as it was meant.
    assert_eq!(run.tests[1].message(), Some("<script>alert(1)</script>"));
    // Numbers that do not fit are left out, not wrapped or made up.
    assert_eq!(run.tests[2].duration, None);
    assert_eq!(
        run.tests[2].location.as_ref().and_then(|l| l.line),
        None,
        "{:?}",
        run.tests[2].location
    );
}

/// junit_reader: a DOCTYPE declaring a recursive entity and an external one
/// (the billion laughs and XXE shapes, cut down), used in a suite-level
/// `<failure>` and in a name, beside nameless cases and a case with every
/// status element. Nothing is expanded or fetched.
#[test]
fn a_doctype_with_entities_expands_nothing() {
    let bytes = fixture("junit_reader", "doctype-entities-and-nameless-cases.xml");
    let run = pipeline::junit(&bytes).expect("reads");
    assert_eq!(
        run.collection_errors.len(),
        1,
        "{:?}",
        run.collection_errors
    );
    assert_eq!(
        run.collection_errors[0].message,
        "class could not load: &ext;"
    );
    assert!(
        run.tests.iter().any(|t| t.node_id.ends_with("t&a;")),
        "{:?}",
        run.tests
    );
    let markdown = dispatch::whole(&run, pytest_mcp::request::OutputFormat::Markdown);
    assert!(!markdown.contains("root:"), "{markdown}");
}

/// params: which field each saved argument set is refused for, and the
/// rule, for `execute_tests` (`run`) or `discover_tests` (`discover`).
#[test]
fn each_saved_params_input_is_refused_for_the_right_field() {
    // (file, tool, field, words of the rule)
    let cases = [
        (
            "wrong-type-node-ids.json",
            "run",
            "node_ids",
            "must be an array of strings",
        ),
        ("float-timeout.json", "run", "timeout", "must be an integer"),
        (
            "unknown-key.json",
            "run",
            "extra_args",
            "is not a known parameter",
        ),
        ("nul-in-node-id.json", "run", "node_ids", "NUL"),
        ("nul-in-discover-path.json", "discover", "path", "NUL"),
        ("dot-dot-through-symlink.json", "run", "node_ids", "'..'"),
        (
            "symlink-out-of-root.json",
            "discover",
            "path",
            "must stay inside the project root",
        ),
    ];
    for (name, tool, field, rule) in cases {
        let answers = pipeline::params(&fixture("params", name));
        // JSON arguments give two answers: execute_tests, discover_tests.
        assert_eq!(answers.len(), 2, "{name}");
        let answer = if tool == "run" {
            &answers[0]
        } else {
            &answers[1]
        };
        let e = answer
            .as_ref()
            .expect_err(&format!("{name}: {tool} must refuse it"));
        assert_eq!(e.field, field, "{name}: {e}");
        assert!(e.detail.contains(rule), "{name}: {e}");
    }
    // Bytes that are not JSON (a NUL, an option after it, invalid UTF-8)
    // are refused as arguments, as a node id / expression and as a path /
    // pattern alike.
    let answers = pipeline::params(&fixture("params", "raw-nul-not-json.bin"));
    assert_eq!(answers.len(), 6);
    for answer in &answers {
        assert!(answer.is_err(), "accepted: {answers:?}");
    }
}

/// ctrf_reader, handwritten: what each hostile CTRF input gives. The
/// reader streams `results.tests`; these are the shapes where streaming
/// could differ from reading the whole document first.
#[test]
fn hostile_ctrf_inputs_are_read_or_refused_with_a_reason() {
    let read = |name: &str| pipeline::ctrf(&fixture("ctrf_reader", name));
    let refused = |name: &str, words: &str| {
        let e = read(name).expect_err(name);
        assert!(e.message.contains(words), "{name}: {e}");
        e
    };
    refused("no-results.json", "no \"results\" object");
    refused("results-null-then-list.json", "not a CTRF document");
    refused("wrong-types.json", "not a CTRF document");
    let e = refused("tests-not-a-list.json", "expected a sequence");
    assert_eq!(e.line, 2, "{e}");
    let e = refused("nan-duration.json", "malformed JSON");
    assert_eq!(e.line, 2, "{e}");
    refused("infinity-line.json", "malformed JSON");
    refused("number-out-of-range.json", "number out of range");
    // Nesting past serde_json's limit in a value the reader reads is
    // refused in the JSON report reader's words; in one it skips, read.
    refused("deep-nesting-in-suite.json", "nests too deeply");
    let run = read("deep-nesting-skipped.json").expect("skipped nesting reads");
    assert_eq!(run.tests.len(), 1);
    for name in ["bom.json", "summary-after-tests.json"] {
        assert_eq!(read(name).expect(name).tests.len(), 1, "{name}");
    }
    let run = read("huge-strings.json").expect("huge strings read");
    assert_eq!(run.tests[0].message().map(str::len), Some(64 * 1024));
}

/// ctrf_reader: a key given twice keeps the last, as JavaScript's
/// `JSON.parse` does, at every level: a second `results` replaces the
/// first one's tests (already handed on by the streaming reader: the
/// document is read again), a second `tests` the first list, a field of a
/// test its first value.
#[test]
fn a_ctrf_key_given_twice_keeps_the_last() {
    use pytest_mcp::model::Outcome;

    let run = pipeline::ctrf(&fixture("ctrf_reader", "duplicate-keys.json")).expect("reads");
    let ids: Vec<&str> = run.tests.iter().map(|t| t.node_id.as_str()).collect();
    assert_eq!(ids, ["t.py::c"]);
    let test = &run.tests[0];
    assert_eq!(test.outcome, Outcome::Failed);
    assert_eq!(test.message(), Some("kept"));
    let location = test.location.as_ref().expect("a location");
    assert_eq!((&*location.file, location.line), ("t.py", Some(7)));
    assert_eq!(run.sources[0].entries, 1);
}

/// ctrf_reader: numbers out of every range (negative, beyond `u32` and
/// `f64`'s integers, fractions) and escapes in the strings the reader
/// borrows: read, nothing made up, the counted retries bounded.
#[test]
fn odd_ctrf_numbers_and_escapes_are_read_safely() {
    use pytest_mcp::model::Outcome;

    let run = pipeline::ctrf(&fixture("ctrf_reader", "huge-numbers.json")).expect("reads");
    assert_eq!(run.tests.len(), 4);
    let [neg, huge, ..] = &run.tests[..] else {
        panic!("{:?}", run.tests)
    };
    assert_eq!(neg.duration, None);
    assert_eq!(neg.location.as_ref().and_then(|l| l.line), None);
    assert_eq!(huge.location.as_ref().and_then(|l| l.line), None);
    for t in &run.tests {
        assert!(
            t.duration.is_none_or(|d| d.is_finite() && d >= 0.0),
            "{t:?}"
        );
        assert!(t.reruns().len() <= 100, "{} reruns", t.reruns().len());
    }
    let run = pipeline::ctrf(&fixture("ctrf_reader", "escaped-strings.json")).expect("reads");
    assert_eq!(run.tests.len(), 2);
    // `fail\u0065d` is `failed`: an escape costs a copy, not the meaning.
    assert_eq!(run.tests[0].outcome, Outcome::Failed);
    assert_eq!(run.tests[1].outcome, Outcome::Skipped);
    let run = pipeline::ctrf(&fixture("ctrf_reader", "odd-retries.json")).expect("reads");
    assert_eq!(run.tests.len(), 3);
}

/// ctrf_reader, 2026-11-26 (through `report`'s sniffing, which reads such
/// a file as pytest-json-report JSON): a number past `f64`'s range in a
/// key the reader skips. Kept for `--format json`, the document's writer
/// refused the number half way through the answer, which was then not
/// JSON; the reader now checks a document that may hold such a number
/// before keeping it, and refuses it with its place, as reading it into
/// a value does, whichever key holds it.
#[test]
fn an_out_of_range_number_in_a_skipped_json_report_key_keeps_json_output_json() {
    for input in [
        &br#"{"created": 1.1e4009443057, "tests": [{"nodeid": "t.py::a", "outcome": "passed"}]}"#[..],
        br#"{"environment": {"x": -1e999}, "tests": [{"nodeid": "t.py::a", "outcome": "passed"}]}"#,
    ] {
        let _ = pipeline::json_report(input);
        let kept = pytest_mcp::sources::json_report::parse(input, "r.json", true);
        let error = kept.expect_err("refused when kept for JSON");
        assert!(error.to_string().contains("number out of range"), "{error}");
    }
}
