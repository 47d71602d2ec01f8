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
