//! A change judged by coverage.py's reports (`report --coverage` with
//! coverage.xml or coverage.json, docs/coverage.md): the same rules as the
//! judge that runs in the project's interpreter after `run --coverage`
//! (`runner/command/pytest_mcp_coverage.py`), with the report's statements
//! in place of coverage.py's parser. A changed line counts when it holds
//! code and its statement (a multi-line one at its first line) is one the
//! report lists; it ran when that statement ran. A changed Python file the
//! report does not name was imported by no test: its statements are read
//! from its source ([`python_source`]) and none ran. Pure: the changed
//! files' text is handed in.

use std::collections::{BTreeMap, BTreeSet};

use super::coverage_data::{Lines, Measured};
use super::git_diff::ChangedLines;
use super::python_source::{Logical, Source};
use crate::model::coverage::{ChangeCoverage, FileGaps, FileState, Gap};

/// Lines of a range's source given, at most (as the Python judge).
const SOURCE_LINES: usize = 12;

/// What is judged: the change, the text of its files, and the project's
/// root as an absolute path with `/` between its parts.
pub struct Change<'a> {
    pub base: &'a str,
    pub changed: &'a ChangedLines,
    /// Root-relative path to the file's text now, for the changed Python
    /// source files that could be read.
    pub texts: &'a BTreeMap<String, String>,
    pub root: &'a str,
}

/// Whether a changed file is Python source whose coverage matters: tests
/// themselves are not (the Python judge's rule).
pub fn is_source(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    let name = parts.last().copied().unwrap_or_default();
    let test = name.starts_with("test_")
        || name.ends_with("_test.py")
        || name == "conftest.py"
        || parts[..parts.len().saturating_sub(1)]
            .iter()
            .any(|p| *p == "tests" || *p == "test");
    path.ends_with(".py") && !test
}

/// The change judged by `measured`.
pub fn judge(change: &Change, measured: &Measured) -> ChangeCoverage {
    let (mut files, mut measured_now) = (Vec::new(), Vec::new());
    let (mut unread, mut unmeasured) = (Vec::new(), 0usize);
    for (path, lines) in &change.changed.files {
        if !is_source(path) {
            continue;
        }
        let Some(text) = change.texts.get(path) else {
            unread.push(path.as_str());
            continue;
        };
        let found = lookup(measured, path, change.root);
        unmeasured += usize::from(found.is_none());
        let (entry, state) = judge_file(path, text, lines, found.as_ref());
        if let Some(entry) = entry {
            files.push(entry);
            measured_now.push(state);
        }
    }
    let mut notes = Vec::new();
    if unmeasured > 0 {
        notes.push(format!(
            "{unmeasured} changed file{} in no coverage report, counted as not run (imported by no test, or outside the measured source)",
            if unmeasured == 1 { " is" } else { "s are" }
        ));
    }
    if !unread.is_empty() {
        notes.push(format!(
            "changed files that could not be read: {}",
            unread.join(", ")
        ));
    }
    ChangeCoverage {
        base: change.base.to_string(),
        changed_lines: files.iter().map(|f| f.changed.len()).sum(),
        covered_lines: files.iter().map(|f| f.covered.len()).sum(),
        files,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
        measured: measured_now,
        ..ChangeCoverage::default()
    }
}

/// The report's lines for `path` (root-relative): files it names as that
/// path, as the same path under the root, or (a report made in another
/// checkout, a CI job's) as a path ending in it. Every name that matches is
/// joined (Cobertura names a file under each of its sources).
fn lookup(measured: &Measured, path: &str, root: &str) -> Option<Lines> {
    let under_root = format!("{}/{path}", root.trim_end_matches('/'));
    let suffix = format!("/{path}");
    let mut exact = Vec::new();
    let mut ending = Vec::new();
    for (written, lines) in &measured.files {
        let names = measured.names(written).map(|n| n.replace('\\', "/"));
        let (mut is_exact, mut is_ending) = (false, false);
        for name in names {
            let name = name.strip_prefix("./").unwrap_or(&name);
            is_exact |= name == path || name == under_root;
            is_ending |= name.ends_with(&suffix);
        }
        if is_exact {
            exact.push(lines);
        } else if is_ending {
            ending.push(lines);
        }
    }
    let chosen = if exact.is_empty() { ending } else { exact };
    let mut found = chosen.first().map(|l| (*l).clone())?;
    for more in &chosen[1..] {
        found.statements.extend(&more.statements);
        found.executed.extend(&more.executed);
    }
    Some(found)
}

/// A file's state as the reports `measured` say it (a file they do not
/// name ran nowhere): every line that counts and those that ran, with its
/// text. The base's coverage is read so (`report --baseline-coverage`).
pub fn state_in(measured: &Measured, path: &str, text: &str, root: &str) -> FileState {
    let (source, logical) = Source::read(text);
    let found = lookup(measured, path, root);
    state_of(path, text, &source, &logical, found.as_ref())
}

