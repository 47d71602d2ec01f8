//! Walks every file of the shared JUnit corpus (`../shared/junit-corpus/`)
//! and of this repository's own JUnit fixtures (`tests/fixtures/junit/`):
//! each is either read with as many results as it has `<testcase>` elements
//! (whatever its `tests=` attributes claim) or refused with a clear error, and
//! our reader agrees with the junit-parser crate file by file. Without the
//! corpus beside the repository its tests print one line and skip; the
//! fixture tests always run.

use std::collections::BTreeMap;
use std::path::Path;

use pytest_mcp::model::{Outcome, Run};
use pytest_mcp::sources::junit;
use quick_xml::events::Event;

mod common;
use common::support;
use support::{corpus_files, own_junit_fixtures};

/// One `<testcase>` as an independent scan sees it.
#[derive(Debug, Default)]
struct ScannedCase {
    /// Status elements directly inside it, in document order.
    tags: Vec<String>,
    /// pytest writes a module or class it could not collect as a case with
    /// `<error message="collection failure">`.
    pytest_collection_failure: bool,
    /// A `status` attribute that says the test did not run
    /// (`status="disabled"`): a skip for us, a pass for junit-parser.
    not_run: bool,
}

/// `status` attribute values that mean "did not run".
const NOT_RUN: &[&str] = &["disabled", "notrun", "not_run", "ignored", "skipped"];

/// What an independent scan of the XML finds.
#[derive(Debug, Default)]
struct Scan {
    cases: Vec<ScannedCase>,
    /// `<failure>`/`<error>` directly under a `<testsuite>`.
    suite_level_errors: usize,
}

