//! Rerunning a run's failures through pytest's cache (`--lf`): what the
//! cache did in a run we executed, and which one-line way to ask for the
//! rerun an answer ends with.

/// How the reader of an answer asks for its failures again: set by the
/// frontend that ran the tests (`report` of files has none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RerunHint {
    /// The MCP tool: `execute_tests` with `last_failed: true`.
    Tool,
    /// The command line: `pytest-mcp run --last-failed`.
    Cli,
}

/// What pytest's cache of failures said in a run we executed, from the
/// event log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureCache {
    /// The project turns pytest's cache off (`-p no:cacheprovider`):
    /// failures are not recorded, so there is nothing to rerun. A run that
    /// asked for the recorded failures ran nothing.
    Disabled { asked: bool },
    /// The run asked for the recorded failures (`--lf`).
    Asked(LastFailed),
}

/// How a run that asked for the recorded failures went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LastFailed {
    /// Failures pytest's cache recorded (ids, some may be files).
    pub recorded: usize,
    /// Tests that ran because of them. 0 when none were recorded or none of
    /// them is among the selected tests: then no test ran.
    pub selected: usize,
    /// Whether pytest's cache directory existed.
    pub cache_exists: bool,
}

impl FailureCache {
    /// The note an answer gives about it, if any.
    pub fn note(&self) -> Option<String> {
        let text = match *self {
            FailureCache::Disabled { asked: false } => return None,
            FailureCache::Disabled { asked: true } => {
                "No test ran: pytest's cache is disabled in this project (-p no:cacheprovider), so it records no failures to rerun".to_string()
            }
            FailureCache::Asked(LastFailed {
                recorded: 0,
                cache_exists,
                ..
            }) => format!(
                "No test ran: pytest's cache records no failed tests{}",
                if cache_exists {
                    ""
                } else {
                    " (it has no cache directory yet)"
                }
            ),
            FailureCache::Asked(LastFailed {
                recorded,
                selected: 0,
                ..
            }) => format!(
                "No test ran: none of the {recorded} failures pytest's cache records is among the selected tests (or they no longer exist)"
            ),
            FailureCache::Asked(LastFailed {
                recorded, selected, ..
            }) if selected < recorded => format!(
                "Reran {selected} of the {recorded} failures pytest's cache records (the others are not selected or no longer exist)"
            ),
            FailureCache::Asked(LastFailed { selected, .. }) => {
                format!("Reran the failures pytest's cache records ({selected} tests)")
            }
        };
        Some(text)
    }

    /// Whether failures of the run can be rerun through the cache.
    pub fn records_failures(&self) -> bool {
        !matches!(self, FailureCache::Disabled { .. })
    }
}

impl RerunHint {
    /// The note that ends an answer with failures.
    pub fn note(self) -> &'static str {
        match self {
            RerunHint::Tool => "Rerun the failures: execute_tests with last_failed: true",
            RerunHint::Cli => "Rerun the failures: pytest-mcp run --last-failed",
        }
    }
}
