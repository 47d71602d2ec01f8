//! Line helpers of the Markdown renderer: indenting, clipping, splitting.

use std::borrow::Cow;
use std::cmp::Ordering;

use super::MAX_LINE_CHARS;

pub fn indent_line(out: &mut String, line: &str) {
    out.push_str("  ");
    out.push_str(&clip(line));
    out.push('\n');
}

/// Cuts a line longer than [`MAX_LINE_CHARS`], saying how much was cut.
pub fn clip(line: &str) -> std::borrow::Cow<'_, str> {
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

/// The trimmed, non-blank ones of some lines, to ask whether a line
/// repeats one of them. A sorted `Vec` is much cheaper to build than a
/// `HashSet` for the few dozen lines of a message and traceback, and is
/// still searched in logarithmic time; ordering by length first makes most
/// comparisons stop there.
#[derive(Clone)]
pub struct LineSet<'a>(Vec<Cow<'a, str>>);

impl<'a> LineSet<'a> {
    /// The set of the lines of all `parts`.
    pub(super) fn new(parts: &[&[&'a str]]) -> Self {
        let mut lines = Vec::with_capacity(parts.iter().map(|p| p.len()).sum());
        lines.extend(
            parts
                .iter()
                .flat_map(|p| p.iter())
                .map(|l| l.trim())
                .filter(|l| !l.is_empty())
                .map(Cow::Borrowed),
        );
        lines.sort_unstable_by(|a, b| by_length(a, b));
        LineSet(lines)
    }

    /// The set with copies of `more` lines added (lines of a text that
    /// does not live as long as the set).
    pub(super) fn with_copies(mut self, more: &[&str]) -> Self {
        self.0.extend(
            more.iter()
                .map(|l| l.trim())
                .filter(|l| !l.is_empty())
                .map(|l| Cow::Owned(l.to_string())),
        );
        self.0.sort_unstable_by(|a, b| by_length(a, b));
        self
    }

    pub(super) fn contains(&self, line: &str) -> bool {
        self.0.binary_search_by(|l| by_length(l, line)).is_ok()
    }
}

/// The lines of `text` as [`str::lines`] gives them (a line ends at `\n` or
/// `\r\n`; a last line without one is kept whole), several times faster on
/// a traceback: line breaks are found with `memchr`, and the `Vec` is
/// allocated once.
pub fn lines_of(text: &str) -> Vec<&str> {
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
pub fn line_breaks(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count()
}

/// Shorter strings first, equally long ones by their bytes.
pub fn by_length(a: &str, b: &str) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}
