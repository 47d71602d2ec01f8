//! A run that produced no result (ADR-007, docs/errors.md): what kind of
//! end it met, and what is known of it — the tests that finished, the test
//! that was running, pytest's output and command line. The runner fills it
//! in; `render::markdown::error` and `render::json::error_data` render it.

use super::Run;

/// The kinds of execution error (docs/errors.md): ADR-007's, and two of
/// ours (`Spawn`, `Cancelled`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    Timeout,
    Crash,
    Interrupted,
    PytestInternal,
    UsageError,
    /// pytest could not be started (no interpreter, no pytest, no temp dir).
    Spawn,
    /// The request was cancelled.
    Cancelled,
    /// An exit status pytest does not document.
    Unknown,
}

impl ErrorKind {
    /// `error_type` in the JSON error's data.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Timeout => "timeout",
            ErrorKind::Crash => "crash",
            ErrorKind::Interrupted => "interrupted",
            ErrorKind::PytestInternal => "pytest_internal",
            ErrorKind::UsageError => "usage_error",
            ErrorKind::Spawn => "spawn",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::Unknown => "unknown",
        }
    }

    /// The JSON-RPC error code (docs/errors.md): usage errors are invalid
    /// params.
    pub fn code(self) -> i64 {
        match self {
            ErrorKind::UsageError => -32602,
            _ => -32000,
        }
    }
}

/// The signal that killed a process: its number, and its name as the
/// system gives it (`SIGSEGV`; `signal 99` for a number without one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signal {
    number: i32,
    name: String,
}

impl Signal {
    pub fn new(number: i32, name: impl Into<String>) -> Signal {
        Signal {
            number,
            name: name.into(),
        }
    }

    pub fn number(&self) -> i32 {
        self.number
    }

    /// The name errors show (`SIGSEGV`).
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// A test that had started and not finished when a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Running {
    pub node_id: String,
    /// The pytest-xdist worker that ran it (`gw0`), under `workers`.
    pub worker: Option<String>,
}

/// A run that did not produce a result.
#[derive(Debug, Clone)]
pub struct ExecError {
    pub kind: ErrorKind,
    pub message: String,
    pub exit_code: Option<i32>,
    /// The signal that killed pytest ([`ErrorKind::Crash`]).
    pub signal: Option<Signal>,
    pub stdout: String,
    pub stderr: String,
    pub command: Vec<String>,
    pub duration: f64,
    /// What finished before the end, from whatever pytest left behind.
    pub partial: Run,
    /// The tests that were running when the run ended, in the order they
    /// started: one, or under pytest-xdist one per busy worker.
    pub running: Vec<Running>,
    /// Tests pytest had collected, when collection finished.
    pub collected: Option<usize>,
    /// The collected tests that never ran (neither finished nor running
    /// at the end), in collection order, when the event log named them.
    pub not_run: Vec<String>,
}

impl ExecError {
    /// pytest could not be started: nothing ran, nothing was printed.
    pub fn spawn(message: String, command: Vec<String>) -> ExecError {
        ExecError {
            kind: ErrorKind::Spawn,
            message,
            exit_code: None,
            signal: None,
            stdout: String::new(),
            stderr: String::new(),
            command,
            duration: 0.0,
            partial: Run::default(),
            running: Vec::new(),
            collected: None,
            not_run: Vec::new(),
        }
    }
}
