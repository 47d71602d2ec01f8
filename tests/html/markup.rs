//! What every HTML page must be, read from its text: one document, only
//! the elements and attributes the renderer writes, nothing that loads or
//! runs but the report's own script.

use sha2::{Digest as _, Sha256};

/// The report's script and style, as the template files hold them.
pub const SCRIPT: &str = include_str!("../../templates/report.js");
pub const STYLE: &str = include_str!("../../templates/report.css");

/// What pulldown-cmark and the report write for text: `&`, `<`, `>` escaped.
pub fn text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// What the report writes for text: quotes escaped too.
pub fn report_text(s: &str) -> String {
    text(s).replace('"', "&quot;").replace('\'', "&#39;")
}

/// One tag of the page: its name (lowercase, `/p` for an end tag) and
/// attributes.
#[derive(Debug)]
pub struct TagInfo {
    pub name: String,
    pub attrs: Vec<(String, String)>,
}

/// The page with the text of its `<style>` and `<script>` elements taken
/// out, after checking the script is the template's (the only raw text a page
/// holds; a test's text is always escaped).
fn without_raw_text(page: &str) -> String {
    let mut page = page.to_string();
    for (open, close, allowed) in [
        ("<style>", "</style>", None),
        ("<script>", "</script>", Some(SCRIPT)),
    ] {
        let Some(start) = page.find(open) else {
            continue;
        };
        let body_start = start + open.len();
        let end = page[body_start..].find(close).expect("closed") + body_start;
        let body = &page[body_start..end];
        // The Markdown page has a style of its own; a script only the report.
        if let Some(allowed) = allowed {
            assert_eq!(body, allowed, "{open} is not the template's");
        }
        page.replace_range(body_start..end, "");
    }
    page
}

/// Every tag in the page. Text never holds a raw `<` (it is escaped), so
/// every `<` outside the style and the script opens a tag, and a tag
/// smuggled in by test output would show up here.
pub fn tags(page: &str) -> Vec<TagInfo> {
    let page = without_raw_text(page);
    let mut out = Vec::new();
    let mut rest = page.as_str();
    while let Some(start) = rest.find('<') {
        let after = &rest[start + 1..];
        let end = after
            .find('>')
            .unwrap_or_else(|| panic!("unclosed tag at {:?}", &after[..after.len().min(80)]));
        let inner = &after[..end];
        rest = &after[end + 1..];
        let name_len = inner
            .find(|c: char| c.is_whitespace() || c == '>')
            .unwrap_or(inner.len());
        let name = inner[..name_len].trim_end_matches('/').to_lowercase();
        out.push(TagInfo {
            name,
            attrs: attributes(&inner[name_len..]),
        });
    }
    out
}

fn attributes(s: &str) -> Vec<(String, String)> {
    let mut attrs = Vec::new();
    let mut s = s.trim_start();
    while !s.is_empty() && s != "/" {
        let n = s
            .find(|c: char| c == '=' || c.is_whitespace())
            .unwrap_or(s.len());
        let attr = s[..n].to_lowercase();
        s = s[n..].trim_start();
        let value = if let Some(v) = s.strip_prefix('=') {
            let v = v.trim_start();
            let (value, remaining) = match v.chars().next() {
                Some(q @ ('"' | '\'')) => {
                    let close = v[1..].find(q).expect("closing quote") + 1;
                    (&v[1..close], &v[close + 1..])
                }
                _ => {
                    let e = v.find(char::is_whitespace).unwrap_or(v.len());
                    (&v[..e], &v[e..])
                }
            };
            s = remaining.trim_start();
            value.to_string()
        } else {
            String::new()
        };
        attrs.push((attr, value));
    }
    attrs
}

const ELEMENTS: &[&str] = &[
    "!doctype",
    "html",
    "head",
    "meta",
    "title",
    "style",
    "script",
    "body",
    "header",
    "main",
    "nav",
    "section",
    "article",
    "footer",
    "div",
    "h1",
    "h2",
    "h3",
    "h4",
    "p",
    "pre",
    "code",
    "ul",
    "ol",
    "li",
    "blockquote",
    "br",
    "hr",
    "em",
    "strong",
    "del",
    "b",
    "i",
    "small",
    "span",
    "a",
    "details",
    "summary",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "svg",
    "rect",
    // The trend's chart (a history of runs): a group per run with its
    // title, lines, the durations' line and dots, labels.
    "g",
    "line",
    "polyline",
    "circle",
    "text",
    "form",
    "fieldset",
    "legend",
    "label",
    "input",
    "select",
    "option",
    "output",
];
const ATTRIBUTES: &[&str] = &[
    "lang",
    "charset",
    "name",
    "content",
    "http-equiv",
    "class",
    "start",
    "style",
    "id",
    "href",
    "open",
    "hidden",
    "type",
    "value",
    "checked",
    "placeholder",
    "aria-label",
    "title",
    "data-o",
    "data-s",
    "role",
    "viewbox",
    "preserveaspectratio",
    "x",
    "y",
    "width",
    "height",
    "x1",
    "y1",
    "x2",
    "y2",
    "points",
    "cx",
    "cy",
    "r",
];

