//! How a run ended, decided once for every output: its status, pytest's
//! exit status, and, when pytest's status says the run failed though no
//! test did, why (a coverage gate, unused snapshots: what pytest printed
//! last). "The answer is what happened": a run is a success only when
//! pytest's own status says so.

use std::borrow::Cow;

use rmcp::schemars::JsonSchema;
use serde::Serialize;

use crate::model::discovery::Discovery;
use crate::model::exec_error::ErrorKind;
use crate::model::{Counts, Run};

/// How a run or a discovery ended: the status every output says.
///
/// The tools' structured results say it in its snake_case name (`status:
/// "no_tests"`), its schema derived here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(crate = "rmcp::schemars")]
pub enum Verdict {
    // Results.
    Success,
    Failure,
    NoTests,
    // pytest's exit status 2 without collection errors, or a session
    // pytest.exit() stopped.
    Interrupted,
    // pytest's exit status 3 (internal error) or 4 (usage error), and the
    // other ends that gave no result.
    Error,
    // Ends that gave no result (execution errors).
    Timeout,
    Crash,
    Cancelled,
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
            Verdict::Timeout => "TIMEOUT",
            Verdict::Crash => "CRASH",
            Verdict::Cancelled => "CANCELLED",
        }
    }

    /// How a page colours it: `ok`, `none` (nothing ran) or `bad`.
    pub fn tone(self) -> Tone {
        match self {
            Verdict::Success => Tone::Ok,
            Verdict::NoTests => Tone::Neutral,
            _ => Tone::Bad,
        }
    }
}

/// Whether a status is good news, bad news or neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Ok,
    Neutral,
    Bad,
}

/// The one headline: `Test FAILURE (0.2s) — 2 run, 1 failed`, `Discover
/// SUCCESS (0.4s) — 5 tests in 1 file`, without the seconds where an
/// output gives them elsewhere.
pub fn headline(what: &str, verdict: Verdict, secs: Option<f64>, tail: &str) -> String {
    let secs = secs.map(|s| format!(" ({s:.1}s)")).unwrap_or_default();
    format!("{what} {}{secs} — {tail}", verdict.word())
}

/// How a headline starts, up to its seconds: `Test FAILURE`. What the
/// headlines with and without seconds have in common, so that a test
/// checking a verdict takes its words from [`headline`] too.
pub fn headline_start(what: &str, verdict: Verdict) -> String {
    let timed = headline(what, verdict, Some(0.0), "");
    let untimed = headline(what, verdict, None, "");
    let common = timed
        .char_indices()
        .zip(untimed.chars())
        .find(|((_, a), b)| a != b)
        .map_or(timed.len().min(untimed.len()), |((i, _), _)| i);
    timed[..common].trim_end().to_string()
}

/// A discovery's status and pytest's exit status for it: collection errors
/// are a failure (2), nothing collected is no tests (5), else success (0).
pub fn discovery_status(d: &Discovery) -> (Verdict, i32) {
    if !d.collection_errors.is_empty() {
        (Verdict::Failure, 2)
    } else if d.items.is_empty() {
        (Verdict::NoTests, 5)
    } else {
        (Verdict::Success, 0)
    }
}

/// The status of a run that gave no result.
pub fn error_verdict(kind: ErrorKind) -> Verdict {
    match kind {
        ErrorKind::Timeout => Verdict::Timeout,
        ErrorKind::Crash => Verdict::Crash,
        ErrorKind::Cancelled => Verdict::Cancelled,
        ErrorKind::Interrupted => Verdict::Interrupted,
        ErrorKind::PytestInternal
        | ErrorKind::UsageError
        | ErrorKind::Spawn
        | ErrorKind::Unknown => Verdict::Error,
    }
}

/// A run's status, with what every output says beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status<'r> {
    pub verdict: Verdict,
    /// pytest's exit status (recorded, else what pytest would have given).
    pub exit_code: i32,
    /// Why pytest's exit status and the tests disagree: the run failed
    /// when no test and no collection did (pytest's exit status and what
    /// it printed last, or that it printed nothing), or it passed when
    /// tests failed.
    pub exit_reason: Option<ExitReason<'r>>,
}

/// Why pytest's exit status says failure when every test passed, or
/// success when some failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitReason<'r> {
    pub exit_code: i32,
    /// Tests that failed or errored: none when the status says failure.
    pub failed: usize,
    /// What pytest or a plugin printed last (one line or a few), else a
    /// sentence saying where to look.
    pub text: Cow<'r, str>,
}

impl ExitReason<'_> {
    /// `Exit status 1 with no test failed: <text>` (or `Exit status 0 with
    /// 2 failed`), its first line; the rest of the text follows on lines
    /// of its own.
    pub fn lead(&self) -> String {
        match self.failed {
            0 => format!("Exit status {} with no test failed", self.exit_code),
            n => format!("Exit status {} with {n} failed", self.exit_code),
        }
    }
}

/// What an answer says of a run whose tests failed and whose exit status
/// is 0.
const STATUS_SET_TO_SUCCESS: &str = "a plugin or conftest.py set pytest's exit status \
(pytest-custom-exit-code's --suppress-tests-failed-exit-code does): a CI step that reads \
the status alone passes this run";

impl Status<'_> {
    /// The run's headline: `Test FAILURE (0.2s) — <counts>`.
    pub fn headline(&self, secs: Option<f64>, counts: &str) -> String {
        headline("Test", self.verdict, secs, counts)
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
    let set_to_success = verdict == Verdict::Failure && failed && exit_code == 0;
    let exit_reason = set_to_success.then(|| ExitReason {
        exit_code,
        failed: c.failed + c.errors,
        text: Cow::Borrowed(STATUS_SET_TO_SUCCESS),
    });
    let exit_reason = exit_reason.or_else(|| (verdict == Verdict::Failure && !explained).then(|| ExitReason {
        exit_code,
        failed: 0,
        text: match &run.closing_lines {
            Some(lines) => Cow::Borrowed(lines.as_str()),
            None if run.text_output.is_some() => Cow::Borrowed(
                "pytest printed no reason at its end (a plugin or conftest.py set the status in pytest_sessionfinish)",
            ),
            None => Cow::Borrowed(
                "the result files do not say why (a plugin's gate, such as a coverage threshold, prints it in pytest's output)",
            ),
        },
    }));
    Status {
        verdict,
        exit_code,
        exit_reason,
    }
}