/// Scans a file with a bare quick-xml event loop. `None` when it is not
/// well-formed for quick-xml.
fn scan(bytes: &[u8]) -> Option<Scan> {
    let text = String::from_utf8_lossy(bytes);
    let mut reader = quick_xml::Reader::from_str(&text);
    let mut stack: Vec<String> = Vec::new();
    let mut out = Scan::default();
    loop {
        let (name, empty, message, status) = match reader.read_event().ok()? {
            Event::Start(e) => (
                e.local_name().as_ref().to_string(),
                false,
                attr(&e, "message"),
                attr(&e, "status"),
            ),
            Event::Empty(e) => (
                e.local_name().as_ref().to_string(),
                true,
                attr(&e, "message"),
                attr(&e, "status"),
            ),
            Event::End(_) => {
                stack.pop();
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let parent = stack.last().map(String::as_str);
        if name == "testcase" {
            out.cases.push(ScannedCase {
                not_run: status
                    .is_some_and(|s| NOT_RUN.iter().any(|w| w.eq_ignore_ascii_case(s.trim()))),
                ..ScannedCase::default()
            });
        } else if STATUS_TAGS.contains(&name.as_str()) {
            match parent {
                Some("testcase") => {
                    if let Some(case) = out.cases.last_mut() {
                        if name == "error" && message.as_deref() == Some("collection failure") {
                            case.pytest_collection_failure = true;
                        }
                        case.tags.push(name.clone());
                    }
                }
                Some("testsuite") if matches!(name.as_str(), "failure" | "error") => {
                    out.suite_level_errors += 1;
                }
                _ => {}
            }
        }
        if !empty {
            stack.push(name);
        }
    }
    stack.is_empty().then_some(out)
}

const STATUS_TAGS: &[&str] = &[
    "failure",
    "error",
    "skipped",
    "flakyFailure",
    "flakyError",
    "rerunFailure",
    "rerunError",
];

fn attr(e: &quick_xml::events::BytesStart<'_>, key: &str) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.as_ref() == key)
        .map(|a| a.value.to_string())
}

/// Own fixtures the reader refuses, and a word that must be in the reason.
const OWN_REFUSED: &[(&str, &str)] = &[("nunit3.xml", "NUnit"), ("truncated_cdata.xml", "CDATA")];

/// Corpus files the reader refuses, and a word that must be in the reason.
const REFUSED: &[(&str, &str)] = &[
    ("D_dotnet-nunit.xml", "NUnit"),
    ("D_external_nunit-sample.xml", "NUnit"),
    (
        "M_corrupt-junit_e2e-tests_corrupt_target_sf-reports_TEST-test.CorruptTest.xml",
        "CDATA",
    ),
];

fn read(path: &Path) -> (Vec<u8>, Result<Run, pytest_mcp::sources::ParseError>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let result = junit::parse(&bytes, &name);
    (bytes, result)
}

#[test]
fn every_corpus_file_is_read_whole_or_refused_clearly() {
    let Some(files) = corpus_files() else { return };
    let (read_files, total_cases, retried) = read_whole_or_refused(&files, REFUSED);
    println!(
        "corpus: {read_files} files read ({total_cases} test cases; {retried} files with retried cases folded into attempts), {} refused",
        REFUSED.len()
    );
}

#[test]
fn every_own_fixture_is_read_whole_or_refused_clearly() {
    let files = own_junit_fixtures();
    let (read_files, total_cases, _) = read_whole_or_refused(&files, OWN_REFUSED);
    assert_eq!(read_files + OWN_REFUSED.len(), files.len());
    assert!(total_cases >= 50, "only {total_cases} test cases");
}

/// Reads every file: each read one must give as many results as it has
/// `<testcase>` elements, with the outcome our rule gives its status
/// elements; exactly the files of `expected_refused` are refused, each with
/// a reason holding its word. Returns (files read, test cases, files with
/// retried cases).
fn read_whole_or_refused(
    files: &[std::path::PathBuf],
    expected_refused: &[(&str, &str)],
) -> (usize, usize, usize) {
    let mut refused = Vec::new();
    let mut retried = 0;
    let mut read_files = 0;
    let mut total_cases = 0;
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let (bytes, result) = read(path);
        match result {
            Ok(run) => {
                let (cases, folded) = check_read_whole(&name, &bytes, &run);
                retried += usize::from(folded);
                read_files += 1;
                total_cases += cases;
            }
            Err(e) => {
                let shown = format!("{name}: {e}");
                assert!(
                    e.line > 0 && !e.message.is_empty(),
                    "{shown}: an error must say where and what"
                );
                refused.push((name, e.message));
            }
        }
    }
    let refused_names: Vec<&str> = refused.iter().map(|(n, _)| n.as_str()).collect();
    let expected_names: Vec<&str> = expected_refused.iter().map(|(n, _)| *n).collect();
    assert_eq!(refused_names, expected_names, "the files refused");
    for ((name, message), (_, word)) in refused.iter().zip(expected_refused) {
        assert!(
            message.contains(word),
            "{name}: {message:?} should mention {word}"
        );
    }
    (read_files, total_cases, retried)
}

/// Checks one file that was read against a bare scan of it. Returns its
/// number of `<testcase>` elements and whether retries were folded.
fn check_read_whole(name: &str, bytes: &[u8], run: &Run) -> (usize, bool) {
    let scan = scan(bytes)
        .unwrap_or_else(|| panic!("{name}: read by us but not well-formed for a bare scan"));
    let expected = scan.cases.len();
    assert_eq!(
        run.sources[0].entries, expected,
        "{name}: <testcase> elements seen"
    );
    // Collection errors that came from a suite-level <error> are not
    // test cases; the rest came from pytest's collection-failure cases.
    let from_cases = run.collection_errors.len() - scan.suite_level_errors;
    // A case that repeats the id of a failed or erroring case right
    // before it is a rerun: it is read, and that case is kept as an
    // earlier attempt of the test.
    let folded = run.sources[0].folded;
    assert_eq!(
        run.tests.len() + from_cases + folded,
        expected,
        "{name}: results read (tests + collection errors + retries folded) vs <testcase> elements"
    );
    if folded > 0 {
        return (expected, true);
    }
    let cases = scan.cases.iter().filter(|c| !c.pytest_collection_failure);
    for (i, (test, case)) in run.tests.iter().zip(cases).enumerate() {
        assert_eq!(
            test.outcome,
            expected_outcome(case),
            "{name}: case {i} ({}) with status elements {:?}",
            test.node_id,
            case.tags
        );
    }
    (expected, false)
}

/// Our rule: error beats failure beats skipped; flaky alone is a pass; a
/// "did not run" `status` attribute without a status element is a skip.
fn expected_outcome(case: &ScannedCase) -> Outcome {
    let tags = &case.tags;
    let has = |names: &[&str]| tags.iter().any(|t| names.contains(&t.as_str()));
    if has(&["error", "rerunError"]) {
        Outcome::Error
    } else if has(&["failure", "rerunFailure"]) {
        Outcome::Failed
    } else if has(&["skipped"]) || (case.not_run && !has(&["flakyFailure", "flakyError"])) {
        Outcome::Skipped
    } else {
        Outcome::Passed
    }
}

/// junit-parser's rule: the last of `skipped`/`failure`/`error` wins; reruns
/// and flaky attempts are kept aside.
fn last_wins_outcome(tags: &[String]) -> Outcome {
    match tags
        .iter()
        .rev()
        .find(|t| matches!(t.as_str(), "skipped" | "failure" | "error"))
        .map(String::as_str)
    {
        Some("error") => Outcome::Error,
        Some("failure") => Outcome::Failed,
        Some("skipped") => Outcome::Skipped,
        _ => Outcome::Passed,
    }
}

fn parser_outcome(case: &junit_parser::TestCase) -> Outcome {
    match case.status {
        junit_parser::TestStatus::Success => Outcome::Passed,
        junit_parser::TestStatus::Skipped(_) => Outcome::Skipped,
        junit_parser::TestStatus::Failure(_) => Outcome::Failed,
        junit_parser::TestStatus::Error(_) => Outcome::Error,
    }
}

fn collect_cases<'a>(
    suite: &'a junit_parser::TestSuite,
    out: &mut Vec<&'a junit_parser::TestCase>,
) {
    out.extend(suite.cases.iter());
    for s in &suite.suites {
        collect_cases(s, out);
    }
}

