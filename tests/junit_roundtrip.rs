//! `--format junit` round trip: a run rendered as JUnit XML and read back by
//! our own reader (`sources::junit::parse`) gives the same summary and the
//! same node ids with the same outcomes, in order, for pytest-json-report
//! input, pytest's JUnit, both merged, every JUnit fixture of this
//! repository and every file of the shared JUnit corpus (when it is beside
//! the repository) our reader accepts, a merge of pytest and other
//! frameworks, and hand-made
//! ids of every shape the reader produces. Each written file must also parse
//! with the junit-parser crate, as a check that it is standard JUnit.
//!
//! Known unknowable: an xpassed test. pytest's own JUnit writes a
//! (non-strict) xpass as a plain pass, so it comes back as passed, not
//! xpassed; the summaries are compared with xpassed counted in passed (which
//! the model does anyway) and the read-back xpassed count must be 0.

use pytest_mcp::frontend::report;
use std::path::{Path, PathBuf};

use pytest_mcp::frontend::report::Input;
use pytest_mcp::model::{CollectionError, Location, Outcome, Phase, Run, TestResult, Xfail};
use pytest_mcp::render::junit::render;
use pytest_mcp::request::OutputFormat;
use pytest_mcp::sources::junit;

mod common;
use common::support;
use support::{corpus_files, own_junit_fixtures};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn input(path: &Path) -> Input {
    Input {
        name: path.file_name().unwrap().to_string_lossy().to_string(),
        contents: std::fs::read(path).map_err(|e| format!("{}: {e}", path.display())),
    }
}

fn run_of(paths: &[PathBuf]) -> Run {
    let inputs: Vec<Input> = paths.iter().map(|p| input(p)).collect();
    report::read_run(&inputs, report::Reading::for_format(OutputFormat::Markdown))
        .unwrap_or_else(|e| panic!("cannot read {paths:?}: {e:?}"))
}

/// What the round trip must keep. `passed` includes xpassed (see the module
/// doc); `xpassed` itself is not compared.
#[derive(Debug, PartialEq, Eq)]
struct Summary {
    total: usize,
    passed: usize,
    failed: usize,
    skipped: usize,
    errors: usize,
    xfailed: usize,
    collection_errors: usize,
}

fn summary(run: &Run) -> Summary {
    let c = run.counts();
    Summary {
        total: c.total,
        passed: c.passed,
        failed: c.failed,
        skipped: c.skipped,
        errors: c.errors,
        xfailed: c.xfailed,
        collection_errors: c.collection_errors,
    }
}

/// Id, outcome and xfail of every test, in order (xpassed shows as none).
fn results(run: &Run) -> Vec<(String, Outcome, Option<Xfail>)> {
    run.tests
        .iter()
        .map(|t| {
            let xfail = t.xfail.filter(|x| *x == Xfail::XFailed);
            (t.node_id.clone(), t.outcome, xfail)
        })
        .collect()
}

fn collectors(run: &Run) -> Vec<String> {
    run.collection_errors
        .iter()
        .map(|e| e.file.clone())
        .collect()
}

/// Every `<testcase>` junit-parser sees, in document order.
fn parser_cases(suites: &[junit_parser::TestSuite], out: &mut Vec<junit_parser::TestCase>) {
    for suite in suites {
        out.extend(suite.cases.iter().cloned());
        parser_cases(&suite.suites, out);
    }
}

/// The start of a document, for failure messages.
fn excerpt(xml: &str) -> &str {
    let end = xml.char_indices().nth(4000).map_or(xml.len(), |(i, _)| i);
    &xml[..end]
}

/// Renders, checks the XML with junit-parser, reads it back with our reader
/// and compares. Returns the XML for further checks.
fn round_trip(run: &Run, label: &str) -> String {
    let xml = render(run);

    // Standard JUnit: junit-parser reads it, with one case per test and per
    // collection error, and the root's counts agree.
    let theirs =
        junit_parser::from_reader(std::io::Cursor::new(xml.as_bytes())).unwrap_or_else(|e| {
            panic!(
                "{label}: junit-parser refuses the output: {e}\n{}",
                excerpt(&xml)
            )
        });
    let mut cases = Vec::new();
    parser_cases(&theirs.suites, &mut cases);
    let c = run.counts();
    assert_eq!(
        cases.len(),
        c.total + c.collection_errors,
        "{label}: junit-parser's test cases"
    );
    let expected: Vec<bool> = std::iter::repeat_n(true, c.collection_errors)
        .chain(run.tests.iter().map(|t| t.outcome == Outcome::Error))
        .collect();
    let got: Vec<bool> = cases.iter().map(|k| k.status.is_error()).collect();
    assert_eq!(got, expected, "{label}: junit-parser's errors");
    assert_eq!(
        (theirs.tests, theirs.failures, theirs.errors, theirs.skipped),
        (
            (c.total + c.collection_errors) as u64,
            c.failed as u64,
            (c.errors + c.collection_errors) as u64,
            c.skipped as u64
        ),
        "{label}: the root's counts"
    );

    let back = junit::parse(xml.as_bytes(), label).unwrap_or_else(|e| {
        panic!(
            "{label}: our reader refuses the output: {e}\n{}",
            excerpt(&xml)
        )
    });
    assert_eq!(
        summary(&back),
        summary(run),
        "{label}: summary\n{}",
        excerpt(&xml)
    );
    assert_eq!(back.counts().xpassed, 0, "{label}: JUnit has no xpass");
    let (want, got) = (results(run), results(&back));
    if want != got {
        let first = want
            .iter()
            .zip(&got)
            .position(|(a, b)| a != b)
            .unwrap_or(want.len().min(got.len()));
        panic!(
            "{label}: results differ at #{first}: wrote {:?}, read back {:?}\n{}",
            want.get(first),
            got.get(first),
            excerpt(&xml)
        );
    }
    assert_eq!(
        collectors(&back),
        collectors(run),
        "{label}: collection errors"
    );
    xml
}

