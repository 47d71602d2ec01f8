//! The change's coverage as every output says it (`run --coverage`,
//! docs/coverage.md): a heading with how many changed lines ran, then one
//! line per range no test ran, with the function it is in; shorter, one
//! line per file with its count.

use serde::Serialize;

use crate::model::coverage::{ChangeCoverage, Gap, Was, ranges};
use crate::text::one_line;

/// `5 of 9 changed lines ran (against HEAD)` (`(55.6%, against HEAD)`
/// with `percent`: a person's page), or why the change could not be
/// judged.
pub fn coverage_phrase(c: &ChangeCoverage, percent: bool) -> String {
    if let Some(note) = &c.note {
        return format!("the change could not be judged: {}", one_line(note));
    }
    let base = one_line(&c.base);
    let share = match c.percent().filter(|_| percent) {
        Some(p) => format!("{p:.1}%, "),
        None => String::new(),
    };
    match c.changed_lines {
        0 => format!("no changed line of Python source to run (against {base})"),
        n if c.covered_lines == n => {
            format!("all {n} changed {} ran ({share}against {base})", lines(n))
        }
        n => format!(
            "{} of {n} changed {} ran ({share}against {base})",
            c.covered_lines,
            lines(n)
        ),
    }
}

/// Each range no test ran: its file, first and last line, and function.
pub fn coverage_gaps(c: &ChangeCoverage) -> Vec<(&str, &Gap)> {
    c.files
        .iter()
        .flat_map(|f| f.gaps.iter().map(move |g| (f.path.as_str(), g)))
        .collect()
}

fn lines(n: usize) -> &'static str {
    if n == 1 { "line" } else { "lines" }
}

/// One line per range no test ran: `shop/pricing.py:33-35 in bulk_price`
/// (`(module)` at a module's top level), files in order.
pub fn coverage_ranges(c: &ChangeCoverage) -> Vec<String> {
    coverage_gaps(c)
        .into_iter()
        .map(|(path, gap)| {
            let place = format!("{}:{}", one_line(path), gap.lines());
            let line = match &gap.function {
                Some(f) => format!("{place} in {}", one_line(f)),
                None => format!("{place} (module level)"),
            };
            match coverage_was(gap) {
                Some(was) => format!("{line} ({was})"),
                None => line,
            }
        })
        .collect()
}

/// What a range was before the change, when the change was compared with
/// what ran before it: `new` or `not run before either`.
pub fn coverage_was(gap: &Gap) -> Option<&'static str> {
    gap.was.map(Was::words)
}

/// The unchanged lines that ran before the change and no longer do, one
/// entry per file: `shop/pricing.py:16-17, 20`; none when nothing was left
/// behind or nothing was compared.
pub fn coverage_left_behind(c: &ChangeCoverage) -> Vec<String> {
    c.left_behind
        .iter()
        .map(|file| format!("{}:{}", one_line(&file.path), spans(&file.lines)))
        .collect()
}

/// `16-17, 20` for lines 16, 17 and 20.
fn spans(lines: &[u32]) -> String {
    let part = |&(a, b): &(u32, u32)| match a == b {
        true => a.to_string(),
        false => format!("{a}-{b}"),
    };
    ranges(lines)
        .iter()
        .map(part)
        .collect::<Vec<_>>()
        .join(", ")
}

/// One line per file with changed lines no test ran: `shop/pricing.py: 4
/// lines not run`.
pub fn coverage_files(c: &ChangeCoverage) -> Vec<String> {
    c.files
        .iter()
        .map(|file| (file, file.uncovered().len()))
        .filter(|(_, n)| *n > 0)
        .map(|(file, n)| format!("{}: {n} {} not run", one_line(&file.path), lines(n)))
        .collect()
}

/// The change's coverage as the JSON report and the structured result
/// carry it: how many changed lines counted and ran, and per file with
/// lines no test ran, those lines and the functions they are in.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CoverageSummary {
    /// The git revision the working tree was compared with.
    pub base: String,
    pub changed_lines: usize,
    pub covered_lines: usize,
    /// covered_lines of changed_lines, to a tenth; absent with none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub percent: Option<f64>,
    /// Files with changed lines no test ran: path, lines, functions.
    pub uncovered: Vec<Uncovered>,
    /// What the gaps were compared with (`the previous run`, `the base's
    /// coverage`), when they were.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compared_with: Option<String>,
    /// Unchanged lines that ran before the change and no longer do.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_behind: Vec<LeftBehindLines>,
    /// Why the change could not be judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A file's changed lines no test ran.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Uncovered {
    pub path: String,
    /// The changed lines themselves, in order.
    pub lines: Vec<u32>,
    /// The functions or classes they are in, in order, each once.
    pub functions: Vec<String>,
    /// Of `lines`, those whose code was there before and did not run then
    /// either (compared with the previous run or the base's coverage).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_run_before: Vec<u32>,
}

/// A file's lines the change left behind.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeftBehindLines {
    pub path: String,
    pub lines: Vec<u32>,
}

/// [`CoverageSummary`] of a run under coverage.
pub fn coverage_summary(c: &ChangeCoverage) -> CoverageSummary {
    let uncovered = c
        .files
        .iter()
        .map(|file| {
            let mut functions: Vec<String> = Vec::new();
            for f in file.gaps.iter().filter_map(|g| g.function.as_ref()) {
                if !functions.contains(f) {
                    functions.push(f.clone());
                }
            }
            let lines = file.uncovered();
            let before: Vec<&Gap> = file
                .gaps
                .iter()
                .filter(|g| g.was == Some(Was::NotRunBefore))
                .collect();
            let not_run_before = lines
                .iter()
                .copied()
                .filter(|n| before.iter().any(|g| (g.start..=g.end).contains(n)))
                .collect();
            Uncovered {
                path: file.path.clone(),
                lines,
                functions,
                not_run_before,
            }
        })
        .filter(|u| !u.lines.is_empty())
        .collect();
    CoverageSummary {
        base: c.base.clone(),
        changed_lines: c.changed_lines,
        covered_lines: c.covered_lines,
        percent: c.percent().map(|p| (p * 10.0).round() / 10.0),
        uncovered,
        compared_with: c.compared_with.clone(),
        left_behind: c
            .left_behind
            .iter()
            .map(|l| LeftBehindLines {
                path: l.path.clone(),
                lines: l.lines.clone(),
            })
            .collect(),
        note: c.note.clone(),
    }
}
