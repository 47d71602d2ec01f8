//! Small text helpers shared by several stages.

use std::borrow::Cow;

/// Text as this tool writes it: terminal escape sequences (ANSI colours,
/// cursor moves, OSC titles and hyperlinks: CSI, OSC, DCS, SOS, PM, APC and
/// two-character escapes, in their 7-bit `ESC` and their C1 forms) are
/// removed, and so is every other control character (C0 except line feed
/// and tab, DEL, C1), so that a coloured assertion message or captured
/// output reaches Markdown, HTML, JUnit and JSON as the words it shows on a
/// terminal. A carriage return never survives: `\r\n` becomes `\n`, and a
/// lone `\r` (a progress bar redrawing its line, an old Mac line end) a
/// `\n`, so every state it drew stays readable and none glues onto the
/// next. Text without any of these (nearly all text) is borrowed, not
/// copied. Every reader passes what it read through this, via
/// [`crate::model::Run::clean_text`]; test ids are never rewritten.
pub fn clean(text: &str) -> Cow<'_, str> {
    match next_control(text.as_bytes(), 0) {
        None => Cow::Borrowed(text),
        Some(at) => Cow::Owned(clean_from(text, at)),
    }
}

/// [`clean`] for text read from JUnit XML, where pytest writes each
/// character XML cannot hold as `#x` and two hex digits (`#x1B[31m` for a
/// colour code, pytest's `bin_xml_escape`): those are read back as the
/// control characters they stand for, and cleaned as such.
pub fn clean_xml_text(text: &str) -> Cow<'_, str> {
    match unescape_pytest_xml(text) {
        Cow::Borrowed(text) => clean(text),
        Cow::Owned(decoded) => Cow::Owned(clean(&decoded).into_owned()),
    }
}

