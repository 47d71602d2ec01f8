//! Rules for what one JUnit `<testcase>` of a non-pytest framework is: an
//! unnamed case's id, a "did not run" `status` attribute, and when a case
//! is a rerun of the one before it rather than a test of its own.
//!
//! pytest's own JUnit is not read with these rules: pytest writes a second
//! `<testcase>` of one test for an error in teardown, which the reader folds
//! on its own terms.

use crate::model::{Attempt, Outcome, TestResult};

/// The canonical word for a `status` attribute that says a test did not
/// run (`status="disabled"` from GoogleTest-style and Boost.Test-style
/// writers, `notrun` from older GoogleTest, `ignored`, `skipped`), or
/// `None` for every other value (`run`, `passed`, `success`, `pass`,
/// `failed`, `errored`, ...): those leave the outcome to the status
/// elements. Matched without regard to case or surrounding spaces.
pub(super) fn skip_word(status: &str) -> Option<&'static str> {
    const WORDS: &[&str] = &["disabled", "notrun", "not_run", "ignored", "skipped"];
    let status = status.trim();
    WORDS
        .iter()
        .find(|w| w.eq_ignore_ascii_case(status))
        .copied()
}

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
    });
    reruns.extend(later);
    kept.set_reruns(reruns);
    kept.duration = match (kept.duration, next.duration) {
        (Some(a), Some(b)) => Some(a + b),
        (a, b) => a.or(b),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_words_that_skip_and_those_that_do_not() {
        assert_eq!(skip_word("disabled"), Some("disabled"));
        assert_eq!(skip_word(" NotRun "), Some("notrun"));
        assert_eq!(skip_word("not_run"), Some("not_run"));
        assert_eq!(skip_word("Ignored"), Some("ignored"));
        assert_eq!(skip_word("skipped"), Some("skipped"));
        for runs in ["run", "passed", "pass", "success", "failed", "errored", ""] {
            assert_eq!(skip_word(runs), None, "{runs}");
        }
    }

    #[test]
    fn unnamed_ids_name_their_scope_and_position() {
        assert_eq!(unnamed_id("s", "", 3, false), "s > #3");
        assert_eq!(unnamed_id("s", "C", 1, false), "C > #1");
        assert_eq!(unnamed_id("s", " ", 2, true), "s › #2");
        assert_eq!(unnamed_id("", "", 4, false), "#4");
    }
}
