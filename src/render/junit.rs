//! JUnit XML renderer: any [`Run`] out as clean, standard JUnit XML.
//!
//! Why it exists: CI tools (GitHub test reporters, GitLab, Jenkins, Azure)
//! all read JUnit XML, but the files frameworks write disagree on details
//! (nested suites, flaky elements, ids split differently), and
//! pytest-json-report is not JUnit at all. Writing the normalized [`Run`]
//! back out gives one well-formed dialect whatever came in.
//!
//! The document is built with the `quick-junit` crate (the writer nextest
//! uses), so counts, escaping and element order follow the JUnit schema
//! rather than hand-written string formatting.
//!
//! The contract that shapes every choice below: **our own reader
//! ([`crate::sources::junit`]) reads the written file back to the same node
//! ids, outcomes and summary**. So:
//!
//! - One `<testsuites>` root. Named `pytest-mcp` when every test is pytest's:
//!   the reader takes a root whose name starts with `pytest` as pytest's
//!   dialect, which is what turns `classname`/`name`/`file` back into node
//!   ids. When some tests come from other frameworks the root is named
//!   [`MIXED_REPORT_NAME`] instead (a `pytest…` root would make the reader
//!   read *every* case as pytest's), and pytest's tests go into suites named
//!   `pytest`, which the reader recognises per suite. Only a Jest test with
//!   an empty title (`file › `, which the reader builds from the suite name
//!   under jest-junit's root) needs [`JEST_REPORT_NAME`], jest-junit's own.
//! - Tests are grouped into `<testsuite>`s by file: the part of a pytest id
//!   before the first `::`, of another id the part before its first `#`,
//!   ` > ` or ` › `, else one suite `tests`. A new suite starts whenever the
//!   file changes, so the order of the tests is kept exactly (a run whose
//!   files interleave, as with `pytest-xdist`, gets several suites for one
//!   file rather than reordered tests).
//! - pytest ids are written as pytest writes them (`classname` = path with
//!   `/` as `.` and no `.py`, then the classes; `name` = the last part with
//!   its parameters; xunit1's `file`, and `line` 0-based as pytest counts).
//!   Collection errors are written as pytest writes them: a case with an
//!   empty `classname`, the dotted module as `name` and
//!   `<error message="collection failure">`, so they come back as collection
//!   errors, not as failed tests. Errors in setup or teardown keep pytest's
//!   `failed on setup with "..."` message, which carries the phase.
//! - Other ids are split so that the reader's rules give them back
//!   verbatim: `Class#method` as `classname`/`name`, `suite > test` as a
//!   suite and a name, Jest's `describe › test` as the describe path and the
//!   full title (as jest-junit writes by default), anything else with the
//!   whole id as both `classname` and `name`.
//!
//! What JUnit cannot carry, and is therefore lost: xpassed (pytest's JUnit
//! writes a non-strict xpass as a plain pass; it comes back as passed),
//! warnings, the run's notes, and a location in a file other than the one a
//! pytest id names. Captured log records go into `<system-out>` under
//! pytest's `Captured Log` header, as `junit_logging = all` writes them.
//! Characters XML 1.0 cannot hold at all (control characters other than
//! tab, line feed and carriage return; U+FFFE, U+FFFF) are written in ids
//! as pytest writes them (`#x1B`); in messages and output, ANSI colour codes
//! and the other control characters are dropped. Ids our reader cannot give
//! back exactly whatever is written: a pytest id with a `.` in a class part
//! (`f.yaml::a.b::c` comes back as `f.yaml::a::b::c`, since pytest's
//! `classname` joins classes with dots) or with an empty part, and ids with
//! characters XML cannot hold. And two results of one pytest id in a row
//! (shards that both ran the test, merged) come back as one: pytest writes
//! a test that failed and then errored in teardown as two cases with one
//! id, and the reader folds such neighbours.

use std::borrow::Cow;
use std::collections::HashSet;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestRerun, TestSuite};

