//! pytest's own console output, read as the last resort: when neither
//! report file nor the event log has anything (pytest failed before our
//! plugin loaded, say), the short test summary (`FAILED id - message`,
//! `ERROR id - message`) still names the failures, and the closing counts
//! line (`2 failed, 10 passed in 0.12s`) says the rest.

use crate::model::{Outcome, Run, SourceInfo, SourceKind, TestResult};

/// Reads what it can from pytest's stdout. `None` when it holds neither a
/// short summary nor a counts line.
pub fn parse(stdout: &str) -> Option<Run> {
    let mut run = Run::default();
    let mut counts_line = None;
    for line in stdout.lines().map(str::trim_end) {
        let (outcome, rest) = if let Some(rest) = line.strip_prefix("FAILED ") {
            (Outcome::Failed, rest)
        } else if let Some(rest) = line.strip_prefix("ERROR ") {
            (Outcome::Error, rest)
        } else {
            if is_counts_line(line) {
                counts_line = Some(
                    line.trim_matches(|c: char| c == '=' || c == ' ')
                        .to_string(),
                );
            }
            continue;
        };
        let (id, message) = match rest.split_once(" - ") {
            Some((id, message)) => (id, Some(message.to_string())),
            None => (rest, None),
        };
        if id.is_empty() || id.contains(' ') {
            continue;
        }
        let mut test = TestResult::new(id, outcome);
        test.set_message(message);
        run.tests.push(test);
    }
    if run.tests.is_empty() && counts_line.is_none() {
        return None;
    }
    if let Some(line) = counts_line {
        run.notes.push(format!(
            "only pytest's console output was left; its closing line says: {line} (tests not listed here have no details)"
        ));
    }
    run.sources.push(SourceInfo {
        kind: SourceKind::PytestText,
        name: "stdout".to_string(),
        entries: run.tests.len(),
        folded: 0,
    });
    run.clean_text(crate::text::clean);
    Some(run)
}

/// `==== 2 failed, 10 passed in 0.12s ====` or `no tests ran in 0.01s`.
fn is_counts_line(line: &str) -> bool {
    let t = line.trim_matches(|c: char| c == '=' || c == ' ');
    (t.contains(" passed")
        || t.contains(" failed")
        || t.contains(" error")
        || t.starts_with("no tests ran"))
        && t.contains(" in ")
        && t.ends_with('s')
}

/// Lines of a plugin's closing words kept: a coverage gate's verdict,
/// syrupy's count of unused snapshots and its hint.
const CLOSING_LINES: usize = 3;

/// Titles of the summary sections pytest itself writes after the tests:
/// never a plugin's closing words.
const PYTEST_SECTIONS: [&str; 10] = [
    "Captured ",
    "short test summary info",
    "warnings summary",
    "rerun test summary info",
    "PASSES",
    "FAILURES",
    "ERRORS",
    "XFAILURES",
    "XPASSES",
    "slowest",
];

/// What pytest or a plugin printed last before pytest's closing line (a
/// coverage gate's `FAIL Required test coverage of 90% not reached.`,
/// syrupy's `1 snapshot unused.`, whatever a `pytest_sessionfinish`
/// printed): the last lines of the last section of the terminal summary
/// that is not pytest's own, or of the lines after the tests' progress.
/// `None` when pytest printed nothing of the kind, or printed no closing
/// line. At most [`CLOSING_LINES`] lines: all of them when the section is
/// that short, else its last block's last ones (below a coverage table,
/// its verdict).
pub fn closing_lines(stdout: &str) -> Option<String> {
    let lines: Vec<&str> = stdout.lines().map(str::trim_end).collect();
    let mut end = lines
        .iter()
        .rposition(|l| is_counts_line(l) || is_sugar_results(l))?;
    loop {
        let start = lines[..end].iter().rposition(|l| is_boundary(l))?;
        let body = &lines[start + 1..end];
        if is_progress(lines[start]) {
            return closing_of(body);
        }
        // A `____ name ____` part belongs to the `==== title ====` before.
        let section = match section_title(lines[start]) {
            Some(_) if lines[start].trim().starts_with('_') => lines[..start]
                .iter()
                .rposition(|l| l.trim().starts_with('=') && is_boundary(l))
                .unwrap_or(start),
            _ => start,
        };
        let title = section_title(lines[section]).unwrap_or_default();
        if PYTEST_SECTIONS.iter().any(|t| title.starts_with(t)) {
            end = section;
            continue;
        }
        if title == "test session starts" {
            return None;
        }
        return closing_of(body);
    }
}

