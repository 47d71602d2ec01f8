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

use std::borrow::Cow;
use std::cell::OnceCell;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::ops::Range;

use crate::model::{Counts, Location, Outcome, Phase, Run, SourceKind, TestResult, Xfail};
use crate::pytest_text::{self, FrameLine};
use crate::text::{first_line, one_line};

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

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Renders a run as Markdown.
pub fn render(run: &Run) -> String {
    let mut out = header(run);
    body_with(&mut out, run, Detail::Full, false);
    notes(&mut out, run, &[]);
    out
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
    let groups = failure_groups(&problems, max_chars / MIN_SECTION_CHARS + 1);
    let full = {
        let mut out = head.clone();
        body_until(&mut out, run, &groups, Detail::Full, collapse, usize::MAX);
        notes(&mut out, run, &[]);
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
        notes(&mut out, run, &[note]);
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
    // One line per failure, with its message's first line when all of them
    // fit, else the ids alone: ids are dropped last.
    let ids_only: Vec<String> = errors
        .iter()
        .map(|e| ["- COLLECTION ERROR ", &one_line(&e.file)].concat())
        .chain(
            problems
                .iter()
                .map(|t| ["- ", &one_line(&t.node_id)].concat()),
        )
        .collect();
    let messages = errors.iter().map(|e| first_line(&e.message)).chain(
        problems
            .iter()
            .map(|t| t.message().map(first_line).unwrap_or("")),
    );
    let with_messages: Vec<String> = ids_only
        .iter()
        .zip(messages)
        .map(|(id, message)| clip_to([id, " — ", message].concat(), 200))
        .collect();
    // What the lines may take, leaving room for the worst-case note.
    let budget = max_chars
        .saturating_sub(head.chars().count())
        .saturating_sub(note_of(0).chars().count() + 2 + "### FAILURES\n".len());
    let cost = |lines: &[String]| lines.iter().map(|l| l.chars().count() + 1).sum::<usize>();
    let lines = if cost(&with_messages) <= budget {
        with_messages
    } else {
        ids_only
    };
    let mut used = 0;
    let mut shown = 0;
    for line in &lines {
        let cost = line.chars().count() + 1;
        if used + cost > budget {
            break;
        }
        used += cost;
        shown += 1;
    }
    let mut out = head.to_string();
    if shown > 0 {
        out.push_str("\n### FAILURES\n");
        for line in &lines[..shown] {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str(&note_of(shown));
    // A budget smaller than the header and the note themselves.
    if out.chars().count() > max_chars {
        out = clip_to(out, max_chars.saturating_sub(2));
        out.push('\n');
    }
    out
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

/// [`body`] at a chosen level of detail. Failures that share their message
/// and failing place are shown once, naming the other tests they hit.
pub fn body_with(out: &mut String, run: &Run, detail: Detail, collapse: bool) {
    let groups = failure_groups(&problems(run), 0);
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

/// Tests that passed only after failing: listed, not counted as failures.
/// Failed tests that were rerun say so in their section's message.
fn flaky(out: &mut String, run: &Run) {
    let flaky: Vec<&TestResult> = run.tests.iter().filter(|t| t.is_flaky()).collect();
    if flaky.is_empty() {
        return;
    }
    let _ = write!(out, "\n### FLAKY ({})\n", flaky.len());
    for t in flaky {
        let message = crate::render::json::flaky_message(t);
        let detail = message.strip_prefix("FLAKY: ").unwrap_or(&message);
        let _ = writeln!(
            out,
            "{}",
            clip(&format!("- {} — {detail}", one_line(&t.node_id)))
        );
    }
}

/// Failures that share their [`root_cause`], shown as one section: `first`
/// gets it, `same` are named in it.
struct Group<'r> {
    first: &'r TestResult,
    same: Vec<&'r TestResult>,
    /// The section's [`Section`] once worked out, when the group may be
    /// rendered at more than one level of detail.
    kept: Option<OnceCell<Section<'r>>>,
}

impl<'r> Group<'r> {
    /// What the group's section shows: worked out once if kept, else each
    /// time.
    fn section(&self) -> Cow<'_, Section<'r>> {
        match &self.kept {
            Some(cell) => Cow::Borrowed(cell.get_or_init(|| Section::new(self.first))),
            None => Cow::Owned(Section::new(self.first)),
        }
    }
}

/// The fewest characters a failure section takes: `\n### ERROR: \n`.
const MIN_SECTION_CHARS: usize = 13;

/// The parts of a failure section that are the same at every level of
/// detail: reading a traceback is most of the cost of rendering a failure.
#[derive(Clone)]
struct Section<'r> {
    /// Frames, the failing source line, explanation: each level shows the
    /// first [`Detail::detail_lines`] (only `at` lines at [`Detail::Brief`]).
    detail: Vec<Cow<'r, str>>,
    /// The lines of the message and traceback, when there is captured
    /// output: output that only repeats the failure (nextest copies the
    /// panic to stderr) is not shown twice.
    said: Option<LineSet<'r>>,
}

impl<'r> Section<'r> {
    fn new(t: &'r TestResult) -> Self {
        let message = message_of(t);
        // The traceback is split into lines and searched for frames once.
        let tb_lines = t.traceback().map_or_else(Vec::new, lines_of);
        let frames = frame_lines(&tb_lines);
        let msg_lines = lines_of(message);
        let mut detail = Vec::new();
        match t.traceback() {
            Some(_) if !frames.is_empty() => {
                let message_lines = LineSet::new(&[&msg_lines]);
                for (label, section) in phase_sections(&tb_lines) {
                    if let Some(label) = label {
                        detail.push(Cow::Owned(format!("[{label}]")));
                    }
                    let in_section = frames.partition_point(|(i, _)| *i < section.start)
                        ..frames.partition_point(|(i, _)| *i < section.end);
                    let frames = &frames[in_section];
                    pytest_detail(
                        &mut detail,
                        &tb_lines,
                        section,
                        frames,
                        message,
                        &message_lines,
                    );
                }
            }
            Some(tb) => foreign_detail(&mut detail, tb, &tb_lines, message, t),
            None => {
                if let Some(l) = &t.location {
                    detail.push(Cow::Owned(at_location(l)));
                }
            }
        }
        let has_output = t.stdout().is_some() || t.stderr().is_some() || t.log().is_some();
        let said = has_output.then(|| LineSet::new(&[&msg_lines, &tb_lines]));
        Section { detail, said }
    }
}

/// The run's failed and erroring tests, in order.
fn problems(run: &Run) -> Vec<&TestResult> {
    run.tests.iter().filter(|t| t.is_problem()).collect()
}

/// Failures and errors in [`Group`]s, in order of first appearance. The
/// sections of the first `keep` groups are kept once worked out.
fn failure_groups<'r>(problems: &[&'r TestResult], keep: usize) -> Vec<Group<'r>> {
    let mut groups: Vec<Group<'_>> = Vec::with_capacity(problems.len());
    let mut index: HashMap<RootCause<'_>, usize> = HashMap::with_capacity(problems.len());
    for &t in problems {
        let alone = Group {
            first: t,
            same: Vec::new(),
            kept: (groups.len() < keep).then(OnceCell::new),
        };
        let Some(key) = root_cause(t) else {
            groups.push(alone);
            continue;
        };
        match index.entry(key) {
            std::collections::hash_map::Entry::Occupied(e) => groups[*e.get()].same.push(t),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(groups.len());
                groups.push(alone);
            }
        }
    }
    groups
}