use crate::model::{CollectionError, Outcome, Phase, Run, SourceKind, TestResult, Xfail};
use crate::pytest_text;

/// The root's name when every test is pytest's. Starting with `pytest` is
/// what makes our reader (and pytest-aware tools) read the ids as pytest's.
pub const PYTEST_REPORT_NAME: &str = "pytest-mcp";

/// The root's name when some tests come from other frameworks: must not
/// start with `pytest` (or `jest`), which would change how every case is
/// read back.
pub const MIXED_REPORT_NAME: &str = "test results (pytest-mcp)";

/// The root's name when a Jest id can only be read back under jest-junit's
/// root (a test with an empty title); jest-junit names its root
/// `jest tests`. Must start with `jest`.
pub const JEST_REPORT_NAME: &str = "jest tests (pytest-mcp)";

/// The suite name that marks pytest's dialect per suite (pytest's own name
/// for its single suite), used when the root cannot say so.
const PYTEST_SUITE: &str = "pytest";

/// The suite of other frameworks' tests whose id names no file or class.
const DEFAULT_SUITE: &str = "tests";

/// Renders the run as a JUnit XML document (UTF-8, with declaration, ending
/// in a newline). Pure and deterministic: no timestamps, host names or ids
/// are invented, so the same run always gives the same bytes.
pub fn render(run: &Run) -> String {
    let report = build_report(run);
    match report.to_string() {
        Ok(xml) => restore_char_refs(&xml),
        // quick-junit writes into memory, so this is not expected; if it ever
        // happens the caller still gets a well-formed document with the
        // counts and the reason, never a panic or half a file.
        Err(e) => fallback(&report, &e.to_string()),
    }
}

/// Which reader convention a test's id follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    Pytest,
    Other,
}

/// The root element's name, which decides how our reader reads every case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Root {
    /// `pytest…`: every case is read as pytest's.
    Pytest,
    /// Neutral: pytest's cases are marked by their suite's name.
    Mixed,
    /// `jest…`: as `Mixed`, except that the reader joins a suite name and a
    /// case name with ` › ` instead of ` > `, and a classname and a name with
    /// ` › ` instead of `#`. Chosen only when an id needs it.
    Jest,
}

impl Root {
    fn name(self) -> &'static str {
        match self {
            Root::Pytest => PYTEST_REPORT_NAME,
            Root::Mixed => MIXED_REPORT_NAME,
            Root::Jest => JEST_REPORT_NAME,
        }
    }
}

