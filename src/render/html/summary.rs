//! The parts of the page around the failures and the list: the header
//! with its bar of outcomes, the contents, the comparison with a
//! baseline, the slowest tests and the closing notes.

use foldhash::HashMap;
use std::fmt::Write as _;

use super::escape::{escape, push, push_id};
use super::secs;
use crate::model::baseline::Comparison;
use crate::model::{Counts, Outcome, Phase, Run, TestResult, Xfail};
use crate::render::view::{self, Verdict};
use crate::text::thousands;

/// Tests in the slowest tests' table.
pub const SLOWEST: usize = 10;
/// Width of the bar of outcomes, in the SVG's units.
const BAR: f64 = 1000.0;
/// The least width of an outcome that happened: one failure among 100,000
/// tests stays visible (taken from the widest part).
const BAR_MIN: f64 = 4.0;

/// The header: title, status, duration, counts and their bar.
pub fn header(out: &mut String, run: &Run, c: &Counts, title: &str) {
    let of = view::status_with(run, c);
    let status = of.verdict.word();
    let class = match of.verdict {
        Verdict::Success => "ok",
        Verdict::NoTests => "none",
        _ => "bad",
    };
    let _ = write!(out, "<header class=\"top {class}\">\n<h1>");
    push(out, title);
    let _ = write!(
        out,
        "</h1>\n<p class=status><b class=word>{status}</b> <span>{} {} in {}</span></p>\n",
        thousands(c.total),
        if c.total == 1 { "test" } else { "tests" },
        secs(run.duration_secs())
    );
    if let Some(reason) = &of.exit_reason {
        let _ = write!(
            out,
            "<p class=reason>{}:</p>\n<pre class=reason>",
            reason.lead()
        );
        push(out, &reason.text);
        out.push_str("</pre>\n");
    }
    bar(out, c);
    out.push_str("<ul class=legend>");
    let parts = [
        ("p", c.passed, "passed"),
        ("f", c.failed, "failed"),
        (
            "e",
            c.errors,
            if c.errors == 1 { "error" } else { "errors" },
        ),
        ("s", c.skipped, "skipped"),
    ];
    for (class, n, word) in parts {
        let _ = write!(out, "<li class={class}><b>{}</b> {word}", thousands(n));
    }
    let extra = [
        (c.xfailed, "xfailed"),
        (c.xpassed, "xpassed"),
        (c.flaky + c.flaky_failures, "flaky"),
        // Counted among the failed, as pytest counts them.
        (c.subtests_failed, "failed subtests"),
        (c.collection_errors, "collection errors"),
        (c.warnings, "warnings"),
    ];
    for (n, word) in extra.into_iter().filter(|(n, _)| *n > 0) {
        let _ = write!(out, "<li class=x><b>{}</b> {word}", thousands(n));
    }
    out.push_str("</ul>\n</header>\n");
}

/// The bar of outcomes: passed, failed, error, skipped, each as wide as
/// its share of the tests ([`BAR_MIN`] at least when there is one).
fn bar(out: &mut String, c: &Counts) {
    let parts = [
        ("p", c.passed),
        ("f", c.failed),
        ("e", c.errors),
        ("s", c.skipped),
    ];
    let total = c.total.max(1) as f64;
    let mut widths: Vec<f64> = parts
        .iter()
        .map(|&(_, n)| match n {
            0 => 0.0,
            n => (n as f64 / total * BAR).max(BAR_MIN),
        })
        .collect();
    let over: f64 = widths.iter().sum::<f64>() - if c.total > 0 { BAR } else { 0.0 };
    if let Some(widest) = widths.iter_mut().max_by(|a, b| a.total_cmp(b)) {
        *widest -= over.max(0.0);
    }
    let label = parts
        .iter()
        .zip(["passed", "failed", "errors", "skipped"])
        .map(|((_, n), w)| format!("{n} {w}"))
        .collect::<Vec<_>>()
        .join(", ");
    let _ = write!(
        out,
        "<svg class=bar viewBox=\"0 0 1000 12\" preserveAspectRatio=none role=img aria-label=\"{label}\">"
    );
    let mut x = 0.0;
    for ((class, _), w) in parts.iter().zip(widths) {
        if w > 0.0 {
            let _ = write!(
                out,
                "<rect class={class} x=\"{x:.1}\" width=\"{w:.1}\" height=12></rect>"
            );
        }
        x += w;
    }
    if c.total == 0 {
        out.push_str("<rect class=n x=0 width=1000 height=12></rect>");
    }
    out.push_str("</svg>\n");
}

/// Which of the page's optional sections it has, for its contents.
pub struct Sections {
    pub baseline: bool,
    /// Failure groups.
    pub groups: usize,
    pub flaky: bool,
    pub slowest: bool,
    /// The trend of the history's runs.
    pub trend: bool,
    /// Tests slower than usual.
    pub slower: bool,
}

/// Links to the page's sections.
pub fn contents(out: &mut String, run: &Run, shown: &Sections) {
    out.push_str("<nav class=toc>");
    if shown.trend {
        out.push_str("<a href=\"#trend\">Trend</a>");
    }
    if shown.baseline {
        out.push_str("<a href=\"#baseline\">Baseline</a>");
    }
    if shown.groups > 0 || !run.collection_errors.is_empty() {
        out.push_str("<a href=\"#failures\">Failures</a>");
    }
    if shown.flaky {
        out.push_str("<a href=\"#flaky\">Flaky</a>");
    }
    if run.coverage.is_some() {
        out.push_str("<a href=\"#coverage\">Change coverage</a>");
    }
    if shown.slower {
        out.push_str("<a href=\"#slower\">Slower than usual</a>");
    }
    if shown.slowest {
        out.push_str("<a href=\"#slowest\">Slowest</a>");
    }
    out.push_str("<a href=\"#tests\">All tests</a></nav>\n");
}