/// Heading, message, and the failing place's path and line, borrowed from
/// the test.
type RootCause<'t> = (&'static str, &'t str, &'t str, u32);

/// What makes two failures the same: the heading, the message and the
/// place it failed. Failures without a known place are never grouped (a
/// bare "Failed" from two Go tests says nothing about a shared cause).
fn root_cause(t: &TestResult) -> Option<RootCause<'_>> {
    let message = t.message().unwrap_or("");
    let place = t
        .traceback()
        .and_then(|tb| tb.lines().rev().find_map(pytest_text::frame_line))?;
    Some((label(t), message, place.path, place.line))
}

/// Indented lines, for blocks of output under a section.
pub fn indented(out: &mut String, lines: &[&str]) {
    for line in lines {
        indent_line(out, line);
    }
}

pub fn collection_errors(out: &mut String, run: &Run) {
    let mut by_file: BTreeMap<&str, Vec<_>> = BTreeMap::new();
    for e in &run.collection_errors {
        by_file.entry(e.file.as_str()).or_default().push(e);
    }
    for (file, errors) in by_file {
        let shown = if file.is_empty() { "(session)" } else { file };
        let _ = write!(out, "\n### COLLECTION ERROR: {}\n", clip(&one_line(shown)));
        for e in errors {
            let mut head = String::from("- ");
            if let Some(line) = e.line {
                let _ = write!(head, "L{line} — ");
            }
            if let Some(t) = &e.error_type {
                let _ = write!(head, "{t}: ");
            }
            head.push_str(first_line(&e.message));
            let _ = writeln!(out, "{}", clip(&head));
            let tb = e.traceback.as_deref().unwrap_or_default();
            for line in collection_detail(tb, &e.message, file) {
                indent_line(out, &line);
            }
        }
    }
}