/// Only the elements and attributes the renderers write; no URL anywhere
/// but links within the page; one script at most, the template's.
pub fn assert_safe_markup(page: &str) {
    for tag in tags(page) {
        let element = tag.name.trim_start_matches('/');
        assert!(ELEMENTS.contains(&element), "unexpected element {tag:?}");
        if element == "!doctype" {
            assert_eq!(tag.attrs, [("html".to_string(), String::new())]);
            continue;
        }
        for (attr, value) in &tag.attrs {
            assert!(
                ATTRIBUTES.contains(&attr.as_str()),
                "unexpected attribute {attr} in {tag:?}"
            );
            if attr == "style" {
                assert!(value.starts_with("text-align:"), "inline style {tag:?}");
            }
            if attr == "href" {
                assert!(value.starts_with('#'), "a link out of the page: {tag:?}");
            }
            assert!(!value.contains("://"), "a URL in {tag:?}");
            assert!(!value.to_lowercase().contains("url("), "url( in {tag:?}");
        }
    }
    let lower = page.to_lowercase();
    assert!(
        lower.matches("<script").count() <= 1,
        "more than one script"
    );
    assert!(lower.matches("</script").count() <= 1, "a second </script>");
    let style = page
        .split_once("<style>")
        .and_then(|(_, s)| s.split_once("</style>"))
        .map(|(s, _)| s)
        .expect("the page has its style inline");
    for bad in ["url(", "@import", "://", "<"] {
        assert!(!style.contains(bad), "{bad} in the stylesheet");
    }
    for bad in [
        "<img", "<link", "<iframe", "<object", "<embed", "<base", "<image", "<use", "<foreign",
    ] {
        assert!(!lower.contains(bad), "{bad} in the page");
    }
    // The header's bar of outcomes, and the trend's chart with a history.
    assert!(lower.matches("<svg ").count() <= 2, "more SVGs than ours");
}

/// One document: a doctype, one `<html>`, `<head>`, `<title>`, `<body>`,
/// and a Content-Security-Policy that loads nothing.
pub fn assert_one_document(page: &str, title: &str) {
    assert!(page.starts_with("<!DOCTYPE html>\n"), "no doctype");
    assert!(
        page.trim_end().ends_with("</html>"),
        "does not end the document"
    );
    for tag in ["<html", "<head>", "</head>", "<body>", "</body>"] {
        assert_eq!(page.matches(tag).count(), 1, "{tag} is not there once");
    }
    // One in the head (the trend's chart has one per run, in the body).
    let (head, _) = page.split_once("</head>").expect("a head");
    assert_eq!(head.matches("<title>").count(), 1);
    assert!(
        page.contains(&format!("<title>{}</title>", report_text(title)))
            || page.contains(&format!("<title>{}</title>", text(title))),
        "title missing"
    );
    assert!(page.contains("<meta charset=\"utf-8\">"));
    assert!(
        page.contains("Content-Security-Policy\" content=\"default-src 'none'"),
        "the page has no CSP that forbids loads"
    );
    if !title.contains("{{") {
        assert!(!page.contains("{{"), "a placeholder is left");
    }
}

/// The report's CSP: `default-src 'none'`, its style and script by hash,
/// nothing unsafe.
pub fn assert_strict_csp(page: &str) {
    let hash = |s: &str| {
        use base64::Engine as _;
        let digest = Sha256::digest(s.as_bytes());
        format!(
            "'sha256-{}'",
            base64::engine::general_purpose::STANDARD.encode(digest)
        )
    };
    let csp = format!(
        "content=\"default-src 'none'; style-src {}; script-src {}; base-uri 'none'; form-action 'none'\"",
        hash(STYLE),
        hash(SCRIPT)
    );
    assert!(page.contains(&csp), "the CSP is not {csp}");
    assert!(!page.contains("unsafe-"), "an unsafe- source in the report");
    assert!(page.contains(&format!("<script>{SCRIPT}</script>")));
    assert!(page.contains(&format!("<style>{STYLE}</style>")));
}
