//! Discovery (`discover`, `discover_tests`) as Markdown, compressed by
//! construction: tests are grouped by file and test function, and a
//! parametrized function is one line with its count and the function's id
//! (which pytest accepts and which runs every case), not one line per
//! case. 5,000 parametrizations cost one line. Its JSON is
//! `render::json::discovery`'s.

use std::fmt::Write as _;

use super::collection_errors;
use crate::budget::{Budget, Fitted, Offer, Plans, Rung, Truncation};
use crate::model::discovery::{Discovery, Function};
use crate::render::{Style, view};
use crate::text::{one_line, thousands};

/// Discovery as Markdown: a header, then one `### <file>` section per file
/// with one line per test function, `- L<line> <id after the file>`, and
/// for a parametrized function ` — <n> cases`; collection errors as in test
/// reports; a closing note when cases were counted instead of listed.
pub fn discovery(d: &Discovery) -> String {
    let mut out = head(d);
    let functions = d.functions();
    function_lines(&mut out, &functions);
    let mut notes = d.notes.clone();
    if let Some(note) = counted_note(&functions) {
        notes.push(note);
    }
    notes_of(&mut out, &notes);
    out
}

/// [`discovery`] offered to fit `budget`: when the functions do
/// not fit, one line per file (`- tests/test_x.py — 40 tests`), then as
/// many files as fit, saying how many tests were left out; `path` lists
/// one file's.
pub fn discovery_offer<'a>(d: &'a Discovery, style: &Style) -> Offer<'a, Fitted> {
    let budget = style.budget;
    let full = discovery(d);
    if budget.fits(&full) {
        return Offer::Whole(Fitted::whole(full));
    }
    let functions = d.functions();
    let mut files: Vec<(&str, usize)> = Vec::new();
    for f in &functions {
        match files.last_mut() {
            Some((file, n)) if *file == f.file => *n += f.items.len(),
            _ => files.push((f.file, f.items.len())),
        }
    }
    Offer::plans(Files {
        d,
        budget,
        full_size: budget.describe_size(&full),
        tests: functions.iter().map(|f| f.items.len()).sum(),
        files,
    })
}

/// A discovery's Markdown one line per file, as many files as fit.
struct Files<'d> {
    d: &'d Discovery,
    budget: Budget,
    /// The whole answer's size, as the note says it.
    full_size: String,
    /// Tests collected.
    tests: usize,
    /// Each file and how many tests it holds, in collection order.
    files: Vec<(&'d str, usize)>,
}

impl Files<'_> {
    /// The first `shown` files' lines, saying what was left out.
    fn render(&self, shown: usize) -> Fitted {
        let (d, files, budget) = (self.d, &self.files, &self.budget);
        let mut out = head(d);
        out.push_str("\n### FILES\n");
        for (file, n) in &files[..shown] {
            let _ = writeln!(out, "- {} — {}", one_line(file), tests_phrase(*n));
        }
        let mut t = Truncation::new(budget);
        t.dropped.push("test functions".to_string());
        let rest: usize = files[shown..].iter().map(|(_, n)| n).sum();
        t.tests_omitted = self.tests;
        let mut note = format!(
            "Shortened to fit {} (the full answer has {}): one line per file",
            budget.describe(),
            self.full_size
        );
        if shown < files.len() {
            t.dropped.push(format!("{} files", files.len() - shown));
            let _ = write!(
                note,
                "; {} more files ({}) not listed",
                thousands(files.len() - shown),
                tests_phrase(rest)
            );
        }
        note.push_str(". Discover one file or directory (path) to list its tests.");
        let mut notes = d.notes.clone();
        notes.push(note);
        notes_of(&mut out, &notes);
        Fitted {
            text: out,
            truncation: Some(t),
        }
    }
}

impl Plans for Files<'_> {
    type Plan = usize;
    type Answer = Fitted;

    /// As many files as fit.
    fn ladder(&self) -> Vec<Rung<'_, usize>> {
        vec![Rung::most(1, self.files.len(), |shown| shown)]
    }

    fn attempt(&self, shown: usize) -> Option<Fitted> {
        let fitted = self.render(shown);
        self.budget.fits(&fitted.text).then_some(fitted)
    }

    /// No file, when not even one fits.
    fn last_resort(&self) -> Fitted {
        self.render(0)
    }
}

fn tests_phrase(n: usize) -> String {
    format!("{} test{}", thousands(n), if n == 1 { "" } else { "s" })
}

/// The header and the collection errors.
fn head(d: &Discovery) -> String {
    let mut out = header(d);
    let run = crate::model::Run {
        collection_errors: d.collection_errors.clone(),
        ..crate::model::Run::default()
    };
    collection_errors(&mut out, &run);
    out
}

fn notes_of(out: &mut String, notes: &[String]) {
    if !notes.is_empty() {
        out.push('\n');
        for note in notes {
            let _ = writeln!(out, "> {note}");
        }
    }
}

/// One line per test function under its file's heading.
fn function_lines(out: &mut String, functions: &[Function<'_>]) {
    let mut current: Option<&str> = None;
    for f in functions {
        if current != Some(f.file) {
            let _ = write!(out, "\n### {}\n", one_line(f.file));
            current = Some(f.file);
        }
        out.push_str("- ");
        if let Some(line) = f.line() {
            let _ = write!(out, "L{line} ");
        }
        out.push_str(&one_line(rest_of(f)));
        if f.parametrized {
            let n = f.items.len();
            let _ = write!(
                out,
                " — {} case{}",
                thousands(n),
                if n == 1 { "" } else { "s" }
            );
        }
        out.push('\n');
    }
}

/// `Discover SUCCESS (0.4s) — 5,012 tests in 3 files, 1 collection error`.
fn header(d: &Discovery) -> String {
    let (verdict, _) = view::discovery_status(d);
    let (tests, files) = (d.items.len(), d.file_count());
    let found = format!(
        "{} test{} in {} file{}",
        thousands(tests),
        if tests == 1 { "" } else { "s" },
        thousands(files),
        if files == 1 { "" } else { "s" },
    );
    let mut out = view::headline("Discover", verdict, Some(d.duration), &found);
    if !d.collection_errors.is_empty() {
        let n = d.collection_errors.len();
        let _ = write!(
            out,
            ", {n} collection error{}",
            if n == 1 { "" } else { "s" }
        );
    }
    out.push('\n');
    out
}

/// The function's id after its file (`Class::test_x`), as the lines under
/// a file's heading show it; the whole id when nothing follows the file.
fn rest_of<'a>(f: &Function<'a>) -> &'a str {
    let rest = f.id[f.file.len()..].trim_start_matches("::");
    if rest.is_empty() { f.id } else { rest }
}

/// What the Markdown left out, when it counted parametrizations.
fn counted_note(functions: &[Function<'_>]) -> Option<String> {
    let parametrized: Vec<&Function<'_>> = functions.iter().filter(|f| f.parametrized).collect();
    if parametrized.is_empty() {
        return None;
    }
    let cases: usize = parametrized.iter().map(|f| f.items.len()).sum();
    let functions = parametrized.len();
    Some(format!(
        "{} cases of {} parametrized function{} counted, not listed: a function's id runs all \
         its cases; the JSON format lists the first {} case ids of each.",
        thousands(cases),
        thousands(functions),
        if functions == 1 { "" } else { "s" },
        view::CASE_IDS_SHOWN,
    ))
}

#[cfg(test)]
mod tests;