/// The useful lines of a collection error's traceback: the offending source
/// line (with a SyntaxError's caret) and explanation lines not in the message.
fn collection_detail(traceback: &str, message: &str, file: &str) -> Vec<String> {
    let lines: Vec<&str> = traceback.lines().collect();
    let mut detail: Vec<&str> = Vec::new();
    // A SyntaxError shows `File "...", line N`, the source and a caret as
    // `E` lines; the last `E` line is the message itself.
    let e_lines: Vec<&str> = pytest_text::error_lines(traceback).collect();
    if let Some(last) = e_lines.iter().rposition(|l| !l.trim().is_empty()) {
        for l in &e_lines[..last] {
            let t = l.trim();
            if t.is_empty() || t.starts_with("File \"") || message.contains(t) {
                continue;
            }
            detail.push(l);
            if detail.len() == MAX_MESSAGE_LINES {
                break;
            }
        }
    }
    if detail.is_empty() {
        // Otherwise show the source line of the last frame in the file.
        if let Some(i) = lines.iter().rposition(|l| {
            pytest_text::frame_line(l).is_some_and(|f| pytest_text::paths_match(f.path, file))
        }) && let Some(src) = lines.get(i + 1).filter(|l| !l.trim().is_empty())
        {
            return vec![format!("> {}", src.trim())];
        }
    }
    dedent(&detail).map(str::to_string).collect()
}

fn label(t: &TestResult) -> &'static str {
    match (t.outcome, t.phase) {
        (Outcome::Error, Some(Phase::Setup)) => "ERROR at setup",
        (Outcome::Error, Some(Phase::Teardown)) => "ERROR at teardown",
        (Outcome::Error, _) => "ERROR",
        _ => "FAILED",
    }
}

/// One failure section; `same` are other tests that failed the same way.
/// Lines of a failure section shown before the rest folds into a
/// `<details>` block (PR comments and job summaries only).
const COLLAPSE_AFTER: usize = 12;

fn failure(out: &mut String, group: &Group<'_>, detail: Detail, collapse: bool) {
    let t = group.first;
    let _ = write!(out, "\n### {}: {}\n", label(t), clip(&one_line(&t.node_id)));
    let start = out.len();
    failure_body(out, t, &group.same, &group.section(), detail);
    if collapse {
        collapse_long(out, start);
    }
}

