//! The dialect of every framework but pytest: what one `<testcase>` is, its
//! id (a named case's, an unnamed case's), and when a case is a rerun of
//! the one before it rather than a test of its own.
//!
//! pytest's own JUnit is not read with these rules: pytest writes a second
//! `<testcase>` of one test for an error in teardown, which the reader folds
//! on its own terms (`pytest.rs`).

use super::Parser;
use super::case::{CaseBuilder, Verdict};
use crate::model::{Attempt, Location, Outcome, TestResult};
use crate::sources::phases::add_durations;

/// The id of a case without a `name` (or with an empty one): `#<n>`, its
/// 1-based position among the `<testcase>` elements of its innermost
/// suite, after the case's `classname`, else the suite's name, joined as
/// named cases are (`Class > #3`, `suite > #3`, `describe › #3` for Jest;
/// just `#3` when there is neither). Deterministic for a given file, and
/// distinct for every unnamed case of a suite, so no two of them are ever
/// taken for retries of each other.
pub(super) fn unnamed_id(suite: &str, classname: &str, position: usize, jest: bool) -> String {
    let scope = match classname.trim() {
        "" => suite.trim(),
        classname => classname,
    };
    let sep = if jest { " › " } else { " > " };
    if scope.is_empty() {
        format!("#{position}")
    } else {
        format!("{scope}{sep}#{position}")
    }
}

/// The key a retry repeats: the enclosing suites and the test's id.
pub(super) fn retry_key(suites: &[String], id: &str) -> String {
    let mut key = suites.join("\u{1f}");
    key.push('\u{1e}');
    key.push_str(id);
    key
}

/// Whether `next`, a case with the same suites and id right after
/// `previous`, is a rerun of it: only a failed or erroring test is rerun
/// (Surefire without rerun elements, TestNG's retry analyzer, Gradle and
/// Marathon retries). The same id after a pass or a skip is another test
/// (`go test -count=2`, a name used twice), and a skip after a failure is
/// no attempt that could replace it: both are reported on their own.
pub(super) fn is_rerun(previous: &TestResult, next: &TestResult) -> bool {
    matches!(previous.outcome, Outcome::Failed | Outcome::Error) && next.outcome != Outcome::Skipped
}

/// Folds a rerun (see [`is_rerun`]) into the failed or erroring test
/// before it: the later attempt stands, a pass making the test flaky, and
/// the earlier one becomes an earlier attempt.
pub(super) fn fold_retry(kept: &mut TestResult, mut next: TestResult) {
    std::mem::swap(kept, &mut next);
    // `kept` is now the later case; the earlier one's attempts came first.
    let later = kept.take_reruns();
    let mut reruns = next.take_reruns();
    reruns.push(Attempt {
        outcome: next.outcome,
        message: next.joined_message().map(|m| m.into_owned()),
        location: None,
    });
    reruns.extend(later);
    kept.set_reruns(reruns);
    kept.duration = add_durations(kept.duration, next.duration);
}

/// The id a user of a non-pytest framework recognises: `Class#method` for
/// class-based frameworks (Surefire, PHPUnit, Go, nextest), `describe ›
/// test` for Jest, the full title for Mocha, `suite > name` otherwise.
fn foreign_id(suite: &str, classname: &str, name: &str, jest: bool) -> String {
    let classname = classname.trim();
    let name = name.trim();
    let sep = if jest { " › " } else { " > " };
    if classname.is_empty() {
        if suite.is_empty() || suite == name {
            return name.to_string();
        }
        return format!("{suite}{sep}{name}");
    }
    if name.is_empty() {
        return classname.to_string();
    }
    if classname == name || name.starts_with(classname) || name.ends_with(classname) {
        return name.to_string();
    }
    if jest || classname.contains('›') {
        return format!("{classname} › {name}");
    }
    if classname.contains(char::is_whitespace) {
        return format!("{classname} > {name}");
    }
    format!("{classname}#{name}")
}

impl Parser<'_> {
    /// The id and location of a case of another framework.
    pub(super) fn foreign_test(
        &mut self,
        case: &CaseBuilder<'_>,
        verdict: &mut Verdict,
    ) -> (String, Option<Location>) {
        let suite = self
            .nesting
            .suites
            .last()
            .map(String::as_str)
            .unwrap_or_default();
        let node_id = if case.name.trim().is_empty() {
            unnamed_id(suite, &case.classname, case.position, self.document.jest)
        } else {
            foreign_id(suite, &case.classname, &case.name, self.document.jest)
        };
        let location = case
            .file
            .as_deref()
            .map(|file| Location {
                file: self.reuse.files.get(file),
                line: case.line.as_deref().and_then(|l| l.trim().parse().ok()),
            })
            .or(verdict.location.take());
        (node_id, location)
    }

    /// Adds a test of another framework, folding it into the one before
    /// when it is a rerun of it.
    pub(super) fn add_foreign_test(&mut self, test: TestResult) {
        let key = retry_key(&self.nesting.suites, &test.node_id);
        if self.mid && self.first.is_none() {
            self.first = Some(super::split::First::Foreign(key.clone()));
        }
        if self.tests.last_key.as_deref() == Some(key.as_str())
            && let Some(previous) = self.tests.latest.as_mut()
            && is_rerun(previous, &test)
        {
            // The same case again, right after it failed: a rerun.
            // Two tests that merely share a name (further apart, or
            // after a pass or a skip) stay two tests.
            fold_retry(previous, test);
            self.tests.folded += 1;
            return;
        }
        self.tests.last_key = Some(key);
        self.replace_latest(test);
    }
}
