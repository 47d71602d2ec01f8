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
mod tests;
