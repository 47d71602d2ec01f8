//! A test's failed subtests (pytest's `subtests` fixture, unittest's
//! `subTest`) in its failure section, after the test's own lines: each
//! named as pytest names it (`subtest [size] (i=2)`), then what a failure
//! section says of it (its message, place, failing line, explanation and
//! captured output), two spaces further in; a subtest that failed as the
//! one before it did (same place, a message of the same shape) in one line.
//! The test's id stays the heading's, the one pytest runs.
//!
//! ```text
//! ### FAILED: tests/test_subtests.py::test_sizes
//! contains 2 failed subtests
//!   at tests/test_subtests.py:8
//!   subtest [size] (i=2): AssertionError: i=2 too big
//!     at tests/test_subtests.py:13
//!     > assert i < 2, f"i={i} too big"
//!   subtest [size] (i=3): ValueError: i=3 is odd
//!     at tests/test_subtests.py:15
//! ```

use std::fmt::Write as _;

use super::Detail;
use super::lines::indent_line;
use crate::model::{Outcome, Subtest, TestResult};
use crate::text::first_line;

/// Failed subtests listed per test at each level of detail; the rest are
/// counted.
fn listed(detail: Detail) -> usize {
    match detail {
        Detail::Full | Detail::NoOutput => 10,
        Detail::CrashLines | Detail::FewerIds => 3,
    }
}

/// Writes the failed subtests of `t`, each under its name as `body` writes
/// a failure under its heading, two spaces further in.
pub(super) fn write(
    out: &mut String,
    t: &TestResult,
    detail: Detail,
    body: &dyn Fn(&mut String, &TestResult),
) {
    let Some(subtests) = t.subtests() else {
        return;
    };
    let all = subtests.failed.len();
    let mut previous: Option<&Subtest> = None;
    for (i, s) in subtests.failed.iter().take(listed(detail)).enumerate() {
        let name = match &s.label {
            Some(label) => format!("subtest {label}"),
            None if all == 1 => "subtest".to_string(),
            None => format!("subtest {} of {all}", i + 1),
        };
        let message = s.message.as_deref().map_or("(no message)", first_line);
        if previous.is_some_and(|p| p.same_failure(s)) {
            indent_line(out, &format!("{name}: {message}"));
        } else {
            let mut text = String::new();
            body(&mut text, &as_test(t, s));
            let mut lines = text.lines();
            let first = lines.next().unwrap_or(message);
            indent_line(out, &format!("{name}: {first}"));
            for line in lines {
                // Already indented and clipped by `body`.
                let _ = writeln!(out, "  {line}");
            }
        }
        previous = Some(s);
    }
    if let Some(more) = all.checked_sub(listed(detail)).filter(|n| *n > 0) {
        indent_line(out, &format!("… {more} more failed subtests"));
    }
}

/// A failed subtest as a test of its own, to be written as one.
fn as_test(parent: &TestResult, s: &Subtest) -> TestResult {
    let mut t = TestResult::new(parent.node_id.clone(), Outcome::Failed);
    t.location = s.location.clone().or_else(|| parent.location.clone());
    t.set_message(s.message.clone());
    t.set_traceback(s.traceback.clone());
    t.set_stdout(s.stdout.clone());
    t.set_stderr(s.stderr.clone());
    t.set_log(s.log.clone());
    t
}

#[cfg(test)]
mod tests;
