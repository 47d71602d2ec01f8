//! A failure's body under its heading: the message, the frames, the
//! failing line, the explanation, subtests and captured output
//! ([`super::failure_lines`]); and a collection error's detail lines.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::lines::{LineSet, clip, indent_line};
use super::traceback::{Section, is_framework_frame, is_pytest_hint, message_of, names_a_class};
use super::{Detail, MAX_MESSAGE_LINES, OUTPUT_HEAD, OUTPUT_TAIL};
use crate::model::TestResult;
use crate::pytest_text;
use crate::text::dedent;

/// What the agent's section leaves out that the heading already says.
#[derive(Clone, Copy, Default)]
pub struct Lean {
    /// The heading ends with the test's line ([`test_line`]): the first
    /// `at` line, and a message that is only that place and a type
    /// (`shop/calc.py:4: DocTestFailure`), say it again.
    pub place_in_heading: bool,
}

/// Everything of a failure section under its heading.
pub fn failure_body(
    out: &mut String,
    t: &TestResult,
    same: Option<&str>,
    section: &Section<'_>,
    detail: Detail,
    lean: Lean,
) {
    let message = message_of(t);
    let message = if lean.place_in_heading {
        without_place(&message, t)
    } else {
        &message
    };
    message_lines(out, lean_message(message), detail.message_lines());
    if !t.reruns().is_empty() {
        // The earlier attempts and this last one.
        let attempts = t.reruns().len() + 1;
        indent_line(out, &format!("Rerun: failed all {attempts} attempts"));
    }
    if let Some(line) = same {
        // Not clipped: the ids must stay whole to be fed back.
        let _ = writeln!(out, "{line}");
    }
    let mut shown = if detail.crash_only() {
        crash_lines(&section.detail)
    } else {
        0..section.detail.len()
    };
    if lean.place_in_heading && shown.start == 0 {
        shown.start = 1.min(shown.end);
    }
    let shown = &section.detail[shown];
    for line in shown {
        indent_line(out, line);
    }
    super::subtests::write(out, t, detail, &|out, sub| {
        failure_body(out, sub, None, &Section::new(sub), detail, Lean::default())
    });
    if !detail.shows_output() {
        return;
    }
    let tail = usize::MAX;
    let Some(already) = &section.said else { return };
    captured(out, "Captured stdout", t.stdout(), already, tail);
    captured(out, "Captured stderr", t.stderr(), already, tail);
    captured(out, "Captured log", t.log(), already, tail);
}

/// A message that names the place of its test and a type only
/// (`shop/calc.py:4: DocTestFailure`, a doctest's), as the type.
fn without_place<'m>(message: &'m str, t: &TestResult) -> &'m str {
    let Some(file) = t.location.as_ref().map(|l| &*l.file) else {
        return message;
    };
    let Some(rest) = message.strip_prefix(file).and_then(|r| r.strip_prefix(':')) else {
        return message;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    match rest[digits..].strip_prefix(": ") {
        Some(kind) if digits > 0 && !kind.contains(char::is_whitespace) => kind,
        _ => message,
    }
}

/// A failed `assert` says `assert ...` after its type: the type adds
/// nothing (pytest's own `E` lines leave it out too).
pub fn lean_message(message: &str) -> &str {
    match message.strip_prefix("AssertionError: ") {
        Some(rest) if rest.starts_with("assert ") => rest,
        _ => message,
    }
}

/// Lines of a section's detail kept when tracebacks are cut to the crash.
const CRASH_LINES: usize = 4;

