//! One `<testcase>` per test or collection error, in pytest's form or
//! another framework's.

use std::borrow::Cow;

use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestRerun};

use super::names::{other_names, pytest_names};
use super::xml::{Field, xml_text};
use super::{PYTEST_SUITE, seconds};
use crate::model::{CollectionError, Outcome, Phase, TestResult, Xfail};
use crate::pytest_text;

/// A test in pytest's form (xunit1 with `file` and `line`).
pub(super) fn pytest_case(test: &TestResult) -> TestCase {
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
pub(super) fn other_case(test: &TestResult, suite: &str, jest: bool) -> TestCase {
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

/// The message of a failure or error: the test's, else pytest's one-line
/// error from the traceback.
pub(super) fn message(test: &TestResult) -> Option<String> {
    test.joined_message().map(Cow::into_owned).or_else(|| {
        test.joined_traceback()
            .as_deref()
            .and_then(pytest_text::last_error_line)
            .map(str::to_string)
    })
}

/// A `<failure>` or `<error>` with its message, exception type (when the
/// traceback names one) and the traceback as text.
pub(super) fn problem(
    kind: NonSuccessKind,
    message: Option<String>,
    test: &TestResult,
) -> TestCaseStatus {
    let mut status = TestCaseStatus::non_success(kind);
    if let Some(message) = message {
        status.set_message(xml_text(&message, Field::Attr));
    }
    if let Some(traceback) = test.joined_traceback() {
        if let Some(kind) = exception_type(&traceback) {
            status.set_type(xml_text(kind, Field::Attr));
        }
        status.set_description(xml_text(&traceback, Field::Text));
    }
    status
}

/// The exception a traceback ends in: pytest's last `path:line: Name` frame
/// or `E   Name: message` line, else a first line like Java's or Node's
/// `java.lang.AssertionError: ...`.
pub(super) fn exception_type(traceback: &str) -> Option<&str> {
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
pub(super) fn finish_case(case: &mut TestCase, test: &TestResult) {
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
pub(super) fn collection_error_case(error: &CollectionError) -> TestCase {
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
