//! The failures: collection errors, then one block per root-cause group
//! ([`crate::render::view::failure_groups`], the groups of every output),
//! open, its code block the detail the Markdown's section shows; then
//! flaky tests.

use std::fmt::Write as _;

use super::escape::{push, push_id};
use super::history;
use crate::model::{Run, TestResult};
use crate::render::view::failure::{self, Detail};
use crate::render::view::{self, Group};
use crate::text::{one_line, thousands};

/// Other ids of a group listed before the rest fold into `<details>`.
const LISTED_IDS: usize = 20;

/// The failures section, when the run has any problem, and the flaky
/// tests.
pub fn write(out: &mut String, run: &Run, groups: &[Group<'_>], flaky: &[&TestResult]) {
    if groups.is_empty() && run.collection_errors.is_empty() {
        flaky_tests(out, flaky);
        return;
    }
    let tests: usize = groups.iter().map(|g| g.count).sum();
    out.push_str("<section id=failures>\n<h2>Failures <span class=n>");
    let mut parts = Vec::new();
    if !run.collection_errors.is_empty() {
        parts.push(plural(run.collection_errors.len(), "collection error"));
    }
    if tests > 0 {
        parts.push(format!(
            "{} in {}",
            plural(tests, "test"),
            plural(groups.len(), "group")
        ));
    }
    out.push_str(&parts.join(", "));
    out.push_str("</span></h2>\n");
    collection_errors(out, run);
    for (n, g) in groups.iter().enumerate() {
        group(out, run, n, g);
    }
    out.push_str("</section>\n");
    flaky_tests(out, flaky);
}

fn plural(n: usize, word: &str) -> String {
    match n {
        1 => format!("1 {word}"),
        n => format!("{} {word}s", thousands(n)),
    }
}

/// One group: its kind and first test, how it stands against the history
/// of runs (new, failing since when, flaky at what rate), how many more it
/// hit, its first test's strip of recent outcomes, the first test's detail as the Markdown shows it, and the others'
/// ids.
fn group(out: &mut String, run: &Run, n: usize, g: &Group<'_>) {
    let t = g.first;
    let label = g.label();
    let body = failure::failure_lines(t, Detail::Full);
    let class = if label.starts_with("ERROR") { "e" } else { "f" };
    let flaky = if g.is_flaky() { " k" } else { "" };
    let _ = write!(out, "<article class=\"grp {class}{flaky}\" id=g{n}>\n<h3>");
    // First, floated to the right of the heading's first line.
    history::strip(out, g);
    let _ = write!(out, "<span class=tag>{label}</span> <code>");
    push_id(out, &t.node_id);
    out.push_str("</code>");
    if let Some(mark) = view::history_mark(g) {
        out.push_str(" <span class=hist>");
        push(out, &mark);
        out.push_str("</span>");
    }
    if g.count > 1 {
        let _ = write!(out, " <span class=cnt>×{}</span>", thousands(g.count));
    }
    out.push_str("</h3>\n");
    detail_block(out, &body);
    if g.count > 1 {
        let _ = writeln!(
            out,
            "<p class=same>Same failure in {}:</p>",
            plural(g.count - 1, "more test")
        );
        let others: Vec<&str> = g.tests[1..]
            .iter()
            .filter_map(|&i| run.tests.get(i))
            .map(|t| t.node_id.as_str())
            .collect();
        id_list(out, &others);
    }
    out.push_str("</article>\n");
}

/// A failure's detail in `<pre>`, line by line as the Markdown writes it
/// (the message flush left, the rest indented), with the kinds of line
/// marked for the eye: the message, `at file:line`, the failing source
/// line, captured output headings.
fn detail_block(out: &mut String, body: &str) {
    out.push_str("<pre class=detail>");
    let mut in_message = true;
    for (i, line) in body.lines().enumerate() {
        // The Markdown's backslash before a message starting `#` or `>`.
        let line = match line.strip_prefix('\\') {
            Some(rest) if i == 0 && rest.starts_with(['#', '>']) => rest,
            _ => line,
        };
        let detail = line.strip_prefix("  ");
        let class = match detail {
            None if in_message => Some("m"),
            Some(d) if d.starts_with("at ") => Some("at"),
            Some(d) if d.starts_with("> ") => Some("src"),
            Some(d) if d.starts_with("Captured ") && d.ends_with(':') => Some("cap"),
            _ => None,
        };
        if class.is_some_and(|c| c != "m") {
            in_message = false;
        }
        match class {
            Some(c) => {
                let _ = write!(out, "<span class={c}>");
                push(out, line);
                out.push_str("</span>\n");
            }
            None => {
                push(out, line);
                out.push('\n');
            }
        }
    }
    out.push_str("</pre>\n");
}

/// Ids, the first [`LISTED_IDS`] shown, the rest in `<details>`.
fn id_list(out: &mut String, ids: &[&str]) {
    let shown = if ids.len() <= LISTED_IDS + 5 {
        ids.len()
    } else {
        LISTED_IDS
    };
    out.push_str("<ul class=ids>");
    for id in &ids[..shown] {
        out.push_str("<li>");
        push_id(out, id);
    }
    out.push_str("</ul>\n");
    if shown < ids.len() {
        let _ = write!(
            out,
            "<details class=more><summary>{} more</summary><ul class=ids>",
            thousands(ids.len() - shown)
        );
        for id in &ids[shown..] {
            out.push_str("<li>");
            push_id(out, id);
        }
        out.push_str("</ul></details>\n");
    }
}

/// Collection errors by file, each error's first line and its detail
/// lines as every output shows them ([`failure::collection_error_lines`]).
fn collection_errors(out: &mut String, run: &Run) {
    for (file, errors) in failure::collection_errors_by_file(run) {
        out.push_str(
            "<article class=\"grp e\">\n<h3><span class=tag>COLLECTION ERROR</span> <code>",
        );
        push(out, &failure::clip(&one_line(file)));
        out.push_str("</code></h3>\n<pre class=detail>");
        for e in errors {
            // Clipped as a list item's line is, without its bullet.
            let head = format!("- {}", failure::collection_error_head(e));
            let head = failure::clip(&head);
            out.push_str("<span class=m>");
            push(out, head.strip_prefix("- ").unwrap_or(&head));
            out.push_str("</span>\n");
            for line in failure::collection_error_lines(e) {
                push(out, "  ");
                push(out, &failure::clip(&line));
                out.push('\n');
            }
        }
        out.push_str("</pre>\n</article>\n");
    }
}

/// Tests that passed only after failing attempts ([`crate::render::view::flaky`]).
fn flaky_tests(out: &mut String, flaky: &[&TestResult]) {
    if flaky.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "<section id=flaky>\n<h2>Flaky <span class=n>{} passed after failing</span></h2>\n<ul class=flaky>",
        plural(flaky.len(), "test")
    );
    for t in flaky {
        out.push_str("<li><code>");
        push_id(out, &t.node_id);
        out.push_str("</code> ");
        push(out, &t.flaky_summary());
    }
    out.push_str("</ul>\n</section>\n");
}
