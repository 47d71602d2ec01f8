//! The sections of a report: failures, flaky tests, skips, collection
//! errors, captured output and the closing notes.

use std::fmt::Write as _;

use super::grouping::{ShownGroup, new_mark, same_line};
use super::{MAX_SKIP_REASONS, listed_ids};
use crate::model::{Run, TestResult};
use crate::render::view;
use crate::render::view::failure::{
    Detail, Lean, Section, clip, collection_error_head, collection_error_lines,
    collection_errors_by_file, failure_body, indent_line, line_breaks,
};
use crate::text::one_line;

/// Tests that passed only after failing: listed, not counted as failures.
/// Failed tests that were rerun say so in their section's message.
pub(super) fn flaky(out: &mut String, run: &Run) {
    let flaky = view::flaky(run);
    if flaky.is_empty() {
        return;
    }
    let _ = write!(out, "\n### FLAKY ({})\n", flaky.len());
    for t in flaky {
        let line = format!("- {} — {}", one_line(&t.node_id), t.flaky_summary());
        let _ = writeln!(out, "{}", clip(&line));
    }
}

/// Indented lines, for blocks of output under a section.
pub fn indented(out: &mut String, lines: &[&str]) {
    for line in lines {
        indent_line(out, line);
    }
}

/// The collection errors, a section per file: each error's first line,
/// then its detail lines.
pub fn collection_errors(out: &mut String, run: &Run) {
    for (file, errors) in collection_errors_by_file(run) {
        let _ = write!(out, "\n### COLLECTION ERROR: {}\n", clip(&one_line(file)));
        for e in errors {
            let head = format!("- {}", collection_error_head(e));
            let _ = writeln!(out, "{}", clip(&head));
            for line in collection_error_lines(e) {
                indent_line(out, &line);
            }
        }
    }
}

/// Lines of a failure section shown before the rest folds into a
/// `<details>` block (PR comments and job summaries only).
pub(super) const COLLAPSE_AFTER: usize = 12;

/// One failure section, naming the other tests of its group.
pub(super) fn failure(
    out: &mut String,
    run: &Run,
    shown: &ShownGroup<'_>,
    detail: Detail,
    collapse: bool,
) {
    let group = &shown.group;
    let t = group.first;
    let section = shown.section();
    let place = test_line(&section, t);
    let _ = write!(
        out,
        "\n### {}{}: {}",
        group.label(),
        new_mark(group),
        clip(&one_line(&t.node_id))
    );
    match place {
        Some(line) => {
            let _ = writeln!(out, " (line {line})");
        }
        None => out.push('\n'),
    }
    let start = out.len();
    let same = same_line(run, group, listed_ids(detail), place);
    let lean = Lean {
        place_in_heading: place.is_some(),
    };
    failure_body(out, t, same.as_deref(), &section, detail, lean);
    if collapse {
        collapse_long(out, start);
    }
}

/// Rewrites the section written to `out` from `start` on, folding all but
/// its first line (the message) and the lines naming other tests or reruns
/// into `<details>` when it is long. The folded lines go in a code fence
/// longer than any backtick run in them, so test output renders as written
/// and cannot close it.
pub(super) fn collapse_long(out: &mut String, start: usize) {
    let keep = |i: usize, l: &str| {
        i == 0 || l.starts_with("  Same failure in ") || l.starts_with("  Rerun: ")
    };
    // The first line is always kept, so no more lines can be folded than
    // there are line breaks: most sections are decided by counting them,
    // and stay where they were written.
    if line_breaks(&out[start..]) <= COLLAPSE_AFTER {
        return;
    }
    let section = out.split_off(start);
    let hidden: Vec<&str> = section
        .lines()
        .enumerate()
        .filter(|(i, l)| !keep(*i, l))
        .map(|(_, l)| l)
        .collect();
    if hidden.len() <= COLLAPSE_AFTER {
        out.push_str(&section);
        return;
    }
    for (i, l) in section.lines().enumerate() {
        if keep(i, l) {
            let _ = writeln!(out, "{l}");
        }
    }
    let longest_ticks = hidden
        .iter()
        .flat_map(|l| l.split(|c| c != '`'))
        .map(str::len)
        .max()
        .unwrap_or(0);
    let fence = "`".repeat((longest_ticks + 1).max(3));
    let _ = write!(
        out,
        "<details><summary>{} more lines</summary>\n\n{fence}text\n",
        hidden.len()
    );
    for l in &hidden {
        let _ = writeln!(out, "{l}");
    }
    let _ = write!(out, "{fence}\n\n</details>\n");
}

