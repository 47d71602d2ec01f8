//! What the history of runs shows people (docs/flaky.md), worked out once
//! for the GitHub rendering and the HTML page: each failure's strip of
//! recent outcomes, the trend of the window's runs (their counts,
//! durations, commits and times, scaled for a chart), and the tests slower
//! than usual. The outputs only format them: symbols and words here,
//! Markdown or markup there.

use std::fmt::Write as _;

use chrono::DateTime;

use super::groups::{Group, short_commit};
use crate::model::history::{Mark, RunInfo};
use crate::model::{Run, TestResult};

/// Outcomes a strip shows: a test's last 10 runs.
pub const STRIP: usize = 10;

/// The least height of a part of a run's bar that happened, as a share of
/// the chart's height: one failure among thousands of passes stays
/// visible (taken from the run's largest part).
const LEAST_PART: f64 = 0.03;

/// A mark as a symbol that reads without colour: `✓` passed, `✗` failed
/// (every attempt, or the only one), `↻` flaky (passed after failing).
pub fn symbol(mark: Mark) -> char {
    match mark {
        Mark::Passed => '✓',
        Mark::Flaky => '↻',
        Mark::Failed | Mark::FailedAll => '✗',
    }
}

/// The symbols a strip uses and what they mean, as a legend says them:
/// `✓ passed, ✗ failed, ↻ flaky (passed after failing)`.
pub fn strip_legend() -> String {
    [
        (Mark::Passed, "passed"),
        (Mark::Failed, "failed"),
        (Mark::Flaky, "flaky (passed after failing)"),
    ]
    .iter()
    .map(|&(m, word)| format!("{} {word}", symbol(m)))
    .collect::<Vec<_>>()
    .join(", ")
}

/// A test's last outcomes, oldest first: a failure group's strip (its
/// first test's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Strip<'h> {
    pub marks: &'h [Mark],
}

impl Strip<'_> {
    /// `✓✓✗✓✗`.
    pub fn symbols(&self) -> String {
        self.marks.iter().map(|&m| symbol(m)).collect()
    }

    /// The strip in words, its text alternative: `Last 7 runs, oldest
    /// first: passed 3 times, flaky, passed, failed 2 times`.
    pub fn words(&self) -> String {
        let n = self.marks.len();
        let mut out = match n {
            1 => "Last run: ".to_string(),
            n => format!("Last {n} runs, oldest first: "),
        };
        let mut rest = self.marks;
        let mut first = true;
        while let Some(&mark) = rest.first() {
            let same = rest.iter().take_while(|&&m| same_word(m, mark)).count();
            if !first {
                out.push_str(", ");
            }
            first = false;
            out.push_str(mark.as_str());
            if same > 1 {
                let _ = write!(out, " {same} times");
            }
            rest = &rest[same..];
        }
        out
    }
}

/// Whether two marks are said with the same word (failed, and failed
/// every attempt, are both `failed`).
fn same_word(a: Mark, b: Mark) -> bool {
    a.as_str() == b.as_str()
}

/// The strip of a failure group: its first test's last [`STRIP`]
/// outcomes; `None` without a history of runs.
pub fn strip<'h>(group: &Group<'h>) -> Option<Strip<'h>> {
    let marks = group.history?.last(STRIP);
    (!marks.is_empty()).then_some(Strip { marks })
}

/// One run of a trend.
#[derive(Debug, Clone, PartialEq)]
pub struct TrendRun {
    /// The store's number of the run.
    pub id: i64,
    /// The run is this one (the last).
    pub this: bool,
    /// Its commit as people quote it (7 characters), when known.
    pub commit: Option<String>,
    /// When it ran, in UTC: `2026-11-24 10:00`; `None` when unknown.
    pub when: Option<String>,
    pub passed: u32,
    pub failed: u32,
    pub flaky: u32,
    /// Its duration in seconds, when the history kept it.
    pub duration: Option<f64>,
    /// The heights of its bar's parts, passed, flaky and failed (stacked
    /// in that order from the bottom), as shares of the chart's height:
    /// the run with the most tests is the whole height, and a part that
    /// happened at least [`LEAST_PART`].
    pub heights: [f64; 3],
    /// Its duration as a share of the longest run's: where the line of
    /// durations passes.
    pub line: Option<f64>,
}