/// Builds the quick-junit report: collection errors first (pytest collects
/// before it runs, and writes them first too), then the tests.
fn build_report(run: &Run) -> Report {
    let by_sources = dialect_of_sources(run);
    let dialects: Vec<Dialect> = run
        .tests
        .iter()
        .map(|t| by_sources.unwrap_or_else(|| dialect_of_id(&t.node_id)))
        .collect();
    let mut others = run
        .tests
        .iter()
        .zip(&dialects)
        .filter(|(_, d)| **d == Dialect::Other);
    let root = if dialects.iter().all(|d| *d == Dialect::Pytest) {
        Root::Pytest
    } else if others.any(|(t, _)| needs_jest_root(&t.node_id)) {
        Root::Jest
    } else {
        Root::Mixed
    };
    let pure_pytest = root == Root::Pytest;
    let mut report = Report::new(root.name());
    if let Some(time) = run.duration.and_then(seconds) {
        report.set_time(time);
    }

    // Collection errors are always written in pytest's form: it is the only
    // form in which a case reads back as a collection error.
    let mut groups: Vec<(String, Vec<TestCase>)> = Vec::new();
    for error in &run.collection_errors {
        let key = pytest_file(&error.file).to_string();
        let case = collection_error_case(error);
        match groups.last_mut() {
            Some((last, cases)) if *last == key => cases.push(case),
            _ => groups.push((key, vec![case])),
        }
    }
    for (key, cases) in groups {
        let name = if pure_pytest {
            key
        } else {
            PYTEST_SUITE.into()
        };
        report.add_test_suite(suite(&name, cases, None));
    }

    let mut current: Option<(Dialect, String, Vec<TestCase>, Option<f64>)> = None;
    // (suite, id) pairs written: our reader folds a repeated pair into one
    // test's attempts, so two tests that share an id (from two suites of
    // the input) go into suites of different names.
    let mut written: HashSet<(String, String)> = HashSet::new();
    for (test, &dialect) in run.tests.iter().zip(&dialects) {
        let mut key = match dialect {
            Dialect::Pytest => pytest_file(&test.node_id).to_string(),
            Dialect::Other => other_suite_name(&test.node_id, root == Root::Jest),
        };
        let suite_in_id = dialect == Dialect::Other
            && other_names(&test.node_id, &key, root == Root::Jest)
                .0
                .is_none();
        if dialect == Dialect::Other && !suite_in_id {
            let base = key.clone();
            let mut n = 1;
            while written.contains(&(key.clone(), test.node_id.clone())) {
                n += 1;
                key = format!("{base} ({n})");
            }
        }
        written.insert((key.clone(), test.node_id.clone()));
        let case = match dialect {
            Dialect::Pytest => pytest_case(test),
            Dialect::Other => other_case(test, &key, root == Root::Jest),
        };
        match &mut current {
            Some((d, k, cases, time)) if *d == dialect && *k == key => {
                cases.push(case);
                *time = add_time(*time, test.duration);
            }
            _ => {
                if let Some(group) = current.take() {
                    report.add_test_suite(test_suite(group, pure_pytest));
                }
                current = Some((dialect, key, vec![case], add_time(None, test.duration)));
            }
        }
    }
    if let Some(group) = current {
        report.add_test_suite(test_suite(group, pure_pytest));
    }
    report
}

fn test_suite(
    (dialect, key, cases, time): (Dialect, String, Vec<TestCase>, Option<f64>),
    pure_pytest: bool,
) -> TestSuite {
    let name = match dialect {
        Dialect::Pytest if !pure_pytest => PYTEST_SUITE.to_string(),
        _ => key,
    };
    suite(&name, cases, time)
}

fn suite(name: &str, cases: Vec<TestCase>, time: Option<f64>) -> TestSuite {
    let mut suite = TestSuite::new(xml_text(name, Field::Id));
    if let Some(time) = time.and_then(seconds) {
        suite.set_time(time);
    }
    // `add_test_cases` keeps the suite's tests/failures/errors/skipped right.
    suite.add_test_cases(cases);
    suite
}

fn add_time(sum: Option<f64>, duration: Option<f64>) -> Option<f64> {
    match (sum, duration) {
        (Some(a), Some(b)) => Some(a + b),
        (a, b) => a.or(b),
    }
}

/// A duration for quick-junit; `None` for negative, NaN or huge values, which
/// `Duration::from_secs_f64` would panic on.
fn seconds(secs: f64) -> Option<Duration> {
    Duration::try_from_secs_f64(secs).ok()
}

/// The dialect every test has when the sources say so: all pytest's, or all
/// another framework's. `None` (decide per id) for a merge of both kinds or
/// a run built without sources.
fn dialect_of_sources(run: &Run) -> Option<Dialect> {
    let is_pytest = |k: SourceKind| {
        matches!(
            k,
            SourceKind::JsonReport
                | SourceKind::PytestJunit
                | SourceKind::PytestEvents
                | SourceKind::PytestText
        )
    };
    if run.sources.is_empty() {
        None
    } else if run.sources.iter().all(|s| is_pytest(s.kind)) {
        Some(Dialect::Pytest)
    } else if run.sources.iter().all(|s| !is_pytest(s.kind)) {
        Some(Dialect::Other)
    } else {
        None
    }
}

