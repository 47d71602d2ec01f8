//! A page of Markdown: what `--format html` answers when there is no run
//! to report (a timeout, a crash, a refused parameter, discovery), made
//! from that answer's Markdown through pulldown-cmark, inside
//! `templates/markdown_page.html`. Runs get [`super::report`].
//!
//! The page is self-contained: inline CSS, no script, no URL of any kind, and
//! a Content-Security-Policy of `default-src 'none'` so that a browser loads
//! nothing even if something slipped through.
//!
//! Two things the Markdown alone would get wrong:
//!
//! - **Detail lines.** The report indents detail two spaces, which CommonMark
//!   reads as paragraph text: the indentation is lost, `> source` lines become
//!   quotes, `+  where` lines lists. So the report's lines are first sorted
//!   into pieces: the body of each `### FAILED` / `### ERROR` section
//!   (message and detail) and every other run of indented lines are shown
//!   in `<pre>`, exactly as written, never read as Markdown; only the lines
//!   between them go through pulldown-cmark. The page is written from the
//!   parser's events with a code block's events put in for each literal
//!   piece, never from rewritten Markdown.
//! - **Test output is not markup.** Raw HTML (`<script>`, `<img onerror>`) in
//!   ids, reasons or notes is shown as text, and links and images as the
//!   Markdown that wrote them, so the page holds only the tags pulldown-cmark
//!   and the template write.

use std::ops::Range;

use super::escape::escape;
use crate::render::view::Tone;
use pulldown_cmark::{CodeBlockKind, CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// The page; `{{title}}` and `{{body}}` are filled in.
const TEMPLATE: &str = include_str!("../../../templates/markdown_page.html");

/// Renders a Markdown text (see [`crate::render::markdown`]) as a complete
/// HTML page titled `title`; `tone`, the status of what it shows, colours
/// its first line (none: a line that is no status, a refused parameter).
pub fn markdown_page(markdown: &str, title: &str, tone: Option<Tone>) -> String {
    let body = to_html(markdown, tone);
    let title = escape(title);
    let (head, tail) = TEMPLATE.split_once("{{body}}").unwrap_or((TEMPLATE, ""));
    let mut page = String::with_capacity(TEMPLATE.len() + body.len() + 2 * title.len());
    // Filled in the template's text only: a title holding `{{body}}` stays text.
    page.push_str(&head.replace("{{title}}", &title));
    page.push_str(&body);
    page.push_str(&tail.replace("{{title}}", &title));
    page
}

/// A run of the report's lines.
#[derive(Debug, PartialEq)]
enum Piece<'a> {
    /// Lines read as Markdown: their byte range in the report.
    Markdown(Range<usize>),
    /// Lines shown exactly as written, in `<pre>`. `item` is the bullet of
    /// the list item they are the detail of, if any.
    Literal {
        lines: Vec<&'a str>,
        item: Option<u8>,
    },
}

/// Sorts the report's lines into [`Piece`]s.
fn pieces(markdown: &str) -> Vec<Piece<'_>> {
    let mut out = Pieces::new(markdown);
    let lines: Vec<&str> = out.lines.iter().map(|(_, l)| *l).collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(heading) = line.strip_prefix("### ") {
            out.markdown_line(i);
            i += 1;
            if is_problem_heading(heading) {
                // The whole section: the message flush left, detail indented.
                let end = lines[i..]
                    .iter()
                    .position(|l| l.trim().is_empty() || l.starts_with("### "))
                    .map_or(lines.len(), |n| i + n);
                if end > i {
                    out.literal(i, message_block(&lines[i..end]));
                }
                i = end;
            }
            continue;
        }
        if is_indented(line) {
            // Indented lines under a heading (`### OUTPUT`): the block alone.
            let end = indented_run_end(&lines, i);
            out.literal(i, unindented(&lines[i..end], None));
            i = end;
            continue;
        }
        let end = indented_run_end(&lines, i + 1);
        if end == i + 1 || line.trim().is_empty() || line.starts_with(['>', '|']) {
            out.markdown_line(i);
            i += 1;
        } else if is_list_item(line) {
            // `- item` and its detail: the block goes inside the item.
            out.markdown_line(i);
            let bullet = line.bytes().next();
            out.literal(i + 1, unindented(&lines[i + 1..end], bullet));
            i = end;
        } else {
            // A line with detail under it: one block, as in a failure.
            out.literal(i, message_block(&lines[i..end]));
            i = end;
        }
    }
    out.finish()
}

/// The [`Piece`]s of a report as they are found.
struct Pieces<'a> {
    markdown: &'a str,
    /// Each line (without its line break) and the byte offset it starts at.
    lines: Vec<(usize, &'a str)>,
    pieces: Vec<Piece<'a>>,
    /// The first line of the Markdown lines not yet in `pieces`.
    run: Option<usize>,
}