fn state_of(
    path: &str,
    text: &str,
    source: &Source,
    logical: &[Logical],
    measured: Option<&Lines>,
) -> FileState {
    let unmeasured;
    let (statements, executed) = match measured {
        Some(m) => (&m.statements, &m.executed),
        None => {
            unmeasured = statements_of(text, logical);
            (&unmeasured, &BTreeSet::new())
        }
    };
    let counted: Vec<u32> = (1..=source.len())
        .filter(|&n| source.is_code(n) && statements.contains(&source.first_line(n)))
        .collect();
    let ran = counted
        .iter()
        .copied()
        .filter(|&n| executed.contains(&source.first_line(n)))
        .collect();
    FileState {
        path: path.to_string(),
        text: text.lines().map(str::to_string).collect(),
        counted,
        ran,
    }
}

/// The file's entry (none when none of its changed lines count) and its
/// state.
fn judge_file(
    path: &str,
    text: &str,
    lines: &[u32],
    measured: Option<&Lines>,
) -> (Option<FileGaps>, FileState) {
    let (source, logical) = Source::read(text);
    let state = state_of(path, text, &source, &logical, measured);
    let counted: BTreeSet<u32> = state.counted.iter().copied().collect();
    let ran: BTreeSet<u32> = state.ran.iter().copied().collect();
    let changed: Vec<u32> = lines
        .iter()
        .copied()
        .filter(|n| counted.contains(n))
        .collect::<BTreeSet<u32>>()
        .into_iter()
        .collect();
    if changed.is_empty() {
        return (None, state);
    }
    let covered: Vec<u32> = changed
        .iter()
        .copied()
        .filter(|n| ran.contains(n))
        .collect();
    let uncovered: Vec<u32> = changed
        .iter()
        .copied()
        .filter(|n| !ran.contains(n))
        .collect();
    let counts = |n: u32| counted.contains(&n);
    let gaps = compact(&uncovered, &counts, &source)
        .into_iter()
        .map(|mut gap| {
            let from = (gap.start as usize).saturating_sub(1).min(state.text.len());
            let to = (gap.end as usize)
                .min(from + SOURCE_LINES)
                .min(state.text.len());
            gap.source = state.text[from..to].to_vec();
            gap
        })
        .collect();
    let entry = FileGaps {
        path: path.to_string(),
        changed,
        covered,
        gaps,
    };
    (Some(entry), state)
}

/// Ranges of uncovered lines. Lines that do not count (blank, comment,
/// excluded) do not break a range; a line that counts does, and so does a
/// move to another function, unless into one nested in the range's own.
fn compact(uncovered: &[u32], counts: &dyn Fn(u32) -> bool, source: &Source) -> Vec<Gap> {
    let mut ranges: Vec<(Gap, Option<(u32, u32)>)> = Vec::new();
    for &line in uncovered {
        let scope = source.scope_of(line);
        let span = scope.map(|s| (s.first, s.last));
        if let Some((last, outer)) = ranges.last_mut() {
            let nested = span == *outer
                || matches!((outer, span), (Some(o), Some(s)) if o.0 <= s.0 && s.1 <= o.1);
            if nested && !(last.end + 1..line).any(counts) {
                last.end = line;
                continue;
            }
        }
        let gap = Gap {
            start: line,
            end: line,
            function: scope.map(|s| s.name.clone()),
            source: Vec::new(),
            was: None,
        };
        ranges.push((gap, span));
    }
    ranges.into_iter().map(|(gap, _)| gap).collect()
}

/// The statements of a file no report names, as coverage.py would count
/// them: each logical line at its first line, but docstrings, the headers
/// `else:`, `try:` and `finally:`, and lines under `# pragma: no cover`
/// (a block's header takes its block along).
fn statements_of(text: &str, logical: &[Logical]) -> BTreeSet<u32> {
    let all: Vec<&str> = text.lines().collect();
    let pragma = |l: &Logical| {
        (l.first..=l.last).any(|n| {
            all.get(n as usize - 1)
                .and_then(|line| line.split_once('#'))
                .is_some_and(|(_, comment)| {
                    let c: String = comment
                        .chars()
                        .filter(|c| !c.is_whitespace() && *c != ':')
                        .collect();
                    c.to_ascii_lowercase().contains("pragmanocover")
                })
        })
    };
    let mut statements = BTreeSet::new();
    let mut excluded_under: Option<usize> = None;
    for l in logical {
        // The header's code, a trailing comment left out (roughly: a `#`
        // in a string cuts it short, which only matters for headers).
        let head = l.head.split('#').next().unwrap_or_default().trim_end();
        match excluded_under {
            Some(indent) if l.indent > indent => continue,
            _ => excluded_under = None,
        }
        if pragma(l) {
            if head.ends_with(':') {
                excluded_under = Some(l.indent);
            }
            continue;
        }
        let header = ["else:", "try:", "finally:"].contains(&head);
        if !l.only_strings && !header {
            statements.insert(l.first);
        }
    }
    statements
}

#[cfg(test)]
mod tests;