/// Whether an id looks like pytest's: a file path with an extension, without
/// spaces or other frameworks' separators, then `::` (or a bare `.py` path:
/// a module skipped at collection). A Rust `crate::module#test` or a Java
/// `a.b.C#m` is not.
fn dialect_of_id(id: &str) -> Dialect {
    let path = pytest_file(id);
    let file_name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let has_extension = file_name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && !ext.is_empty() && ext.chars().all(|c| c.is_ascii_alphanumeric())
    });
    let clean = !path.contains(char::is_whitespace) && !path.contains(['#', '>', '›']);
    if has_extension && clean && (id.contains("::") || path.ends_with(".py")) {
        Dialect::Pytest
    } else {
        Dialect::Other
    }
}

/// The file part of a pytest node id: before the first `::`.
fn pytest_file(id: &str) -> &str {
    id.split_once("::").map_or(id, |(file, _)| file)
}

/// `classname`, `name` and `file` as pytest's JUnit writer derives them from
/// a node id (`mangle_test_address`), except that the file is cut off first
/// so a `[` in a file name cannot be taken for parameters.
struct PytestNames<'a> {
    file: &'a str,
    classname: String,
    name: String,
}

fn pytest_names(id: &str) -> PytestNames<'_> {
    let Some((file, rest)) = id.split_once("::") else {
        // A module (a collector): pytest writes an empty classname and the
        // dotted module as the name.
        return PytestNames {
            file: id,
            classname: String::new(),
            name: pytest_text::path_to_module(id),
        };
    };
    // Parameters may contain `::` and `.`: only split what precedes them.
    let (path, params) = rest.split_at(rest.find('[').unwrap_or(rest.len()));
    let mut parts: Vec<&str> = path.split("::").collect();
    let last = parts.pop().unwrap_or_default();
    let mut classname = pytest_text::path_to_module(file);
    for class in parts {
        classname.push('.');
        classname.push_str(class);
    }
    PytestNames {
        file,
        classname,
        name: format!("{last}{params}"),
    }
}

/// A test in pytest's form (xunit1 with `file` and `line`).
fn pytest_case(test: &TestResult) -> TestCase {
    let names = pytest_names(&test.node_id);
    let status = match test.outcome {
        Outcome::Passed => TestCaseStatus::success(),
        Outcome::Failed => problem(NonSuccessKind::Failure, message(test), test),
        Outcome::Error => {
            let message = message(test).map(|m| match test.phase {
                // pytest's wording, which is how the phase survives JUnit.
                Some(phase @ (Phase::Setup | Phase::Teardown)) => {
                    format!("failed on {} with \"{m}\"", phase.as_str())
                }
                // This exact message marks a collection error; a test's error
                // must not be read back as one.
                _ if m == "collection failure" => format!("{m} (in a test)"),
                _ => m,
            });
            problem(NonSuccessKind::Error, message, test)
        }
        Outcome::Skipped => {
            let mut status = TestCaseStatus::skipped();
            // pytest marks an expected failure as a skip of type pytest.xfail.
            status.set_type(if test.xfail == Some(Xfail::XFailed) {
                "pytest.xfail"
            } else {
                "pytest.skip"
            });
            if let Some(reason) = test.message() {
                status.set_message(xml_text(reason, Field::Attr));
            }
            status
        }
    };
    let mut case = TestCase::new(xml_text(&names.name, Field::Id), status);
    case.set_classname(xml_text(&names.classname, Field::Id));
    case.extra
        .insert("file".into(), xml_text(names.file, Field::Id).into());
    // pytest's `line` is 0-based; only meaningful for the file the id names.
    if let Some(location) = &test.location
        && *location.file == *names.file
        && let Some(line) = location.line.and_then(|l| l.checked_sub(1))
    {
        case.extra.insert("line".into(), line.to_string().into());
    }
    finish_case(&mut case, test);
    case
}