fn fixture_dirs() -> Vec<PathBuf> {
    let dir = root().join("tests/fixtures/pytest");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.join("report.json").is_file())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 10, "expected the pytest fixtures: {dirs:?}");
    dirs
}

#[test]
fn pytest_fixtures_round_trip() {
    let mut tests = 0;
    for dir in fixture_dirs() {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let json = dir.join("report.json");
        let xunit1 = dir.join("junit-xunit1.xml");
        let xunit2 = dir.join("junit-xunit2.xml");
        let sets: [(&str, Vec<PathBuf>); 4] = [
            ("report.json", vec![json.clone()]),
            ("junit-xunit1.xml", vec![xunit1.clone()]),
            ("junit-xunit2.xml", vec![xunit2]),
            ("report.json + junit-xunit1.xml", vec![json, xunit1]),
        ];
        for (what, paths) in sets {
            let run = run_of(&paths);
            tests += run.tests.len();
            let xml = round_trip(&run, &format!("{name}/{what}"));
            assert!(
                xml.contains(r#"<testsuites name="pytest-mcp""#),
                "{name}/{what}: pytest's runs are written in pytest's dialect"
            );
        }
    }
    eprintln!("pytest fixtures: {tests} tests round-tripped");
}

#[test]
fn pytest_details_survive() {
    let dir = root().join("tests/fixtures/pytest");

    let run = run_of(&[dir.join("xfail_xpass/report.json")]);
    assert!(run.counts().xfailed > 0 && run.counts().xpassed > 0);
    let xml = round_trip(&run, "xfail_xpass");
    assert!(xml.contains(r#"type="pytest.xfail""#), "{xml}");

    let run = run_of(&[dir.join("collection_errors/report.json")]);
    assert!(!run.collection_errors.is_empty());
    let xml = round_trip(&run, "collection_errors");
    assert!(xml.contains(r#"message="collection failure""#), "{xml}");
    let back = junit::parse(xml.as_bytes(), "back").unwrap();
    for (a, b) in run.collection_errors.iter().zip(&back.collection_errors) {
        assert_eq!(a.error_type, b.error_type, "{}", a.file);
    }

    // The phase of an error, the location and the failure text come back.
    let run = run_of(&[dir.join("setup_teardown/report.json")]);
    let back = junit::parse(render(&run).as_bytes(), "back").unwrap();
    for (a, b) in run.tests.iter().zip(&back.tests) {
        if a.outcome == Outcome::Error {
            assert_eq!(a.phase, b.phase, "{}", a.node_id);
        }
        assert_eq!(a.location, b.location, "{}", a.node_id);
        if a.is_problem() {
            assert!(b.traceback().is_some(), "{}: traceback lost", a.node_id);
        }
    }
    let run = run_of(&[dir.join("captured_output/report.json")]);
    let back = junit::parse(render(&run).as_bytes(), "back").unwrap();
    // The reader trims captured output, whatever wrote it; colour codes
    // are gone already (the JSON reader drops them, as the JUnit one would).
    let trim = |s: Option<&str>| s.map(|s| s.trim().to_string());
    for (a, b) in run.tests.iter().zip(&back.tests) {
        if a.log().is_none() {
            assert_eq!(trim(a.stdout()), trim(b.stdout()), "{}: stdout", a.node_id);
        }
        assert_eq!(trim(a.stderr()), trim(b.stderr()), "{}: stderr", a.node_id);
    }
}

/// Corpus files the reader refuses (see tests/corpus.rs).
const REFUSED: &[&str] = &[
    "D_dotnet-nunit.xml",
    "D_external_nunit-sample.xml",
    "M_corrupt-junit_e2e-tests_corrupt_target_sf-reports_TEST-test.CorruptTest.xml",
];

/// Own fixtures the reader refuses (see tests/corpus.rs).
const OWN_REFUSED: &[&str] = &["nunit3.xml", "truncated_cdata.xml"];

#[test]
fn every_accepted_corpus_file_round_trips() {
    let Some(files) = corpus_files() else { return };
    let (files, tests, errors) = round_trip_all(&files, REFUSED);
    eprintln!("corpus: {files} files, {tests} tests, {errors} collection errors round-tripped");
    assert!(files >= 100, "only {files} corpus files read");
}

#[test]
fn every_accepted_own_fixture_round_trips() {
    let paths = own_junit_fixtures();
    let (files, tests, errors) = round_trip_all(&paths, OWN_REFUSED);
    assert_eq!(files, paths.len() - OWN_REFUSED.len());
    assert!(tests >= 50, "only {tests} tests round-tripped");
    assert_eq!(errors, 1, "the suite-level error");
}

/// Round-trips every file the reader accepts; the others must be in
/// `refused`. Returns (files, tests, collection errors) round-tripped.
fn round_trip_all(paths: &[PathBuf], refused: &[&str]) -> (usize, usize, usize) {
    let (mut files, mut tests, mut errors) = (0, 0, 0);
    for path in paths {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(path).unwrap();
        let run = match junit::parse(&bytes, &name) {
            Ok(run) => run,
            Err(e) => {
                assert!(refused.contains(&name.as_str()), "{name} refused: {e}");
                continue;
            }
        };
        round_trip(&run, &name);
        files += 1;
        tests += run.tests.len();
        errors += run.collection_errors.len();
    }
    (files, tests, errors)
}

#[test]
fn a_merge_of_pytest_and_other_frameworks_round_trips() {
    let fixtures = root().join("tests/fixtures/junit");
    let paths = [
        root().join("tests/fixtures/pytest/mixed/report.json"),
        fixtures.join("jest.xml"),
        fixtures.join("surefire_suite_level_error.xml"),
        fixtures.join("nested_suites.xml"),
        fixtures.join("surefire_flaky.xml"),
        root().join("tests/fixtures/pytest/collection_errors/junit-xunit2.xml"),
        fixtures.join("unicode_names.xml"),
        fixtures.join("go.xml"),
        fixtures.join("nextest.xml"),
    ];
    let run = run_of(&paths);
    let xml = round_trip(&run, "merge");
    assert!(
        xml.contains(r#"<testsuites name="test results (pytest-mcp)""#),
        "{xml}"
    );
    assert!(xml.contains(r#"<testsuite name="pytest""#), "{xml}");
}

fn test(id: &str, outcome: Outcome) -> TestResult {
    let mut t = TestResult::new(id, outcome);
    if t.is_problem() {
        t.set_message(Some(format!("{id} went wrong\nsecond line")));
        t.set_traceback(Some(
            "Traceback\n\tat somewhere\r\nE   ValueError: bad".into(),
        ));
    }
    t
}

fn collection_error(file: &str, error_type: Option<&str>) -> CollectionError {
    CollectionError {
        file: file.into(),
        error_type: error_type.map(str::to_string),
        message: "cannot import".into(),
        line: None,
        traceback: Some("E   ImportError: cannot import".into()),
    }
}

/// Ids of every shape our reader produces for other frameworks, and pytest
/// ids, in one run without sources (so each id's dialect is guessed).
#[test]
fn every_id_shape_round_trips() {
    let ids = [
        (
            "tests/test_a.py::TestX::TestY::test_z[1-a::b.c]",
            Outcome::Failed,
        ),
        ("tests/test_a.py::test_plain", Outcome::Passed),
        ("a.b.C#method", Outcome::Passed),
        ("FooTest#FooTest_bar", Outcome::Failed),
        ("FooTest#testFooTest", Outcome::Error),
        ("pkg/sub#TestA/Sub#01", Outcome::Passed),
        ("crate::module#test_x", Outcome::Passed),
        ("Strange#", Outcome::Passed),
        ("#only", Outcome::Passed),
        ("Suite name > test name", Outcome::Skipped),
        ("Single > x", Outcome::Passed),
        ("pytest > not pytest", Outcome::Passed),
        ("Same > Same", Outcome::Passed),
        ("Outer suite > inner > #1", Outcome::Passed),
        ("outer › inner › test", Outcome::Failed),
        ("describe › test", Outcome::Passed),
        ("plain test id", Outcome::Passed),
        ("C#tab\there", Outcome::Passed),
        ("C#line\nbreak", Outcome::Passed),
        ("C1\u{85}control#m\u{9b}", Outcome::Passed),
        ("emoji 🎉 > ¢ € Дратути", Outcome::Passed),
        ("quotes \"'<&> > x", Outcome::Passed),
    ];
    let mut run = Run::default();
    for (id, outcome) in ids {
        run.tests.push(test(id, outcome));
    }
    run.collection_errors = vec![
        collection_error("tests/test_broken.py", Some("ImportError")),
        collection_error("tests/test_c.py::TestK", None),
        collection_error("(pytest session)", Some("INTERNALERROR")),
        collection_error("gda.device.XHDetectorTest", None),
    ];
    round_trip(&run, "id shapes");
}

/// A Jest test with an empty title is read as `suite › #<position>` (it
/// used to be `suite › `, which only a `jest` root could give back): it
/// comes back as it is beside the other shapes.
#[test]
fn unnamed_jest_ids_round_trip() {
    let mut run = Run::default();
    for id in [
        "src/a.test.js › #1",
        "outer › inner › #2",
        "outer › inner › test",
        "describe › test",
        "a.b.C#method",
        "Suite > test",
        "plain",
        "tests/test_a.py::test_b",
    ] {
        run.tests.push(test(id, Outcome::Passed));
    }
    run.collection_errors = vec![collection_error("tests/test_broken.py", None)];
    round_trip(&run, "unnamed jest ids");
}

/// pytest ids of every shape, in a run that is pytest's only.
#[test]
fn pytest_id_shapes_round_trip() {
    let mut run = Run::default();
    for (id, outcome) in [
        ("tests/test_skipped_module.py", Outcome::Skipped),
        ("test_top.py::test_a", Outcome::Passed),
        ("dir/test_[x].py::test_a[p]", Outcome::Passed),
        ("a/b/test_c.py::TestK::test_m[x.y-1::2]", Outcome::Error),
        ("doc/README.md::README.md", Outcome::Failed),
        ("//////stuff.py::test_thing[#x0C#x00)#x07]", Outcome::Passed),
        (
            "tests/test_x.py::test_collection_failure_msg",
            Outcome::Error,
        ),
    ] {
        let mut t = test(id, outcome);
        t.location = Some(Location {
            file: id.split("::").next().unwrap().into(),
            line: Some(7),
        });
        run.tests.push(t);
    }
    run.tests[3].phase = Some(Phase::Setup);
    run.tests[6].set_message(Some("collection failure".into()));
    let mut xfail = test("tests/test_x.py::test_xfail", Outcome::Skipped);
    xfail.xfail = Some(Xfail::XFailed);
    xfail.set_message(Some("known bug".into()));
    run.tests.push(xfail);
    run.sources.push(pytest_mcp::model::SourceInfo {
        kind: pytest_mcp::model::SourceKind::JsonReport,
        name: "report.json".into(),
        entries: run.tests.len(),
        folded: 0,
    });
    let xml = round_trip(&run, "pytest id shapes");
    assert!(
        xml.contains(r#"line="6""#),
        "pytest's line is 0-based\n{xml}"
    );
    let back = junit::parse(xml.as_bytes(), "back").unwrap();
    assert_eq!(back.tests[3].phase, Some(Phase::Setup));
    assert_eq!(back.tests[0].location, run.tests[0].location);
    assert_eq!(back.tests[7].message(), Some("known bug"));
}

/// Shapes JUnit or our reader cannot give back exactly, pinned so that the
/// loss is known: a dot in a pytest class part (pytest's classname joins
/// classes with dots), characters XML 1.0 cannot hold (written as pytest
/// writes them), and a pytest id twice in a row.
#[test]
fn known_lossy_shapes() {
    let mut run = Run::default();
    run.tests
        .push(TestResult::new("t.yaml::suite.one::case", Outcome::Passed));
    run.tests
        .push(TestResult::new("t.py::test[\u{1b}\u{7}]", Outcome::Passed));
    let xml = render(&run);
    let back = junit::parse(xml.as_bytes(), "back").unwrap();
    let ids: Vec<&str> = back.tests.iter().map(|t| t.node_id.as_str()).collect();
    assert_eq!(ids, ["t.yaml::suite::one::case", "t.py::test[#x1B#x07]"]);

    // Two results of one pytest id in a row read back as one test: it is how
    // pytest writes a test that failed and then errored in teardown.
    let mut run = Run::default();
    run.tests.push(TestResult::new("t.py::x", Outcome::Passed));
    run.tests.push(TestResult::new("t.py::x", Outcome::Failed));
    let back = junit::parse(render(&run).as_bytes(), "back").unwrap();
    assert_eq!(back.tests.len(), 1);
    assert_eq!(back.tests[0].outcome, Outcome::Failed);
}

#[test]
fn an_empty_run_is_a_valid_document() {
    let xml = round_trip(&Run::default(), "empty");
    assert!(xml.starts_with("<?xml"), "{xml}");
}
