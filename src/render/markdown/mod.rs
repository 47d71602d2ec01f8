//! The token-lean Markdown rendering (SPEC.md, design `002`).
//!
//! ```text
//! Test FAILURE (5.1s) — 42 run, 2 failed, 1 error, 1 skipped
//!
//! ### FAILED: tests/test_calc.py::test_divide
//! assert 0.5 == 0.6
//!   at tests/test_calc.py:42
//!   > assert divide(1, 2) == 0.6
//!
//! > Sources: report.json (pytest-json-report)
//! ```
//!
//! Passing tests are counted, never listed. Each failure gets one section:
//! message, `file:line` of each frame in the project, the failing source line
//! and the explanation lines the message does not already hold, then
//! captured output, all indented two spaces. Skips are grouped by reason,
//! collection errors by file. Empty lines only before `###` headers; notes
//! are blockquotes at the end; no emoji, no code fences.

mod detail;
mod grouping;
mod lines;
mod sections;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::model::{Counts, Run, TestResult};
use crate::text::{first_line, one_line, plural};

pub use sections::{collection_errors, indented, notes};

use grouping::{Group, MIN_SECTION_CHARS, failure_groups, problems};
use sections::{failure, flaky, skipped};

/// Lines of captured output kept per stream: the head and the tail.
const OUTPUT_HEAD: usize = 5;
const OUTPUT_TAIL: usize = 15;
/// Lines kept from a non-pytest stack trace.
const FOREIGN_TRACE_LINES: usize = 8;
/// Frames listed per failure before the rest are summarised.
const MAX_FRAMES: usize = 6;
/// Lines of a message shown before the rest are summarised.
const MAX_MESSAGE_LINES: usize = 20;
/// Distinct skip reasons listed.
const MAX_SKIP_REASONS: usize = 10;
/// Longest line kept anywhere; longer ones are cut with a marker.
const MAX_LINE_CHARS: usize = 400;

/// The status word of the header line.
pub fn status_word(run: &Run) -> &'static str {
    status_of(run, &run.counts())
}

/// [`status_word`] with the run's counts already made.
fn status_of(run: &Run, c: &Counts) -> &'static str {
    if c.collection_errors > 0 {
        return "FAILURE";
    }
    match run.exit_code() {
        2 => return "INTERRUPTED",
        3 | 4 => return "ERROR",
        _ => {}
    }
    if c.failed + c.errors > 0 {
        "FAILURE"
    } else if c.total == 0 {
        "NO TESTS"
    } else {
        "SUCCESS"
    }
}

/// `42 run, 2 failed, 1 error, 3 skipped (1 xfailed), 1 xpassed, ...`
pub fn counts_phrase(run: &Run) -> String {
    phrase_of(&run.counts())
}

/// [`counts_phrase`] with the run's counts already made.
fn phrase_of(c: &Counts) -> String {
    let mut s = format!("{} run, {} failed", c.total, c.failed);
    if c.errors > 0 {
        let _ = write!(s, ", {}", plural(c.errors, "error", "errors"));
    }
    if c.skipped > 0 {
        let _ = write!(s, ", {} skipped", c.skipped);
        if c.xfailed > 0 {
            let _ = write!(s, " ({} xfailed)", c.xfailed);
        }
    }
    if c.xpassed > 0 {
        let _ = write!(s, ", {} xpassed", c.xpassed);
    }
    if c.flaky > 0 {
        let _ = write!(s, ", {} flaky", c.flaky);
    }
    if c.collection_errors > 0 {
        let _ = write!(
            s,
            ", {}",
            plural(c.collection_errors, "collection error", "collection errors")
        );
    }
    if c.warnings > 0 {
        let _ = write!(s, ", {}", plural(c.warnings, "warning", "warnings"));
    }
    s
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

fn rerun_line(run: &Run) -> Option<&'static str> {
    let hint = run.rerun_hint?;
    let c = run.counts();
    let failed = c.failed + c.errors + c.collection_errors > 0;
    let recorded = run.failure_cache.is_none_or(|c| c.records_failures());
    (failed && recorded).then(|| hint.note())
}

