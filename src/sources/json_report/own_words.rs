//! A failure an item told in its own words: its `repr_failure` gave pytest
//! a text, not a traceback (a notebook cell's diff, a sybil example's
//! Expected and Got, a linter's or a type checker's findings, a YAML spec's
//! reason, pytest-check's failed checks). pytest prints that text whole;
//! so does every answer: its message is all of it, in its own order (cut
//! in the middle by the view when it is long, never to one line), and its
//! place is the line the text gives in the item's own file. The text is
//! the failure's traceback too (pytest's JUnit, read beside it, holds what
//! the item gave before a plugin rewrote it); the JSON report says it once.

use crate::pytest_text;

/// What a failure told in the item's own words says.
#[derive(Debug, PartialEq)]
pub(super) struct OwnWords {
    /// The whole text, less the location lines pytest's formats add.
    pub message: String,
    /// The line of the item's file the text names first, if any (sybil's
    /// closing `usage.rst:19: SybilFailure` names it by its name alone).
    pub line: Option<u32>,
}

/// Reads `text`, a failed phase's longrepr with no crash that names a
/// file, for the item `nodeid` (its file is the id's first part). None for
/// a pytest traceback (`E` lines) and for a doctest's report, which the
/// view reads as such.
pub(super) fn read(text: &str, nodeid: &str) -> Option<OwnWords> {
    if pytest_text::error_lines(text).next().is_some() {
        return None;
    }
    let file = nodeid.split("::").next().filter(|f| !f.is_empty())?;
    let text = crate::text::clean(text);
    let mut lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    // A doctest's report (`path:3: DocTestFailure`, `path:None: ...` when
    // its line is unknown), which the view reads as such.
    let doctest = [": DocTestFailure", ": UnexpectedException"];
    if lines
        .last()
        .is_some_and(|l| doctest.iter().any(|d| l.ends_with(d)))
    {
        return None;
    }
    let mut line = None;
    // pytest's closing location line: `usage.rst:19: SybilFailure`.
    if let Some(last) = lines.last().and_then(|l| pytest_text::frame_line(l))
        && names_file(&last.path.replace('\\', "/"), file)
    {
        line = Some(last.line);
        lines.pop();
    }
    // `<id>:0: check 3 == 2`: a location pytest made of the test's id.
    if let Some(first) = lines.first_mut() {
        *first = without_id_prefix(first, nodeid);
    }
    let body = lines.join("\n");
    let message = match body.trim() {
        "" => text.trim().to_string(),
        _ => body.trim_matches('\n').to_string(),
    };
    let line = line
        .or_else(|| first_mention(&message, file))
        .or_else(|| first_finding(&message));
    Some(OwnWords { message, line })
}

/// Whether a path a text gives is the item's `file` (relative to the
/// rootdir): the same, its name alone, or it written whole.
fn names_file(path: &str, file: &str) -> bool {
    path == file
        || file.strip_suffix(path).is_some_and(|d| d.ends_with('/'))
        || path.strip_suffix(file).is_some_and(|d| d.ends_with('/'))
}

/// `first` without a leading `<nodeid>:<digits>: `.
fn without_id_prefix<'a>(first: &'a str, nodeid: &str) -> &'a str {
    let Some(rest) = first.strip_prefix(nodeid).and_then(|r| r.strip_prefix(':')) else {
        return first;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    match rest[digits..].strip_prefix(": ") {
        Some(after) if digits > 0 => after,
        _ => first,
    }
}

/// The line of the first `<file>:<line>` in `text` (ruff's `-->
/// src/app.py:3:8`, pytest-check's `tests/test_x.py:7 in test_x()`),
/// `file` written as it is or whole.
fn first_mention(text: &str, file: &str) -> Option<u32> {
    text.match_indices(file).find_map(|(i, _)| {
        let before = text[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-')) {
            return None;
        }
        let rest = text[i + file.len()..].strip_prefix(':')?;
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        rest[..digits].parse().ok().filter(|n| *n > 0)
    })
}

/// The line of the first finding a type checker lists without its path
/// (pytest-mypy's `5: error: ...`).
fn first_finding(text: &str) -> Option<u32> {
    text.lines().find_map(|l| {
        let (n, rest) = l.split_once(": ")?;
        let severity = ["error:", "warning:", "note:"];
        severity
            .iter()
            .any(|s| rest.starts_with(s))
            .then(|| n.parse().ok())
            .flatten()
            .filter(|n| *n > 0)
    })
}

#[cfg(test)]
mod tests;