/// A test of another framework, split so that the reader's id rules give
/// the id back verbatim. `suite` is the name of the suite it is written in.
fn other_case(test: &TestResult, suite: &str, jest: bool) -> TestCase {
    let (classname, name) = other_names(&test.node_id, suite, jest);
    let status = match test.outcome {
        Outcome::Passed => TestCaseStatus::success(),
        Outcome::Failed => problem(NonSuccessKind::Failure, message(test), test),
        Outcome::Error => problem(NonSuccessKind::Error, message(test), test),
        Outcome::Skipped => {
            let mut status = TestCaseStatus::skipped();
            if let Some(reason) = test.message() {
                status.set_message(xml_text(reason, Field::Attr));
            }
            status
        }
    };
    let mut case = TestCase::new(xml_text(name, Field::Id), status);
    if let Some(classname) = classname {
        case.set_classname(xml_text(classname, Field::Id));
    }
    // Jest, PHPUnit and Catch2 write `file`/`line` (1-based) on test cases.
    if let Some(location) = &test.location {
        case.extra
            .insert("file".into(), xml_text(&location.file, Field::Id).into());
        if let Some(line) = location.line {
            case.extra.insert("line".into(), line.to_string().into());
        }
    }
    finish_case(&mut case, test);
    case
}

/// Where another framework's id splits: the first `#`, ` > ` or ` › `.
fn other_separator(id: &str) -> Option<(usize, &'static str)> {
    ["#", " > ", " › "]
        .into_iter()
        .filter_map(|sep| id.find(sep).map(|i| (i, sep)))
        .min_by_key(|(i, _)| *i)
}

/// The suite another framework's test goes in: its class or outer suite.
/// Never `pytest`, which would switch the reader to pytest's rules.
fn other_suite_name(id: &str, jest: bool) -> String {
    if let Some(suite) = empty_name_suite(id, jest) {
        return suite.to_string();
    }
    match other_separator(id) {
        Some((i, _)) if !id[..i].trim().is_empty() && &id[..i] != PYTEST_SUITE => {
            id[..i].to_string()
        }
        _ => DEFAULT_SUITE.to_string(),
    }
}

/// An id the reader builds from a suite's name and an empty test name:
/// `suite > `, or `suite › ` under a `jest` root (a Jest test with an empty
/// title). Returns the suite's name, which must be written as it is.
fn empty_name_suite(id: &str, jest: bool) -> Option<&str> {
    let suite = id.strip_suffix(if jest { " › " } else { " > " })?;
    (!suite.trim().is_empty() && suite != PYTEST_SUITE).then_some(suite)
}

/// Whether an id can only be read back under a `jest` root.
fn needs_jest_root(id: &str) -> bool {
    empty_name_suite(id, true).is_some()
}

/// `classname` (none: omitted) and `name` for another framework's id, chosen
/// against the reader's `foreign_id` rules, which trim both and give, in
/// this order: the name alone when it starts with (or equals) the
/// classname; `classname#name` for a classname without spaces
/// (`classname › name` under a `jest` root); `suite > name` (`suite › name`)
/// when there is no classname.
fn other_names<'a>(id: &'a str, suite: &str, jest: bool) -> (Option<&'a str>, &'a str) {
    if empty_name_suite(id, jest) == Some(suite) {
        return (None, "");
    }
    let Some((i, sep)) = other_separator(id) else {
        // No class or suite in the id: the reader returns a name equal to
        // its classname as it is.
        return (Some(id), id);
    };
    let head = &id[..i];
    let rest = &id[i + sep.len()..];
    let trimmed = |s: &str| !s.is_empty() && s.trim() == s;
    let suite_sep = if jest { " › " } else { " > " };
    match sep {
        "#" if !jest
            && trimmed(head)
            && trimmed(rest)
            && head != rest
            && !rest.starts_with(head)
            && !rest.ends_with(head)
            && !head.contains(char::is_whitespace)
            && !head.contains('›') =>
        {
            return (Some(head), rest);
        }
        // `suite > name`, from the suite's name.
        _ if sep == suite_sep && head == suite && head != rest && trimmed(rest) => {
            return (None, rest);
        }
        " › " => {
            // The describe path, and the full title as the name (as
            // jest-junit writes by default).
            let path = id.rfind(" › ").map_or(head, |j| &id[..j]);
            if !path.trim().is_empty() {
                return (Some(path), id);
            }
        }
        _ => {}
    }
    // The full id as the name: it starts with the classname, so the reader
    // takes the name as it is.
    if head.trim().is_empty() {
        (Some(id), id)
    } else {
        (Some(head), id)
    }
}

