//! The parts of the GitHub rendering: failure groups (in full or one line
//! each), collection errors, fixed tests, flaky tests, the slowest tests,
//! skips by reason and the closing notes.

use foldhash::{HashMap, HashMapExt};
use std::borrow::Cow;
use std::fmt::Write as _;

use super::Options;
use super::escape::{code_block, code_span, escape_text, html_code, url_base, url_path};
use crate::model::groups::{IdItem, Parametrizations, listed_ids};
use crate::model::{CollectionError, Outcome, Run, TestResult, Xfail};
use crate::render::markdown::{self, Detail};
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

/// One root-cause group as this rendering shows it.
pub(super) struct Group<'r> {
    pub(super) first: &'r TestResult,
    pub(super) count: usize,
    /// How many of its tests are new failures (with a baseline).
    pub(super) new: usize,
    /// The ids of its tests but the first, parametrizations compressed.
    pub(super) ids: Vec<IdItem<'r>>,
    /// Its tests' ids that are new failures (with a baseline).
    pub(super) new_ids: Vec<&'r str>,
}

/// The run's failure groups ([`crate::model::groups::failure_groups`]):
/// with a baseline, those holding a new failure first.
pub(super) fn groups<'r>(run: &'r Run, new: Option<&[String]>) -> Vec<Group<'r>> {
    let found = crate::model::groups::failure_groups(run);
    let params = Parametrizations::for_groups(run, &found);
    let new: std::collections::HashSet<&str> =
        new.unwrap_or_default().iter().map(String::as_str).collect();
    let mut out: Vec<Group<'r>> = found
        .iter()
        .map(|g| {
            let first = &run.tests[g.tests[0]];
            let mut ids = if g.tests.len() > 1 {
                params.compress(run, &g.tests)
            } else {
                Vec::new()
            };
            if ids.first() == Some(&IdItem::Test(&first.node_id)) {
                ids.remove(0);
            }
            let new_ids: Vec<&str> = g
                .tests
                .iter()
                .map(|&i| run.tests[i].node_id.as_str())
                .filter(|id| new.contains(id))
                .collect();
            Group {
                first,
                count: g.tests.len(),
                new: new_ids.len(),
                ids,
                new_ids,
            }
        })
        .collect();
    // Stable: the groups keep their order within each part.
    out.sort_by_key(|g| g.new == 0);
    out
}

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

/// `Same failure in 11 more: `a`, `b`, +9 more`: at most `listed` ids.
fn same_line(g: &Group<'_>, listed: usize) -> Option<String> {
    if g.count < 2 {
        return None;
    }
    let mut line = format!("Same failure in {} more: ", g.count - 1);
    let (shown, rest) = listed_ids(&g.ids, &g.first.node_id, g.count, listed);
    for (n, item) in shown.iter().enumerate() {
        if n > 0 {
            line.push_str(", ");
        }
        match item {
            IdItem::Test(id) => line.push_str(&code_span(id)),
            IdItem::Function { id, count } => {
                let _ = write!(line, "{} (all {count} cases)", code_span(id));
            }
        }
    }
    if rest > 0 {
        let sep = if shown.is_empty() { "" } else { ", " };
        let _ = write!(line, "{sep}+{rest} more");
    }
    Some(line)
}

/// The summary of a group's `<details>`: kind, count, the first test's id.
fn summary(g: &Group<'_>, baseline: bool) -> String {
    let mut s = format!(
        "<strong>{}</strong> · {}",
        markdown::label(g.first),
        tests(g.count)
    );
    if baseline && g.new > 0 && g.new < g.count {
        let _ = write!(s, " ({} new)", g.new);
    }
    let _ = write!(s, " · {}", html_code(&g.first.node_id));
    s
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
    lead.extend(same_line(g, LISTED_IDS));
    for paragraph in lead {
        let _ = writeln!(out, "{paragraph}\n");
    }
    let lines = markdown::failure_lines(g.first, detail);
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

/// A group in one line: a list item with the kind, the count, the id and
/// the crash place.
pub(super) fn group_line(options: &Options, g: &Group<'_>) -> String {
    let mut line = format!(
        "- **{}** · {} · {}",
        markdown::label(g.first),
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
            for line in markdown::collection_error_lines(e) {
                let _ = writeln!(text, "  {line}");
            }
        }
        out.push_str(&code_block(&text));
        out.push_str("\n</details>\n");
    }
}

