//! The parts of the GitHub rendering: failure groups (in full or one line
//! each), collection errors, fixed tests, flaky tests, the slowest tests,
//! skips by reason and the closing notes.

use foldhash::{HashMap, HashMapExt};
use std::borrow::Cow;
use std::fmt::Write as _;

use super::Options;
use super::escape::{code_block, code_span, escape_text, html_code, html_text, url_base, url_path};
use crate::model::{CollectionError, Outcome, Run, TestResult};
use crate::render::view::failure::{self, Detail};
use crate::render::view::{self, Group};
use crate::text::{first_line, plural};

/// Ids named in a group's "Same failure in" line before the rest are
/// counted.
pub(super) const LISTED_IDS: usize = 10;
/// Tests listed in the slowest tests.
pub(super) const SLOWEST: usize = 10;
/// Distinct skip reasons listed.
const SKIP_REASONS: usize = 20;
/// Ids listed per list (fixed tests, flaky tests, new failures left out).
pub(super) const LISTED: usize = 50;

/// `file:line` as a link to the file at the commit when there is a link
/// base and the path is in the repository, else as code.
pub(super) fn place(options: &Options, file: &str, line: Option<u32>) -> String {
    let shown = match line {
        Some(l) => format!("{file}:{l}"),
        None => file.to_string(),
    };
    let Some(base) = &options.link_base else {
        return code_span(&shown);
    };
    let relative = if file.starts_with('/') {
        let under = options
            .workspace
            .as_deref()
            .and_then(|w| file.strip_prefix(w.trim_end_matches('/')))
            .and_then(|rest| rest.strip_prefix('/'));
        match under {
            Some(rest) => Cow::Borrowed(rest),
            None => return code_span(&shown),
        }
    } else {
        let prefix = options.path_prefix.trim_matches('/');
        let file = file.trim_start_matches("./");
        if prefix.is_empty() {
            Cow::Borrowed(file)
        } else {
            Cow::Owned(format!("{prefix}/{file}"))
        }
    };
    if relative.split('/').any(|part| part == "..") || relative.contains(['\n', '\\']) {
        return code_span(&shown);
    }
    let mut url = url_base(base);
    if !url.ends_with('/') {
        url.push('/');
    }
    url.push_str(&url_path(&relative));
    if let Some(l) = line {
        let _ = write!(url, "#L{l}");
    }
    format!("[{}]({url})", code_span(&shown))
}

/// Where the group's first test failed, as [`place`].
fn crash_place(options: &Options, t: &TestResult) -> Option<String> {
    let crash = crate::model::crash::crash_line(t)?;
    Some(place(options, crash.file, crash.line))
}

/// The summary of a group's `<details>`: kind, count (with how it stands
/// against the history of runs, else how many are new against the
/// baseline), its first test's strip of recent outcomes (with a history of
/// runs), the first test's id.
fn summary(g: &Group<'_>, baseline: bool) -> String {
    let mut s = format!("<strong>{}</strong> · {}", g.label(), tests(g.count));
    if let Some(mark) = mark(g, baseline) {
        let _ = write!(s, " ({})", html_text(&mark));
    } else if baseline && g.new > 0 && g.new < g.count {
        let _ = write!(s, " ({} new)", g.new);
    }
    if let Some(strip) = view::strip(g) {
        let _ = write!(s, " · {}", strip.symbols());
    }
    let _ = write!(s, " · {}", html_code(&g.first.node_id));
    s
}

/// How a group stands against the history of runs, in the view's words;
/// with a baseline its section says what is new, so a new group is not
/// marked as such.
fn mark(g: &Group<'_>, baseline: bool) -> Option<String> {
    if baseline {
        view::standing_mark(g)
    } else {
        view::history_mark(g)
    }
}

/// `1 test`, `3 tests`.
pub(super) fn tests(n: usize) -> String {
    plural(n, "test", "tests")
}

/// A group in full: a `<details>` block (open or not) with the crash place,
/// the other tests' ids and a code block of what the agent Markdown shows.
pub(super) fn group_full(
    options: &Options,
    g: &Group<'_>,
    detail: Detail,
    open: bool,
    baseline: bool,
) -> String {
    let mut out = String::from(if open {
        "\n<details open>\n"
    } else {
        "\n<details>\n"
    });
    let _ = writeln!(out, "<summary>{}</summary>\n", summary(g, baseline));
    let mut lead = Vec::new();
    if let Some(at) = crash_place(options, g.first) {
        let verb = if g.first.outcome == Outcome::Error {
            "Error at"
        } else {
            "Failed at"
        };
        lead.push(format!("{verb} {at}."));
    }
    // The strip in words: its text alternative.
    lead.extend(view::strip(g).map(|strip| format!("{}.", escape_text(&strip.words()))));
    lead.extend(g.same_line(LISTED_IDS, code_span));
    for paragraph in lead {
        let _ = writeln!(out, "{paragraph}\n");
    }
    let lines = failure::failure_lines(g.first, detail);
    // The agent Markdown keeps a message from starting a heading or a note
    // with a backslash; a code block needs none.
    let lines = match lines.strip_prefix('\\') {
        Some(rest) if rest.starts_with(['#', '>']) => rest,
        _ => &lines,
    };
    out.push_str(&code_block(lines));
    out.push_str("\n</details>\n");
    out
}

