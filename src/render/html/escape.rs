//! Text from a test is never read as HTML: every id, message, reason and
//! line of output goes through [`push`] (or [`escape`]) on its way into the
//! page, in text and in attribute values alike.

use std::borrow::Cow;

use crate::text::one_line;

/// `text` for HTML text and (quoted) attribute values: `&`, `<`, `>`, `"`
/// and `'` escaped. Text with none of them is borrowed.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.contains(['&', '<', '>', '"', '\'']) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    push(&mut out, text);
    Cow::Owned(out)
}

/// Appends `text` to `out`, escaped as [`escape`] does.
pub fn push(out: &mut String, text: &str) {
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

/// Appends an id (or a path) to `out`: escaped, with its control
/// characters made visible as every renderer but JSON shows them.
pub fn push_id(out: &mut String, id: &str) {
    push(out, &one_line(id));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_text() {
        assert_eq!(
            escape("<script>a&b</script> \"x\" 'y'"),
            "&lt;script&gt;a&amp;b&lt;/script&gt; &quot;x&quot; &#39;y&#39;"
        );
        assert!(matches!(escape("plain ü"), Cow::Borrowed(_)));
        let mut out = String::new();
        push_id(&mut out, "t.py::x[\u{1b}<b>]");
        assert!(
            !out.contains('\u{1b}') && out.contains("&lt;b&gt;"),
            "{out}"
        );
    }
}
