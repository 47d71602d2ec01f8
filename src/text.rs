//! Small text helpers shared by several stages.

use std::borrow::Cow;

/// Removes ANSI escape sequences (colours, cursor moves): captured output and
/// pytest's console text are stored and rendered without them.
pub fn strip_ansi(text: &str) -> Cow<'_, str> {
    if text.contains('\x1b') {
        Cow::Owned(strip_ansi_escapes::strip_str(text))
    } else {
        Cow::Borrowed(text)
    }
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
    if !text.chars().any(char::is_control) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_is_stripped() {
        assert_eq!(strip_ansi("\x1b[31mred\x1b[0m plain"), "red plain");
    }

    #[test]
    fn one_line_escapes_breaks() {
        assert_eq!(one_line("a\n### FAILED: x"), "a\\n### FAILED: x");
        assert_eq!(one_line("plain"), "plain");
    }
}