/// The trend of the history's last runs, oldest first, this run last.
#[derive(Debug, Clone, PartialEq)]
pub struct Trend {
    pub runs: Vec<TrendRun>,
    /// Tests in the run with the most (the chart's full height).
    pub most_tests: u32,
    /// The longest run's duration in seconds (the line's full height),
    /// when any run has one.
    pub longest: Option<f64>,
    /// Runs in the history's window (`runs` may show fewer).
    pub window: usize,
}

/// The trend of `run`'s history: its last `n` runs (at least 2), scaled
/// for a chart. `None` without a history, or with fewer than 2 runs.
pub fn trend(run: &Run, n: usize) -> Option<Trend> {
    let history = run.history.as_ref()?;
    let shown = &history.trend[history.trend.len().saturating_sub(n.max(2))..];
    if shown.len() < 2 {
        return None;
    }
    let total = |r: &RunInfo| r.passed + r.failed + r.flaky;
    let most_tests = shown.iter().map(total).max().unwrap_or(0);
    let longest = shown
        .iter()
        .filter_map(|r| r.duration)
        .filter(|d| d.is_finite() && *d > 0.0)
        .max_by(f64::total_cmp);
    let last = shown.len() - 1;
    let runs = shown
        .iter()
        .enumerate()
        .map(|(i, r)| TrendRun {
            id: r.id,
            this: i == last,
            commit: r.commit.as_deref().map(short_commit),
            when: when(r.at),
            passed: r.passed,
            failed: r.failed,
            flaky: r.flaky,
            duration: r.duration.filter(|d| d.is_finite() && *d >= 0.0),
            heights: heights([r.passed, r.flaky, r.failed], most_tests),
            line: match (r.duration, longest) {
                (Some(d), Some(l)) if d.is_finite() && d >= 0.0 => Some((d / l).min(1.0)),
                _ => None,
            },
        })
        .collect();
    Some(Trend {
        runs,
        most_tests,
        longest,
        window: history.runs,
    })
}

/// `at` (seconds since the Unix epoch) as `2026-11-24 10:00`, in UTC;
/// `None` for an unknown time.
fn when(at: i64) -> Option<String> {
    if at <= 0 {
        return None;
    }
    DateTime::from_timestamp(at, 0).map(|t| t.format("%Y-%m-%d %H:%M").to_string())
}

/// The heights of a bar's parts as shares of `most` tests: each that
/// happened at least [`LEAST_PART`], the excess taken from the largest.
fn heights(parts: [u32; 3], most: u32) -> [f64; 3] {
    if most == 0 {
        return [0.0; 3];
    }
    let total = parts.iter().sum::<u32>() as f64 / most as f64;
    let mut h = parts.map(|n| match n {
        0 => 0.0,
        n => (n as f64 / most as f64).max(LEAST_PART),
    });
    let over = h.iter().sum::<f64>() - total.max(LEAST_PART);
    if over > 0.0
        && let Some(largest) = h.iter_mut().max_by(|a, b| a.total_cmp(b))
    {
        *largest = (*largest - over).max(LEAST_PART);
    }
    h
}

/// A test slower than usual: at least [`SLOWER_TIMES`] its median over
/// the window's earlier runs, and at least [`SLOWER_BY`] seconds more.
///
/// [`SLOWER_TIMES`]: crate::model::history::SLOWER_TIMES
/// [`SLOWER_BY`]: crate::model::history::SLOWER_BY
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slower<'r> {
    pub test: &'r TestResult,
    /// Its duration now, in seconds.
    pub now: f64,
    /// Its median duration over the window's earlier runs, in seconds.
    pub median: f64,
}

impl Slower<'_> {
    /// How many times its median it took: `7.7`.
    pub fn times(&self) -> f64 {
        self.now / self.median.max(f64::MIN_POSITIVE)
    }
}

/// The tests of `run` slower than usual, the most times slower first (ties
/// in the run's order); none without a history.
pub fn slower(run: &Run) -> Vec<Slower<'_>> {
    let Some(history) = run.history.as_ref() else {
        return Vec::new();
    };
    history
        .slower(run)
        .into_iter()
        .filter_map(|(test, h)| {
            Some(Slower {
                test,
                now: test.duration.filter(|d| d.is_finite())?,
                median: h.median.filter(|m| m.is_finite())?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
