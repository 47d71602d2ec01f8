//! Text from a test is never read as HTML: every id, message, reason and
//! line of output goes through [`push`] (or [`escape`]) on its way into the
//! page, in text and in attribute values alike.

use crate::text::one_line;

pub use crate::text::{html_escape as escape, push_html_escaped as push};

/// Appends an id (or a path) to `out`: escaped, with its control
/// characters made visible as every renderer but JSON shows them.
pub fn push_id(out: &mut String, id: &str) {
    push(out, &one_line(id));
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

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
