//! Discovery (`discover`, `discover_tests`) as Markdown and as the style
//! guide's JSON, compressed by construction: tests are grouped by file and
//! test function, and a parametrized function is one entry with its count
//! and the function's id (which pytest accepts and which runs every case),
//! not one entry per case. 5,000 parametrizations cost one line.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::markdown;
use super::view;
use crate::budget::{Budget, Fitted, Offer, Plans, Rung, Truncation};
use crate::model::discovery::{Discovery, Function};
use crate::text::{one_line, thousands};

/// Ids of a parametrized function's first cases kept in the JSON
/// (`case_ids`), so an agent sees their shape and can run one case.
pub const CASE_IDS_SHOWN: usize = 3;

/// Discovery as Markdown: a header, then one `### <file>` section per file
/// with one line per test function, `- L<line> <id after the file>`, and
/// for a parametrized function ` — <n> cases`; collection errors as in test
/// reports; a closing note when cases were counted instead of listed.
pub fn discovery_markdown(d: &Discovery) -> String {
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

/// [`discovery_markdown`] offered to fit `budget`: when the functions do
/// not fit, one line per file (`- tests/test_x.py — 40 tests`), then as
/// many files as fit, saying how many tests were left out; `path` lists
/// one file's.
pub fn markdown_offer(d: &Discovery, budget: Budget) -> Offer<'_, Fitted> {
    let full = discovery_markdown(d);
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
    markdown::collection_errors(&mut out, &run);
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
         its cases; the JSON format lists the first {CASE_IDS_SHOWN} case ids of each.",
        thousands(cases),
        thousands(functions),
        if functions == 1 { "" } else { "s" },
    ))
}

/// Discovery's JSON (docs/json-report.md, "Discovery's JSON": `tests`, `count`,
/// `collection_errors`), one `tests` entry per test function: a
/// parametrized function's entry has the function's id as `node_id`, its
/// number of cases as `cases` and the ids of the first few as `case_ids`.
/// `count` stays the number of tests collected. When case ids were left
/// out, a top-level `truncated` says how many and how to reach them.
pub fn discovery_value(d: &Discovery) -> Value {
    let functions = d.functions();
    let mut omitted = 0;
    let tests: Vec<Value> = functions
        .iter()
        .map(|f| {
            let first = f.items[0];
            let mut entry = json!({
                "node_id": f.id,
                // A dotted path from the root (`tests.test_x`);
                // the imported name only when pytest gave no file.
                "module": first.file.as_deref().map(crate::pytest_text::path_to_module).or_else(|| first.module.clone()),
                "class": first.class,
                "function": first.function,
                "file": first.file,
                "line": first.line,
            });
            if f.parametrized {
                let shown: Vec<&str> = f
                    .items
                    .iter()
                    .take(CASE_IDS_SHOWN)
                    .map(|i| i.nodeid.as_str())
                    .collect();
                omitted += f.items.len() - shown.len();
                entry["cases"] = json!(f.items.len());
                entry["case_ids"] = json!(shown);
            }
            entry
        })
        .collect();
    let mut value = json!({
        "tests": tests,
        "count": d.items.len(),
        "collection_errors": d.collection_errors.iter().map(|e| json!({
            "file": e.file,
            "error_type": e.error_type,
            "message": e.message,
            "line": e.line,
            "traceback": e.traceback,
        })).collect::<Vec<_>>(),
    });
    if omitted > 0 {
        value["truncated"] = json!({
            "case_ids_omitted": omitted,
            "note": format!(
                "A parametrized function is one entry: its node_id runs every case, cases counts \
                 them, case_ids lists the first {CASE_IDS_SHOWN}. Pick cases by their parameters \
                 with keywords (pytest -k)."
            ),
        });
    }
    value
}

/// [`discovery_value`] as text (indented when `pretty`) offered to fit
/// `budget`: `case_ids` go first, then entries beyond the first that fit.
/// `count` stays exact; `truncated` says what was left out.
pub fn json_offer(d: &Discovery, budget: Budget, pretty: bool) -> Offer<'static, Fitted> {
    let mut value = discovery_value(d);
    let full = super::json::text(&value, pretty);
    if budget.fits(&full) {
        return Offer::Whole(Fitted::whole(full));
    }
    let Some(Value::Array(mut entries)) = value.get_mut("tests").map(std::mem::take) else {
        return Offer::Whole(Fitted::whole(full));
    };
    let mut cases_dropped = false;
    for e in &mut entries {
        if let Some(map) = e.as_object_mut() {
            cases_dropped |= map.remove("case_ids").is_some();
        }
    }
    Offer::plans(Entries {
        value,
        entries,
        cases_dropped,
        budget,
        pretty,
    })
}

/// A discovery's JSON without its `tests`, and the entries to put back.
struct Entries {
    value: Value,
    entries: Vec<Value>,
    /// Whether entries had `case_ids` (taken out of every one).
    cases_dropped: bool,
    budget: Budget,
    pretty: bool,
}

impl Plans for Entries {
    /// The first `shown` entries; `cut` when that is fewer than fit.
    type Plan = (usize, bool);
    type Answer = Fitted;

    fn ladder(&self) -> Vec<Rung<'_, (usize, bool)>> {
        let total = self.entries.len();
        vec![
            Rung::One((total, false)),
            Rung::most(1, total, |shown| (shown, true)),
        ]
    }

    fn attempt(&self, plan: (usize, bool)) -> Option<Fitted> {
        let fitted = self.render(plan);
        self.budget.fits(&fitted.text).then_some(fitted)
    }

    fn last_resort(&self) -> Fitted {
        self.render((0, true))
    }
}

impl Entries {
    fn render(&self, (shown, cut): (usize, bool)) -> Fitted {
        let mut t = Truncation::new(&self.budget);
        if self.cases_dropped {
            t.dropped.push("case_ids".to_string());
        }
        if cut {
            t.dropped.push("entries beyond those that fit".to_string());
        }
        t.tests_omitted = self.entries[shown..]
            .iter()
            .map(|e| e.get("cases").and_then(Value::as_u64).unwrap_or(1) as usize)
            .sum();
        let mut v = self.value.clone();
        v["tests"] = Value::Array(self.entries[..shown].to_vec());
        v["truncated"] = json!({
            "max_tokens": t.max_tokens,
            "max_chars": t.max_chars,
            "dropped": t.dropped,
            "tests_omitted": t.tests_omitted,
            "entries_omitted": self.entries.len() - shown,
            "note": "count is exact. Discover one file or directory (path) to list its tests.",
        });
        Fitted {
            text: super::json::text(&v, self.pretty),
            truncation: Some(t),
        }
    }
}

#[cfg(test)]
mod tests;