/// Rewrites the section written to `out` from `start` on, folding all but
/// its first line (the message) and the lines naming other tests or reruns
/// into `<details>` when it is long. The folded lines go in a code fence
/// longer than any backtick run in them, so test output renders as written
/// and cannot close it.
fn collapse_long(out: &mut String, start: usize) {
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

/// The message the section of `t` opens with.
fn message_of(t: &TestResult) -> &str {
    t.message()
        .or_else(|| t.traceback().map(first_line))
        .unwrap_or("(no message)")
}

/// Everything of a failure section under its heading.
fn failure_body(
    out: &mut String,
    t: &TestResult,
    same: &[&TestResult],
    section: &Section<'_>,
    detail: Detail,
) {
    message_lines(out, message_of(t), detail.message_lines());
    if !t.reruns().is_empty() {
        let n = t.reruns().len();
        indent_line(
            out,
            &format!(
                "Rerun: {n} earlier attempt{} failed too",
                if n == 1 { "" } else { "s" }
            ),
        );
    }
    if !same.is_empty() {
        let ids: Vec<String> = same
            .iter()
            .map(|o| one_line(&o.node_id).into_owned())
            .collect();
        // Not clipped: every failing id stays in the report.
        let _ = writeln!(
            out,
            "  Same failure in {} more: {}",
            same.len(),
            ids.join(", ")
        );
    }
    let brief = detail == Detail::Brief;
    let lines = section
        .detail
        .iter()
        .filter(|l| !brief || l.starts_with("at "))
        .take(detail.detail_lines());
    for line in lines {
        indent_line(out, line);
    }
    if brief {
        return;
    }
    let tail = if detail == Detail::Reduced {
        5
    } else {
        usize::MAX
    };
    let Some(already) = &section.said else { return };
    captured(out, "Captured stdout", t.stdout(), already, tail);
    captured(out, "Captured stderr", t.stderr(), already, tail);
    captured(out, "Captured log", t.log(), already, tail);
}

/// The message: first line flush left, further lines indented two spaces
/// (keeping their relative indentation). pytest's "use -v" hints and stack
/// frames of test frameworks (some assertion libraries put a whole trace in
/// the message) are left out; very long messages are cut, saying how much.
fn message_lines(out: &mut String, message: &str, max_lines: usize) {
    let mut lines = message
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty());
    let Some(first) = lines.next() else { return };
    // A message must not be read as a header or a note.
    if first.starts_with('#') || first.starts_with('>') {
        out.push('\\');
    }
    out.push_str(&clip(first));
    out.push('\n');
    let rest: Vec<&str> = lines
        .filter(|l| !is_pytest_hint(l.trim()) && !is_framework_frame(l.trim()))
        .collect();
    let shown = rest.len().min(max_lines);
    let omitted = rest.len() - shown;
    for line in dedent(&rest[..shown]) {
        indent_line(out, line);
    }
    if omitted > 0 {
        indent_line(out, &format!("… {omitted} more lines"));
    }
}

/// pytest's advice to rerun with more verbosity: no information in itself.
fn is_pytest_hint(line: &str) -> bool {
    line.starts_with("Use -v to get")
        || line.starts_with("Use -vv to get")
        || (line.starts_with("Omitting ") && line.ends_with("use -vv to show"))
}

/// Splits the lines of a traceback that holds several phases (a test that
/// failed and then errored in teardown) at the `[call]` / `[teardown]` lines
/// the readers put between them.
fn phase_sections<'a>(lines: &[&'a str]) -> Vec<(Option<&'a str>, Range<usize>)> {
    let mut sections = Vec::new();
    let mut label = None;
    let mut start = 0;
    for (i, line) in lines.iter().enumerate() {
        if let Some(name) = line
            .trim_end()
            .strip_prefix('[')
            .and_then(|m| m.strip_suffix(']'))
            && matches!(name, "setup" | "call" | "teardown")
        {
            sections.push((label, start..i));
            label = Some(name);
            start = i + 1;
        }
    }
    sections.push((label, start..lines.len()));
    sections
}

/// pytest's frame lines (`path:line: ...`) among a traceback's lines, with
/// their index. None means a trace from another framework.
fn frame_lines<'a>(lines: &[&'a str]) -> Vec<(usize, FrameLine<'a>)> {
    lines
        .iter()
        .enumerate()
        // A frame line has a colon; most lines of a traceback (source,
        // locals, separators) have none, and `memchr` says so quickly.
        .filter(|(_, l)| memchr::memchr(b':', l.as_bytes()).is_some())
        .filter_map(|(i, l)| pytest_text::frame_line(l).map(|f| (i, f)))
        .collect()
}