#[test]
fn our_reader_agrees_with_junit_parser() {
    let Some(files) = corpus_files() else { return };
    let a = agree_with_junit_parser(&files);
    println!(
        "junit-parser: {} files compared ({} with retries not compared case by case: {:?}) ({} cases with several status elements ranked by our rule, {} cases with a \"did not run\" status read as skipped); it refused {} files we read: {:?}",
        a.compared,
        a.retried_files.len(),
        a.retried_files,
        a.ranked_differently,
        a.not_run,
        a.parser_refused.len(),
        a.parser_refused
    );
    assert!(a.compared > 100, "only {} files compared", a.compared);
}

#[test]
fn our_reader_agrees_with_junit_parser_on_own_fixtures() {
    let files = own_junit_fixtures();
    let a = agree_with_junit_parser(&files);
    assert!(a.parser_refused.is_empty(), "{:?}", a.parser_refused);
    assert!(a.ranked_differently >= 2, "{}", a.ranked_differently);
    // Every fixture but the two the reader refuses.
    assert_eq!(a.compared + a.retried_files.len(), files.len() - 2);
}

/// What comparing with junit-parser found.
#[derive(Debug, Default)]
struct Agreement {
    compared: usize,
    retried_files: Vec<String>,
    ranked_differently: usize,
    /// Cases with a "did not run" `status` and no status element: a skip
    /// for us, a pass for junit-parser.
    not_run: usize,
    parser_refused: Vec<String>,
}

fn agree_with_junit_parser(files: &[std::path::PathBuf]) -> Agreement {
    let mut agreement = Agreement::default();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let (bytes, ours) = read(path);
        let theirs = junit_parser::from_reader(std::io::Cursor::new(&bytes));
        match (ours, theirs) {
            (Ok(ours), Ok(theirs)) => {
                compare_outcomes(&name, &bytes, &ours, &theirs, &mut agreement)
            }
            (Ok(_), Err(e)) => agreement.parser_refused.push(format!("{name} ({e})")),
            (Err(_), _) => {}
        }
    }
    agreement
}