/// The message of a failure or error: the test's, else pytest's one-line
/// error from the traceback.
fn message(test: &TestResult) -> Option<String> {
    test.message().map(str::to_string).or_else(|| {
        test.traceback()
            .and_then(pytest_text::last_error_line)
            .map(str::to_string)
    })
}

/// A `<failure>` or `<error>` with its message, exception type (when the
/// traceback names one) and the traceback as text.
fn problem(kind: NonSuccessKind, message: Option<String>, test: &TestResult) -> TestCaseStatus {
    let mut status = TestCaseStatus::non_success(kind);
    if let Some(message) = message {
        status.set_message(xml_text(&message, Field::Attr));
    }
    if let Some(traceback) = test.traceback() {
        if let Some(kind) = exception_type(traceback) {
            status.set_type(xml_text(kind, Field::Attr));
        }
        status.set_description(xml_text(traceback, Field::Text));
    }
    status
}

/// The exception a traceback ends in: pytest's last `path:line: Name` frame
/// or `E   Name: message` line, else a first line like Java's or Node's
/// `java.lang.AssertionError: ...`.
fn exception_type(traceback: &str) -> Option<&str> {
    let looks_like_name = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
            && s.rsplit('.')
                .next()
                .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_uppercase()))
    };
    let frame = traceback
        .lines()
        .rev()
        .find_map(pytest_text::frame_line)
        .map(|f| f.rest.trim())
        .filter(|rest| looks_like_name(rest));
    frame
        .or_else(|| {
            pytest_text::last_error_line(traceback)
                .and_then(pytest_text::split_exception)
                .map(|(name, _)| name)
        })
        .or_else(|| {
            traceback
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .and_then(pytest_text::split_exception)
                .map(|(name, _)| name)
        })
}

/// Time and captured output, shared by both dialects.
fn finish_case(case: &mut TestCase, test: &TestResult) {
    // Earlier attempts: `<flakyFailure>` on a pass, `<rerunFailure>` on a
    // failure, as Surefire writes them (quick-junit picks the element).
    case.status.add_reruns(test.reruns().iter().map(|attempt| {
        let kind = if attempt.outcome == Outcome::Error {
            NonSuccessKind::Error
        } else {
            NonSuccessKind::Failure
        };
        let mut rerun = TestRerun::new(kind);
        if let Some(message) = &attempt.message {
            rerun.set_message(xml_text(message, Field::Attr));
        }
        rerun
    }));
    if let Some(time) = test.duration.and_then(seconds) {
        case.set_time(time);
    }
    let log = test.log().filter(|l| !l.trim().is_empty());
    let stdout = match (log, test.stdout()) {
        // pytest's `junit_logging = all` layout: log records, then output.
        (Some(log), out) => {
            let mut text = format!("{:-^80}\n{log}\n", " Captured Log ");
            if let Some(out) = out {
                text.push_str(&format!("{:-^80}\n{out}\n", " Captured Out "));
            }
            Some(Cow::Owned(text))
        }
        (None, out) => out.map(Cow::Borrowed),
    };
    if let Some(out) = stdout {
        case.set_system_out(xml_text(&out, Field::Text));
    }
    if let Some(err) = test.stderr() {
        case.set_system_err(xml_text(err, Field::Text));
    }
}

