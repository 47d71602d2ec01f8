//! The token-lean Markdown rendering (ARCHITECTURE.md, "The Markdown shape";
//! docs/report.md, "The Markdown").
//!
//! ```text
//! Test FAILURE (5.1s) — 42 run, 2 failed, 1 error, 1 skipped
//!
//! ### FAILED: tests/test_calc.py::test_divide (line 42)
//! assert 0.5 == 0.6
//!   > assert divide(1, 2) == 0.6
//!
//! > Sources: pytest JUnit XML
//! ```
//!
//! Passing tests are counted, never listed. Each failure gets one section:
//! its heading with the test's own line (when the id names the file),
//! message (a failed `assert` without `AssertionError: `), `file:line` of
//! each further frame in the project, the failing source line and the
//! explanation lines the message does not already hold, then captured
//! output, all indented two spaces. The sources are named only when a run
//! was not read from both of pytest's files. Skips are grouped by reason,
//! collection errors by file. Empty lines only before `###` headers; notes
//! are blockquotes at the end; no emoji, no code fences.

mod changes;
mod discovery;
mod error;
mod fit;
mod grouping;
mod sections;
#[cfg(test)]
mod tests;

use std::fmt::Write as _;

use super::Style;
use super::view::{self, Compared};
use crate::budget::{Fitted, Offer};
use crate::model::Run;
use crate::text::one_line;

pub use discovery::{discovery, discovery_offer};
pub use error::{error, error_offer};
pub(crate) use fit::{Fitting, Plan, plans};
pub use sections::{collection_errors, indented, notes};
pub(crate) use view::failure::{Detail, clip};

use grouping::ShownGroup;
use sections::{coverage, failure, flaky, skipped};

/// Distinct skip reasons listed.
const MAX_SKIP_REASONS: usize = 10;

/// A run's Markdown offered to fit the style's budget; a comparison with
/// a baseline opens it. Every output's offer takes the same three.
pub fn offer<'a>(
    run: &'a Run,
    compared: Option<&'a Compared>,
    style: &'a Style,
) -> Offer<'a, Fitted> {
    let preface = compared
        .map(|c| comparison_block(&c.comparison))
        .unwrap_or_default();
    fit::offer(run, style.budget, &preface, style.collapse)
}

/// Renders a run as Markdown.
pub fn render(run: &Run) -> String {
    let mut out = header(run);
    body_with(&mut out, run, Detail::Full, false);
    notes(&mut out, run, &closing(run, Vec::new()));
    out
}

/// The last notes, after `extra`: what pytest's cache of failures did in
/// the run, then, when it has failures, how to rerun them.
fn closing(run: &Run, mut extra: Vec<String>) -> Vec<String> {
    extra.extend(run.failure_cache.and_then(|c| c.note()));
    extra.extend(rerun_line(run).map(str::to_string));
    extra
}

/// How to rerun the failures, once per streak of failing runs: when the
/// last run failed too, its answer said it.
fn rerun_line(run: &Run) -> Option<&'static str> {
    let hint = run.rerun_hint?;
    let c = run.counts();
    let failed = c.failed + c.errors + c.collection_errors > 0;
    let recorded = run.failure_cache.is_none_or(|c| c.records_failures());
    let said = run.changes.as_ref().is_some_and(|c| c.last_run_failed());
    (failed && recorded && !said).then(|| hint.note())
}

fn header(run: &Run) -> String {
    // Counting walks every test: once is enough for both.
    let c = run.counts();
    let status = view::status_with(run, &c);
    let mut out = status.headline(Some(run.duration_secs()), &view::counts_phrase_of(&c));
    out.push('\n');
    if let Some(reason) = &status.exit_reason {
        out.push_str(&exit_reason_lines(reason));
    }
    // A run passing as the last did: the status line says it all.
    if let Some(since) = run.changes.as_ref().filter(|c| !c.is_empty()) {
        out.push_str(&changes::block(run, since));
    }
    if let Some(affected) = &run.affected {
        out.push_str(&affected.phrase(c.total));
        out.push('\n');
    }
    out
}

/// `Exit status 1 with no test failed: <what pytest printed last>`, its
/// further lines indented under it.
pub fn exit_reason_lines(reason: &view::ExitReason<'_>) -> String {
    let mut lines = reason.text.lines().map(|l| clip(l));
    let mut out = format!("{}: {}\n", reason.lead(), lines.next().unwrap_or_default());
    for line in lines {
        let _ = writeln!(out, "  {line}");
    }
    out
}

/// Ids named in a group's `Same failure in` line at `detail`.
fn listed_ids(detail: Detail) -> usize {
    match detail {
        Detail::FewerIds => 1,
        _ => grouping::LISTED_IDS,
    }
}

/// What a step of [`Detail`] drops, as the closing note says it.
pub(super) fn dropped(detail: Detail) -> &'static [&'static str] {
    match detail {
        Detail::Full => &[],
        Detail::NoOutput => &["captured output"],
        Detail::CrashLines => &["captured output", "traceback lines beyond the crash"],
        Detail::FewerIds => &[
            "captured output",
            "traceback lines beyond the crash",
            "ids beyond the first of each group",
        ],
    }
}

/// The comparison with a baseline, for [`fit::offer`]'s preface: one line,
/// then the new failures (first: they are what a reviewer must look at) and
/// the fixed tests by id.
fn comparison_block(c: &crate::model::baseline::Comparison) -> String {
    const LISTED: usize = 50;
    let mut out = format!("Compared with the baseline: {}\n", c.phrase());
    for (title, ids) in [("NEW FAILURES", &c.new_failures), ("FIXED", &c.fixed)] {
        if ids.is_empty() {
            continue;
        }
        let _ = write!(out, "\n### {title} ({})\n", ids.len());
        for id in ids.iter().take(LISTED) {
            let _ = writeln!(out, "- {}", one_line(id));
        }
        if ids.len() > LISTED {
            let _ = writeln!(out, "- … {} more", ids.len() - LISTED);
        }
    }
    out
}

/// The sections under the header: collection errors, one section per
/// failure or error, skips. Shared with the renderings of errors and
/// discovery, which have headers of their own.
pub fn body(out: &mut String, run: &Run) {
    body_with(out, run, Detail::Full, false);
}

/// [`body`] at a chosen level of detail. Failures that share their shape
/// ([`crate::model::groups`]) are shown once, largest group first, naming
/// the other tests they hit.
fn body_with(out: &mut String, run: &Run, detail: Detail, collapse: bool) {
    let groups = grouping::failure_groups(run);
    let levels = fit::Levels::same(detail);
    let shown = grouping::shown(groups, 0);
    body_until(out, run, &shown, levels, collapse, fit::Cap::NONE);
}

/// [`body_with`], giving up (and returning `false`) as soon as `out` is
/// past `cap`: a level of detail that cannot fit a budget need not be
/// rendered to the end to know it.
fn body_until(
    out: &mut String,
    run: &Run,
    groups: &[ShownGroup<'_>],
    levels: fit::Levels,
    collapse: bool,
    cap: fit::Cap,
) -> bool {
    let mut size = cap.start(out);
    let mut fits = |out: &String, from: usize| size.add(&out[from..]);
    let from = out.len();
    collection_errors(out, run);
    if !fits(out, from) {
        return false;
    }
    for group in groups {
        let from = out.len();
        failure(out, run, group, levels.of(run, &group.group), collapse);
        if !fits(out, from) {
            return false;
        }
    }
    let from = out.len();
    coverage(out, run, false);
    flaky(out, run);
    skipped(out, run);
    fits(out, from)
}
