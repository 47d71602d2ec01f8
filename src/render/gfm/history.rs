//! The history of runs as the GitHub rendering shows it (docs/flaky.md):
//! the legend of the failures' strips, the tests slower than usual, and
//! the trend of the last runs as a small table. What they show is the
//! view's ([`view::strip`], [`view::slower`], [`view::trend`]); this only
//! writes it as GitHub Flavored Markdown. Nothing in them comes from a
//! test but ids, which go into code spans; a commit (`--commit`) is put in
//! a code span with its pipes escaped, so it cannot end a table cell.

use std::fmt::Write as _;

use super::escape::code_span;
use super::sections::tests;
use crate::model::Run;
use crate::render::view::{self, Slower, Trend};
use crate::text::plural;

/// Runs the trend's table shows: the last 10.
const TREND_RUNS: usize = 10;
/// Tests listed as slower than usual.
const SLOWER_LISTED: usize = 10;

/// The paragraph saying what the strips' symbols mean, under the counts
/// against the history.
pub(super) fn legend() -> String {
    format!(
        "\nEach failure's last runs, oldest first: {}\n",
        view::strip_legend()
    )
}

/// The "Slower than usual" section: each test's duration now, its median
/// and how many times it took; empty when no test is slower than usual.
pub(super) fn slower(run: &Run) -> String {
    let slower = view::slower(run);
    if slower.is_empty() {
        return String::new();
    }
    let mut out = format!("\n### Slower than usual ({})\n\n", slower.len());
    for s in slower.iter().take(SLOWER_LISTED) {
        let _ = writeln!(out, "- {} {}", slower_words(s), code_span(&s.test.node_id));
    }
    if slower.len() > SLOWER_LISTED {
        let _ = writeln!(out, "- … {} more", tests(slower.len() - SLOWER_LISTED));
    }
    out
}

/// `2.4s (median 305 ms, 7.7×)`.
fn slower_words(s: &Slower<'_>) -> String {
    format!(
        "{} (median {}, {:.1}×)",
        super::duration(s.now),
        super::duration(s.median),
        s.times()
    )
}

/// The trend of the last [`TREND_RUNS`] runs, collapsed: one row per run,
/// oldest first, with its commit, when it ran, its counts and duration;
/// empty with fewer than 2 runs.
pub(super) fn trend(run: &Run) -> String {
    let Some(trend) = view::trend(run, TREND_RUNS) else {
        return String::new();
    };
    let mut out = format!(
        "\n<details>\n<summary>{}</summary>\n\n",
        trend_title(&trend)
    );
    out.push_str("| Run | Commit | When (UTC) | Passed | Failed | Flaky | Duration |\n");
    out.push_str("|---:|:---|:---|---:|---:|---:|---:|\n");
    for r in &trend.runs {
        let this = if r.this { ", this run" } else { "" };
        let commit = r
            .commit
            .as_deref()
            .map_or_else(|| "–".to_string(), |c| code_span(c).replace('|', "\\|"));
        let _ = writeln!(
            out,
            "| {}{this} | {commit} | {} | {} | {} | {} | {} |",
            r.id,
            r.when.as_deref().unwrap_or("–"),
            r.passed,
            r.failed,
            r.flaky,
            r.duration.map_or_else(|| "–".to_string(), super::duration)
        );
    }
    out.push_str("\n</details>\n");
    out
}

/// `Trend of the last 7 runs`, or `of the last 10 of 50 runs`.
fn trend_title(trend: &Trend) -> String {
    let shown = trend.runs.len();
    if shown < trend.window {
        format!("Trend of the last {shown} of {} runs", trend.window)
    } else {
        format!("Trend of the last {}", plural(shown, "run", "runs"))
    }
}