impl<'a> Pieces<'a> {
    fn new(markdown: &'a str) -> Self {
        let mut at = 0;
        let lines = markdown
            .split_inclusive('\n')
            .map(|l| {
                let start = at;
                at += l.len();
                let l = l.strip_suffix('\n').unwrap_or(l);
                (start, l.strip_suffix('\r').unwrap_or(l))
            })
            .collect();
        Pieces {
            markdown,
            lines,
            pieces: Vec::new(),
            run: None,
        }
    }

    /// Where line `i` starts (the end of the text for the line after the last).
    fn offset(&self, i: usize) -> usize {
        self.lines.get(i).map_or(self.markdown.len(), |(at, _)| *at)
    }

    /// Line `i` is read as Markdown.
    fn markdown_line(&mut self, i: usize) {
        self.run.get_or_insert(i);
    }

    /// A literal piece from line `i` on, after the Markdown lines before it.
    fn literal(&mut self, i: usize, piece: Piece<'a>) {
        if let Some(start) = self.run.take() {
            let range = self.offset(start)..self.offset(i);
            self.pieces.push(Piece::Markdown(range));
        }
        self.pieces.push(piece);
    }

    fn finish(mut self) -> Vec<Piece<'a>> {
        if let Some(start) = self.run.take() {
            let range = self.offset(start)..self.markdown.len();
            self.pieces.push(Piece::Markdown(range));
        }
        self.pieces
    }
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

/// Indented lines without their first two spaces.
fn unindented<'a>(lines: &[&'a str], item: Option<u8>) -> Piece<'a> {
    let lines = lines.iter().map(|l| &l[2..]).collect();
    Piece::Literal { lines, item }
}

/// A message and its detail, with the backslash the Markdown renderer puts
/// before a message starting with `#` or `>` taken off again.
fn message_block<'a>(lines: &[&'a str]) -> Piece<'a> {
    let mut lines = lines.to_vec();
    if let Some(first) = lines.first_mut()
        && let Some(rest) = first.strip_prefix('\\')
        && rest.starts_with(['#', '>'])
    {
        *first = rest;
    }
    Piece::Literal { lines, item: None }
}

/// An event and the byte range of the report it stands for.
type Spanned<'a> = (Event<'a>, Range<usize>);

/// The events of the whole report: the parser's for each Markdown piece,
/// with their ranges in the report, and a code block for each literal one.
/// A literal piece under a list item goes inside the item, and an item
/// right after it continues the list, as when the detail is indented under
/// the item. (Loose lists, with blank lines between items, do not come
/// with detail in a report.)
fn events(markdown: &str) -> Vec<Spanned<'_>> {
    let mut events: Vec<Spanned<'_>> = Vec::new();
    // The bullet of a list left open after an item's detail.
    let mut open_list: Option<u8> = None;
    let end_list = |at: usize| (Event::End(TagEnd::List(false)), at..at);
    for piece in pieces(markdown) {
        match piece {
            Piece::Markdown(range) => {
                let text = &markdown[range.clone()];
                let mut parsed = Parser::new_ext(text, Options::ENABLE_TABLES)
                    .into_offset_iter()
                    .map(|(e, r)| (e, r.start + range.start..r.end + range.start))
                    .peekable();
                if let Some(bullet) = open_list.take() {
                    let next_item = text.as_bytes().first() == Some(&bullet)
                        && matches!(parsed.peek(), Some((Event::Start(Tag::List(None)), _)));
                    match next_item {
                        true => drop(parsed.next()),
                        false => events.push(end_list(range.start)),
                    }
                }
                events.extend(parsed);
            }
            Piece::Literal { lines, item } => {
                let at = events.last().map_or(0, |(_, r)| r.end);
                if open_list.take().is_some() {
                    events.push(end_list(at));
                }
                let in_item = item.is_some()
                    && matches!(
                        events.as_slice(),
                        [
                            ..,
                            (Event::End(TagEnd::Item), _),
                            (Event::End(TagEnd::List(false)), _)
                        ]
                    );
                if in_item {
                    events.truncate(events.len() - 2);
                    open_list = item;
                }
                code_block(&mut events, &lines, at);
                if in_item {
                    events.push((Event::End(TagEnd::Item), at..at));
                }
            }
        }
    }
    if open_list.is_some() {
        events.push(end_list(markdown.len()));
    }
    events
}

