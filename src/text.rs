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
mod tests {
    use super::*;

    #[test]
    fn colour_codes_and_controls_go_the_words_stay() {
        assert_eq!(clean("\x1b[31mred\x1b[0m plain"), "red plain");
        assert_eq!(
            clean("\x1b[31mAssertionError: \x1b[1mexpected 3\x1b[0m"),
            "AssertionError: expected 3"
        );
        // 256 colours, private modes, cursor moves, erase line.
        assert_eq!(clean("\x1b[38;5;196mx\x1b[?25l\x1b[2K\x1b[1;1Hy"), "xy");
        // OSC 8 hyperlink (ST and BEL terminated) and a window title.
        assert_eq!(
            clean("\x1b]8;;http://x\x1b\\link\x1b]8;;\x07 \x1b]0;title\x07done"),
            "link done"
        );
        // Charset selection, keypad mode, a lone ESC at the end.
        assert_eq!(clean("\x1b(Ba\x1b=b\x1b"), "ab");
        // C1 forms: CSI, OSC with ST, and a lone C1 control.
        assert_eq!(clean("\u{9b}31mred\u{9d}0;t\u{9c}!\u{85}"), "red!");
        // BEL, backspace, NUL, DEL go; tabs and line breaks stay.
        assert_eq!(clean("a\x07b\x08c\x00d\x7fe\tf\ng"), "abcde\tf\ng");
        // CRLF is LF; a lone CR is a line break.
        assert_eq!(clean("a\r\nb\rc\r"), "a\nb\nc\n");
    }

    #[test]
    fn broken_sequences_keep_the_text() {
        // A CSI cut by a line break, an OSC never terminated on its line.
        assert_eq!(clean("\x1b[31\nnext"), "\nnext");
        assert_eq!(clean("\x1b]8;;http://x\nnext line"), "\nnext line");
        // An OSC interrupted by another escape.
        assert_eq!(clean("\x1b]0;t\x1b[1mbold"), "bold");
        // Non-ASCII text next to escapes, and C2 that is not C1.
        assert_eq!(clean("é\x1b[1m° ±\x1b[0m€"), "é° ±€");
        assert_eq!(clean("\x1b[é"), "é");
    }

    #[test]
    fn clean_text_is_borrowed() {
        for s in ["plain", "tab\tand\nlines", "µs ± 1 °C", ""] {
            assert!(matches!(clean(s), Cow::Borrowed(_)), "{s:?}");
        }
        let long = "°".repeat(70);
        assert!(matches!(clean(&long), Cow::Borrowed(_)));
    }

    #[test]
    fn controls_are_found_wherever_they_are_in_long_text() {
        for at in 0..100 {
            let head = "a".repeat(at);
            let text = format!("{head}\x1b[1m{}\u{85}°", "b".repeat(50));
            assert_eq!(
                clean(&text),
                format!("{head}{}°", "b".repeat(50)),
                "at {at}"
            );
            let c1 = format!("{}{head}\u{9b}0m.", "±".repeat(20));
            assert_eq!(clean(&c1), format!("{}{head}.", "±".repeat(20)), "at {at}");
        }
    }

    #[test]
    fn pytests_xml_escapes_are_read_as_the_controls_they_stand_for() {
        assert_eq!(
            clean_xml_text("E  AssertionError: #x1B[31mAssertionError: #x1B[1mexpected 3#x1B[0m"),
            "E  AssertionError: AssertionError: expected 3"
        );
        assert_eq!(
            clean_xml_text("bad #x07value #x1B]8;;u#x1B\\link"),
            "bad value link"
        );
        // Not pytest's escapes: lowercase, printable, too short.
        assert_eq!(clean_xml_text("#x1b #x41 #x1 #xZZ"), "#x1b #x41 #x1 #xZZ");
        assert!(matches!(
            clean_xml_text("color: #x7F; #fff"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn one_line_escapes_breaks() {
        assert_eq!(one_line("a\n### FAILED: x"), "a\\n### FAILED: x");
        assert_eq!(one_line("plain"), "plain");
    }

    #[test]
    fn blocks_lose_the_blank_lines_around_them_and_their_shared_indent() {
        assert_eq!(trim_block(""), "");
        assert_eq!(
            trim_block("\n   \n    a\n      b\n    c  \n  \n"),
            "a\n  b\nc"
        );
        // No shared indentation: the block as it is, line ends and all.
        assert_eq!(trim_block("\n\nx\r\n  y\n"), "x\r\n  y");
        assert_eq!(trim_block("  first\n\n  second"), "first\n\nsecond");
        assert_eq!(last_line("a\n b \n\n"), Some("b"));
        assert_eq!(last_line(" \n"), None);
    }

    #[test]
    fn thousands_are_separated() {
        let cases = [(0, "0"), (999, "999"), (1000, "1,000"), (5000, "5,000")];
        for (n, text) in cases {
            assert_eq!(thousands(n), text);
        }
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
