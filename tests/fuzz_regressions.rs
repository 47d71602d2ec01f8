//! Inputs the fuzzers (`fuzz/`) found, and handwritten inputs of the same
//! kind, replayed through the same pipeline the fuzz targets run
//! (`testkit/src/pipeline.rs` and `testkit/src/coverage_pipeline.rs`,
//! which the fuzz crate uses too).
//!
//! Every file under `tests/fixtures/fuzz/<target>/` goes through its target
//! (each directory must exist and hold at least one file):
//! `junit_reader/` as JUnit XML, `json_report_reader/` as pytest-json-report
//! JSON, `ctrf_reader/` as CTRF JSON, `coverage_reader/` as coverage.py's
//! reports (Cobertura XML, coverage.json) and as a changed Python file
//! judged against them, `params/` as raw tool arguments. The pipeline
//! panics on any broken promise (a panic in the crate, JSON output that is
//! not JSON, JUnit output our reader cannot read back, Markdown over its
//! budget, an accepted parameter that breaks a rule, a judged change whose
//! covered lines are not among its changed ones or whose gaps miss a line,
//! a comparison with itself that finds new code or lines left behind). The
//! tests after the replay loops say what particular inputs must give.

use pytest_mcp::frontend::dispatch;
use pytest_mcp::frontend::report;
use std::path::{Path, PathBuf};