/// A group in one line: a list item with the kind, the count (and how it
/// stands against the history of runs, and its strip), the id and the
/// crash place.
pub(super) fn group_line(options: &Options, g: &Group<'_>, baseline: bool) -> String {
    let standing =
        mark(g, baseline).map_or_else(String::new, |m| format!(" ({})", escape_text(&m)));
    let strip = view::strip(g).map_or_else(String::new, |s| format!(" · {}", s.symbols()));
    let mut line = format!(
        "- **{}** · {}{standing}{strip} · {}",
        g.label(),
        tests(g.count),
        code_span(&g.first.node_id)
    );
    if let Some(at) = crash_place(options, g.first) {
        let _ = write!(line, " · at {at}");
    }
    line.push('\n');
    line
}

/// A list of ids as code, at most `listed`, then `… N more`.
pub(super) fn id_list(out: &mut String, ids: &[&str], listed: usize) {
    for id in ids.iter().take(listed) {
        let _ = writeln!(out, "- {}", code_span(id));
    }
    if ids.len() > listed {
        let _ = writeln!(out, "- … {} more", ids.len() - listed);
    }
}

/// How much of the collection errors a rendering shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Collection {
    /// One `<details>` per file, with the error's detail in a code block.
    Full = 0,
    /// One line per file: its name and the first error's first line.
    OneLine = 1,
    /// The heading alone, counting the files.
    Counted = 2,
}

/// The run's collection errors by file, files in order of name.
fn collection_by_file(run: &Run) -> Vec<(&str, Vec<&CollectionError>)> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut by_file: Vec<(&str, Vec<&CollectionError>)> = Vec::new();
    for e in &run.collection_errors {
        let i = *index.entry(e.file.as_str()).or_insert_with(|| {
            by_file.push((e.file.as_str(), Vec::new()));
            by_file.len() - 1
        });
        by_file[i].1.push(e);
    }
    by_file.sort_by_key(|(f, _)| *f);
    by_file
}

/// The files that could not be collected, under a heading, as `level`
/// says.
pub(super) fn collection_errors(options: &Options, run: &Run, level: Collection) -> String {
    let by_file = collection_by_file(run);
    let mut out = String::new();
    if by_file.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "\n### Collection errors: {}",
        plural(by_file.len(), "file", "files")
    );
    match level {
        Collection::Full => collection_full(&mut out, options, by_file),
        Collection::OneLine => {
            out.push('\n');
            for (file, errors) in by_file {
                let shown = if file.is_empty() { "(session)" } else { file };
                let first = errors.first().map_or("", |e| first_line(&e.message));
                let _ = writeln!(out, "- {}: {}", code_span(shown), code_span(first));
            }
        }
        Collection::Counted => {}
    }
    out
}

/// One `<details>` per file, with its errors' detail in a code block.
fn collection_full(
    out: &mut String,
    options: &Options,
    by_file: Vec<(&str, Vec<&CollectionError>)>,
) {
    for (file, errors) in by_file {
        let shown = if file.is_empty() { "(session)" } else { file };
        let _ = writeln!(
            out,
            "\n<details open>\n<summary><strong>COLLECTION ERROR</strong> · {}</summary>\n",
            html_code(shown)
        );
        if !file.is_empty() {
            let line = errors.iter().find_map(|e| e.line);
            let _ = writeln!(out, "Error at {}.\n", place(options, file, line));
        }
        let mut text = String::new();
        for e in errors {
            if let Some(line) = e.line {
                let _ = write!(text, "L{line} — ");
            }
            if let Some(t) = &e.error_type {
                let _ = write!(text, "{t}: ");
            }
            let _ = writeln!(text, "{}", first_line(&e.message));
            for line in failure::collection_error_lines(e) {
                let _ = writeln!(text, "  {line}");
            }
        }
        out.push_str(&code_block(&text));
        out.push_str("\n</details>\n");
    }
}

/// The Flaky section's heading: `tests` flaky, failures flaky by the
/// history of runs and tests that passed only after failing.
pub(super) fn flaky_heading(tests: usize) -> String {
    format!("\n### Flaky ({tests})\n")
}

