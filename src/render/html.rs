//! The HTML page (`--format html`): the Markdown report through
//! pulldown-cmark, inside `templates/report.html`.
//!
//! The page is self-contained: inline CSS, no script, no URL of any kind, and
//! a Content-Security-Policy of `default-src 'none'` so that a browser loads
//! nothing even if something slipped through.
//!
//! Two things the Markdown alone would get wrong:
//!
//! - **Detail lines.** The report indents detail two spaces, which CommonMark
//!   reads as paragraph text: the indentation is lost, `> source` lines become
//!   quotes, `+  where` lines lists. So before parsing, the body of each
//!   `### FAILED` / `### ERROR` section (message and detail) and every other
//!   run of indented lines become fenced code blocks: shown in `<pre>`,
//!   exactly as written, never read as Markdown.
//! - **Test output is not markup.** Raw HTML (`<script>`, `<img onerror>`) in
//!   ids, reasons or notes is shown as text, and links and images as the
//!   Markdown that wrote them, so the page holds only the tags pulldown-cmark
//!   and the template write.

use std::fmt::Write as _;
use std::ops::Range;

use pulldown_cmark::{CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// The page; `{{title}}` and `{{body}}` are filled in.
const TEMPLATE: &str = include_str!("../../templates/report.html");

/// Renders a Markdown report (see [`super::markdown`]) as a complete HTML
/// page titled `title`.
pub fn render(markdown: &str, title: &str) -> String {
    let body = to_html(&literal_blocks(markdown));
    let title = escape(title);
    let (head, tail) = TEMPLATE
        .split_once("{{body}}")
        .expect("templates/report.html has a {{body}} placeholder");
    let mut page = String::with_capacity(TEMPLATE.len() + body.len() + 2 * title.len());
    // Filled in the template's text only: a title holding `{{body}}` stays text.
    page.push_str(&head.replace("{{title}}", &title));
    page.push_str(&body);
    page.push_str(&tail.replace("{{title}}", &title));
    page
}

/// Rewrites the line-oriented parts of the report as fenced code blocks.
fn literal_blocks(markdown: &str) -> String {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut out = String::with_capacity(markdown.len() + markdown.len() / 8);
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(heading) = line.strip_prefix("### ") {
            push_line(&mut out, line);
            i += 1;
            if is_problem_heading(heading) {
                // The whole section: the message flush left, detail indented.
                let end = lines[i..]
                    .iter()
                    .position(|l| l.trim().is_empty() || l.starts_with("### "))
                    .map_or(lines.len(), |n| i + n);
                if end > i {
                    fence(&mut out, "", &message_block(&lines[i..end]));
                }
                i = end;
            }
            continue;
        }
        if is_indented(line) {
            // Indented lines under a heading (`### OUTPUT`): the block alone.
            let end = indented_run_end(&lines, i);
            let block: Vec<&str> = lines[i..end].iter().map(|l| &l[2..]).collect();
            fence(&mut out, "", &block);
            i = end;
            continue;
        }
        let end = indented_run_end(&lines, i + 1);
        if end == i + 1 || line.trim().is_empty() || line.starts_with(['>', '|']) {
            push_line(&mut out, line);
            i += 1;
        } else if is_list_item(line) {
            // `- item` and its detail: the block goes inside the item.
            push_line(&mut out, line);
            let block: Vec<&str> = lines[i + 1..end].iter().map(|l| &l[2..]).collect();
            fence(&mut out, "  ", &block);
            i = end;
        } else {
            // A line with detail under it: one block, as in a failure.
            fence(&mut out, "", &message_block(&lines[i..end]));
            i = end;
        }
    }
    out
}

/// `FAILED: id`, `ERROR: id`, `ERROR at setup: id`: a section whose body is
/// a message and detail lines.
fn is_problem_heading(heading: &str) -> bool {
    ["FAILED", "ERROR"].iter().any(|word| {
        heading
            .strip_prefix(word)
            .is_some_and(|rest| rest.starts_with(':') || rest.starts_with(" at "))
    })
}

fn is_indented(line: &str) -> bool {
    line.starts_with("  ") && !line.trim().is_empty()
}

fn is_list_item(line: &str) -> bool {
    line.starts_with("- ") || line.starts_with("* ") || line.starts_with("+ ")
}

/// The end of the run of indented lines starting at `start`.
fn indented_run_end(lines: &[&str], start: usize) -> usize {
    lines
        .get(start..)
        .and_then(|rest| rest.iter().position(|l| !is_indented(l)))
        .map_or(lines.len(), |n| start + n)
        .max(start)
}

/// A message and its detail, with the backslash the Markdown renderer puts
/// before a message starting with `#` or `>` taken off again.
fn message_block<'a>(lines: &[&'a str]) -> Vec<&'a str> {
    let mut block = lines.to_vec();
    if let Some(first) = block.first_mut()
        && let Some(rest) = first.strip_prefix('\\')
        && rest.starts_with(['#', '>'])
    {
        *first = rest;
    }
    block
}

/// A fenced code block, its fence longer than any run of backticks inside so
/// that no line can close it.
fn fence(out: &mut String, indent: &str, lines: &[&str]) {
    let longest = lines
        .iter()
        .flat_map(|l| l.split(|c| c != '`'))
        .map(str::len)
        .max()
        .unwrap_or(0);
    let marker = "`".repeat(longest.max(2) + 1);
    let _ = writeln!(out, "{indent}{marker}");
    for line in lines {
        let _ = writeln!(out, "{indent}{line}");
    }
    let _ = writeln!(out, "{indent}{marker}");
}

fn push_line(out: &mut String, line: &str) {
    out.push_str(line);
    out.push('\n');
}

