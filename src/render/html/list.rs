//! Every test, by file in the order the run met them: one `<details>` per
//! file, open when it holds a failure or an error (those rows first, the
//! others collapsed under them), closed otherwise. A row is one `<tr>`
//! with a one-letter outcome class (`p`, `f`, `e`, `s`), and `k` after it
//! for a flaky test when a history of runs was kept, and three cells: the
//! id without its file, the outcome, the duration. The controls are hidden
//! until the script shows them.

use foldhash::{HashMap, HashMapExt, HashSet};
use std::fmt::Write as _;

use super::escape::{push, push_id};
use super::secs;
use super::summary::{outcome_cell, outcome_class};
use crate::model::{Counts, Outcome, Run, TestResult};
use crate::text::{first_line, one_line, thousands};

/// Tests in a page whose files are laid out only when near the screen
/// (`content-visibility: auto`; a screenshot or a search in the page
/// sees the others as empty boxes until then).
const LAZY_AFTER: usize = 5_000;
/// Characters of a message or reason shown under an id.
const NOTE_CHARS: usize = 160;

/// Where each listed test leads and how it is marked.
pub struct Links<'a> {
    /// Each failing test's group, `#g<n>`.
    pub group_of: &'a HashMap<usize, usize>,
    /// The flaky tests, when a history of runs was kept (the filter has
    /// them then): failures flaky by it, and tests that passed only after
    /// failing.
    pub flaky: Option<&'a HashSet<usize>>,
}

/// The section of every test, with its controls.
pub fn write(out: &mut String, run: &Run, c: &Counts, links: &Links<'_>) {
    let _ = write!(
        out,
        "<section id=tests>\n<h2>All tests <span class=n>{}</span></h2>\n",
        thousands(run.tests.len())
    );
    controls(out, c, links.flaky.is_some());
    if run.unlisted.passed > 0 {
        let _ = writeln!(
            out,
            "<p class=unlisted>{} more passed, not listed.</p>",
            thousands(run.unlisted.passed)
        );
    }
    // Many files: the browser lays out only those near the screen.
    let class = if run.tests.len() > LAZY_AFTER {
        " class=lazy"
    } else {
        ""
    };
    let _ = writeln!(out, "<div id=files{class}>");
    for (file, sep, tests) in by_file(run) {
        file_block(out, run, (file, sep), &tests, links);
    }
    out.push_str("</div>\n</section>\n");
}

/// The filter by outcome (and flaky tests, with a history of runs), the
/// search box and the sort, for the script.
fn controls(out: &mut String, c: &Counts, flaky: bool) {
    out.push_str("<form id=controls class=controls hidden><fieldset><legend>Show</legend>");
    let parts = [
        ("p", c.passed, "passed"),
        ("f", c.failed, "failed"),
        ("e", c.errors, "error"),
        ("s", c.skipped, "skipped"),
    ];
    let flaky = flaky.then_some(("k", c.flaky + c.flaky_failures, "flaky"));
    for (class, n, word) in parts.into_iter().chain(flaky) {
        let _ = write!(
            out,
            "<label class={class}><input type=checkbox name=o value={class} checked> {word} <b>{}</b></label>",
            thousands(n)
        );
    }
    out.push_str(
        "</fieldset>\
         <input type=search id=q placeholder=\"Search ids and messages\" aria-label=\"Search\">\
         <label>Sort <select id=sort>\
         <option value=run>run order<option value=name>name\
         <option value=outcome>outcome<option value=duration>duration, slowest first\
         </select></label><output id=shown></output></form>\n",
    );
}

/// Where a test is listed, its id without that, and what joined them: a
/// pytest id's file (`file::rest`), else the case's file, else the suite
/// another framework's id starts with (`Class#method`, `suite › name`).
fn split_id(t: &TestResult) -> (&str, &str, &'static str) {
    if let Some((file, rest)) = t.node_id.split_once("::") {
        return (file, rest, "::");
    }
    if let Some(l) = &t.location {
        return (&l.file, &t.node_id, "");
    }
    let id = t.node_id.as_str();
    let split = [(" › ", false), (" > ", false), ("#", true)]
        .into_iter()
        .find_map(|(sep, last)| {
            let at = if last { id.rfind(sep) } else { id.find(sep) }?;
            (at > 0).then(|| (&id[..at], &id[at + sep.len()..], sep))
        });
    split.unwrap_or(("", id, ""))
}

/// The run's tests by file (with the separator of their ids), files in
/// order of their first test.
fn by_file(run: &Run) -> Vec<(&str, &'static str, Vec<usize>)> {
    let mut files: Vec<(&str, &'static str, Vec<usize>)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, t) in run.tests.iter().enumerate() {
        let (file, _, sep) = split_id(t);
        match index.get(file) {
            Some(&n) => files[n].2.push(i),
            None => {
                index.insert(file, files.len());
                files.push((file, sep, vec![i]));
            }
        }
    }
    files
}