/// Tests that passed only after failing.
pub(super) fn flaky(run: &Run) -> String {
    let flaky: Vec<&TestResult> = run.tests.iter().filter(|t| t.is_flaky()).collect();
    if flaky.is_empty() {
        return String::new();
    }
    let mut out = format!("\n### Flaky ({})\n\n", flaky.len());
    for t in flaky.iter().take(LISTED) {
        let attempts = plural(t.reruns().len(), "failed attempt", "failed attempts");
        let _ = write!(out, "- {} passed after {attempts}", code_span(&t.node_id));
        let first = t.reruns().iter().find_map(|a| {
            let m = a.message.as_deref()?;
            m.lines().map(str::trim).find(|l| !l.is_empty())
        });
        if let Some(m) = first {
            let _ = write!(out, ", first: {}", code_span(&markdown::clip(m)));
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
    let mut timed: Vec<(f64, usize)> = Vec::new();
    for (i, t) in run.tests.iter().enumerate() {
        let Some(d) = t.duration.filter(|d| d.is_finite()) else {
            continue;
        };
        if timed.len() == SLOWEST && timed.last().is_some_and(|(last, _)| d <= *last) {
            continue;
        }
        let at = timed.partition_point(|(x, _)| *x >= d);
        timed.insert(at, (d, i));
        timed.truncate(SLOWEST);
    }
    if timed.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "\n<details>\n<summary>Slowest {}</summary>\n\n",
        tests(timed.len())
    );
    for (d, i) in timed {
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
    let mut reasons: Vec<(Cow<'_, str>, usize)> = Vec::new();
    let mut index: HashMap<Cow<'_, str>, usize> = HashMap::new();
    let mut total = 0;
    for t in run.tests.iter().filter(|t| t.outcome == Outcome::Skipped) {
        total += 1;
        let reason = match (t.xfail, t.message()) {
            (Some(Xfail::XFailed), Some(r)) if !r.is_empty() => {
                Cow::Owned(format!("XFAIL: {}", first_line(r)))
            }
            (Some(Xfail::XFailed), _) => Cow::Borrowed("XFAIL"),
            (_, Some(r)) if !r.trim().is_empty() => Cow::Borrowed(first_line(r)),
            _ => Cow::Borrowed("(no reason given)"),
        };
        match index.get(&reason) {
            Some(&i) => reasons[i].1 += 1,
            None => {
                index.insert(reason.clone(), reasons.len());
                reasons.push((reason, 1));
            }
        }
    }
    if total == 0 {
        return String::new();
    }
    let mut out = format!(
        "\n<details>\n<summary>Skipped: {} by reason</summary>\n\n",
        tests(total)
    );
    for (reason, n) in reasons.iter().take(SKIP_REASONS) {
        let _ = writeln!(out, "- {} × {}", n, code_span(&markdown::clip(reason)));
    }
    if reasons.len() > SKIP_REASONS {
        let rest: usize = reasons[SKIP_REASONS..].iter().map(|(_, n)| n).sum();
        let _ = writeln!(
            out,
            "- … {} more reasons ({})",
            reasons.len() - SKIP_REASONS,
            tests(rest)
        );
    }
    out.push_str("\n</details>\n");
    out
}

/// The closing notes: the run's sources and notes, then `extra`, as
/// escaped text, one paragraph each.
pub(super) fn notes(run: &Run, extra: &[String]) -> String {
    let mut notes: Vec<String> = Vec::new();
    if !run.sources.is_empty() {
        notes.push(markdown::sources_note(run));
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
    for note in notes {
        let lines: Vec<String> = note.lines().map(escape_text).collect();
        let _ = write!(out, "\n{}\n", lines.join(" "));
    }
    out
}
