//! The complete results of shortened answers, kept so that an agent can
//! still read them: when a tool's answer was shortened to fit its budget,
//! the server keeps the whole JSON result (ADR-006 for a run, the discovery
//! object, or an execution error's ADR-007 object) here, offers it as the
//! MCP resource `pytest-mcp://runs/<n>`, and links to it from the answer.
//!
//! Memory is bounded: the last [`KEPT_RESULTS`] results and at most
//! [`KEPT_BYTES`] in all; the oldest go first. A result larger than the
//! whole allowance is not kept (its answer has no link). Reading a result
//! that was let go is an error that says so, and how to get it again.

use std::collections::VecDeque;
use std::sync::Arc;

/// How many results are kept.
pub const KEPT_RESULTS: usize = 5;
/// How many bytes of results are kept, in all.
pub const KEPT_BYTES: usize = 50 * 1024 * 1024;
/// The start of every kept result's URI; its number follows.
pub const URI_PREFIX: &str = "pytest-mcp://runs/";

/// A kept result.
#[derive(Debug, Clone, PartialEq)]
pub struct Kept {
    /// 1 for the server's first kept result, then counting up.
    pub number: u64,
    /// The tool whose answer it completes.
    pub tool: &'static str,
    /// One line saying what it is a result of (the answer's headline).
    pub headline: String,
    /// The JSON text.
    pub json: Arc<str>,
}

impl Kept {
    pub fn uri(&self) -> String {
        format!("{URI_PREFIX}{}", self.number)
    }
}

/// Why a URI cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Missing {
    #[error("{0} is not a resource of this server (its resources are {URI_PREFIX}<n>)")]
    NotOurs(String),
    #[error(
        "{URI_PREFIX}{number} is no longer kept: the server keeps the complete results of the \
         last {KEPT_RESULTS} shortened answers (at most 50 MB); run the tests again to get it"
    )]
    LetGo { number: u64 },
    #[error("{URI_PREFIX}{number} does not exist: no shortened answer had that number yet")]
    NotYet { number: u64 },
}

/// The kept results, oldest first.
#[derive(Debug)]
pub struct Runs {
    kept: VecDeque<Kept>,
    bytes: usize,
    last: u64,
    max_results: usize,
    max_bytes: usize,
}

impl Default for Runs {
    fn default() -> Self {
        Runs::new(KEPT_RESULTS, KEPT_BYTES)
    }
}

impl Runs {
    pub fn new(max_results: usize, max_bytes: usize) -> Runs {
        Runs {
            kept: VecDeque::new(),
            bytes: 0,
            last: 0,
            max_results,
            max_bytes,
        }
    }

    /// Keeps `json`, letting the oldest results go until the bounds hold.
    /// `None` when `json` alone is over the byte allowance.
    pub fn keep(&mut self, tool: &'static str, headline: String, json: String) -> Option<Kept> {
        if json.len() > self.max_bytes || self.max_results == 0 {
            return None;
        }
        while self.kept.len() >= self.max_results || self.bytes + json.len() > self.max_bytes {
            let Some(old) = self.kept.pop_front() else {
                break;
            };
            self.bytes -= old.json.len();
        }
        self.last += 1;
        self.bytes += json.len();
        let kept = Kept {
            number: self.last,
            tool,
            headline,
            json: json.into(),
        };
        self.kept.push_back(kept.clone());
        Some(kept)
    }

    /// The kept results, newest first.
    pub fn list(&self) -> impl Iterator<Item = &Kept> {
        self.kept.iter().rev()
    }

    /// The result at `uri`.
    pub fn read(&self, uri: &str) -> Result<&Kept, Missing> {
        let number = uri
            .strip_prefix(URI_PREFIX)
            .filter(|n| !n.starts_with('+') && !n.starts_with('0'))
            .and_then(|n| n.parse::<u64>().ok())
            .ok_or_else(|| Missing::NotOurs(uri.to_string()))?;
        if number > self.last {
            return Err(Missing::NotYet { number });
        }
        self.kept
            .iter()
            .find(|k| k.number == number)
            .ok_or(Missing::LetGo { number })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keep(runs: &mut Runs, bytes: usize) -> Option<u64> {
        runs.keep("execute_tests", "Test FAILURE".into(), "x".repeat(bytes))
            .map(|k| k.number)
    }

    #[test]
    fn the_oldest_results_go_first_by_count_and_by_bytes() {
        let mut runs = Runs::new(3, 100);
        for n in 1..=4 {
            assert_eq!(keep(&mut runs, 10), Some(n));
        }
        let numbers: Vec<u64> = runs.list().map(|k| k.number).collect();
        assert_eq!(numbers, [4, 3, 2]);
        assert_eq!(
            runs.read("pytest-mcp://runs/1"),
            Err(Missing::LetGo { number: 1 })
        );
        assert_eq!(
            runs.read("pytest-mcp://runs/3").map(|k| k.json.len()),
            Ok(10)
        );
        // 85 bytes more: only the newest of the rest can stay beside it.
        assert_eq!(keep(&mut runs, 85), Some(5));
        let numbers: Vec<u64> = runs.list().map(|k| k.number).collect();
        assert_eq!(numbers, [5, 4]);
        // Over the whole allowance: not kept, nothing let go.
        assert_eq!(keep(&mut runs, 101), None);
        assert_eq!(runs.list().count(), 2);
    }

    #[test]
    fn a_uri_that_is_not_a_kept_result_says_why() {
        let mut runs = Runs::default();
        keep(&mut runs, 1);
        assert_eq!(runs.read("pytest-mcp://runs/1").map(|k| k.number), Ok(1));
        for uri in [
            "file:///etc/passwd",
            "pytest-mcp://runs/01",
            "pytest-mcp://runs/x",
        ] {
            assert_eq!(runs.read(uri), Err(Missing::NotOurs(uri.into())));
        }
        let err = runs.read("pytest-mcp://runs/2").expect_err("not yet");
        assert_eq!(err, Missing::NotYet { number: 2 });
        assert!(err.to_string().contains("no shortened answer"), "{err}");
        let gone = Missing::LetGo { number: 1 }.to_string();
        assert!(gone.contains("last 5 shortened answers"), "{gone}");
    }
}