fn header(run: &Run) -> String {
    // Counting walks every test: once is enough for both.
    let c = run.counts();
    format!(
        "Test {} ({:.1}s) — {}\n",
        status_of(run, &c),
        run.duration_secs(),
        phrase_of(&c)
    )
}

/// How much of each failure is shown. Lower levels exist to fit a size
/// budget: every failing id is kept as long as possible, detail goes first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Detail {
    /// Everything: message, frames, failing line, explanation, output.
    Full,
    /// Message (5 lines), 6 detail lines, the last 5 lines of output.
    Reduced,
    /// The message's first line and the first `at file:line`.
    Brief,
}

impl Detail {
    fn message_lines(self) -> usize {
        match self {
            Detail::Full => MAX_MESSAGE_LINES,
            Detail::Reduced => 4,
            Detail::Brief => 0,
        }
    }
    fn detail_lines(self) -> usize {
        match self {
            Detail::Full => usize::MAX,
            Detail::Reduced => 6,
            Detail::Brief => 1,
        }
    }
}

/// Renders a run in at most `max_chars` characters (GitHub counts
/// characters: 65,536 for a comment, 1 MiB for a job summary). The header
/// and the failing ids are kept; detail is shortened first (see
/// [`Detail`]), then failures become a one-line list, and only when even
/// that does not fit is the list cut, saying how many ids were left out.
pub fn render_within(run: &Run, max_chars: usize) -> String {
    render_within_after(run, max_chars, "", false)
}

/// [`render_within`] with `preface` (a comparison with a baseline, say)
/// right under the header line; it is kept at every level of detail. With
/// `collapse` (PR comments, job summaries) long failure sections fold their
/// detail into `<details>` blocks.
pub fn render_within_after(run: &Run, max_chars: usize, preface: &str, collapse: bool) -> String {
    let head = format!("{}{preface}", header(run));
    // The same failures and groups at every level of detail: found once.
    // Lower levels stop at the first section past `max_chars`, so the
    // groups after the first `max_chars / MIN_SECTION_CHARS` are rendered
    // by the full level only: their sections need not be kept.
    let problems = problems(run);
    let groups = failure_groups(run, max_chars / MIN_SECTION_CHARS + 1);
    let full = {
        let mut out = head.clone();
        body_until(&mut out, run, &groups, Detail::Full, collapse, usize::MAX);
        notes(&mut out, run, &closing(run, Vec::new()));
        out
    };
    let full_chars = full.chars().count();
    if full_chars <= max_chars {
        return full;
    }
    for detail in [Detail::Reduced, Detail::Brief] {
        let mut out = head.clone();
        if !body_until(&mut out, run, &groups, detail, collapse, max_chars) {
            // Already too long: no need to render the rest of this level.
            continue;
        }
        let note = format!(
            "Shortened to fit {max_chars} characters: failure detail cut to the {} level (the full report has {full_chars} characters)",
            match detail {
                Detail::Reduced => "reduced",
                _ => "brief",
            },
        );
        notes(&mut out, run, &closing(run, vec![note]));
        if out.chars().count() <= max_chars {
            return out;
        }
    }
    compact(run, &problems, max_chars, full_chars, &head)
}