/// Markdown to HTML, with raw HTML, links and images turned into text.
fn to_html(markdown: &str) -> String {
    let events: Vec<(Event<'_>, Range<usize>)> = Parser::new_ext(markdown, Options::ENABLE_TABLES)
        .into_offset_iter()
        .collect();
    let summary = summary_class(markdown);
    let mut out: Vec<Event<'_>> = Vec::with_capacity(events.len());
    let mut in_summary = false;
    // List items entered and not left: an HTML block in one is not wrapped
    // in a paragraph (a tight list has none).
    let mut items = 0usize;
    let mut paragraph_for_html = false;
    // A line of an HTML block was shown: the next one goes on a new line.
    let mut html_line_open = false;
    let mut i = 0;
    while i < events.len() {
        let (event, range) = &events[i];
        i += 1;
        match event {
            // The header line: styled by the run's status.
            Event::Start(Tag::Paragraph) if i == 1 && summary.is_some() => {
                let class = summary.unwrap_or_default();
                out.push(Event::Html(format!("<p class=\"summary {class}\">").into()));
                in_summary = true;
            }
            Event::End(TagEnd::Paragraph) if in_summary => {
                out.push(Event::Html("</p>\n".into()));
                in_summary = false;
            }
            Event::Start(Tag::Heading {
                level: HeadingLevel::H3,
                ..
            }) => {
                let class = heading_class(events.get(i).map(|(e, _)| e));
                out.push(Event::Start(Tag::Heading {
                    level: HeadingLevel::H3,
                    id: None,
                    classes: class.map(CowStr::from).into_iter().collect(),
                    attrs: Vec::new(),
                }));
            }
            // A link or an image is shown as the Markdown that wrote it: no
            // URL reaches an attribute, nothing is loaded or followed.
            Event::Start(Tag::Link { .. } | Tag::Image { .. }) => {
                out.push(Event::Text(markdown[range.clone()].into()));
                i = after_end(&events, i - 1);
            }
            Event::Start(Tag::Item) => {
                items += 1;
                out.push(event.clone());
            }
            Event::End(TagEnd::Item) => {
                items -= 1;
                out.push(event.clone());
            }
            // Raw HTML is shown as the text it is, line by line.
            Event::Start(Tag::HtmlBlock) => {
                paragraph_for_html = items == 0;
                if paragraph_for_html {
                    out.push(Event::Start(Tag::Paragraph));
                }
            }
            Event::End(TagEnd::HtmlBlock) => {
                if paragraph_for_html {
                    out.push(Event::End(TagEnd::Paragraph));
                }
                html_line_open = false;
            }
            Event::Html(html) => {
                if html_line_open {
                    out.push(Event::HardBreak);
                }
                let text = html.strip_suffix('\n').unwrap_or(html);
                out.push(Event::Text(CowStr::from(text.to_string())));
                html_line_open = true;
            }
            Event::InlineHtml(html) => out.push(Event::Text(html.clone())),
            // Every line break of the report means something.
            Event::SoftBreak => out.push(Event::HardBreak),
            other => out.push(other.clone()),
        }
    }
    let mut html = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, out.into_iter());
    html
}

/// The index after the `End` matching the `Start` at `start`.
fn after_end(events: &[(Event<'_>, Range<usize>)], start: usize) -> usize {
    let mut depth = 0usize;
    for (n, (event, _)) in events.iter().enumerate().skip(start) {
        match event {
            Event::Start(_) => depth += 1,
            Event::End(_) => {
                depth -= 1;
                if depth == 0 {
                    return n + 1;
                }
            }
            _ => {}
        }
    }
    events.len()
}

/// `bad`, `ok` or `neutral` for a report's header line; `None` when the
/// Markdown does not start with one.
fn summary_class(markdown: &str) -> Option<&'static str> {
    let first = markdown.lines().next()?;
    if first.starts_with("Test SUCCESS") {
        Some("ok")
    } else if first.starts_with("Test NO TESTS") {
        Some("neutral")
    } else if first.starts_with("Test ") || first.starts_with("Report ERROR") {
        Some("bad")
    } else {
        None
    }
}

/// `problem` for failures, errors and collection errors, `skipped` for
/// skips, from the heading's first text.
fn heading_class(first: Option<&Event<'_>>) -> Option<&'static str> {
    let Some(Event::Text(text)) = first else {
        return None;
    };
    if is_problem_heading(text) || text.starts_with("COLLECTION ERROR") {
        Some("problem")
    } else if text.starts_with("SKIPPED") {
        Some("skipped")
    } else {
        None
    }
}

/// Text for HTML text and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_sections_become_code_blocks() {
        let md = "Test FAILURE (0.1s) — 1 run, 1 failed\n\n### FAILED: t.py::x\n\\# not a heading\n  > assert x\n";
        assert_eq!(
            literal_blocks(md),
            "Test FAILURE (0.1s) — 1 run, 1 failed\n\n### FAILED: t.py::x\n```\n# not a heading\n  > assert x\n```\n"
        );
    }

    #[test]
    fn fences_outlast_backticks_inside() {
        let md = "### FAILED: t\n````\n  ```\n";
        assert!(literal_blocks(md).contains("\n`````\n````\n  ```\n`````\n"));
    }

    #[test]
    fn list_item_detail_stays_in_the_item() {
        let md = "### COLLECTION ERROR: t.py\n- L6 — SyntaxError: expected ':'\n  for n in range(5)\n                   ^\n";
        assert_eq!(
            literal_blocks(md),
            "### COLLECTION ERROR: t.py\n- L6 — SyntaxError: expected ':'\n  ```\n  for n in range(5)\n                   ^\n  ```\n"
        );
    }
}