/// Where a part of pytest's output begins: a titled separator, or a line
/// of the tests' progress.
fn is_boundary(line: &str) -> bool {
    section_title(line).is_some_and(|t| !t.is_empty()) || is_progress(line)
}

/// The closing words of a section's body (see [`closing_lines`]).
fn closing_of(body: &[&str]) -> Option<String> {
    let said = |l: &&str| !l.trim().is_empty() && !is_rule(l);
    // A table's rows (`TOTAL 12 3 75%`) are its figures, not the words
    // below it that say what they mean: left out when there are such words.
    let words_only = body.iter().any(|l| said(l) && !is_table_row(l));
    let kept = |l: &&str| said(l) && !(words_only && is_table_row(l));
    let words: Vec<&str> = body.iter().copied().filter(kept).collect();
    let words = if words.len() <= CLOSING_LINES {
        words
    } else {
        let last_block = body
            .iter()
            .rposition(|l| l.trim().is_empty() || is_rule(l))
            .map_or(0, |i| i + 1);
        let block: Vec<&str> = body[last_block..].iter().copied().filter(kept).collect();
        block[block.len().saturating_sub(CLOSING_LINES)..].to_vec()
    };
    // A table's columns are spaces apart: one is enough to read them.
    let text = words
        .iter()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n");
    (!text.is_empty()).then_some(text)
}

/// A row of a table of figures: a name, then figures (`TOTAL 12 3 75%`,
/// `pkg/cart.py 6 1 83% 7, 12`), or a table's header (`Name Stmts Miss
/// Cover`).
fn is_table_row(line: &str) -> bool {
    let cells: Vec<&str> = line.split_whitespace().skip(1).collect();
    let figure = |c: &&str| c.trim_end_matches('%').parse::<f64>().is_ok();
    let header =
        line.starts_with("Name ") && cells.iter().all(|c| c.chars().all(char::is_alphabetic));
    cells.len() >= 2 && (cells[..2].iter().all(figure) || header)
}

/// The title of a separator line pytest writes (`==== FAILURES ====`,
/// `---- snapshot report summary ----`, `____ coverage: ... ____`), `""`
/// for a bare rule of 3 or more `=`, `-`, `_`; `None` for any other line.
fn section_title(line: &str) -> Option<&str> {
    let line = line.trim();
    let sep = line.chars().next()?;
    if !matches!(sep, '=' | '-' | '_' | '!') || !line.ends_with(sep) || line.len() < 6 {
        return None;
    }
    let title = line.trim_matches(sep);
    let rule = &line[..line.len() - line.trim_start_matches(sep).len()];
    if rule.len() < 3 {
        return None;
    }
    if title.is_empty() {
        return Some("");
    }
    let title = title.strip_prefix(' ')?.strip_suffix(' ')?;
    Some(title)
}

/// A bare rule (`-----`), as in a coverage table: no section of its own.
fn is_rule(line: &str) -> bool {
    section_title(line) == Some("")
}

/// A line of the tests' progress: `tests/test_a.py ..F  [ 50%]`,
/// `collected 3 items`, pytest-sugar's `✓✓ 100% ██████████`.
fn is_progress(line: &str) -> bool {
    let t = line.trim_end();
    t.ends_with("%]") || t.starts_with("collected ") || t.contains('█')
}

/// pytest-sugar's closing line, `Results (0.16s):`.
fn is_sugar_results(line: &str) -> bool {
    line.trim().starts_with("Results (") && line.trim_end().ends_with("):")
}

#[cfg(test)]
mod tests;
