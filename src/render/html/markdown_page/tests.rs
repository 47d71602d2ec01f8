use super::*;

fn literal(lines: &[&'static str], item: Option<u8>) -> Piece<'static> {
    Piece::Literal {
        lines: lines.to_vec(),
        item,
    }
}

#[test]
fn failure_sections_are_literal() {
    let md = "Test FAILURE (0.1s) — 1 run, 1 failed\n\n### FAILED: t.py::x\n\\# not a heading\n  > assert x\n";
    assert_eq!(
        pieces(md),
        vec![
            Piece::Markdown(0..md.find("\\#").unwrap()),
            literal(&["# not a heading", "  > assert x"], None),
        ]
    );
    assert!(
        to_html(md, None).contains("<pre><code># not a heading\n  &gt; assert x\n</code></pre>")
    );
}

#[test]
fn list_item_detail_stays_in_the_item_and_the_list_goes_on() {
    let md = "### COLLECTION ERROR: t.py\n- L6 — SyntaxError: expected ':'\n  for n in range(5)\n                   ^\n- L9 — E\n  x\n";
    let html = to_html(md, None);
    assert_eq!(html.matches("<ul>").count(), 1, "{html}");
    assert!(
        html.contains("<li>L6 — SyntaxError: expected ':'\n<pre><code>for n in range(5)\n                 ^\n</code></pre>\n</li>\n<li>L9 — E"),
        "{html}"
    );
}

#[test]
fn backticks_and_markup_in_a_literal_stay_text() {
    let html = to_html("### FAILED: t\n````\n  ``` <b>x</b> [a](http://x)\n", None);
    assert!(
        html.contains("<pre><code>````\n  ``` &lt;b&gt;x&lt;/b&gt; [a](http://x)\n</code></pre>"),
        "{html}"
    );
}
