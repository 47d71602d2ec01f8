//! One `<testcase>` as it is read: its attributes, its status elements
//! ranked (error beats failure beats skipped, Surefire's flaky and rerun
//! elements becoming earlier attempts), and the test result it makes once
//! its end tag is read.

use std::borrow::Cow;

use quick_xml::events::BytesStart;

use super::attrs::{CaseAttrs, attr, parse_time, skip_word};
use crate::model::{Attempt, Location, Outcome, Phase, TestResult, Xfail};
use crate::text::trim_block;

/// The status elements a `<testcase>` may carry, in increasing precedence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Status {
    /// Surefire `flakyFailure` / `flakyError`: failed, then passed on rerun.
    Flaky,
    Skipped,
    Failure,
    Error,
}

impl Status {
    pub(super) fn from_tag(tag: &str) -> Option<Status> {
        Some(match tag {
            "skipped" => Status::Skipped,
            "failure" | "rerunFailure" => Status::Failure,
            "error" | "rerunError" => Status::Error,
            "flakyFailure" | "flakyError" => Status::Flaky,
            _ => return None,
        })
    }
}

/// The outcome of an earlier attempt that a rerun element records
/// (`flakyFailure`, `rerunError`, ...), or `None` for other elements.
fn attempt_outcome(tag: &str) -> Option<Outcome> {
    match tag {
        "flakyFailure" | "rerunFailure" => Some(Outcome::Failed),
        "flakyError" | "rerunError" => Some(Outcome::Error),
        _ => None,
    }
}

/// What a status element said.
#[derive(Debug, Default)]
pub(super) struct StatusData {
    /// Set for rerun elements: the outcome of the attempt they record.
    attempt: Option<Outcome>,
    pub message: Option<String>,
    pub kind: Option<String>,
    pub text: String,
    pub location: Option<Location>,
}

impl StatusData {
    /// The attributes of a status element named `tag`.
    pub(super) fn of(e: &BytesStart<'_>, tag: &str) -> StatusData {
        let file = attr(e, "file").map(Cow::into_owned);
        let line = attr(e, "line").and_then(|l| l.trim().parse().ok());
        StatusData {
            attempt: attempt_outcome(tag),
            message: attr(e, "message").map(Cow::into_owned),
            kind: attr(e, "type")
                .map(Cow::into_owned)
                .filter(|t| !t.is_empty()),
            text: String::new(),
            location: file.map(|file| Location::new(file, line)),
        }
    }

    /// The element's message, else the first line of its text; and the
    /// text as a block.
    pub(super) fn take_message(&mut self) -> (Option<String>, String) {
        let text = trim_block(&self.text);
        let message = self
            .message
            .take()
            .filter(|m| !m.trim().is_empty())
            .or_else(|| first_line(&text));
        (message, text)
    }
}

/// An attempt from a rerun element's data.
fn attempt_of(mut data: StatusData) -> Attempt {
    Attempt {
        outcome: data.attempt.unwrap_or(Outcome::Failed),
        message: data.take_message().0,
        location: None,
    }
}

/// A `<testcase>` being read. Its attributes borrow from the element while
/// an empty `<testcase/>` (most of a large report) is turned into a result;
/// a case with children owns them until its end tag.
#[derive(Debug, Default)]
pub(super) struct CaseBuilder<'c> {
    pub classname: Cow<'c, str>,
    pub name: Cow<'c, str>,
    pub file: Option<Cow<'c, str>>,
    pub line: Option<Cow<'c, str>>,
    time: Option<f64>,
    /// The strongest status seen so far and its data.
    status: Option<(Status, StatusData)>,
    pub stdout: String,
    pub stderr: String,
    /// Messages of weaker (or later, equally strong) failure/error elements
    /// on the same case: kept so that nothing a file says is dropped.
    extra: Vec<String>,
    /// Earlier attempts recorded by rerun elements.
    attempts: Vec<Attempt>,
    /// The message and text of each `<failure>` after the first, while
    /// the first stands: pytest writes each failed subtest of a test as
    /// one more `<failure>` of its case ([`CaseBuilder::take_later_failures`]).
    later_failures: Vec<(Option<String>, String)>,
    /// A `status` attribute saying the test did not run ([`skip_word`]).
    skip_word: Option<&'static str>,
    /// 1-based position among the cases of its innermost suite.
    pub position: usize,
}

impl<'c> CaseBuilder<'c> {
    /// A case with the attributes of its element.
    pub(super) fn new(a: CaseAttrs<'c>, position: usize) -> Self {
        CaseBuilder {
            classname: a.classname.unwrap_or_default(),
            name: a.name.unwrap_or_default(),
            file: a.file,
            line: a.line,
            time: a.time.and_then(|t| parse_time(&t)),
            skip_word: a.status.as_deref().and_then(skip_word),
            position,
            ..CaseBuilder::default()
        }
    }

