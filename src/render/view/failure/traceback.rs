//! What a failure section shows of a traceback: frames in the project,
//! the failing source line, explanation lines the message does not hold;
//! for other frameworks' stack traces, their first lines.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::ops::Range;

use super::exception_group;
use super::lines::{LineSet, lines_of};
use super::{FOREIGN_TRACE_LINES, MAX_FRAMES, MAX_MESSAGE_LINES};
pub use crate::model::crash::is_framework_frame;
use crate::model::{Location, Phase, TestResult};
use crate::pytest_text::{self, FrameLine, is_project_path};
use crate::text::one_line;
use crate::text::{dedent, first_line};

/// The parts of a failure section that are the same at every level of
/// detail: reading a traceback is most of the cost of rendering a failure.
#[derive(Clone)]
pub struct Section<'r> {
    /// Frames, the failing source line, explanation: all of them, or from
    /// [`super::Detail::CrashLines`] on the crash lines alone.
    pub detail: Vec<Cow<'r, str>>,
    /// The lines of the message and traceback, when there is captured
    /// output: output that only repeats the failure (nextest copies the
    /// panic to stderr) is not shown twice.
    pub said: Option<LineSet<'r>>,
}

impl<'r> Section<'r> {
    pub fn new(t: &'r TestResult) -> Self {
        let message = message_of(t);
        // The traceback is split into lines and searched for frames once.
        let (tb_lines, parts) = traceback_lines(t);
        let frames = frame_lines(&tb_lines);
        let msg_lines = lines_of(&message);
        let mut detail = Vec::new();
        match t.joined_traceback().as_deref() {
            Some(_) if !frames.is_empty() => {
                let message_lines = LineSet::new(&[&msg_lines]);
                for (phase, section) in parts {
                    if let Some(phase) = phase {
                        detail.push(Cow::Borrowed(phase.marker()));
                    }
                    // A chained exception: the last link is the one
                    // raised; the ones before it are its causes.
                    let mut links = chain_links(&tb_lines, section);
                    let Some((raised, _)) = links.pop() else {
                        continue;
                    };
                    pytest_detail(
                        &mut detail,
                        &tb_lines,
                        raised.clone(),
                        frames_in(&frames, &raised),
                        &message,
                        &message_lines,
                    );
                    if message.ends_with("DocTestFailure") {
                        detail.extend(
                            doctest_lines(&tb_lines[raised.clone()])
                                .into_iter()
                                .map(Cow::Owned),
                        );
                    }
                    for (link, word) in links.into_iter().rev() {
                        if let Some(line) =
                            cause_line(&tb_lines, &link, frames_in(&frames, &link), word)
                        {
                            detail.push(Cow::Owned(line));
                        }
                    }
                }
            }
            Some(tb) if exception_group::is_exception_group(tb) => {
                let file = t.location.as_ref().map(|l| &*l.file);
                detail.extend(
                    exception_group::detail(tb, file)
                        .into_iter()
                        .map(Cow::Owned),
                );
            }
            Some(tb) => foreign_detail(&mut detail, tb, &tb_lines, &message, t),
            None => {
                let own = t.location.as_ref();
                if let Some(l) = own.filter(|l| !pytest_text::is_outside_project(&l.file)) {
                    detail.push(Cow::Owned(at_location(l)));
                }
            }
        }
        let has_output = t.stdout().is_some() || t.stderr().is_some() || t.log().is_some();
        let said = has_output.then(|| match &message {
            Cow::Borrowed(m) => LineSet::new(&[&lines_of(m), &tb_lines]),
            Cow::Owned(_) => LineSet::new(&[&tb_lines]).with_copies(&msg_lines),
        });
        Section { detail, said }
    }
}

/// pytest's advice to rerun with more verbosity: no information in itself.
pub fn is_pytest_hint(line: &str) -> bool {
    line.starts_with("Use -v to get")
        || line.starts_with("Use -vv to get")
        || (line.starts_with("Omitting ") && line.ends_with("use -vv to show"))
}

/// The range of each part of [`traceback_lines`], with its phase (none for
/// the deciding phase's own traceback).
pub type Parts = Vec<(Option<Phase>, Range<usize>)>;