/// Frames in the project, the failing source line, and the `E` lines the
/// message does not already say, for the `section` of a traceback's `lines`
/// that holds `frames`. `message_lines` are the message's.
fn pytest_detail<'a>(
    detail: &mut Vec<Cow<'a, str>>,
    lines: &[&'a str],
    section: Range<usize>,
    frames: &[(usize, FrameLine<'_>)],
    message: &str,
    message_lines: &LineSet<'_>,
) {
    let in_project: Vec<&FrameLine<'_>> = frames
        .iter()
        .map(|(_, f)| f)
        .filter(|f| is_project_path(f.path))
        .collect();
    let listed: Vec<&FrameLine<'_>> = if in_project.is_empty() {
        frames.last().map(|(_, f)| f).into_iter().collect()
    } else {
        in_project
    };
    let skipped = listed.len().saturating_sub(MAX_FRAMES);
    if skipped > 0 {
        detail.push(Cow::Owned(format!("… {skipped} earlier frames")));
    }
    for f in listed.iter().skip(skipped) {
        detail.push(Cow::Owned(at_line(f.path, f.line)));
    }
    // The last frame's block: from the previous frame line to the last one.
    let Some(&(last, _)) = frames.last() else {
        return;
    };
    let start = frames
        .iter()
        .rev()
        .nth(1)
        .map_or(section.start, |(i, _)| i + 1);
    let mut explanation: Vec<&str> = Vec::new();
    let mut more = 0usize;
    for l in &lines[start..last] {
        if let Some(code) = l.strip_prefix('>') {
            // `assert x < 3` failing says `assert x < 3`: once is enough.
            if !message_lines.contains(code.trim()) {
                detail.push(Cow::Owned(["> ", code.trim()].concat()));
            }
        } else if let Some(rest) = l.strip_prefix('E') {
            let text = rest.trim();
            if text.is_empty() || !rest.starts_with(' ') || is_pytest_hint(text) {
                continue;
            }
            if explanation.len() == MAX_MESSAGE_LINES {
                more += 1;
                continue;
            }
            // pytest repeats the message in `E` lines, sometimes with a
            // prefix (`AssertionError: `) the message has or lacks.
            if message_lines.contains(text) || message.contains(text) {
                continue;
            }
            explanation.push(rest.trim_end());
        }
    }
    detail.extend(dedent(&explanation).map(Cow::Borrowed));
    if more > 0 {
        detail.push(Cow::Owned(format!("… {more} more lines")));
    }
}

/// `at path:line`, as `format!` would write it, at a fraction of the cost
/// (there is one per frame listed).
fn at_line(path: &str, line: u32) -> String {
    let mut s = String::with_capacity(path.len() + 14);
    s.push_str("at ");
    s.push_str(&one_line(path));
    s.push(':');
    let _ = write!(s, "{line}");
    s
}

/// `at file:line` for a test's location (a path from its id, control
/// characters made visible as in the id).
fn at_location(l: &Location) -> String {
    match l.line {
        Some(line) => at_line(&l.file, line),
        None => ["at ", &one_line(&l.file)].concat(),
    }
}

/// A relative path that is not in an installed package: the user's code.
fn is_project_path(path: &str) -> bool {
    !(path.starts_with('/')
        || path.starts_with('<')
        || path.starts_with("..")
        || path.contains("site-packages")
        || path.contains(":\\"))
}

/// A stack trace from another framework: its first lines, minus the lines
/// the message already holds and frames inside test frameworks and runtimes.
fn foreign_detail<'a>(
    detail: &mut Vec<Cow<'a, str>>,
    tb: &str,
    lines: &[&'a str],
    message: &str,
    t: &TestResult,
) {
    let message_lines: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    // A line repeats the message when it is a message line, or ends with one
    // (`java.lang.AssertionError: <message>`); very short message lines
    // ("Failed") are only matched exactly.
    let repeats_message = |line: &str| {
        message_lines
            .iter()
            .any(|m| line == *m || (m.chars().count() >= 8 && line.ends_with(m)))
    };
    let mut kept: Vec<&str> = Vec::new();
    let mut frames_seen: HashSet<&str> = HashSet::new();
    let mut more = 0usize;
    for line in lines.iter().map(|l| l.trim_end()) {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if kept.len() == FOREIGN_TRACE_LINES {
            more += 1;
            continue;
        }
        if repeats_message(t) || is_framework_frame(t) {
            continue;
        }
        // A stack frame printed twice (a rethrown exception) is shown once.
        if t.starts_with("at ") && !frames_seen.insert(t) {
            continue;
        }
        kept.push(line);
    }
    if let Some(loc) = &t.location
        && !kept.iter().any(|l| l.contains(&*loc.file))
    {
        // The test's own file and, when the case does not say, the line the
        // trace gives for it (PHPUnit puts it at the end of a long trace).
        match (loc.line, line_in_trace(tb, &loc.file)) {
            (None, Some(line)) => detail.push(Cow::Owned(at_line(&loc.file, line))),
            _ => detail.push(Cow::Owned(at_location(loc))),
        }
    }
    detail.extend(dedent(&kept).map(Cow::Borrowed));
    if more > 0 {
        detail.push(Cow::Owned(format!("… {more} more lines")));
    }
}

/// The first `file:N` in a trace for the given file.
fn line_in_trace(tb: &str, file: &str) -> Option<u32> {
    tb.match_indices(file).find_map(|(i, _)| {
        let rest = tb[i + file.len()..].strip_prefix(':')?;
        let digits: &str = &rest[..rest.bytes().take_while(u8::is_ascii_digit).count()];
        digits.parse().ok()
    })
}

/// Frames of test frameworks, runtimes and dependencies in Java, JS, .NET
/// and Python stack traces: rarely what a reader needs to fix a test.
fn is_framework_frame(line: &str) -> bool {
    let Some(frame) = line.strip_prefix("at ") else {
        return false;
    };
    const PREFIXES: &[&str] = &[
        "java.",
        "javax.",
        "jdk.",
        "sun.",
        "org.junit.",
        "junit.",
        "org.testng.",
        "org.apache.maven.",
        "org.hamcrest.",
        "org.gradle.",
        "kotlin.",
        "scala.",
        "System.",
        "NUnit.",
        "Xunit.",
        "new Promise",
        "process.",
        "processTicksAndRejections",
        "internal/",
        "node:",
    ];
    PREFIXES.iter().any(|p| frame.starts_with(p)) || frame.contains("node_modules")
}

fn captured(
    out: &mut String,
    label: &str,
    text: Option<&str>,
    already: &LineSet<'_>,
    max_tail: usize,
) {
    let Some(text) = text else { return };
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty() && !already.contains(l.trim()))
        .collect();
    if lines.is_empty() {
        return;
    }
    // Short lines of our own: written as they are, nothing to clip.
    let _ = writeln!(out, "  {label}:");
    if lines.len() > max_tail {
        let _ = writeln!(out, "  … {} earlier lines", lines.len() - max_tail);
        for l in &lines[lines.len() - max_tail..] {
            indent_line(out, l);
        }
        return;
    }
    if lines.len() <= OUTPUT_HEAD + OUTPUT_TAIL {
        for l in &lines {
            indent_line(out, l);
        }
        return;
    }
    for l in &lines[..OUTPUT_HEAD] {
        indent_line(out, l);
    }
    let dropped = lines.len() - OUTPUT_HEAD - OUTPUT_TAIL;
    let _ = writeln!(out, "  … {dropped} lines omitted");
    for l in &lines[lines.len() - OUTPUT_TAIL..] {
        indent_line(out, l);
    }
}