/// Compares the outcomes of one file both readers read.
fn compare_outcomes(
    name: &str,
    bytes: &[u8],
    ours: &Run,
    theirs: &junit_parser::TestSuites,
    agreement: &mut Agreement,
) {
    let scan = scan(bytes).expect("read by us, so well-formed");
    let mut their_cases = Vec::new();
    for suite in &theirs.suites {
        collect_cases(suite, &mut their_cases);
    }
    assert_eq!(
        their_cases.len(),
        scan.cases.len(),
        "{name}: number of cases"
    );

    // Retried cases are one test with attempts for us, several cases
    // for junit-parser: no case-by-case comparison there.
    if ours.sources[0].folded > 0 {
        agreement.retried_files.push(name.to_string());
        return;
    }
    // Our outcomes, case by case, with the one documented difference
    // undone: where a case has several status elements we rank them
    // (error > failure > skipped), junit-parser keeps the last.
    let mut ours_as_parser: BTreeMap<Outcome, usize> = BTreeMap::new();
    let mut tests = ours.tests.iter();
    for case in &scan.cases {
        let outcome = if case.pytest_collection_failure {
            Outcome::Error // a collection error for us, an error case for it
        } else {
            let test = tests.next().expect("one test per case");
            let statuses = case
                .tags
                .iter()
                .filter(|t| matches!(t.as_str(), "skipped" | "failure" | "error"))
                .count();
            if statuses > 1 {
                agreement.ranked_differently += 1;
                last_wins_outcome(&case.tags)
            } else if case.not_run && case.tags.is_empty() {
                // `status="disabled"` alone: we read a skip (the test did
                // not run), junit-parser a pass.
                agreement.not_run += 1;
                Outcome::Passed
            } else {
                test.outcome
            }
        };
        *ours_as_parser.entry(outcome).or_default() += 1;
    }
    let mut theirs_by: BTreeMap<Outcome, usize> = BTreeMap::new();
    for case in &their_cases {
        *theirs_by.entry(parser_outcome(case)).or_default() += 1;
    }
    assert_eq!(ours_as_parser, theirs_by, "{name}: outcomes");
    agreement.compared += 1;
}

/// Cheap fuzzing over real inputs: every corpus file cut at many points and
/// with bytes flipped must give a result or an error, never a panic.
#[test]
fn truncated_and_mangled_corpus_files_never_panic() {
    let Some(files) = corpus_files() else { return };
    let cases = cut_and_mangle(&files, 20);
    assert!(cases > 5_000, "only {cases} inputs tried");
}

/// The same over this repository's own JUnit fixtures.
#[test]
fn truncated_and_mangled_own_fixtures_never_panic() {
    let cases = cut_and_mangle(&own_junit_fixtures(), 100);
    assert!(cases > 3_000, "only {cases} inputs tried");
}

/// Parses every file cut at about `points` places and with a byte changed
/// there; returns the number of inputs tried.
fn cut_and_mangle(files: &[std::path::PathBuf], points: usize) -> usize {
    let mut cases = 0;
    for path in files {
        let bytes = std::fs::read(path).expect("read");
        let step = (bytes.len() / points).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            let _ = junit::parse(&bytes[..cut], "cut");
            let mut mangled = bytes.clone();
            mangled[cut] = mangled[cut].wrapping_add(0x5a);
            let _ = junit::parse(&mangled, "mangled");
            cases += 2;
        }
    }
    cases
}

/// The same for the pytest-json-report reader, over our fixture reports.
#[test]
fn truncated_and_mangled_json_reports_never_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pytest");
    let mut cases = 0;
    for entry in std::fs::read_dir(&dir).expect("fixtures") {
        let bytes =
            std::fs::read(entry.expect("entry").path().join("report.json")).expect("report.json");
        let step = (bytes.len() / 50).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            let _ = pytest_mcp::sources::json_report::parse(&bytes[..cut], "cut", true);
            let mut mangled = bytes.clone();
            mangled[cut] = mangled[cut].wrapping_add(0x5a);
            let _ = pytest_mcp::sources::json_report::parse(&mangled, "mangled", true);
            cases += 2;
        }
    }
    assert!(cases > 500, "only {cases} inputs tried");
}

#[test]
fn entities_never_expand() {
    let billion_laughs = r#"<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY xxe SYSTEM "file:///etc/passwd">
]>
<testsuite name="s"><testcase classname="C" name="t"><failure message="&lol3;">&lol3; &xxe; &amp; &#65;</failure></testcase></testsuite>"#;
    let run = junit::parse(billion_laughs.as_bytes(), "lolz").expect("read without expanding");
    let test = &run.tests[0];
    assert_eq!(test.outcome, Outcome::Failed);
    assert_eq!(test.traceback(), Some("&lol3; &xxe; & A"));
    // The attribute's unknown entity is kept as written, not expanded.
    assert!(
        test.message().is_some_and(|m| m.len() < 20),
        "{:?}",
        test.message()
    );
}