/// A collection error as pytest writes it: its collector's classname and
/// name, the file, and `<error message="collection failure">` with the
/// traceback; pytest's INTERNALERROR as its `pytest.internal` case.
fn collection_error_case(error: &CollectionError) -> TestCase {
    let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
    if let Some(kind) = &error.error_type {
        status.set_type(xml_text(kind, Field::Attr));
    }
    // The reader reads type, message and line off this text.
    let text = error.traceback.as_deref().unwrap_or(&error.message);
    status.set_description(xml_text(text, Field::Text));
    if error.file == "(pytest session)" && error.error_type.as_deref() == Some("INTERNALERROR") {
        status.set_message("internal error");
        let mut case = TestCase::new("internal", status);
        case.set_classname(PYTEST_SUITE);
        return case;
    }
    status.set_message("collection failure");
    let names = pytest_names(&error.file);
    let mut case = TestCase::new(xml_text(&names.name, Field::Id), status);
    case.set_classname(xml_text(&names.classname, Field::Id));
    case.extra
        .insert("file".into(), xml_text(names.file, Field::Id).into());
    case
}

/// A minimal, well-formed document for the (unexpected) case where
/// quick-junit cannot serialize the report: the counts and the reason.
fn fallback(report: &Report, error: &str) -> String {
    let reason: String = error
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .replace("--", "- -");
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <testsuites name=\"{}\" tests=\"{}\" skipped=\"{}\" failures=\"{}\" errors=\"{}\">\n\
         <!-- pytest-mcp could not write the test cases: {reason} -->\n\
         </testsuites>\n",
        report.name.as_deref().unwrap_or(PYTEST_REPORT_NAME),
        report.tests,
        report.skipped,
        report.failures,
        report.errors,
    )
}

/// Where a string goes, which decides what must be escaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    /// An id, a class, a file: nothing may be lost, or it no longer names
    /// the test.
    Id,
    /// A message or type: line breaks kept, colour codes dropped.
    Attr,
    /// Element text (traceback, captured output): as `Attr`, and a line
    /// break is written as itself.
    Text,
}

/// Marks a character to be written as a character reference: quick-junit
/// cannot write one (it would escape the `&`), so the character is replaced
/// by `REF_OPEN` + hex + `REF_CLOSE` and [`restore_char_refs`] turns that
/// into `&#x..;` after serialization. Both are Unicode noncharacters, which
/// are reserved for exactly this kind of internal use.
const REF_OPEN: char = '\u{FDD0}';
const REF_CLOSE: char = '\u{FDD1}';