    /// The case with its attributes copied out of the element, to be kept
    /// until its end tag (only attributes are set when this is called).
    pub(super) fn into_owned(self) -> CaseBuilder<'static> {
        let owned = |c: Cow<'_, str>| Cow::Owned(c.into_owned());
        CaseBuilder {
            classname: owned(self.classname),
            name: owned(self.name),
            file: self.file.map(owned),
            line: self.line.map(owned),
            time: self.time,
            skip_word: self.skip_word,
            position: self.position,
            ..CaseBuilder::default()
        }
    }

    /// Adds a status element: the strongest stands, a weaker failure or
    /// error is kept as an `also ...` line, a rerun element is an earlier
    /// attempt.
    pub(super) fn add_status(&mut self, status: Status, data: StatusData) {
        // Surefire's flakyFailure/flakyError: a failed attempt before the
        // pass this case records.
        if status == Status::Flaky {
            self.attempts.push(attempt_of(data));
            return;
        }
        // At equal rank a plain element beats a rerun element: `<failure>`
        // is the final attempt, `<rerunFailure>`s the earlier ones.
        let rank = |s: Status, d: &StatusData| (s, d.attempt.is_none());
        let weaker = match self.status.take() {
            Some((old, old_data)) if rank(old, &old_data) >= rank(status, &data) => {
                self.status = Some((old, old_data));
                (status, data)
            }
            Some(old) => {
                self.status = Some((status, data));
                old
            }
            None => {
                self.status = Some((status, data));
                return;
            }
        };
        let first_failure_stands = matches!(
            &self.status,
            Some((Status::Failure, kept)) if kept.attempt.is_none()
        );
        match weaker {
            (_, data) if data.attempt.is_some() => self.attempts.push(attempt_of(data)),
            (kind @ (Status::Failure | Status::Error), mut data) => {
                let (message, text) = data.take_message();
                if kind == Status::Failure && first_failure_stands {
                    self.later_failures.push((message.clone(), text));
                }
                let message = message.unwrap_or_else(|| "(no message)".to_string());
                let word = if kind == Status::Error {
                    "error"
                } else {
                    "failure"
                };
                self.extra.push(format!("also {word}: {message}"));
            }
            _ => {}
        }
    }

    /// The message and text of each `<failure>` after the first (which
    /// stands), their `also failure` lines taken out of the message: for
    /// pytest's dialect, which writes each failed subtest so.
    pub(super) fn take_later_failures(&mut self) -> Vec<(Option<String>, String)> {
        if !self.later_failures.is_empty() {
            self.extra.retain(|l| !l.starts_with("also failure: "));
        }
        std::mem::take(&mut self.later_failures)
    }

    /// What the case's status elements (or its `status` attribute) say.
    pub(super) fn verdict(&mut self) -> Verdict {
        let (status, data) = match (self.status.take(), self.skip_word) {
            (Some((s, d)), _) => (Some(s), d),
            // `status="disabled"` and the like: skipped, the word saying why.
            // A status element, even a `<failure>`, says more and wins.
            (None, Some(word)) => (
                Some(Status::Skipped),
                StatusData {
                    message: Some(word.to_string()),
                    ..StatusData::default()
                },
            ),
            (None, None) => (None, StatusData::default()),
        };
        let traceback = trim_block(&data.text);
        let outcome = match status {
            None | Some(Status::Flaky) => Outcome::Passed,
            Some(Status::Skipped) => Outcome::Skipped,
            Some(Status::Failure) => Outcome::Failed,
            Some(Status::Error) => Outcome::Error,
        };
        Verdict {
            status,
            outcome,
            phase: (outcome == Outcome::Failed).then_some(Phase::Call),
            xfail: None,
            message: data.message.filter(|m| !m.trim().is_empty()),
            traceback: (!traceback.is_empty()).then_some(traceback),
            kind: data.kind,
            location: data.location,
        }
    }

    /// The test this case is, once its id and location are known.
    pub(super) fn into_test(
        self,
        v: Verdict,
        node_id: String,
        location: Option<Location>,
    ) -> TestResult {
        let Verdict {
            outcome,
            mut message,
            traceback,
            ..
        } = v;
        if message.is_none() && matches!(outcome, Outcome::Failed | Outcome::Error) {
            message = traceback.as_deref().and_then(first_line);
        }
        if !self.extra.is_empty() {
            let mut m = message.unwrap_or_else(|| "(no message)".to_string());
            for extra in &self.extra {
                m.push('\n');
                m.push_str(extra);
            }
            message = Some(m);
        }
        if outcome == Outcome::Passed {
            // A flaky test's message describes an earlier attempt, not this one.
            message = None;
        }
        let mut test = TestResult::new(node_id, outcome);
        test.xfail = v.xfail;
        test.duration = self.time;
        test.location = location;
        test.phase = v.phase;
        // Through the setters, which leave a test with nothing to say
        // without details at all.
        test.set_message(message);
        test.set_traceback(
            traceback.filter(|_| matches!(outcome, Outcome::Failed | Outcome::Error)),
        );
        test.set_stdout(nonempty(self.stdout));
        test.set_stderr(nonempty(self.stderr));
        test.set_reruns(self.attempts);
        test
    }
}

/// What a case's status says about its test; each dialect reads more into
/// it (pytest's error phases, skip reasons, xfails) before the test is made.
pub(super) struct Verdict {
    pub status: Option<Status>,
    pub outcome: Outcome,
    pub phase: Option<Phase>,
    pub xfail: Option<Xfail>,
    pub message: Option<String>,
    pub traceback: Option<String>,
    /// The status element's `type`.
    pub kind: Option<String>,
    /// The status element's `file` and `line`.
    pub location: Option<Location>,
}

/// The first non-blank line, when there is one.
pub(super) fn first_line(text: &str) -> Option<String> {
    Some(crate::text::first_line(text))
        .filter(|l| !l.is_empty())
        .map(str::to_string)
}

/// Captured output without the blank lines around it; `None` when blank.
fn nonempty(s: String) -> Option<String> {
    let t = trim_block(&s);
    (!t.is_empty()).then_some(t)
}