/// Tests that passed only after failing, a list for the Flaky section.
pub(super) fn retried(options: &Options, flaky: &[&TestResult]) -> String {
    if flaky.is_empty() {
        return String::new();
    }
    let mut out = String::from("\n");
    for t in flaky.iter().take(LISTED) {
        let attempts = plural(t.reruns().len(), "failed attempt", "failed attempts");
        let _ = write!(out, "- {} passed after {attempts}", code_span(&t.node_id));
        if let Some((m, at)) = t.first_failed_attempt() {
            let _ = write!(out, ", first: {}", code_span(&failure::clip(m)));
            if let Some(at) = at {
                let _ = write!(out, " at {}", place(options, &at.file, at.line));
            }
        }
        out.push('\n');
    }
    if flaky.len() > LISTED {
        let _ = writeln!(out, "- … {} more", flaky.len() - LISTED);
    }
    out
}

/// The slowest tests with their durations, collapsed.
pub(super) fn slowest(run: &Run) -> String {
    let timed = view::slowest(run, SLOWEST);
    if timed.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "\n<details>\n<summary>Slowest {}</summary>\n\n",
        tests(timed.len())
    );
    for (i, d) in timed {
        let _ = writeln!(
            out,
            "- {} {}",
            super::duration(d),
            code_span(&run.tests[i].node_id)
        );
    }
    out.push_str("\n</details>\n");
    out
}

/// The skips grouped by reason, collapsed.
pub(super) fn skips(run: &Run) -> String {
    let skips = view::skip_reasons(run);
    if skips.total == 0 {
        return String::new();
    }
    let mut out = format!(
        "\n<details>\n<summary>Skipped: {} by reason</summary>\n\n",
        tests(skips.total)
    );
    for (reason, n) in skips.reasons.iter().take(SKIP_REASONS) {
        let _ = writeln!(out, "- {} × {}", n, code_span(&failure::clip(reason)));
    }
    if let Some((reasons, rest)) = skips.beyond(SKIP_REASONS) {
        let _ = writeln!(out, "- … {reasons} more reasons ({})", tests(rest));
    }
    out.push_str("\n</details>\n");
    out
}

/// The closing notes: the run's sources and notes, then `extra`, as
/// escaped text, one paragraph each.
pub(super) fn notes(run: &Run, extra: &[String]) -> String {
    let mut notes: Vec<String> = Vec::new();
    if !run.sources.is_empty() {
        notes.push(view::sources_note(run));
    }
    notes.extend(run.notes.iter().cloned());
    notes.extend(run.failure_cache.and_then(|c| c.note()));
    notes.extend(extra.iter().cloned());
    let c = run.counts();
    if let Some(hint) = run.rerun_hint
        && c.failed + c.errors + c.collection_errors > 0
        && run.failure_cache.is_none_or(|c| c.records_failures())
    {
        notes.push(hint.note().to_string());
    }
    let mut out = String::new();
    // The shards against their plan first: their ids in code, as every id.
    for line in view::shards(run).iter().flat_map(view::Shards::lines) {
        let _ = write!(out, "\n{}\n", line.format(escape_text, code_span));
    }
    for note in notes {
        let lines: Vec<String> = note.lines().map(escape_text).collect();
        let _ = write!(out, "\n{}\n", lines.join(" "));
    }
    out
}

/// The change's coverage (`run --coverage`, `report --coverage`): how
/// many changed lines ran, with the share, then each range no test ran
/// with its function. It comes first, after the headline and the counts.
pub(super) fn coverage(options: &Options, run: &Run) -> String {
    let Some(c) = &run.coverage else {
        return String::new();
    };
    let mut out = format!(
        "\n### Change coverage: {}\n\n",
        escape_text(&view::coverage_phrase(c, true))
    );
    let gaps = view::coverage_gaps(c);
    for (path, gap) in gaps.iter().take(COVERAGE_RANGES) {
        let at = place(options, path, Some(gap.start));
        let to = match gap.end > gap.start {
            true => format!(" to line {}", gap.end),
            false => String::new(),
        };
        let within = match &gap.function {
            Some(f) => format!(" in {}", code_span(f)),
            None => " (module level)".to_string(),
        };
        let was = view::coverage_was(gap).map_or(String::new(), |w| format!(" ({w})"));
        let _ = writeln!(out, "- {at}{to}{within}{was}");
    }
    if let Some(more) = gaps.len().checked_sub(COVERAGE_RANGES).filter(|n| *n > 0) {
        let _ = writeln!(
            out,
            "- and {} not listed here",
            plural(more, "more range", "more ranges")
        );
    }
    let left = view::coverage_left_behind(c);
    if !left.is_empty() {
        let spans: Vec<String> = left.iter().map(|l| code_span(l)).collect();
        let _ = writeln!(
            out,
            "\nRan before the change, not now: {}",
            spans.join(", ")
        );
    }
    out
}

/// Ranges no test ran listed at most: the section leads the page, so a
/// change of hundreds of files must not push the failures out of sight.
const COVERAGE_RANGES: usize = 40;
