//! GitHub Flavored Markdown for people: the job summary and the PR comment
//! (`--format gfm`, and the summary `--format github` appends).
//!
//! ```text
//! ## Test FAILURE — 42 run, 2 failed, 1 error, 1 skipped
//!
//! | Passed | Failed | Errors | Skipped | Flaky | Duration |
//! |---:|---:|---:|---:|---:|---:|
//! | 38 | 2 | 1 | 1 | 0 | 5.1s |
//!
//! ### Failures (3 tests in 2 groups)
//!
//! <details open>
//! <summary><strong>FAILED</strong> · 2 tests · <code>tests/test_calc.py::test_divide</code></summary>
//!
//! Failed at [`tests/test_calc.py:42`](https://github.com/o/r/blob/sha/tests/test_calc.py#L42).
//!
//! Same failure in 1 more: `tests/test_calc.py::test_mul`
//!
//! ```text
//! assert 0.5 == 0.6
//!   at tests/test_calc.py:42
//!   > assert divide(1, 2) == 0.6
//! ```
//!
//! </details>
//! ```
//!
//! With a baseline the table gains the baseline's row and the change, and
//! the failures come as new failures (first), fixed tests, then the
//! failures that were already there, collapsed. Then the Flaky section,
//! the slowest tests and the skips by reason (collapsed), and the notes.
//!
//! With a history of runs ([`Run::history`], docs/flaky.md) a line under
//! the table counts the failures by standing (`Against the history of 5
//! runs: 1 new, 1 failing before, 1 flaky`), the new failures come first
//! and each group's summary says how it stands, in the view's words
//! ([`view::history_mark`]: `1 test (new)`, `1 test (failing for 4 runs,
//! since 1a2b3c4)`). Flaky failures are never among the failures: the
//! Flaky section holds them (collapsed, with their rate and their code
//! block, as groups are shown) with the tests that passed only after
//! failing, and the table's Flaky column counts both. Each group's summary
//! carries its first test's strip of its last 10 outcomes, oldest first,
//! in symbols that read without colour (`✓✓✗↻✗`, a legend under the
//! counts, the same in words in the group: [`view::strip`]); after the
//! Flaky section come the tests slower than usual and the trend of the
//! last runs, a table collapsed ([`history`]), dropped with the other
//! lists when the budget is small.
//!
//! The groups, their "Same failure in" lines, the flaky, slowest,
//! skipped and slower than usual lists, the strips and the trend are the
//! view's ([`super::view`]), as in every output; a
//! group's code block holds exactly what the agent Markdown writes under
//! its heading ([`super::markdown::failure_lines`]). Nothing from a test
//! is read as Markdown or HTML ([`escape`]). Shortened to a budget by
//! [`fit`]: the table and every new failure stay.

mod document;
mod escape;
mod fit;
mod history;
mod sections;

use std::fmt::Write as _;

use crate::budget::{Fitted, Offer};
use crate::model::baseline::Comparison;
use crate::model::{Counts, Run};
use crate::render::Style;
use crate::render::view::{self, Compared};
use crate::text::{plural, thousands};

/// A run's GitHub rendering offered to fit the style's budget, its links
/// the style's, compared with a baseline when there is one. Every output's
/// offer takes the same three.
pub fn offer<'a>(
    run: &'a Run,
    compared: Option<&'a Compared>,
    style: &'a Style,
) -> Offer<'a, Fitted> {
    let baseline = compared.map(|c| Baseline {
        comparison: &c.comparison,
        counts: c.counts,
    });
    fit::offer(run, baseline, &style.links, style.budget)
}

/// What the renderer needs to know from outside the run: where `path:line`
/// links lead.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// The URL a file's path in the repository is appended to, e.g.
    /// `https://github.com/owner/repo/blob/<sha>/`; none: paths are plain
    /// text.
    pub link_base: Option<String>,
    /// Put before the run's relative paths (where pytest ran, relative to
    /// the repository root), e.g. `backend/`.
    pub path_prefix: String,
    /// An absolute path under this directory (the repository's checkout)
    /// is linked relative to it; other absolute paths are not linked.
    pub workspace: Option<String>,
}

/// The run a report is compared with: the comparison and the baseline's
/// counts (for the table).
#[derive(Debug, Clone)]
pub struct Baseline<'a> {
    pub comparison: &'a Comparison,
    pub counts: Counts,
}