/// pytest's `#xHH` for the C0 controls XML 1.0 forbids, as characters.
fn unescape_pytest_xml(text: &str) -> Cow<'_, str> {
    let escaped = |i: usize| -> Option<char> {
        if text.as_bytes().get(i + 1) != Some(&b'x') {
            return None;
        }
        let digits = text.get(i + 2..i + 4)?;
        if !digits
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(&b))
        {
            return None;
        }
        let c = u8::from_str_radix(digits, 16).ok()?;
        matches!(c, 0x00..=0x08 | 0x0B | 0x0C | 0x0E..=0x1F).then_some(char::from(c))
    };
    let mut found = memchr::memchr_iter(b'#', text.as_bytes())
        .filter_map(|i| escaped(i).map(|c| (i, c)))
        .peekable();
    if found.peek().is_none() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for (i, c) in found {
        out.push_str(&text[copied..i]);
        out.push(c);
        copied = i + 4;
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// Where the first byte [`clean`] removes or rewrites is, from `from` on:
/// a C0 control other than `\n` and `\t`, DEL, or the first byte of a C1
/// control (U+0080 to U+009F are `C2 80` to `C2 9F` in UTF-8).
fn next_control(bytes: &[u8], mut i: usize) -> Option<usize> {
    // Bitwise, not short-circuit: the block test below compiles to vector
    // instructions, which is what makes clean text nearly free to check.
    let suspect = |b: u8| (b < 0x20) & (b != b'\n') & (b != b'\t') | (b == 0x7f) | (b == 0xc2);
    const BLOCK: usize = 32;
    loop {
        while let Some(block) = bytes.get(i..i + BLOCK) {
            if block.iter().fold(false, |any, &b| any | suspect(b)) {
                break;
            }
            i += BLOCK;
        }
        let end = (i + BLOCK).min(bytes.len());
        let at = i + bytes.get(i..end)?.iter().position(|&b| suspect(b))?;
        if bytes[at] != 0xc2 || matches!(bytes.get(at + 1), Some(0x80..=0x9f)) {
            return Some(at);
        }
        i = at + 1;
    }
}

/// [`clean`] of text whose first control character is at `at`.
fn clean_from(text: &str, mut at: usize) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    loop {
        out.push_str(&text[copied..at]);
        let end = match bytes[at] {
            b'\r' if bytes.get(at + 1) == Some(&b'\n') => at + 1,
            b'\r' => {
                out.push('\n');
                at + 1
            }
            0x1b => escape_end(bytes, at + 1),
            0xc2 => match bytes.get(at + 1) {
                Some(0x9b) => csi_end(bytes, at + 2),
                Some(0x90 | 0x98 | 0x9d | 0x9e | 0x9f) => string_end(bytes, at + 2),
                _ => at + 2,
            },
            _ => at + 1,
        };
        // Every sequence ends before an ASCII byte, a C1 control or the end
        // of the text: a character boundary.
        copied = end;
        match next_control(bytes, end) {
            Some(next) => at = next,
            None => break,
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// The end of an escape sequence whose `ESC` is just before `i`: a CSI
/// (`ESC [`), a string (OSC `ESC ]`, DCS `ESC P`, SOS `ESC X`, PM `ESC ^`,
/// APC `ESC _`), or `ESC`, intermediates and a final byte (`ESC ( B`,
/// `ESC 7`). An `ESC` followed by nothing of these goes alone.
fn escape_end(bytes: &[u8], i: usize) -> usize {
    match bytes.get(i) {
        Some(b'[') => csi_end(bytes, i + 1),
        Some(b']' | b'P' | b'X' | b'^' | b'_') => string_end(bytes, i + 1),
        Some(0x20..=0x7e) => {
            let mut j = i;
            while matches!(bytes.get(j), Some(0x20..=0x2f)) {
                j += 1;
            }
            if matches!(bytes.get(j), Some(0x30..=0x7e)) {
                j += 1;
            }
            j
        }
        _ => i,
    }
}

/// The end of a control sequence whose parameters start at `i`: parameter
/// and intermediate bytes, then the final byte. A byte that can be neither
/// (a line break, a letter of another script) ends a broken sequence
/// without being taken.
fn csi_end(bytes: &[u8], i: usize) -> usize {
    let mut j = i;
    while matches!(bytes.get(j), Some(0x20..=0x3f)) {
        j += 1;
    }
    if matches!(bytes.get(j), Some(0x40..=0x7e)) {
        j += 1;
    }
    j
}

/// The end of a control string (an OSC title or hyperlink) whose text
/// starts at `i`: after its terminator, BEL or ST (`ESC \\` or C1 ST). An
/// unterminated string ends at the end of its line (the line break stays),
/// and at an `ESC` that starts another sequence.
fn string_end(bytes: &[u8], i: usize) -> usize {
    let mut j = i;
    loop {
        match bytes.get(j) {
            None | Some(b'\n' | b'\r') => return j,
            Some(0x07) => return j + 1,
            Some(0x1b) if bytes.get(j + 1) == Some(&b'\\') => return j + 2,
            Some(0x1b) => return j,
            Some(0xc2) if bytes.get(j + 1) == Some(&0x9c) => return j + 2,
            Some(_) => j += 1,
        }
    }
}

/// `text` for HTML text and (quoted) attribute values (the HTML report,
/// the GitHub rendering's `<summary>` lines): `&`, `<`, `>`, `"`
/// and `'` escaped. Text with none of them is borrowed.
pub fn html_escape(text: &str) -> Cow<'_, str> {
    if !text.contains(['&', '<', '>', '"', '\'']) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    push_html_escaped(&mut out, text);
    Cow::Owned(out)
}

/// Appends `text` to `out`, escaped as [`html_escape`] does.
pub fn push_html_escaped(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(at) = rest.find(['&', '<', '>', '"', '\'']) {
        out.push_str(&rest[..at]);
        out.push_str(match rest.as_bytes()[at] {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            _ => "&#39;",
        });
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}

/// The first non-blank line, trimmed ("" when there is none).
pub fn first_line(text: &str) -> &str {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

/// Text for a single line (a heading, a list item): line breaks and other
/// control characters are written as escapes, so a test id cannot start a
/// section or a note of its own.
pub fn one_line(text: &str) -> Cow<'_, str> {
    // Bytes first (a control character is a byte below 0x20, DEL, or C1's
    // lead byte 0xC2), characters only when one of those is there.
    let maybe = |b: u8| (b < 0x20) | (b == 0x7f) | (b == 0xc2);
    if !text.bytes().fold(false, |any, b| any | maybe(b)) || !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `1 error`, `2 errors`: a count and the word that goes with it.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The last non-blank line, trimmed, when there is one.
pub fn last_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).rfind(|l| !l.is_empty())
}

/// A block of text (an element's text in an XML file) without the blank
/// lines and trailing whitespace around it and without the indentation
/// all of its lines share: XML writers often indent the text of an element
/// along with the markup. The indentation within the block stays.
pub fn trim_block(text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let trimmed = text.trim_end();
    let start = trimmed
        .char_indices()
        .find(|(_, c)| !c.is_whitespace())
        .map_or(trimmed.len(), |(i, _)| i);
    // Back up to the start of the first non-blank line.
    let line_start = trimmed[..start].rfind('\n').map_or(0, |i| i + 1);
    let block = &trimmed[line_start..];
    let lines: Vec<&str> = block.lines().collect();
    if common_indent(&lines) == 0 {
        return block.to_string();
    }
    dedent(&lines).collect::<Vec<_>>().join("\n")
}

/// The indentation (in bytes) that every non-blank line starts with.
pub fn common_indent(lines: &[&str]) -> usize {
    lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0)
}

/// Removes the indentation every line shares. What is left of each line is
/// borrowed from it.
pub fn dedent<'a>(lines: &[&'a str]) -> impl Iterator<Item = &'a str> {
    let indent = common_indent(lines);
    lines
        .iter()
        .map(move |l| l.get(indent..).unwrap_or_else(|| l.trim_start()))
}

/// `text` cut to at most `max` characters and a `…` (the one clipper of
/// every output: messages in a budget's steps, a structured result's).
/// Text no longer than `max` is borrowed.
pub fn clip_chars(text: &str, max: usize) -> Cow<'_, str> {
    // No more bytes than the limit is no more characters: nothing to count.
    if text.len() <= max {
        return Cow::Borrowed(text);
    }
    match text.char_indices().nth(max) {
        Some((cut, _)) => Cow::Owned(format!("{}…", &text[..cut])),
        None => Cow::Borrowed(text),
    }
}

/// `5000` as `5,000`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests;
