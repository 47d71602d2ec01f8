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

mod cases;
mod names;
#[cfg(test)]
mod tests;
mod xml;

use std::collections::HashSet;
use std::time::Duration;

use quick_junit::{Report, TestCase, TestSuite};

use crate::budget::{Fitted, Offer};
use crate::model::{Run, SourceKind, TestResult};
use crate::render::Style;
use crate::render::view::Compared;
use cases::{collection_error_case, other_case, pytest_case};
use names::{needs_jest_root, other_names, other_suite_name, pytest_file};
use xml::{Field, restore_char_refs, xml_text};

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

/// A run's JUnit XML, never cut: a document for tools. Every output's
/// offer takes the same three.
pub fn offer<'a>(run: &'a Run, _: Option<&'a Compared>, _: &'a Style) -> Offer<'a, Fitted> {
    Offer::Whole(Fitted::whole(render(run)))
}

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
    let mut report = Report::new(root.name());
    if let Some(time) = run.duration.and_then(seconds) {
        report.set_time(time);
    }
    add_collection_errors(&mut report, run, root == Root::Pytest);
    add_tests(&mut report, run, &dialects, root);
    report
}

/// The collection errors' suites, one per file in a row. Always written in
/// pytest's form: it is the only form in which a case reads back as a
/// collection error.
fn add_collection_errors(report: &mut Report, run: &Run, pure_pytest: bool) {
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
}

/// The tests' suites: a new one whenever the suite of the test changes.
fn add_tests(report: &mut Report, run: &Run, dialects: &[Dialect], root: Root) {
    let pure_pytest = root == Root::Pytest;
    let jest = root == Root::Jest;
    let mut current: Option<(Dialect, String, Vec<TestCase>, Option<f64>)> = None;
    // (suite, id) pairs written: our reader folds a repeated pair into one
    // test's attempts, so two tests that share an id (from two suites of
    // the input) go into suites of different names.
    let mut written: HashSet<(String, String)> = HashSet::new();
    for (test, &dialect) in run.tests.iter().zip(dialects) {
        let key = suite_key(test, dialect, jest, &written);
        written.insert((key.clone(), test.node_id.clone()));
        let case = match dialect {
            Dialect::Pytest => pytest_case(test),
            Dialect::Other => other_case(test, &key, jest),
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
}

/// The name of the suite a test goes in; numbered (`suite (2)`) when a test
/// of the same id is already in a suite of that name and the id does not
/// name its suite.
fn suite_key(
    test: &TestResult,
    dialect: Dialect,
    jest: bool,
    written: &HashSet<(String, String)>,
) -> String {
    let mut key = match dialect {
        Dialect::Pytest => return pytest_file(&test.node_id).to_string(),
        Dialect::Other => other_suite_name(&test.node_id, jest),
    };
    let suite_in_id = other_names(&test.node_id, &key, jest).0.is_none();
    if !suite_in_id {
        let base = key.clone();
        let mut n = 1;
        while written.contains(&(key.clone(), test.node_id.clone())) {
            n += 1;
            key = format!("{base} ({n})");
        }
    }
    key
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
    // CTRF holds pytest's node ids or another framework's names: per id.
    let per_id = |k: SourceKind| k == SourceKind::Ctrf;
    if run.sources.is_empty() || run.sources.iter().any(|s| per_id(s.kind)) {
        None
    } else if run.sources.iter().all(|s| s.kind.is_pytest()) {
        Some(Dialect::Pytest)
    } else if run.sources.iter().all(|s| !s.kind.is_pytest()) {
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