/// A code block of `lines`, shown as written (a NUL as U+FFFD, as the
/// parser reads it).
fn code_block<'a>(events: &mut Vec<Spanned<'a>>, lines: &[&'a str], at: usize) {
    let mut text = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    let text = text.replace('\0', "\u{FFFD}");
    let kind = CodeBlockKind::Fenced(CowStr::Borrowed(""));
    events.push((Event::Start(Tag::CodeBlock(kind)), at..at));
    events.push((Event::Text(text.into()), at..at));
    events.push((Event::End(TagEnd::CodeBlock), at..at));
}

/// The report as HTML: its events, with raw HTML, links and images turned
/// into text.
fn to_html(markdown: &str, tone: Option<Tone>) -> String {
    let events = events(markdown);
    let mut page = Page {
        markdown,
        summary: tone.map(summary_class),
        out: Vec::with_capacity(events.len()),
        in_summary: false,
        items: 0,
        paragraph_for_html: false,
        html_line_open: false,
    };
    let mut i = 0;
    while i < events.len() {
        i = page.event(&events, i);
    }
    let mut html = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, page.out.into_iter());
    html
}

/// The events of the page, as they are made from the report's.
struct Page<'a> {
    markdown: &'a str,
    /// The class of the header line, if the report has one.
    summary: Option<&'static str>,
    out: Vec<Event<'a>>,
    in_summary: bool,
    /// List items entered and not left: an HTML block in one is not wrapped
    /// in a paragraph (a tight list has none).
    items: usize,
    paragraph_for_html: bool,
    /// A line of an HTML block was shown: the next one goes on a new line.
    html_line_open: bool,
}

impl<'a> Page<'a> {
    /// Takes in the event at `i`; returns the index of the next one to take.
    fn event(&mut self, events: &[Spanned<'a>], i: usize) -> usize {
        let (event, range) = &events[i];
        match event {
            // The header line: styled by the run's status.
            Event::Start(Tag::Paragraph) if i == 0 && self.summary.is_some() => {
                let class = self.summary.unwrap_or_default();
                let tag = format!("<p class=\"summary {class}\">");
                self.out.push(Event::Html(tag.into()));
                self.in_summary = true;
            }
            Event::End(TagEnd::Paragraph) if self.in_summary => {
                self.out.push(Event::Html("</p>\n".into()));
                self.in_summary = false;
            }
            Event::Start(Tag::Heading {
                level: HeadingLevel::H3,
                ..
            }) => {
                let class = heading_class(events.get(i + 1).map(|(e, _)| e));
                self.out.push(Event::Start(Tag::Heading {
                    level: HeadingLevel::H3,
                    id: None,
                    classes: class.map(CowStr::from).into_iter().collect(),
                    attrs: Vec::new(),
                }));
            }
            // A link or an image is shown as the Markdown that wrote it: no
            // URL reaches an attribute, nothing is loaded or followed.
            Event::Start(Tag::Link { .. } | Tag::Image { .. }) => {
                self.out
                    .push(Event::Text(self.markdown[range.clone()].into()));
                return after_end(events, i);
            }
            Event::Start(Tag::Item) => {
                self.items += 1;
                self.out.push(event.clone());
            }
            Event::End(TagEnd::Item) => {
                self.items -= 1;
                self.out.push(event.clone());
            }
            Event::Start(Tag::HtmlBlock) | Event::End(TagEnd::HtmlBlock) | Event::Html(_) => {
                self.html(event);
            }
            Event::InlineHtml(html) => self.out.push(Event::Text(html.clone())),
            // Every line break of the report means something.
            Event::SoftBreak => self.out.push(Event::HardBreak),
            other => self.out.push(other.clone()),
        }
        i + 1
    }

    /// Raw HTML is shown as the text it is, line by line.
    fn html(&mut self, event: &Event<'a>) {
        match event {
            Event::Start(Tag::HtmlBlock) => {
                self.paragraph_for_html = self.items == 0;
                if self.paragraph_for_html {
                    self.out.push(Event::Start(Tag::Paragraph));
                }
            }
            Event::End(TagEnd::HtmlBlock) => {
                if self.paragraph_for_html {
                    self.out.push(Event::End(TagEnd::Paragraph));
                }
                self.html_line_open = false;
            }
            Event::Html(html) => {
                if self.html_line_open {
                    self.out.push(Event::HardBreak);
                }
                let text = html.strip_suffix('\n').unwrap_or(html);
                self.out.push(Event::Text(CowStr::from(text.to_string())));
                self.html_line_open = true;
            }
            _ => {}
        }
    }
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

/// `bad`, `ok` or `neutral`: the class of the page's header line, from
/// the status of what it shows.
fn summary_class(tone: Tone) -> &'static str {
    match tone {
        Tone::Ok => "ok",
        Tone::Neutral => "neutral",
        Tone::Bad => "bad",
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

#[cfg(test)]
mod tests;