/// The line of the test's own file where it failed, when the section's
/// first frame is there: the agent's heading carries it (` (line 16)`)
/// instead of an `at` line of its own, the file being in the id.
/// The test's line is where a person looks first; for the rest of the
/// frames, their `at` lines stay.
fn test_line(section: &Section<'_>, t: &TestResult) -> Option<u32> {
    let file = &t.location.as_ref()?.file;
    // Only where the id names the file (pytest's `file::name`): other
    // frameworks' ids (`Suite > name`) leave the file to the `at` line.
    if !t.node_id.starts_with(&**file) {
        return None;
    }
    let first = section.detail.first()?;
    let rest = first
        .strip_prefix("at ")?
        .strip_prefix(one_line(file).as_ref())?;
    rest.strip_prefix(':')?.parse().ok().filter(|n| *n > 0)
}

/// Skips by reason ([`view::skip_reasons`]), the first
/// [`MAX_SKIP_REASONS`] listed, the rest counted.
pub(super) fn skipped(out: &mut String, run: &Run) {
    let skips = view::skip_reasons(run);
    if skips.total == 0 {
        return;
    }
    let _ = write!(out, "\n### SKIPPED ({})\n", skips.total);
    for (reason, n) in skips.reasons.iter().take(MAX_SKIP_REASONS) {
        let line = if *n > 1 {
            format!("- {reason} ({n})")
        } else {
            format!("- {reason}")
        };
        let _ = writeln!(out, "{}", clip(&line));
    }
    if let Some((reasons, tests)) = skips.beyond(MAX_SKIP_REASONS) {
        let _ = writeln!(out, "- … {reasons} more reasons ({tests} tests)");
    }
}

/// The closing `>` notes: the shards against their plan, the run's
/// sources and notes, then `extra`.
pub fn notes(out: &mut String, run: &Run, extra: &[String]) {
    let mut notes: Vec<String> = Vec::new();
    if let Some(shards) = view::shards(run) {
        let id = |id: &str| one_line(id).into_owned();
        notes.extend(shards.lines().iter().map(|l| l.format(str::to_string, id)));
    }
    if !run.sources.is_empty() && !view::read_as_usual(run) {
        notes.push(view::sources_note(run));
    }
    notes.extend(run.notes.iter().cloned());
    notes.extend(extra.iter().cloned());
    if notes.is_empty() {
        return;
    }
    out.push('\n');
    for note in notes {
        for line in note.lines() {
            let _ = writeln!(out, "> {}", clip(line));
        }
    }
}

/// The change's coverage (`run --coverage`): how many changed lines ran,
/// then each range no test ran, or, `short`, each file's count of them.
pub(super) fn coverage(out: &mut String, run: &Run, short: bool) {
    let Some(c) = &run.coverage else { return };
    let _ = write!(
        out,
        "\n### CHANGE COVERAGE: {}\n",
        view::coverage_phrase(c, false)
    );
    let lines = match short {
        true => view::coverage_files(c),
        false => view::coverage_ranges(c),
    };
    for line in lines {
        let _ = writeln!(out, "- {line}");
    }
    let left = view::coverage_left_behind(c);
    if !left.is_empty() && !short {
        let _ = writeln!(out, "Ran before the change, not now: {}", left.join("; "));
    }
}