/// Prepares a string for quick-junit, whose `XmlString` drops tabs, carriage
/// returns and C1 control characters along with ANSI codes, and keeps
/// U+FFFE/U+FFFF, which XML 1.0 forbids. Tabs, carriage returns, C1
/// characters (and line breaks in attributes, which XML parsers otherwise
/// turn into spaces) become character references; what XML cannot carry at
/// all is written as pytest does (`#x1B`) in ids, and in other fields left to
/// quick-junit to drop with the colour codes it belongs to.
fn xml_text(s: &str, field: Field) -> Cow<'_, str> {
    let needs_ref = |c: char| match c {
        '\n' => field != Field::Text,
        '\t' | '\r' | '\u{80}'..='\u{9f}' | REF_OPEN | REF_CLOSE => true,
        _ => false,
    };
    let unrepresentable = |c: char| match c {
        '\u{fffe}' | '\u{ffff}' => true,
        c if (c as u32) < 0x20 => field == Field::Id && !needs_ref(c),
        _ => false,
    };
    if !s.chars().any(|c| needs_ref(c) || unrepresentable(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if needs_ref(c) {
            out.push(REF_OPEN);
            out.push_str(&format!("{:X}", c as u32));
            out.push(REF_CLOSE);
        } else if unrepresentable(c) {
            // pytest's bin_xml_escape.
            if (c as u32) <= 0xFF {
                out.push_str(&format!("#x{:02X}", c as u32));
            } else {
                out.push_str(&format!("#x{:04X}", c as u32));
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Turns the markers of [`xml_text`] into character references. A marker
/// that an adjacent colour code swallowed half of is dropped rather than
/// written as garbage.
fn restore_char_refs(xml: &str) -> String {
    if !xml.contains([REF_OPEN, REF_CLOSE]) {
        return xml.to_string();
    }
    let mut out = String::with_capacity(xml.len());
    let mut rest = xml;
    while let Some(i) = rest.find(REF_OPEN) {
        out.push_str(&rest[..i]);
        let after = &rest[i + REF_OPEN.len_utf8()..];
        match after.find(REF_CLOSE) {
            Some(j) if j > 0 && after[..j].chars().all(|c| c.is_ascii_hexdigit()) => {
                out.push_str("&#x");
                out.push_str(&after[..j]);
                out.push(';');
                rest = &after[j + REF_CLOSE.len_utf8()..];
            }
            _ => rest = after,
        }
    }
    out.push_str(rest);
    out.replace(REF_CLOSE, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pytest_names_follow_pytest() {
        let n = pytest_names("tests/test_x.py::TestA::TestB::test_c[a::b.c]");
        assert_eq!(n.file, "tests/test_x.py");
        assert_eq!(n.classname, "tests.test_x.TestA.TestB");
        assert_eq!(n.name, "test_c[a::b.c]");
        let m = pytest_names("tests/test_mod.py");
        assert_eq!(
            (m.classname.as_str(), m.name.as_str()),
            ("", "tests.test_mod")
        );
    }

    #[test]
    fn other_names_pick_what_reads_back() {
        assert_eq!(other_names("a.B#m", "a.B", false), (Some("a.B"), "m"));
        assert_eq!(
            other_names("FooTest#FooTest_x", "FooTest", false),
            (Some("FooTest"), "FooTest#FooTest_x")
        );
        assert_eq!(other_names("Suite X > t", "Suite X", false), (None, "t"));
        assert_eq!(other_names("S > ", "S", false), (None, ""));
        assert_eq!(
            other_names("a › b › c", "a", false),
            (Some("a › b"), "a › b › c")
        );
        assert_eq!(other_names("f.js › ", "f.js", true), (None, ""));
        assert_eq!(other_names("a › b › ", "a › b", true), (None, ""));
        assert_eq!(other_names("a.B#m", "a.B", true), (Some("a.B"), "a.B#m"));
        assert_eq!(
            other_names("plain", "tests", false),
            (Some("plain"), "plain")
        );
    }

    #[test]
    fn char_refs_survive_quick_junit() {
        let mut report = Report::new("r");
        let mut suite = TestSuite::new("s");
        let mut case = TestCase::new(
            xml_text("a\tb\nc\u{85}\u{1b}\u{fffe}", Field::Id),
            TestCaseStatus::success(),
        );
        case.set_system_out(xml_text("x\ty\r\nz\u{1b}[31mred\u{1b}[0m", Field::Text));
        suite.add_test_case(case);
        report.add_test_suite(suite);
        let xml = restore_char_refs(&report.to_string().expect("serializes"));
        assert!(
            xml.contains(r#"name="a&#x9;b&#xA;c&#x85;#x1B#xFFFE""#),
            "{xml}"
        );
        assert!(xml.contains("x&#x9;y&#xD;\nzred"), "{xml}");
        assert!(!xml.contains([REF_OPEN, REF_CLOSE]));
    }

    #[test]
    fn bad_durations_do_not_panic() {
        let mut run = Run::default();
        for d in [f64::NAN, -1.0, f64::INFINITY, 1e300] {
            let mut t = TestResult::new("t.py::x", Outcome::Passed);
            t.duration = Some(d);
            run.tests.push(t);
        }
        run.duration = Some(f64::NAN);
        assert!(render(&run).contains("<testcase name=\"x\""));
    }
}