/// One file: its summary (counts and time), then its tests.
fn file_block(
    out: &mut String,
    run: &Run,
    (file, sep): (&str, &str),
    tests: &[usize],
    links: &Links<'_>,
) {
    let mut n = [0usize; 4];
    let mut time = 0.0;
    for t in tests.iter().map(|&i| &run.tests[i]) {
        n[slot(t.outcome)] += 1;
        time += t.duration.unwrap_or(0.0);
    }
    let letters: String = ["p", "f", "e", "s"]
        .iter()
        .zip(n)
        .filter(|(_, k)| *k > 0)
        .map(|(l, _)| *l)
        .collect();
    let problems = n[1] + n[2] > 0;
    let open = if problems { " open" } else { "" };
    let _ = write!(out, "<details class=file data-o={letters}{open}");
    if sep != "::" {
        // How the script joins the file and a row into the id it searches.
        out.push_str(" data-s=\"");
        push(out, sep);
        out.push('"');
    }
    out.push_str("><summary><code>");
    push_id(out, if file.is_empty() { "(no file)" } else { file });
    out.push_str("</code><span class=fc>");
    for ((class, word), k) in ["p", "f", "e", "s"]
        .iter()
        .zip(["passed", "failed", "error", "skipped"])
        .zip(n)
    {
        if k > 0 {
            let _ = write!(out, " <i class={class}>{} {word}</i>", thousands(k));
        }
    }
    let _ = writeln!(out, "</span><span class=d>{}</span></summary>", secs(time));
    if !problems {
        rows(out, run, tests, links);
        out.push_str("</details>\n");
        return;
    }
    let (bad, rest): (Vec<usize>, Vec<usize>) =
        tests.iter().partition(|&&i| run.tests[i].is_problem());
    rows(out, run, &bad, links);
    if !rest.is_empty() {
        let _ = write!(out, "<details class=rest><summary>");
        let words = ["passed", "", "", "skipped"];
        let said: Vec<String> = [0, 3]
            .iter()
            .filter(|&&k| n[k] > 0)
            .map(|&k| format!("{} {}", thousands(n[k]), words[k]))
            .collect();
        let _ = writeln!(out, "{}</summary>", said.join(", "));
        rows(out, run, &rest, links);
        out.push_str("</details>\n");
    }
    out.push_str("</details>\n");
}

fn slot(o: Outcome) -> usize {
    match o {
        Outcome::Passed => 0,
        Outcome::Failed => 1,
        Outcome::Error => 2,
        Outcome::Skipped => 3,
    }
}

/// A table of tests, one short row each.
fn rows(out: &mut String, run: &Run, tests: &[usize], links: &Links<'_>) {
    out.push_str("<table class=t><tbody>\n");
    for &i in tests {
        let t = &run.tests[i];
        let flaky = links.flaky.is_some_and(|f| f.contains(&i));
        let class = outcome_class(t);
        if flaky {
            let _ = write!(out, "<tr class=\"{class} k\"><td>");
        } else {
            let _ = write!(out, "<tr class={class}><td>");
        }
        push_id(out, split_id(t).1);
        note(out, t);
        out.push_str("<td>");
        outcome_cell(out, t, links.group_of.get(&i).copied());
        if flaky && t.is_problem() {
            out.push_str(" <i class=k>flaky</i>");
        }
        out.push_str("<td>");
        if let Some(d) = t.duration {
            out.push_str(&secs(d));
        }
        out.push('\n');
    }
    out.push_str("</tbody></table>\n");
}

/// A failure's message, a skip's reason or an xpass's: its first line,
/// under the id.
fn note(out: &mut String, t: &TestResult) {
    let text = match t.outcome {
        Outcome::Passed if t.is_flaky() => return note_text(out, &t.flaky_summary()),
        Outcome::Passed if t.xfail.is_none() => return,
        _ => t.message().or_else(|| t.traceback()),
    };
    if let Some(text) = text {
        note_text(out, text);
    }
}

fn note_text(out: &mut String, text: &str) {
    let line = first_line(text.trim_start());
    if line.is_empty() {
        return;
    }
    out.push_str("<small>");
    match line.char_indices().nth(NOTE_CHARS) {
        Some((at, _)) => {
            push(out, &one_line(&line[..at]));
            out.push('…');
        }
        None => push(out, &one_line(line)),
    }
    out.push_str("</small>");
}

#[cfg(test)]
mod tests;
