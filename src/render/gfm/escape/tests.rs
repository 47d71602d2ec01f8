use super::*;

#[test]
fn code_spans_hold_any_text() {
    assert_eq!(code_span("a"), "`a`");
    assert_eq!(code_span("a`b"), "``a`b``");
    assert_eq!(code_span("`x`"), "`` `x` ``");
    assert_eq!(code_span("a\nb"), "`a\\nb`");
    assert_eq!(code_span(""), "` `");
    assert_eq!(code_span(" x "), "`  x  `");
}

#[test]
fn bidi_controls_are_shown() {
    assert_eq!(
        code_span("t.py::test_\u{202E}cba"),
        "`t.py::test_\\u{202e}cba`"
    );
    assert_eq!(html_code("a\u{200B}b"), "<code>a\\u{200b}b</code>");
}

#[test]
fn fences_are_longer_than_any_run() {
    assert_eq!(fence_for("a"), "```");
    assert_eq!(fence_for("`````"), "``````");
    assert_eq!(
        code_block("x\n````\n"),
        "`````text\nx\n````\n`````\n".to_string()
    );
}

#[test]
fn html_and_text_are_escaped() {
    assert_eq!(
        html_code("<a href=\"x\">&</a>"),
        "<code>&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;</code>"
    );
    assert_eq!(escape_text("a_b @c #1"), "a\\_b \\@\u{2060}c \\#\u{2060}1");
    assert_eq!(
        escape_text("see https://x.org or WWW.x.org"),
        "see https:\u{2060}//x.org or WWW\u{2060}.x.org"
    );
    assert_eq!(escape_text("é.www.é"), "é.www\u{2060}.é");
    assert_eq!(
        html_text("<b>@x & #1 https://y\u{202E}"),
        "&lt;b&gt;@\u{2060}x &amp; #\u{2060}1 https:\u{2060}//y\\u{202e}"
    );
    assert_eq!(url_path("a b/c#d.py"), "a%20b/c%23d.py");
    assert_eq!(url_base("https://x/(y) z"), "https://x/%28y%29%20z");
}
