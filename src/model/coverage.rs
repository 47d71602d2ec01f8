//! The change's coverage (`run --coverage`, docs/coverage.md): of the lines
//! an edit changed in the project's Python source, how many ran under the
//! tests, and the ones no test ran, in ranges with the function or class
//! each is in.

use serde::{Deserialize, Serialize};

mod compare;
pub use compare::compare;

/// What a run under coverage says of the change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChangeCoverage {
    /// The git revision the working tree was compared with.
    pub base: String,
    /// Changed lines that count: statements of Python source that is no
    /// test, not excluded from coverage.
    pub changed_lines: usize,
    /// Of those, the ones that ran.
    pub covered_lines: usize,
    /// The files with changed lines no test ran, in path order.
    pub files: Vec<FileGaps>,
    /// Why the change could not be judged, in one line (not a git work
    /// tree, a revision git does not know): the tests' answer stands.
    pub note: Option<String>,
    /// Each judged file's lines as measured now: what a later run compares
    /// with (the history keeps it); never shown.
    pub measured: Vec<FileState>,
    /// What the gaps were compared with (`the previous run`, `the base's
    /// coverage`), when they were.
    pub compared_with: Option<String>,
    /// Unchanged lines of the changed files that ran before and no longer
    /// run: what the change left behind.
    pub left_behind: Vec<LeftBehind>,
}

/// A changed file's lines as coverage judged them: its text, every line
/// that counts (each line of a statement coverage.py measures) and those
/// that ran.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileState {
    pub path: String,
    #[serde(default)]
    pub text: Vec<String>,
    #[serde(default)]
    pub counted: Vec<u32>,
    #[serde(default)]
    pub ran: Vec<u32>,
}

/// A file's unchanged lines that ran before the change and do not now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftBehind {
    pub path: String,
    pub lines: Vec<u32>,
}

/// What a range no test ran was before the change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Was {
    /// New code, or code that ran before: the change lost a test's reach.
    New,
    /// The same code, changed, was not run before either.
    NotRunBefore,
}

impl Was {
    /// As a range's line says it.
    pub fn words(self) -> &'static str {
        match self {
            Was::New => "new",
            Was::NotRunBefore => "not run before either",
        }
    }
}

/// A file's changed lines that no test ran.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct FileGaps {
    pub path: String,
    /// Its changed lines that count, and those of them that ran.
    #[serde(default)]
    pub changed: Vec<u32>,
    #[serde(default)]
    pub covered: Vec<u32>,
    #[serde(rename = "uncovered", default)]
    pub gaps: Vec<Gap>,
}

impl FileGaps {
    /// Its changed lines no test ran, in order.
    pub fn uncovered(&self) -> Vec<u32> {
        let mut lines: Vec<u32> = self
            .changed
            .iter()
            .copied()
            .filter(|l| !self.covered.contains(l))
            .collect();
        lines.sort_unstable();
        lines
    }
}

/// Changed lines next to each other that no test ran (lines between them
/// that do not count, blank or comments, do not part them).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Gap {
    pub start: u32,
    pub end: u32,
    /// The innermost function or class holding them (`Cart.total`); none
    /// at a module's top level.
    #[serde(default)]
    pub function: Option<String>,
    /// Its first lines of source, as the file has them now (a person's
    /// page shows them).
    #[serde(default)]
    pub source: Vec<String>,
    /// Set when the change was compared with what ran before it.
    #[serde(skip)]
    pub was: Option<Was>,
}

impl Gap {
    /// `33-35` or `33`.
    pub fn lines(&self) -> String {
        match self.start == self.end {
            true => self.start.to_string(),
            false => format!("{}-{}", self.start, self.end),
        }
    }
}

/// What the judging script (`runner/command/pytest_mcp_coverage.py`)
/// says of a change.
#[derive(Deserialize)]
struct Judged {
    #[serde(default)]
    files: Vec<FileGaps>,
    #[serde(default)]
    changed_lines: usize,
    #[serde(default)]
    covered_lines: usize,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    unreadable: Vec<String>,
    #[serde(default)]
    measured: Vec<FileState>,
}

impl ChangeCoverage {
    /// The change against `base` as the judging script's answer says it;
    /// none for an answer that is no such JSON.
    pub fn from_judged(base: &str, answer: &[u8]) -> Option<ChangeCoverage> {
        let judged: Judged = serde_json::from_slice(answer).ok()?;
        let unreadable = (!judged.unreadable.is_empty()).then(|| {
            format!(
                "changed files coverage.py could not read: {}",
                judged.unreadable.join(", ")
            )
        });
        Some(ChangeCoverage {
            base: base.to_string(),
            changed_lines: judged.changed_lines,
            covered_lines: judged.covered_lines,
            files: judged.files,
            note: judged.error.or(unreadable),
            measured: judged.measured,
            ..ChangeCoverage::default()
        })
    }

    /// Changed lines no test ran.
    pub fn uncovered_lines(&self) -> usize {
        self.changed_lines.saturating_sub(self.covered_lines)
    }

    /// The share of changed lines that ran, in percent; none with no
    /// changed line.
    pub fn percent(&self) -> Option<f64> {
        (self.changed_lines > 0)
            .then(|| 100.0 * self.covered_lines as f64 / self.changed_lines as f64)
    }

    /// A change that could not be judged, saying why.
    pub fn unjudged(base: &str, why: String) -> ChangeCoverage {
        ChangeCoverage {
            base: base.to_string(),
            note: Some(why),
            ..ChangeCoverage::default()
        }
    }
}

/// Sorted lines as inclusive ranges of consecutive numbers, for saying
/// `33-35` rather than three lines (the lines a change left behind). A line repeated or out of order
/// starts no error: it joins a range that holds it or starts a new one.
pub fn ranges(lines: &[u32]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for &line in lines {
        match out.last_mut() {
            Some((start, end)) if (*start..=end.saturating_add(1)).contains(&line) => {
                *end = (*end).max(line);
            }
            _ => out.push((line, line)),
        }
    }
    out
}

#[cfg(test)]
mod tests;