fn skipped(out: &mut String, run: &Run) {
    let skips: Vec<&TestResult> = run
        .tests
        .iter()
        .filter(|t| t.outcome == Outcome::Skipped)
        .collect();
    if skips.is_empty() {
        return;
    }
    // Group by reason, in order of first appearance. Reasons are borrowed
    // from the tests where they can be: there may be thousands of skips.
    let mut reasons: Vec<(Cow<'_, str>, usize)> = Vec::new();
    let mut index: HashMap<Cow<'_, str>, usize> = HashMap::new();
    for t in &skips {
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
    let _ = write!(out, "\n### SKIPPED ({})\n", skips.len());
    for (reason, n) in reasons.iter().take(MAX_SKIP_REASONS) {
        let line = if *n > 1 {
            format!("- {reason} ({n})")
        } else {
            format!("- {reason}")
        };
        let _ = writeln!(out, "{}", clip(&line));
    }
    if reasons.len() > MAX_SKIP_REASONS {
        let rest: usize = reasons[MAX_SKIP_REASONS..].iter().map(|(_, n)| n).sum();
        let _ = writeln!(
            out,
            "- … {} more reasons ({rest} tests)",
            reasons.len() - MAX_SKIP_REASONS
        );
    }
}

/// The closing `>` notes: the run's sources and notes, then `extra`.
pub fn notes(out: &mut String, run: &Run, extra: &[String]) {
    let mut notes: Vec<String> = Vec::new();
    if !run.sources.is_empty() {
        notes.push(sources_note(run));
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

/// Which kinds of source the run was read from, e.g. `Sources:
/// pytest-json-report, pytest JUnit XML` or `Sources: 3 JUnit XML files`.
fn sources_note(run: &Run) -> String {
    let mut kinds: Vec<(SourceKind, usize)> = Vec::new();
    for s in &run.sources {
        match kinds.iter_mut().find(|(k, _)| *k == s.kind) {
            Some((_, n)) => *n += 1,
            None => kinds.push((s.kind, 1)),
        }
    }
    let parts: Vec<String> = kinds
        .iter()
        .map(|(k, n)| match n {
            1 => k.describe().to_string(),
            n => format!("{n} {} files", k.describe()),
        })
        .collect();
    format!("Sources: {}", parts.join(", "))
}

fn indent_line(out: &mut String, line: &str) {
    out.push_str("  ");
    out.push_str(&clip(line));
    out.push('\n');
}

/// Cuts a line longer than [`MAX_LINE_CHARS`], saying how much was cut.
fn clip(line: &str) -> std::borrow::Cow<'_, str> {
    // No more bytes than the limit is no more characters: nothing to count.
    if line.len() <= MAX_LINE_CHARS {
        return std::borrow::Cow::Borrowed(line);
    }
    match line.char_indices().nth(MAX_LINE_CHARS) {
        None => std::borrow::Cow::Borrowed(line),
        Some((cut, _)) => {
            let rest = line[cut..].chars().count();
            std::borrow::Cow::Owned(format!("{}… ({rest} more chars)", &line[..cut]))
        }
    }
}

/// Removes the indentation every line shares. What is left of each line is
/// borrowed from it.
fn dedent<'a>(lines: &[&'a str]) -> impl Iterator<Item = &'a str> {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(move |l| l.get(indent..).unwrap_or_else(|| l.trim_start()))
}