/// The comparison with the baseline: new failures first (linked to their
/// group), fixed tests, then the failures that were already there
/// (collapsed).
pub fn baseline(out: &mut String, run: &Run, c: &Comparison, group_of: &HashMap<usize, usize>) {
    let index: HashMap<&str, usize> = run
        .tests
        .iter()
        .enumerate()
        .filter(|(_, t)| t.is_problem())
        .map(|(i, t)| (t.node_id.as_str(), i))
        .collect();
    let group = |id: &str| index.get(id).and_then(|i| group_of.get(i)).copied();
    out.push_str("<section id=baseline>\n<h2>Compared with the baseline</h2>\n<p class=phrase>");
    push(out, &c.phrase());
    out.push_str("</p>\n<div class=changes>\n");
    let lists = [
        ("new", "New failures", &c.new_failures, true),
        ("fixed", "Fixed", &c.fixed, true),
        ("still", "Still failing", &c.still_failing, false),
    ];
    for (class, title, ids, open) in lists {
        let open = if open { " open" } else { "" };
        let _ = write!(
            out,
            "<details class=\"chg {class}\"{open}><summary>{title} <b>{}</b></summary>",
            thousands(ids.len())
        );
        if ids.is_empty() {
            out.push_str("<p class=none>none</p>");
        } else {
            out.push_str("<ul class=ids>");
            for id in ids.iter() {
                id_item(out, id, group(id));
            }
            out.push_str("</ul>");
        }
        out.push_str("</details>\n");
    }
    out.push_str("</div>\n</section>\n");
}

/// An id in a list, linked to its failure group when it has one.
fn id_item(out: &mut String, id: &str, group: Option<usize>) {
    out.push_str("<li>");
    if let Some(g) = group {
        let _ = write!(out, "<a href=\"#g{g}\">");
        push_id(out, id);
        out.push_str("</a>");
    } else {
        push_id(out, id);
    }
}

/// The slowest tests ([`crate::render::view::slowest`]: indices and seconds, slowest
/// first), their outcomes linked to their groups.
pub fn slowest(
    out: &mut String,
    run: &Run,
    timed: &[(usize, f64)],
    group_of: &HashMap<usize, usize>,
) {
    if timed.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "<section id=slowest>\n<h2>Slowest tests</h2>\n<table class=\"t slow\"><tbody>\n"
    );
    for &(i, d) in timed {
        let t = &run.tests[i];
        let _ = write!(out, "<tr class={}><td>", outcome_class(t));
        push_id(out, &t.node_id);
        out.push_str("<td>");
        outcome_cell(out, t, group_of.get(&i).copied());
        let _ = writeln!(out, "<td>{}", secs(d));
    }
    out.push_str("</tbody></table>\n</section>\n");
}

/// The one-letter class of a test's row: `p`, `f`, `e`, `s`.
pub fn outcome_class(t: &TestResult) -> &'static str {
    match t.outcome {
        Outcome::Passed => "p",
        Outcome::Failed => "f",
        Outcome::Error => "e",
        Outcome::Skipped => "s",
    }
}

/// The outcome as a word, linked to the failure's group when it has one.
pub fn outcome_cell(out: &mut String, t: &TestResult, group: Option<usize>) {
    let word = match (t.outcome, t.xfail, t.phase) {
        (_, Some(Xfail::XFailed), _) => "xfailed",
        (_, Some(Xfail::XPassed), _) => "xpassed",
        (Outcome::Passed, ..) if t.is_flaky() => "flaky",
        (Outcome::Error, _, Some(Phase::Setup)) => "error at setup",
        (Outcome::Error, _, Some(Phase::Teardown)) => "error at teardown",
        (o, ..) => o.as_str(),
    };
    match group {
        Some(g) => {
            let _ = write!(out, "<a href=\"#g{g}\">{word}</a>");
        }
        None => out.push_str(word),
    }
}

/// The run's closing notes (its sources, what the readers noticed).
pub fn notes(out: &mut String, run: &Run) {
    // A person reads where the results came from even when all is well
    // (the agent's answer leaves that out).
    let sources = (!run.sources.is_empty()).then(|| view::sources_note(run));
    let lines: Vec<&str> = sources
        .iter()
        .chain(&run.notes)
        .flat_map(|n| n.lines())
        .collect();
    let shards = view::shards(run);
    let shard_lines = shards.iter().flat_map(view::Shards::lines);
    if lines.is_empty() && shards.is_none() {
        return;
    }
    out.push_str("<footer><ul class=notes>");
    // The shards against their plan first, their ids in code.
    for line in shard_lines {
        out.push_str("<li>");
        out.push_str(&line.format(
            |t| escape(t).into_owned(),
            |id| {
                let mut code = String::from("<code>");
                push_id(&mut code, id);
                code + "</code>"
            },
        ));
    }
    for line in lines {
        out.push_str("<li>");
        push(out, line);
    }
    out.push_str("</ul><p class=gen>Made by pytest-mcp</p></footer>\n");
}

#[cfg(test)]
mod tests;
