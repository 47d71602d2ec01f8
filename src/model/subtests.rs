//! Subtests: the named parts of one test that pytest reports one by one
//! (pytest's `subtests` fixture, unittest's `self.subTest(...)`). The test
//! stays one test, fed back to pytest by its own id; each of its failed
//! subtests keeps what it was called (`[msg] (i=2)`), its message, its
//! traceback, its place and its captured output. pytest counts each failed
//! subtest as a failure of its own, and so does [`super::Run::counts`].

use std::fmt;

use super::Location;
use super::groups::message_shape;
use crate::pytest_text::{self, frame_line, is_project_path};
use crate::text::plural;

/// What a subtest was called: the message and keyword arguments given to
/// `subtests.test(...)` or `self.subTest(...)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SubtestLabel {
    pub msg: Option<String>,
    /// The keyword arguments in the order given, each value as pytest
    /// wrote it (its `repr`: a string argument is quoted).
    pub params: Vec<(String, String)>,
}

impl fmt::Display for SubtestLabel {
    /// pytest's own words for it: `[msg] (i=2, j='a')`, `[msg]`, `(i=2)`,
    /// or `(<subtest>)` for a subtest given neither.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(msg) = &self.msg {
            write!(f, "[{msg}]")?;
            if !self.params.is_empty() {
                f.write_str(" ")?;
            }
        }
        if !self.params.is_empty() {
            f.write_str("(")?;
            for (i, (k, v)) in self.params.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{k}={v}")?;
            }
            f.write_str(")")?;
        }
        if self.msg.is_none() && self.params.is_empty() {
            f.write_str("(<subtest>)")?;
        }
        Ok(())
    }
}

/// A subtest that failed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Subtest {
    /// `None` when the source does not say (pytest's JUnit XML writes each
    /// failed subtest as one more `<failure>` of its test, unnamed).
    pub label: Option<SubtestLabel>,
    pub message: Option<String>,
    pub traceback: Option<String>,
    /// Where it failed: the deepest frame of its traceback in the project's
    /// files, else its first frame.
    pub location: Option<Location>,
    pub stdout: Option<String>,
    pub stderr: Option<String>,
    /// Captured log records, one per line.
    pub log: Option<String>,
}

impl Subtest {
    /// A failed subtest from what its report said; its place is read off
    /// its traceback. Blank texts are none.
    pub fn new(
        label: Option<SubtestLabel>,
        message: Option<String>,
        traceback: Option<String>,
    ) -> Self {
        let traceback = traceback.filter(|t| !t.trim().is_empty());
        let message = message.filter(|m| !m.trim().is_empty()).or_else(|| {
            let tb = traceback.as_deref()?;
            pytest_text::last_error_line(tb)
                .or_else(|| crate::text::last_line(tb))
                .map(str::to_string)
        });
        Subtest {
            location: traceback.as_deref().and_then(place),
            label,
            message,
            traceback,
            ..Subtest::default()
        }
    }

    /// Passes every text of the subtest through `fix` (see
    /// [`super::Run::clean_text`]); its place stays as the source wrote it.
    pub(crate) fn clean_text(&mut self, fix: &dyn Fn(&mut String)) {
        let texts = [
            &mut self.message,
            &mut self.traceback,
            &mut self.stdout,
            &mut self.stderr,
            &mut self.log,
        ];
        texts.into_iter().flatten().for_each(fix);
        if let Some(label) = &mut self.label {
            label.msg.iter_mut().for_each(fix);
            for (k, v) in &mut label.params {
                fix(k);
                fix(v);
            }
        }
    }

    /// Whether `other` failed alike: at the same place, with a message of
    /// the same shape ([`message_shape`]: values set aside).
    pub fn same_failure(&self, other: &Subtest) -> bool {
        self.location.is_some()
            && self.location == other.location
            && self.message.as_deref().map(message_shape)
                == other.message.as_deref().map(message_shape)
    }
}

/// A test's failed subtests.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Subtests {
    /// In the order they failed. Never empty.
    pub failed: Vec<Subtest>,
    /// The test's own phases passed: it failed by its subtests alone
    /// (unittest's `subTest`), and pytest counts it among the passed.
    pub test_passed: bool,
}

impl Subtests {
    /// pytest's words for a test its subtests failed: `contains 2 failed
    /// subtests`.
    pub fn summary(&self) -> String {
        format!(
            "contains {}",
            plural(self.failed.len(), "failed subtest", "failed subtests")
        )
    }

    /// Whether `message` is pytest's own for a test its subtests failed
    /// ([`Subtests::summary`]).
    pub fn is_summary(message: &str) -> bool {
        message
            .trim()
            .strip_prefix("contains ")
            .and_then(|r| {
                r.strip_suffix(" failed subtests")
                    .or_else(|| r.strip_suffix(" failed subtest"))
            })
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    }

    /// Takes out a last subtest that is the test's own failure (`message`),
    /// which a source that cannot tell them apart listed among its
    /// subtests (pytest's JUnit XML: a test failing after its subtests did
    /// is one more `<failure>`): the test did not pass then.
    pub fn without_own_failure(mut self, message: Option<&str>) -> Self {
        let own = |s: &Subtest| s.message.as_deref().is_some_and(|m| Some(m) == message);
        if self.test_passed && self.failed.len() > 1 && self.failed.last().is_some_and(own) {
            self.failed.pop();
            self.test_passed = false;
        }
        self
    }
}

/// The deepest frame of a pytest traceback in the project's files, else
/// its first frame (as `groups` finds a crash place).
fn place(traceback: &str) -> Option<Location> {
    let mut deepest = None;
    for f in traceback
        .lines()
        .filter(|l| memchr::memchr(b':', l.as_bytes()).is_some())
        .filter_map(frame_line)
    {
        if is_project_path(f.path) || deepest.is_none() {
            deepest = Some(f);
        }
    }
    deepest.map(|f| Location::new(f.path, Some(f.line)))
}

#[cfg(test)]
mod tests;