/// The trimmed, non-blank ones of some lines, to ask whether a line
/// repeats one of them. A sorted `Vec` is much cheaper to build than a
/// `HashSet` for the few dozen lines of a message and traceback, and is
/// still searched in logarithmic time; ordering by length first makes most
/// comparisons stop there.
#[derive(Clone)]
struct LineSet<'a>(Vec<&'a str>);

impl<'a> LineSet<'a> {
    /// The set of the lines of all `parts`.
    fn new(parts: &[&[&'a str]]) -> Self {
        let mut lines = Vec::with_capacity(parts.iter().map(|p| p.len()).sum());
        lines.extend(
            parts
                .iter()
                .flat_map(|p| p.iter())
                .map(|l| l.trim())
                .filter(|l| !l.is_empty()),
        );
        lines.sort_unstable_by(|a, b| by_length(a, b));
        LineSet(lines)
    }

    fn contains(&self, line: &str) -> bool {
        self.0.binary_search_by(|l| by_length(l, line)).is_ok()
    }
}

/// The lines of `text` as [`str::lines`] gives them (a line ends at `\n` or
/// `\r\n`; a last line without one is kept whole), several times faster on
/// a traceback: line breaks are found with `memchr`, and the `Vec` is
/// allocated once.
fn lines_of(text: &str) -> Vec<&str> {
    let mut lines = Vec::with_capacity(line_breaks(text) + 1);
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', text.as_bytes()) {
        let line = &text[start..end];
        lines.push(line.strip_suffix('\r').unwrap_or(line));
        start = end + 1;
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// How many `\n` a text holds.
fn line_breaks(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count()
}

/// Shorter strings first, equally long ones by their bytes.
fn by_length(a: &str, b: &str) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_split_as_str_lines_splits_them() {
        // Every string of up to six characters from an alphabet of line
        // ends, a space and a multi-byte character.
        let alphabet = ['a', '\r', '\n', ' ', 'é'];
        let mut texts = vec![String::new()];
        let mut longest = vec![String::new()];
        for _ in 0..6 {
            longest = longest
                .iter()
                .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
                .collect();
            texts.extend(longest.iter().cloned());
        }
        for text in &texts {
            assert_eq!(lines_of(text), text.lines().collect::<Vec<_>>(), "{text:?}");
        }
    }

    #[test]
    fn long_lines_are_clipped() {
        let long = "x".repeat(MAX_LINE_CHARS + 10);
        assert!(clip(&long).ends_with("… (10 more chars)"));
        assert_eq!(clip("short"), "short");
    }
}
