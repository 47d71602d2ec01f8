//! How a run ended, decided once for every output: its status, pytest's
//! exit status, and, when pytest's status says the run failed though no
//! test did, why (a coverage gate, unused snapshots: what pytest printed
//! last). "The answer is what happened": a run is a success only when
//! pytest's own status says so.

use std::borrow::Cow;

use crate::model::{Counts, Run};

/// The status of a run that gave a result. (A run that gave none is an
/// execution error, `model::exec_error`, with a status of its own.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Success,
    Failure,
    NoTests,
    /// pytest's exit status 2 without collection errors.
    Interrupted,
    /// pytest's exit status 3 (internal error) or 4 (usage error).
    Error,
}

impl Verdict {
    /// The word the headlines say: `Test FAILURE ...`.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Success => "SUCCESS",
            Verdict::Failure => "FAILURE",
            Verdict::NoTests => "NO TESTS",
            Verdict::Interrupted => "INTERRUPTED",
            Verdict::Error => "ERROR",
        }
    }
}

/// A run's status, with what every output says beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status<'r> {
    pub verdict: Verdict,
    /// pytest's exit status (recorded, else what pytest would have given).
    pub exit_code: i32,
    /// Why the run failed when no test and no collection did: pytest's exit
    /// status and what it printed last, or that it printed nothing.
    pub exit_reason: Option<ExitReason<'r>>,
}

/// Why pytest's exit status says failure when every test passed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitReason<'r> {
    pub exit_code: i32,
    /// What pytest or a plugin printed last (one line or a few), else a
    /// sentence saying where to look.
    pub text: Cow<'r, str>,
}

impl ExitReason<'_> {
    /// `Exit status 1 with no test failed: <text>`, its first line; the
    /// rest of the text follows on lines of its own.
    pub fn lead(&self) -> String {
        format!("Exit status {} with no test failed", self.exit_code)
    }
}

/// The run's status, from its counts.
pub fn status(run: &Run) -> Status<'_> {
    status_with(run, &run.counts())
}

/// [`status`] with the run's counts already made.
pub fn status_with<'r>(run: &'r Run, c: &Counts) -> Status<'r> {
    let exit_code = run.exit_code();
    let failed = c.failed + c.errors > 0;
    let verdict = if c.collection_errors > 0 {
        Verdict::Failure
    } else {
        match exit_code {
            2 => Verdict::Interrupted,
            3 | 4 => Verdict::Error,
            _ if failed => Verdict::Failure,
            0 | 5 if c.total == 0 => Verdict::NoTests,
            0 => Verdict::Success,
            // 1 (or a status a plugin chose) with every test passed.
            _ => Verdict::Failure,
        }
    };
    let explained = failed || c.collection_errors > 0;
    let exit_reason = (verdict == Verdict::Failure && !explained).then(|| ExitReason {
        exit_code,
        text: match &run.closing_lines {
            Some(lines) => Cow::Borrowed(lines.as_str()),
            None if run.text_output.is_some() => Cow::Borrowed(
                "pytest printed no reason at its end (a plugin or conftest.py set the status in pytest_sessionfinish)",
            ),
            None => Cow::Borrowed(
                "the result files do not say why (a plugin's gate, such as a coverage threshold, prints it in pytest's output)",
            ),
        },
    });
    Status {
        verdict,
        exit_code,
        exit_reason,
    }
}