/// Files of the corpus whose reading the rules on repeated ids and
/// `status` attributes changed (issue 13): (file, tests, passed, failed,
/// errors, skipped, flaky). Each repeat after a pass or a skip is a test of
/// its own; only a repeat after a failure or an error is a rerun.
const REREAD: &[(&str, usize, usize, usize, usize, usize, usize)] = &[
    // Casper assertions that share a name: 685 `<testcase>`s, 685 tests
    // (573 before, 112 folded away as retries of passes).
    ("J_junit-complex_suites.xml", 685, 685, 0, 0, 0, 0),
    // `go test -count=3`: three passes, three tests (1 before).
    ("G_016-report.xml", 3, 3, 0, 0, 0, 0),
    // A pass, then a failure rerun as an error: the pass, and an error
    // with its failed attempt (1 flaky test before).
    ("M_flaky_retries_flaky_success_first.xml", 2, 1, 0, 1, 0, 0),
    // Ten `status="disabled"` cases: skipped (passed before).
    ("M_issues_testDisabled.xml", 22, 6, 4, 2, 10, 0),
    // TestNG writes a retried attempt as a bare `<skipped/>`: a skip and a
    // failure now (1 failed test before).
    (
        "D_external_java_TEST-org.apache.pulsar.AddMissingPatchVersionTest.xml",
        2,
        0,
        1,
        0,
        1,
        0,
    ),
    // One test case, one test.
    ("M_mocha_mocha.xml", 1, 1, 0, 0, 0, 0),
];

#[test]
fn repeated_ids_and_status_words_are_read_as_what_happened() {
    let Some(dir) = support::corpus_dir() else {
        return;
    };
    for &(name, tests, passed, failed, errors, skipped, flaky) in REREAD {
        let (_, run) = read(&dir.join(name));
        let c = run.unwrap_or_else(|e| panic!("{name}: {e}")).counts();
        assert_eq!(
            (c.total, c.passed, c.failed, c.errors, c.skipped, c.flaky),
            (tests, passed, failed, errors, skipped, flaky),
            "{name}: (tests, passed, failed, errors, skipped, flaky)"
        );
    }
}

/// A large file is read in parts on several threads (`sources/junit/split.rs`):
/// every corpus file cut at each of its cases (at most 60 cuts, spread over
/// the file) and at pairs of them reads exactly as it does on one thread,
/// result or error, in both reading modes.
#[test]
fn every_corpus_file_cut_at_its_cases_reads_as_one_thread_does() {
    let Some(files) = corpus_files() else { return };
    let mut taken = 0;
    for path in &files {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let cases: Vec<usize> = case_offsets(&bytes);
        let step = cases.len().div_ceil(60).max(1);
        let cuts: Vec<usize> = cases.iter().step_by(step).copied().collect();
        for passing_as_counts in [false, true] {
            let options = pytest_mcp::sources::ReadOptions {
                passing_as_counts,
                ..Default::default()
            };
            let one = junit::parse_with(&bytes, "f.xml", options);
            for (i, &a) in cuts.iter().enumerate() {
                let pairs = cuts.get(i + 1..i + 3).unwrap_or_default();
                for cut in std::iter::once(vec![a]).chain(pairs.iter().map(|&b| vec![a, b])) {
                    let (split, parts) = junit::parse_cut(&bytes, "f.xml", options, &cut);
                    assert_eq!(split, one, "{}, cut at {cut:?}", path.display());
                    taken += parts;
                }
            }
        }
    }
    // Real files are mostly cut where the guess holds.
    assert!(taken > 500, "only {taken} parts taken");
}

/// Offsets of every `<testcase` after the first.
fn case_offsets(bytes: &[u8]) -> Vec<usize> {
    bytes
        .windows(9)
        .enumerate()
        .filter(|(_, w)| w == b"<testcase")
        .map(|(i, _)| i)
        .skip(1)
        .collect()
}