/// The lines of a test's traceback and then of each other failing phase's
/// (see [`TestResult::phase_failures`]), each after a blank line and its
/// `[teardown]` line, as one list, and where each part is in it.
pub fn traceback_lines(t: &TestResult) -> (Vec<&str>, Parts) {
    let mut lines = t.traceback().map_or_else(Vec::new, lines_of);
    let mut parts = vec![(None, 0..lines.len())];
    for p in t.phase_failures() {
        let Some(tb) = p.traceback.as_deref() else {
            continue;
        };
        if !lines.is_empty() {
            lines.push("");
        }
        lines.push(p.phase.marker());
        let start = lines.len();
        lines.extend(lines_of(tb));
        parts.push((Some(p.phase), start..lines.len()));
    }
    (lines, parts)
}

/// Lines of a doctest's output block shown, at most, for what it expected
/// and for what it got.
const DOCTEST_LINES: usize = 10;

/// What a failing doctest ran, expected and got, from pytest's report of
/// it (the example's numbered source lines, `Expected:`, `Got:`):
/// `> total([1, 2])`, `Expected: 4`, `Got: 3` (a block of several lines
/// indented under its word).
fn doctest_lines(lines: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let example = lines.iter().rev().find_map(|l| {
        let rest = l.trim_start_matches(|c: char| c.is_ascii_digit());
        (rest.len() < l.len()).then(|| rest.trim_start().strip_prefix(">>> "))?
    });
    if let Some(example) = example {
        out.push(format!("> {}", one_line(example.trim())));
    }
    let at = |word: &str| lines.iter().position(|l| l.trim_end() == word);
    let (Some(expected), Some(got)) = (at("Expected:"), at("Got:")) else {
        return out;
    };
    let block = |from: usize, to: usize| -> Vec<&str> {
        lines[from..to]
            .iter()
            .take_while(|l| !l.trim().is_empty() || from == to)
            .map(|l| l.trim())
            .collect()
    };
    let got_end = lines[got + 1..]
        .iter()
        .position(|l| l.trim().is_empty())
        .map_or(lines.len(), |i| got + 1 + i);
    for (word, part) in [
        ("Expected", block(expected + 1, got)),
        ("Got", block(got + 1, got_end)),
    ] {
        match part.as_slice() {
            [one] => out.push(format!("{word}: {}", one_line(one))),
            many => {
                out.push(format!("{word}:"));
                for l in many.iter().take(DOCTEST_LINES) {
                    out.push(format!("  {}", one_line(l)));
                }
                if many.len() > DOCTEST_LINES {
                    out.push(format!("  … {} more lines", many.len() - DOCTEST_LINES));
                }
            }
        }
    }
    out
}

/// The lines pytest writes between the links of a chained exception, and
/// the words a cause is shown with.
const CHAIN_LINKS: [(&str, &str); 2] = [
    (
        "The above exception was the direct cause of the following exception:",
        "caused by",
    ),
    (
        "During handling of the above exception, another exception occurred:",
        "while handling",
    ),
];

/// The links of a chained exception in `section` of a traceback's lines,
/// oldest first, each with the words its cause is shown with (the line
/// that follows it says which); one link when nothing is chained.
fn chain_links(lines: &[&str], section: Range<usize>) -> Vec<(Range<usize>, &'static str)> {
    let mut links = Vec::new();
    let mut start = section.start;
    for i in section.clone() {
        let line = lines[i].trim();
        if let Some((_, word)) = CHAIN_LINKS.iter().find(|(l, _)| *l == line) {
            links.push((start..i, *word));
            start = i + 1;
        }
    }
    links.push((start..section.end, ""));
    links
}

/// The frames (of [`frame_lines`]) within `range`.
fn frames_in<'f, 'a>(
    frames: &'f [(usize, FrameLine<'a>)],
    range: &Range<usize>,
) -> &'f [(usize, FrameLine<'a>)] {
    let from = frames.partition_point(|(i, _)| *i < range.start);
    let to = frames.partition_point(|(i, _)| *i < range.end);
    &frames[from..to]
}