/// The comparison with a baseline, for [`render_within_after`]: one line,
/// then the new failures (first: they are what a reviewer must look at) and
/// the fixed tests by id.
pub fn comparison_block(c: &crate::model::baseline::Comparison) -> String {
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

/// The last resort: header, one line per failing id, cut to fit.
/// `head` is the header line with any preface.
fn compact(
    run: &Run,
    problems: &[&TestResult],
    max_chars: usize,
    full_chars: usize,
    head: &str,
) -> String {
    let errors = &run.collection_errors;
    let note_of = |shown: usize| {
        let total = problems.len() + errors.len();
        let mut note = format!(
            "\n> Shortened to fit {max_chars} characters (the full report has {full_chars}): only failing ids (and first message lines when they fit) are kept"
        );
        if shown < total {
            note.push_str(&format!(
                "; {} of {total} failing ids are listed, {} left out",
                shown,
                total - shown
            ));
        }
        note.push('\n');
        note
    };
    let (ids_only, with_messages) = compact_lines(run, problems);
    let rerun = rerun_line(run)
        .map(|l| format!("> {l}\n"))
        .unwrap_or_default();
    // What the lines may take, leaving room for the worst-case note.
    let budget = max_chars
        .saturating_sub(head.chars().count())
        .saturating_sub(note_of(0).chars().count() + 2 + "### FAILURES\n".len())
        .saturating_sub(rerun.chars().count());
    let cost = |lines: &[String]| lines.iter().map(|l| l.chars().count() + 1).sum::<usize>();
    let lines = if cost(&with_messages) <= budget {
        with_messages
    } else {
        ids_only
    };
    let shown = lines_that_fit(&lines, budget);
    let mut out = head.to_string();
    if shown > 0 {
        out.push_str("\n### FAILURES\n");
        for line in &lines[..shown] {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str(&note_of(shown));
    out.push_str(&rerun);
    // A budget smaller than the header and the note themselves.
    if out.chars().count() > max_chars {
        out = clip_to(out, max_chars.saturating_sub(2));
        out.push('\n');
    }
    out
}

/// The compact list's lines: the ids alone, and the ids with their
/// message's first line (used when all of them fit: ids are dropped last).
fn compact_lines(run: &Run, problems: &[&TestResult]) -> (Vec<String>, Vec<String>) {
    let errors = &run.collection_errors;
    let ids_only: Vec<String> = errors
        .iter()
        .map(|e| ["- COLLECTION ERROR ", &one_line(&e.file)].concat())
        .chain(
            problems
                .iter()
                .map(|t| ["- ", &one_line(&t.node_id)].concat()),
        )
        .collect();
    let messages = errors
        .iter()
        .map(|e| Cow::Borrowed(first_line(&e.message)))
        .chain(problems.iter().map(|t| first_message_line(t)));
    let with_messages = ids_only
        .iter()
        .zip(messages)
        .map(|(id, message)| clip_to([id, " — ", &message].concat(), 200))
        .collect();
    (ids_only, with_messages)
}

/// How many of `lines`, from the first, fit in `budget` characters (each
/// with its newline).
fn lines_that_fit(lines: &[String], budget: usize) -> usize {
    let mut used = 0;
    let mut shown = 0;
    for line in lines {
        let cost = line.chars().count() + 1;
        if used + cost > budget {
            break;
        }
        used += cost;
        shown += 1;
    }
    shown
}

/// The first line of a test's message, with other failing phases'.
fn first_message_line(t: &TestResult) -> Cow<'_, str> {
    match t.joined_message() {
        Some(Cow::Borrowed(m)) => Cow::Borrowed(first_line(m)),
        Some(Cow::Owned(m)) => Cow::Owned(first_line(&m).to_string()),
        None => Cow::Borrowed(""),
    }
}

fn clip_to(mut line: String, max: usize) -> String {
    // No more bytes than `max` is no more characters: nothing to count.
    if line.len() <= max {
        return line;
    }
    if let Some((cut, _)) = line.char_indices().nth(max) {
        line.truncate(cut);
        line.push('…');
    }
    line
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
pub fn body_with(out: &mut String, run: &Run, detail: Detail, collapse: bool) {
    let groups = failure_groups(run, 0);
    body_until(out, run, &groups, detail, collapse, usize::MAX);
}

/// [`body_with`], giving up (and returning `false`) as soon as `out` holds
/// more than `max_chars` characters: a level of detail that cannot fit a
/// budget need not be rendered to the end to know it.
fn body_until(
    out: &mut String,
    run: &Run,
    groups: &[Group<'_>],
    detail: Detail,
    collapse: bool,
    max_chars: usize,
) -> bool {
    let mut chars = out.chars().count();
    let mut fits = |out: &String, from: usize| {
        chars += out[from..].chars().count();
        chars <= max_chars
    };
    let from = out.len();
    collection_errors(out, run);
    if !fits(out, from) {
        return false;
    }
    for group in groups {
        let from = out.len();
        failure(out, group, detail, collapse);
        if !fits(out, from) {
            return false;
        }
    }
    let from = out.len();
    flaky(out, run);
    skipped(out, run);
    fits(out, from)
}