/// The crash lines of a section's detail: the last `at file:line` (where
/// the test failed) and what follows it (the failing source line, the
/// explanation), or the first lines of a trace with no such line.
fn crash_lines(detail: &[Cow<'_, str>]) -> std::ops::Range<usize> {
    let start = detail
        .iter()
        .rposition(|l| l.starts_with("at "))
        .unwrap_or(0);
    start..detail.len().min(start + CRASH_LINES)
}

/// The message: first line flush left, further lines indented two spaces
/// (keeping their relative indentation). pytest's "use -v" hints and stack
/// frames of test frameworks (some assertion libraries put a whole trace in
/// the message) are left out; very long messages are cut in the middle,
/// saying how much: an item's own text (a notebook's diff, a type
/// checker's findings) ends with what it found, as a traceback does.
pub fn message_lines(out: &mut String, message: &str, max_lines: usize) {
    // Each line, and whether a blank line came before it (a finding of a
    // linter's ends so).
    let mut after_blank = false;
    let mut lines = message.lines().map(str::trim_end).filter_map(|l| {
        let blank = l.trim().is_empty();
        let starts = std::mem::replace(&mut after_blank, blank);
        (!blank).then_some((l, starts))
    });
    let Some((first, _)) = lines.next() else {
        return;
    };
    // A message must not be read as a header or a note.
    if first.starts_with('#') || first.starts_with('>') {
        out.push('\\');
    }
    out.push_str(&clip(first));
    out.push('\n');
    let mut rest: Vec<(&str, bool)> = lines
        .filter(|(l, _)| {
            let l = l.trim();
            !is_pytest_hint(l) && !is_framework_frame(l) && !names_a_class(l)
        })
        .collect();
    let texts: Vec<&str> = rest.iter().map(|(l, _)| *l).collect();
    if repeats_compared_strings(first, &texts) {
        rest.clear();
    }
    let lines: Vec<&str> = dedent(&texts[..rest.len()]).collect();
    let omitted = rest.len().saturating_sub(max_lines);
    if omitted > 0
        && let Some(shown) = findings(first, &rest, &lines, max_lines)
    {
        for line in shown {
            indent_line(out, &line);
        }
        return;
    }
    let head = match omitted {
        0 => rest.len(),
        _ => max_lines / 2,
    };
    for line in &lines[..head] {
        indent_line(out, line);
    }
    if omitted > 0 {
        indent_line(out, &format!("… {omitted} more lines"));
        for line in &lines[head + omitted..] {
            indent_line(out, line);
        }
    }
}

/// Lines of a finding shown when a long message lists several: its
/// title and its place (ruff's `F401 ...` and `--> app.py:3:8`).
const FINDING_LINES: usize = 2;

/// A long message that lists findings (blocks apart by blank lines, two
/// or more naming a place `file.py:3` in their first lines: a linter's),
/// as each finding's first lines in their order, the rest of each
/// counted; none for any other message. `rest` are the lines after
/// `first`, each with whether it starts a block; `lines` the same dedented.
fn findings(
    first: &str,
    rest: &[(&str, bool)],
    lines: &[&str],
    max_lines: usize,
) -> Option<Vec<String>> {
    // Where each block starts in `rest` (the first block starts before it,
    // with `first`).
    let mut starts: Vec<usize> = vec![0];
    starts.extend((0..rest.len()).filter(|&i| i > 0 && rest[i].1));
    let ends: Vec<usize> = starts.iter().skip(1).copied().chain([rest.len()]).collect();
    let placed = |k: usize| {
        let (from, to) = (starts[k], ends[k]);
        let head = if k == 0 { 1 } else { FINDING_LINES };
        (k == 0 && names_a_place(first))
            || rest[from..to.min(from + head)]
                .iter()
                .any(|(l, _)| names_a_place(l))
    };
    if (0..starts.len()).filter(|&k| placed(k)).count() < 2 {
        return None;
    }
    let mut out = Vec::new();
    for (k, (&from, &to)) in starts.iter().zip(&ends).enumerate() {
        // The first block's title is the message's first line.
        let head = if k == 0 {
            FINDING_LINES - 1
        } else {
            FINDING_LINES
        };
        let shown = (to - from).min(head);
        let marker = usize::from(to - from > shown);
        // One line is kept for the count of the findings left out.
        let last = k + 1 == starts.len();
        let reserve = usize::from(!last);
        if out.len() + shown + marker + reserve > max_lines {
            let left: usize = ends[k..].iter().zip(&starts[k..]).map(|(e, s)| e - s).sum();
            let findings = starts.len() - k;
            let word = if findings == 1 { "finding" } else { "findings" };
            out.push(format!("… {findings} more {word} ({left} lines)"));
            break;
        }
        out.extend(lines[from..from + shown].iter().map(|l| l.to_string()));
        if to - from > shown {
            out.push(format!("  … {} more lines", to - from - shown));
        }
    }
    Some(out)
}

/// Whether a line names a place: a token `path.ext:12` (`-->
/// app/report.py:3:8`, `app.py:3:1: F401`) whose extension is letters, in
/// a folder or one of a source file's (a host's `db.example.com:5432` is
/// none).
fn names_a_place(line: &str) -> bool {
    const SOURCE: [&str; 8] = ["py", "pyi", "pyx", "rst", "md", "txt", "ipynb", "toml"];
    line.split_whitespace().any(|token| {
        token.match_indices(':').any(|(i, _)| {
            let path = &token[..i];
            let Some((stem, ext)) = path.rsplit_once('.') else {
                return false;
            };
            let ext_ok =
                (1..=5).contains(&ext.len()) && ext.bytes().all(|b| b.is_ascii_alphabetic());
            let file_like = stem.contains('/') || SOURCE.contains(&ext);
            ext_ok
                && file_like
                && !path.contains("://")
                && token[i + 1..].starts_with(|c: char| c.is_ascii_digit())
        })
    })
}

/// pytest's diff of two one-line strings (`- AL`, `+ al`, `? ^^` lines)
/// when the message's first line shows both whole (`assert 'al' ==
/// 'AL'`): it says again what the reader has just read.
fn repeats_compared_strings(first: &str, rest: &[&str]) -> bool {
    let quoted = |s: &str| first.contains(&format!("'{s}'")) || first.contains(&format!("\"{s}\""));
    let mut values = 0;
    let all = rest.iter().all(|l| {
        let l = l.trim();
        if l.starts_with("? ") || l == "?" {
            return true;
        }
        match l.strip_prefix("- ").or_else(|| l.strip_prefix("+ ")) {
            Some(v) if quoted(v) => {
                values += 1;
                true
            }
            _ => false,
        }
    });
    all && values == 2 && !first.contains("...")
}

fn captured(
    out: &mut String,
    label: &str,
    text: Option<&str>,
    already: &LineSet<'_>,
    max_tail: usize,
) {
    let Some(text) = text else { return };
    let mut stacks = 0usize;
    let mut in_dump = false;
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| {
            // pytest-timeout's dump of every thread's stack, between its
            // `+++ Timeout +++` banners: the limit is in the message and
            // the test's own line in the frames; the stacks stay in the
            // full result.
            if is_timeout_banner(l) {
                in_dump = !in_dump;
                stacks += 1;
                return false;
            }
            if in_dump {
                stacks += 1;
            }
            !in_dump
        })
        .filter(|l| !l.trim().is_empty() && !already.contains(l.trim()))
        .collect();
    if stacks > 0 {
        let _ = writeln!(
            out,
            "  … pytest-timeout's thread stacks left out ({stacks} lines of {})",
            label.to_lowercase()
        );
    }
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

/// pytest-timeout's banner around its dump of the threads' stacks:
/// `++++ Timeout ++++`.
fn is_timeout_banner(line: &str) -> bool {
    let t = line.trim();
    t.len() > 20
        && t.starts_with("+++")
        && t.ends_with("+++")
        && t.trim_matches('+').trim() == "Timeout"
}

/// The useful lines of a collection error's traceback: the offending source
/// line (with a SyntaxError's caret) and explanation lines not in the message.
pub fn collection_detail(traceback: &str, message: &str, file: &str) -> Vec<String> {
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