/// An error (a file that cannot be read, a timeout) or a discovery as
/// GitHub Flavored Markdown: its first line as a heading, then its agent
/// Markdown whole in a code block, where nothing in it is read as Markdown
/// or HTML.
pub fn text_page(markdown: &str) -> String {
    let first = markdown.lines().next().unwrap_or_default();
    format!(
        "## {}\n\n{}",
        escape::escape_text(first),
        escape::code_block(markdown)
    )
}

/// `<1 ms`, `12 ms`, `1.5s`, `2m 03s`, `1h 02m`.
fn duration(secs: f64) -> String {
    if !secs.is_finite() || secs < 0.0 {
        return "–".to_string();
    }
    if secs < 1.0 {
        let ms = (secs * 1000.0).round();
        return if ms < 1.0 {
            "<1 ms".to_string()
        } else {
            format!("{ms:.0} ms")
        };
    }
    if secs < 60.0 {
        return format!("{secs:.1}s");
    }
    let whole = secs.round() as u64;
    if whole < 3600 {
        format!("{}m {:02}s", whole / 60, whole % 60)
    } else {
        format!("{}h {:02}m", whole / 3600, (whole % 3600) / 60)
    }
}

/// `+1.5s`, `−12 ms` (a minus sign), `0` under a millisecond.
fn duration_change(secs: f64) -> String {
    if !secs.is_finite() || secs.abs() < 0.0005 {
        return "0".to_string();
    }
    let sign = if secs < 0.0 { "−" } else { "+" };
    format!("{sign}{}", duration(secs.abs()))
}

/// `+3`, `−2` (a minus sign), `0`.
fn change(now: usize, before: usize) -> String {
    match now.cmp(&before) {
        std::cmp::Ordering::Greater => format!("+{}", thousands(now - before)),
        std::cmp::Ordering::Less => format!("−{}", thousands(before - now)),
        std::cmp::Ordering::Equal => "0".to_string(),
    }
}

/// The first line (status and counts) and the table of counts.
fn head(run: &Run, c: &Counts, baseline: Option<&Baseline<'_>>) -> String {
    let status = view::status_with(run, c);
    let mut out = format!(
        "## {}\n\n",
        status.headline(None, &view::counts_phrase_of(c))
    );
    if let Some(reason) = &status.exit_reason {
        // What pytest printed is text, never Markdown: a code block.
        let _ = write!(
            out,
            "{}:\n\n{}\n",
            reason.lead(),
            escape::code_block(&reason.text)
        );
    }
    let row = |c: &Counts, secs: f64| {
        format!(
            "| {} | {} | {} | {} | {} | {} |",
            thousands(c.passed),
            thousands(c.failed),
            thousands(c.errors),
            thousands(c.skipped),
            thousands(flaky(c)),
            duration(secs)
        )
    };
    let now = run.duration_secs();
    match baseline {
        None => {
            out.push_str("| Passed | Failed | Errors | Skipped | Flaky | Duration |\n");
            out.push_str("|---:|---:|---:|---:|---:|---:|\n");
            let _ = writeln!(out, "{}", row(c, now));
        }
        Some(b) => {
            let before = &b.counts;
            let cmp = b.comparison;
            out.push_str("| | Passed | Failed | Errors | Skipped | Flaky | Duration |\n");
            out.push_str("|:---|---:|---:|---:|---:|---:|---:|\n");
            let _ = writeln!(out, "| This run {}", row(c, now));
            let _ = writeln!(out, "| Baseline {}", row(before, cmp.baseline_duration));
            let _ = writeln!(
                out,
                "| Change | {} | {} | {} | {} | {} | {} |",
                change(c.passed, before.passed),
                change(c.failed, before.failed),
                change(c.errors, before.errors),
                change(c.skipped, before.skipped),
                change(flaky(c), flaky(before)),
                duration_change(cmp.duration_change),
            );
            let _ = write!(out, "\nCompared with the baseline: {}\n", cmp.phrase());
        }
    }
    if let Some(s) = view::standings(run).filter(|s| s.new + s.failing_before + s.flaky > 0) {
        let _ = write!(
            out,
            "\nAgainst the history of {}: {} new, {} failing before, {} flaky\n",
            plural(s.runs, "run", "runs"),
            thousands(s.new),
            thousands(s.failing_before),
            thousands(s.flaky)
        );
    }
    out
}

/// The table's flaky tests: those that passed after failing attempts, and
/// the failures flaky by the history of runs (the Flaky section lists
/// both).
fn flaky(c: &Counts) -> usize {
    c.flaky + c.flaky_failures
}

#[cfg(test)]
mod tests;