use pytest_mcp_testkit::{coverage_pipeline, pipeline};

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
fn every_saved_coverage_input_goes_through() {
    for path in fixtures("coverage_reader") {
        let bytes = std::fs::read(&path).expect("read fixture");
        let _ = coverage_pipeline::coverage(&bytes);
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

/// coverage_reader: the coverage.xml and coverage.json pytest-cov wrote for
/// tests/projects/coverage_change (the XML's `<source>` made `/work/p/shop`)
/// name the same statements and lines run, and judge the changed
/// `shop/pricing.py` alike: what the project's NOTES.md says of it.
#[test]
fn pytest_cov_reports_in_either_format_judge_a_change_alike() {
    use pytest_mcp::sources::coverage_data::DataKind;
    use pytest_mcp::sources::coverage_judge::{self, Change};
    use pytest_mcp::sources::git_diff::ChangedLines;
    use std::collections::BTreeMap;

    let xml = coverage_pipeline::coverage(&fixture("coverage_reader", "pytest-cov.xml"));
    let json = coverage_pipeline::coverage(&fixture("coverage_reader", "pytest-cov.json"));
    assert_eq!(xml.kind, Ok(DataKind::Cobertura));
    assert_eq!(json.kind, Ok(DataKind::Json));
    let project = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/projects/coverage_change");
    let read = |part: &str| {
        let path = project.join(part);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    for (part, path) in [
        ("base/shop/__init__.py", "shop/__init__.py"),
        ("edit/shop/discounts.py", "shop/discounts.py"),
        ("edit/shop/pricing.py", "shop/pricing.py"),
        ("edit/shop/stock.py", "shop/stock.py"),
    ] {
        let text = read(part);
        let root = coverage_pipeline::ROOT;
        let by_xml = coverage_judge::state_in(&xml.measured, path, &text, root);
        let by_json = coverage_judge::state_in(&json.measured, path, &text, root);
        assert_eq!(by_xml, by_json, "{path}");
    }
    let path = "shop/pricing.py";
    let text = read("edit/shop/pricing.py");
    let lines = u32::try_from(text.lines().count()).expect("a few lines");
    let mut changed = ChangedLines::default();
    changed.add_untracked(path, lines);
    let texts = BTreeMap::from([(path.to_string(), text)]);
    let change = Change {
        base: "HEAD",
        changed: &changed,
        texts: &texts,
        root: coverage_pipeline::ROOT,
    };
    let by_xml = coverage_judge::judge(&change, &xml.measured);
    assert_eq!(by_xml, coverage_judge::judge(&change, &json.measured));
    assert_eq!(by_xml.note, None);
    let file = &by_xml.files[0];
    assert!(
        file.covered.contains(&7) && file.covered.contains(&23),
        "{file:?}"
    );
    let uncovered = file.uncovered();
    for n in [14, 31, 38, 42] {
        assert!(uncovered.contains(&n), "{n} in {uncovered:?}");
    }
    for n in [12, 22, 37, 39, 45, 46, 47] {
        assert!(
            !file.changed.contains(&n),
            "{n} counted: {:?}",
            file.changed
        );
    }
    let gap = file
        .gaps
        .iter()
        .find(|g| g.start == 38)
        .expect("bulk_price's gap");
    assert_eq!((gap.end, gap.function.as_deref()), (42, Some("bulk_price")));
}

/// coverage_reader: broken reports (cut short, a string for a list of
/// lines, a negative or fractional line number) are refused with where and
/// why; the change is still judged, its file counted as in no report.
#[test]
fn broken_coverage_reports_are_refused_with_a_reason() {
    let cases = [
        ("cut-short.xml", "not well-formed XML at byte 1499"),
        (
            "wrong-types.json",
            "line 1, column 73: not coverage.py's JSON report",
        ),
        ("negative-line.json", "expected u32"),
        ("float-line.json", "line 2, column 50"),
    ];
    for (name, words) in cases {
        let read = coverage_pipeline::coverage(&fixture("coverage_reader", name));
        let error = if name.ends_with(".xml") {
            read.cobertura.expect_err(name)
        } else {
            read.json.expect_err(name)
        };
        assert!(error.contains(words), "{name}: {error}");
        assert!(read.measured.files.is_empty(), "{name}");
        let note = read.judged.note.unwrap_or_default();
        assert!(note.contains("in no coverage report"), "{name}: {note}");
    }
}

/// coverage_reader: Cobertura numbers no writer gives: a line number that
/// is negative, past `u32`, padded, missing or given twice; hits as a
/// float, `NaN`, `-inf`, `1e400`, empty or missing. Lines that are no
/// number are left out; hits that are not a positive number did not run.
/// The file is found under a `<source>` (`/work/p/` with its slash, beside
/// a blank one and a Windows one), an absolute filename under none, and an
/// undefined entity in a name is no error.
#[test]
fn odd_cobertura_numbers_and_names_are_read_safely() {
    use pytest_mcp::sources::coverage_judge;

    let read = coverage_pipeline::coverage(&fixture("coverage_reader", "odd-numbers.xml"));
    let measured = read.cobertura.expect("reads");
    assert_eq!(measured, read.measured);
    // 13 lines of code: every line a statement of its own.
    let text = "x = 1\n".repeat(13);
    let state = coverage_judge::state_in(&measured, "pkg/mod.py", &text, coverage_pipeline::ROOT);
    // The line whose number is given twice (12, then 13) is read as one
    // of them: such XML is not well-formed, and attributes go unchecked.
    let twice = *state.counted.last().expect("lines counted");
    assert!(twice == 12 || twice == 13, "{:?}", state.counted);
    assert_eq!(state.counted, [2, 3, 4, 5, 6, 7, 8, 9, twice]);
    assert_eq!(state.ran, [2, 5, 8, 9, twice]);
    // Named by the absolute filename alone (line 10, not run).
    let state = coverage_judge::state_in(&measured, "abs/pkg/mod.py", &text, "/");
    assert_eq!((state.counted, state.ran), (vec![10], vec![]));
}

/// coverage_reader: Python source the scanner must not lose its place in,
/// judged with nothing measured (every statement not run): multi-line
/// strings, docstrings, a backslash continuation, a decorator's call over
/// lines with a comment inside, brackets closed too often, an unterminated
/// one-quote string, `# pragma: no cover` on a block's header, `try:` /
/// `finally:`, tabs and a form feed for indentation, CRLF line ends, a
/// lone CR (no line end for Rust's `lines`, as here), bytes that are not
/// UTF-8 and a triple-quoted string left open to the end.
#[test]
fn tricky_python_source_is_judged_line_by_line() {
    let read = coverage_pipeline::coverage(&fixture("coverage_reader", "tricky-source.py"));
    assert!(read.kind.is_err() && read.measured.files.is_empty());
    let file = &read.judged.files[0];
    assert!(file.covered.is_empty());
    // Docstrings (1-2, 13), a blank line (5), the pragma'd `if` and its
    // block (16-17), `else:`, `try:` and `finally:` (18, 30, 32).
    let not_counted: Vec<u32> = (1..=44).filter(|n| !file.changed.contains(n)).collect();
    assert_eq!(not_counted, [1, 2, 5, 13, 16, 17, 18, 30, 32]);
    let gaps: Vec<(u32, u32, Option<&str>)> = file
        .gaps
        .iter()
        .map(|g| (g.start, g.end, g.function.as_deref()))
        .collect();
    assert_eq!(
        gaps,
        [
            (3, 4, None),
            (6, 26, Some("top")),
            (27, 33, None),
            (34, 34, Some("spaced")),
            (35, 36, Some("crlf")),
            (37, 37, Some("lone_cr")),
            (38, 38, Some("C")),
            (39, 40, None),
            (41, 44, Some("last")),
        ]
    );
}
