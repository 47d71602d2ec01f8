//! Putting text from a test into GitHub Flavored Markdown so that it is
//! read as text and nothing else.
//!
//! GitHub renders Markdown with cmark-gfm, keeps some raw HTML
//! (`<details>`), sanitizes, and then runs its mention (`@name`) and issue
//! reference (`#12`) filters over the text nodes, skipping `<code>`,
//! `<pre>` and `<a>`. HTML entities do not protect against those filters
//! (they are decoded before), so test text always goes into code: a code
//! span in Markdown ([`code_span`]), a `<code>` element with the text
//! HTML-escaped inside an HTML block, where Markdown is not parsed
//! ([`html_code`]), or a fenced code block ([`fence_for`]). Test text is
//! never put in a table.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::text::{html_escape, one_line};

/// `text` as an inline code span: one line (breaks and control characters
/// shown as escapes), fenced with one backtick more than its longest run of
/// backticks, padded with spaces when it starts or ends with a backtick or
/// a space (CommonMark strips one space on each side).
pub(super) fn code_span(text: &str) -> String {
    let line = visible_bidi(one_line(text));
    if line.is_empty() {
        return "` `".to_string();
    }
    let ticks = "`".repeat(longest_run(&line, '`') + 1);
    let pad = line.starts_with(['`', ' ']) || line.ends_with(['`', ' ']);
    let space = if pad { " " } else { "" };
    format!("{ticks}{space}{line}{space}{ticks}")
}

/// `text` in a `<code>` element, HTML-escaped, on one line: for HTML blocks
/// (`<summary>`), where Markdown is not parsed.
pub(super) fn html_code(text: &str) -> String {
    format!(
        "<code>{}</code>",
        html_escape(&visible_bidi(one_line(text)))
    )
}

/// Bidirectional controls (U+202A..U+202E, U+2066..U+2069) and the
/// invisible marks around them (U+200B..U+200F) shown as `\u{...}`: in an id
/// or a message they would reorder or hide what a reviewer reads (an id
/// that looks like another). Code blocks keep them; GitHub warns there.
fn visible_bidi(text: Cow<'_, str>) -> Cow<'_, str> {
    let hidden = |c: char| matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}');
    if !text.contains(hidden) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if hidden(c) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The fence of a code block holding `text`: backticks, one more than the
/// longest run of backticks in it, at least three, so no line of the text
/// can close the block.
pub(super) fn fence_for(text: &str) -> String {
    "`".repeat((longest_run(text, '`') + 1).max(3))
}

/// A fenced code block of `text` (its trailing line breaks dropped),
/// followed by a line break.
pub(super) fn code_block(text: &str) -> String {
    let body = text.trim_end_matches('\n');
    let fence = fence_for(body);
    format!("{fence}text\n{body}\n{fence}\n")
}

/// The longest run of `c` in `text`.
fn longest_run(text: &str, c: char) -> usize {
    text.split(|x| x != c)
        .map(|run| run.len() / c.len_utf8())
        .max()
        .unwrap_or(0)
}

/// Text of our own that may hold a name from outside (a file name): the
/// characters Markdown or HTML would read (and any punctuation it starts
/// with) backslash-escaped; `@` and `#` kept from starting a mention or a
/// reference, and `://` and `www.` from making an autolink (a word joiner
/// after `@`, `#`, `:` and `www`).
pub(super) fn escape_text(text: &str) -> String {
    let line = one_line(text);
    let mut out = String::with_capacity(line.len() + 8);
    for (i, c) in line.char_indices() {
        let special = "\\`*_[]<>!|~&#@".contains(c);
        if special || (i == 0 && c.is_ascii_punctuation()) {
            out.push('\\');
        }
        out.push(c);
        if joined(&line, i, c) {
            out.push(JOINER);
        }
    }
    out
}

/// Text of our own that may hold a name from outside, for an HTML block
/// (`<summary>`), where Markdown is not parsed: one line, HTML-escaped,
/// with the word joiners of [`escape_text`].
pub(super) fn html_text(text: &str) -> String {
    let line = visible_bidi(one_line(text));
    let mut out = String::with_capacity(line.len() + 8);
    let mut buf = [0; 4];
    for (i, c) in line.char_indices() {
        out.push_str(&html_escape(c.encode_utf8(&mut buf)));
        if joined(&line, i, c) {
            out.push(JOINER);
        }
    }
    out
}

/// Kept from starting a mention, a reference or an autolink.
const JOINER: char = '\u{2060}';

/// Whether the character `c` at `i` in `line` is followed by a
/// [`JOINER`]: `@` and `#` (a mention, a reference), `:` before `//` and
/// `www` before `.` (an autolink).
fn joined(line: &str, i: usize, c: char) -> bool {
    let end = i + c.len_utf8();
    let rest = &line[end..];
    let www = rest.starts_with('.')
        && end >= 3
        && line
            .get(end - 3..end)
            .is_some_and(|w| w.eq_ignore_ascii_case("www"));
    c == '@' || c == '#' || (c == ':' && rest.starts_with("//")) || www
}

/// A path made safe for a URL: every byte but unreserved characters and
/// `/` percent-encoded.
pub(super) fn url_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A link base from outside (`--link-base`), with the characters that
/// would end a Markdown link destination or an attribute percent-encoded.
pub(super) fn url_base(base: &str) -> String {
    let mut out = String::with_capacity(base.len());
    for c in base.chars() {
        match c {
            ' ' | '<' | '>' | '(' | ')' | '"' | '\'' | '`' | '\\' | '[' | ']' => {
                out.push_str(&format!("%{:02X}", c as u32))
            }
            c if c.is_control() || c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