/// A cause of a chained exception in one line: `caused by
/// FileNotFoundError: ... (at app/config.py:5)`, its exception as its `E`
/// line says and its place as its last frame in the project says.
fn cause_line(
    lines: &[&str],
    link: &Range<usize>,
    frames: &[(usize, FrameLine<'_>)],
    word: &str,
) -> Option<String> {
    let exception = lines[link.clone()]
        .iter()
        .find_map(|l| l.strip_prefix('E').filter(|r| r.starts_with(' ')))
        .map(str::trim)
        .filter(|e| !e.is_empty())?;
    // An installed package's frame is no place of the project's: none is
    // said then.
    let place = frames
        .iter()
        .rev()
        .map(|(_, f)| f)
        .find(|f| is_project_path(f.path))
        .or(frames.last().map(|(_, f)| f))
        .filter(|f| !pytest_text::is_installed_path(f.path));
    let mut line = format!("{word} {}", one_line(exception));
    if let Some(f) = place {
        let _ = write!(line, " ({})", at_line(f.path, f.line));
    }
    Some(line)
}

/// pytest's frame lines (`path:line: ...`) among a traceback's lines, with
/// their index. None means a trace from another framework.
pub fn frame_lines<'a>(lines: &[&'a str]) -> Vec<(usize, FrameLine<'a>)> {
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
pub fn pytest_detail<'a>(
    detail: &mut Vec<Cow<'a, str>>,
    lines: &[&'a str],
    section: Range<usize>,
    frames: &[(usize, FrameLine<'_>)],
    message: &str,
    message_lines: &LineSet<'_>,
) {
    at_lines(detail, frames);
    if frames.is_empty() {
        return;
    }
    // A frame's block: from the frame line before it to its own.
    let block = |k: usize| {
        let start = k
            .checked_sub(1)
            .map_or(section.start, |before| frames[before].0 + 1);
        start..frames[k].0
    };
    // The last frame listed: its failing line is the one shown, right
    // under its place (a library's line never goes under the test's, nor
    // alone: a failure whose frames are all an installed package's has
    // its test's file for a place, in its heading).
    let shown = frames
        .iter()
        .rposition(|(_, f)| is_project_path(f.path))
        .or_else(|| frames.len().checked_sub(1))
        .filter(|&k| !pytest_text::is_installed_path(frames[k].1.path));
    let shown_lines = shown.map(|k| failing_lines(lines, block(k), frames, k));
    for code in shown_lines.into_iter().flatten() {
        // `assert x < 3` failing says `assert x < 3`: once is enough.
        if !message_lines.contains(code.trim()) {
            detail.push(Cow::Owned(["> ", code.trim()].concat()));
        }
    }
    // The explanation is the last frame's, where the error was raised.
    let mut explanation: Vec<&str> = Vec::new();
    let mut more = 0usize;
    for l in &lines[block(frames.len() - 1)] {
        if let Some(rest) = l.strip_prefix('E') {
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
            if message_lines.contains(text) || message.contains(text) || names_a_class(text) {
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

/// An `at file:line` line per frame in the project (the last frame when
/// none is, unless an installed package holds it: a plugin's or a
/// library's line is never a failure's place), the last [`MAX_FRAMES`]; a
/// frame repeated in a row (a recursion) once, counted.
fn at_lines(detail: &mut Vec<Cow<'_, str>>, frames: &[(usize, FrameLine<'_>)]) {
    let in_project: Vec<&FrameLine<'_>> = frames
        .iter()
        .map(|(_, f)| f)
        .filter(|f| is_project_path(f.path))
        .collect();
    let listed: Vec<&FrameLine<'_>> = match in_project.is_empty() {
        true => frames
            .last()
            .map(|(_, f)| f)
            .filter(|f| !pytest_text::is_installed_path(f.path))
            .into_iter()
            .collect(),
        false => in_project,
    };
    let mut runs: Vec<(&FrameLine<'_>, usize)> = Vec::new();
    for f in listed {
        match runs.last_mut() {
            Some((last, n)) if last.path == f.path && last.line == f.line => *n += 1,
            _ => runs.push((f, 1)),
        }
    }
    let skipped = runs.len().saturating_sub(MAX_FRAMES);
    if skipped > 0 {
        detail.push(Cow::Owned(format!("… {skipped} earlier frames")));
    }
    for (f, n) in runs.iter().skip(skipped) {
        let mut at = at_line(f.path, f.line);
        if *n > 1 {
            let _ = write!(at, " (×{n})");
        }
        detail.push(Cow::Owned(at));
    }
}

/// The failing source lines of `frames[k]`, whose block of `lines` is
/// `block`: its lines marked `>`, or, for a frame pytest shows short
/// (`path:8: in f`, a frame the error passed through), the line after it.
fn failing_lines<'a>(
    lines: &[&'a str],
    block: Range<usize>,
    frames: &[(usize, FrameLine<'_>)],
    k: usize,
) -> Vec<&'a str> {
    let marked: Vec<&str> = lines[block]
        .iter()
        .filter_map(|l| l.strip_prefix('>'))
        .collect();
    let (at, frame) = &frames[k];
    if !marked.is_empty() || k + 1 == frames.len() || !frame.rest.starts_with("in ") {
        return marked;
    }
    lines
        .get(at + 1)
        .filter(|l| l.starts_with("    ") && !l.trim().is_empty())
        .map(|l| vec![*l])
        .unwrap_or_default()
}

/// pytest's explanation of a name that is a class (`+  where
/// datetime.date(2024, 3, 6) = <class 'datetime.date'>(2024, 3, 6)`, `+
/// where <class 'datetime.date'> = dt.date`), or of a value as itself:
/// the values compared are in the message, the names in the source line.
pub fn names_a_class(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('+') else {
        return false;
    };
    if rest.contains("where ") && rest.contains("<class '") {
        return true;
    }
    // `+  and   Decimal('3.825') = Decimal('3.825')`: a value explained
    // as itself.
    let rest = rest.trim_start();
    let said = rest
        .strip_prefix("where ")
        .or_else(|| rest.strip_prefix("and "))
        .map(str::trim_start);
    said.and_then(|s| s.split_once(" = "))
        .is_some_and(|(a, b)| a == b)
}

/// `at path:line`, as `format!` would write it, at a fraction of the cost
/// (there is one per frame listed).
pub fn at_line(path: &str, line: u32) -> String {
    let mut s = String::with_capacity(path.len() + 14);
    s.push_str("at ");
    s.push_str(&one_line(path));
    s.push(':');
    let _ = write!(s, "{line}");
    s
}

/// `at file:line` for a test's location (a path from its id, control
/// characters made visible as in the id).
pub fn at_location(l: &Location) -> String {
    match l.line {
        Some(line) => at_line(&l.file, line),
        None => ["at ", &one_line(&l.file)].concat(),
    }
}

/// A stack trace from another framework: its first lines, minus the lines
/// the message already holds and frames inside test frameworks and runtimes.
pub fn foreign_detail<'a>(
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
    // A line that is the end of a message line (`pytest.fail("...",
    // pytrace=False)`: the message is `Failed: ...`, the trace its text)
    // repeats it too.
    let repeats_message = |line: &str| {
        message_lines.iter().any(|m| {
            line == *m
                || (m.chars().count() >= 8 && line.ends_with(m))
                || (line.chars().count() >= 8 && m.ends_with(line))
        })
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
        && !pytest_text::is_outside_project(&loc.file)
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
pub fn line_in_trace(tb: &str, file: &str) -> Option<u32> {
    tb.match_indices(file).find_map(|(i, _)| {
        let rest = tb[i + file.len()..].strip_prefix(':')?;
        let digits: &str = &rest[..rest.bytes().take_while(u8::is_ascii_digit).count()];
        digits.parse().ok()
    })
}

/// The message the section of `t` opens with.
pub fn message_of(t: &TestResult) -> Cow<'_, str> {
    t.joined_message()
        .or_else(|| t.traceback().map(|tb| Cow::Borrowed(first_line(tb))))
        .unwrap_or(Cow::Borrowed("(no message)"))
}
