//! Parser for the parts of pytest's console output that summarise a run.

use std::collections::BTreeMap;

/// The `-rA` "short test summary info" lines, one entry per line (a test
/// can appear twice: `PASSED` then `ERROR` for a teardown error).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ShortSummary {
    pub passed: Vec<String>,
    pub failed: Vec<String>,
    /// Node ids, collectors' included: see `Terminal::collection_error_ids`.
    pub errors: Vec<String>,
    /// `SKIPPED [N] path:line: reason` lines carry a count, not an id.
    pub skipped: usize,
    pub xfailed: Vec<String>,
    pub xpassed: Vec<String>,
}

/// Everything the summary parts of the output say.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Terminal {
    pub lines: ShortSummary,
    /// The final line's counts, keyed by pytest's word in the plural
    /// (`passed`, `failed`, `errors`, `warnings`, ...). Empty for
    /// `no tests ran`.
    pub counts: BTreeMap<String, usize>,
    /// `N` of `Interrupted: N errors during collection`, when printed.
    pub interrupted: Option<usize>,
    /// `M` of the header's `collected N items / M errors` (0 when the
    /// header has no errors part); `None` when there is no header (`-q`).
    pub collected_errors: Option<usize>,
}

/// Words pytest may use in the final counts line.
const KNOWN_WORDS: &[&str] = &[
    "passed",
    "failed",
    "skipped",
    "xfailed",
    "xpassed",
    "errors",
    "warnings",
    "deselected",
    "rerun",
];

pub fn parse(text: &str) -> Result<Terminal, String> {
    let lines: Vec<&str> = text.lines().collect();
    let final_index = lines
        .iter()
        .rposition(|l| final_line_body(l).is_some())
        .ok_or("no final counts line (`== ... in 0.12s ==`) found")?;
    let counts = parse_counts(final_line_body(lines[final_index]).unwrap_or_default())?;

    let mut terminal = Terminal {
        counts,
        collected_errors: lines[..final_index]
            .iter()
            .find_map(|l| collected_errors(l)),
        ..Terminal::default()
    };
    if let Some(header) = lines[..final_index]
        .iter()
        .rposition(|l| l.starts_with('=') && l.contains(" short test summary info "))
    {
        for line in &lines[header + 1..final_index] {
            parse_summary_line(line, &mut terminal)?;
        }
    }
    Ok(terminal)
}

/// The errors of the collection header: `collected 2 items / 2 errors`,
/// `collected 5 items / 1 error / 2 deselected / 3 selected`.
fn collected_errors(line: &str) -> Option<usize> {
    let rest = line.strip_prefix("collected ")?;
    let mut parts = rest.split(" / ");
    let items = parts.next()?;
    if !(items.ends_with(" items") || items.ends_with(" item")) {
        return None;
    }
    Some(
        parts
            .filter_map(|p| {
                let (n, word) = p.split_once(' ')?;
                matches!(word, "error" | "errors").then(|| n.parse::<usize>().ok())?
            })
            .sum(),
    )
}

/// The text between the `=` padding of the final line, when `line` is one:
/// `5 failed, 19 passed in 0.13s`, `no tests ran in 0.01s`,
/// `2 errors in 65.12s (0:01:05)`.
fn final_line_body(line: &str) -> Option<&str> {
    if !line.starts_with('=') {
        return None;
    }
    let body = line.trim_matches(|c| c == '=' || c == ' ');
    let (counts, time) = body.rsplit_once(" in ")?;
    let seconds = time.split(' ').next()?.strip_suffix('s')?;
    seconds.parse::<f64>().ok()?;
    let first = counts.chars().next()?;
    (first.is_ascii_digit() || counts == "no tests ran").then_some(counts)
}

fn parse_counts(body: &str) -> Result<BTreeMap<String, usize>, String> {
    let mut counts = BTreeMap::new();
    if body == "no tests ran" {
        return Ok(counts);
    }
    for part in body.split(", ") {
        let (n, word) = part
            .split_once(' ')
            .ok_or_else(|| format!("cannot read `{part}` in the final line `{body}`"))?;
        let n: usize = n
            .parse()
            .map_err(|_| format!("cannot read `{part}` in the final line `{body}`"))?;
        let word = match word {
            "error" => "errors",
            "warning" => "warnings",
            w => w,
        };
        if !KNOWN_WORDS.contains(&word) {
            return Err(format!("unknown word `{word}` in the final line `{body}`"));
        }
        if counts.insert(word.to_string(), n).is_some() {
            return Err(format!("`{word}` twice in the final line `{body}`"));
        }
    }
    Ok(counts)
}

fn parse_summary_line(line: &str, terminal: &mut Terminal) -> Result<(), String> {
    let lines = &mut terminal.lines;
    if let Some(rest) = line.strip_prefix("PASSED ") {
        // -rA prints passed tests without a message.
        lines.passed.push(rest.to_string());
    } else if let Some(rest) = line.strip_prefix("FAILED ") {
        lines.failed.push(node_id(rest));
    } else if let Some(rest) = line.strip_prefix("ERROR ") {
        lines.errors.push(node_id(rest));
    } else if let Some(rest) = line.strip_prefix("XFAIL ") {
        lines.xfailed.push(node_id(rest));
    } else if let Some(rest) = line.strip_prefix("XPASS ") {
        lines.xpassed.push(node_id(rest));
    } else if let Some(rest) = line.strip_prefix("SKIPPED [") {
        let n = rest
            .split_once("] ")
            .and_then(|(n, _)| n.parse::<usize>().ok())
            .ok_or_else(|| format!("cannot read the count of `{line}`"))?;
        lines.skipped += n;
    } else if let Some(rest) = line.strip_prefix("!") {
        // `!!!! Interrupted: 2 errors during collection !!!!`
        let text = rest.trim_matches(|c| c == '!' || c == ' ');
        if let Some(n) = text
            .strip_prefix("Interrupted: ")
            .and_then(|t| t.strip_suffix(" during collection"))
            .and_then(|t| t.split(' ').next())
            .and_then(|n| n.parse().ok())
        {
            terminal.interrupted = Some(n);
        }
    }
    // Anything else is the continuation of a multi-line reason.
    Ok(())
}

/// The node id at the start of `id - message`. Parametrize ids may hold
/// ` - ` themselves, so the separator is the first ` - ` outside brackets.
/// A report from another phase than the call is written
/// `XFAIL at teardown of <id> - reason`.
fn node_id(rest: &str) -> String {
    let rest = ["at setup of ", "at teardown of "]
        .iter()
        .find_map(|p| rest.strip_prefix(p))
        .unwrap_or(rest);
    let mut depth = 0i32;
    for (i, c) in rest.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ' ' if depth == 0 && rest[i..].starts_with(" - ") => {
                return rest[..i].to_string();
            }
            _ => {}
        }
    }
    rest.to_string()
}

impl Terminal {
    /// The ERROR lines that are collection errors. pytest reports them as
    /// it collects, before any test runs, so they are the first `M` ERROR
    /// lines, `M` from the `collected N items / M errors` header. Their id
    /// is the failing collector's: a file, or `file::Class` for a class.
    /// Without the header, the ids naming a file (no `::`).
    pub fn collection_error_ids(&self) -> &[String] {
        let errors = &self.lines.errors;
        let n = self
            .collected_errors
            .unwrap_or_else(|| errors.iter().take_while(|id| !id.contains("::")).count());
        &errors[..n.min(errors.len())]
    }

    /// The `-rA` lines and the final line must tell the same story, or
    /// this parser (not the program under test) is wrong.
    pub fn check_consistent(&self) -> Result<(), String> {
        let lines = &self.lines;
        let count = |word: &str| self.counts.get(word).copied().unwrap_or(0);
        let pairs = [
            ("passed", lines.passed.len()),
            ("failed", lines.failed.len()),
            ("errors", lines.errors.len()),
            ("skipped", lines.skipped),
            ("xfailed", lines.xfailed.len()),
            ("xpassed", lines.xpassed.len()),
        ];
        let mut problems = Vec::new();
        for (word, from_lines) in pairs {
            if count(word) != from_lines {
                problems.push(format!(
                    "{word}: final line says {}, -rA lines say {from_lines}",
                    count(word)
                ));
            }
        }
        let collection = self.collection_error_ids();
        if let Some(n) = self.interrupted
            && n != collection.len()
        {
            problems.push(format!(
                "`Interrupted: {n} errors during collection` but {} collection errors \
                 (header: {:?})",
                collection.len(),
                self.collected_errors
            ));
        }
        if let Some(id) = lines.errors[collection.len()..]
            .iter()
            .find(|id| !id.contains("::"))
        {
            problems.push(format!(
                "ERROR {id} names a file but is not among the collection errors"
            ));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("; "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shortened from the `mixed` fixture: a teardown error on a passed
    /// test, an error in setup, skips, xfail, xpass, and a parametrized id
    /// with spaces.
    const MIXED: &str = "\
============================= test session starts ==============================
collected 12 items

tests/test_catalog.py ..F.EEsX                                           [ 66%]
tests/test_isbn.py .xs.                                                  [100%]

==================================== PASSES ====================================
_____________________________ test_add_new_book ______________________________
PASSED tests/test_catalog.py::not_a_summary_line
=========================== short test summary info ============================
PASSED tests/test_catalog.py::test_add_new_book
PASSED tests/test_catalog.py::test_loan_checked_at_teardown
PASSED tests/test_isbn.py::test_isbn13[978 0 13 468599 1-True]
PASSED tests/test_isbn.py::test_normalize
PASSED tests/test_isbn.py::test_isbn10[a - b]
SKIPPED [1] tests/test_catalog.py:89: reservations are not implemented yet
SKIPPED [2] tests/test_isbn.py:94: legacy Y2K date handling
XFAIL tests/test_isbn.py::test_isbn13_979_prefix - ISBN-13 with 979 prefix not supported yet
XPASS tests/test_catalog.py::TestAvailability::test_after_return - returns are not implemented
ERROR tests/test_catalog.py::test_loan_checked_at_teardown - RuntimeError: lo...
ERROR tests/test_catalog.py::test_remote_search - ConnectionError: catalog se...
FAILED tests/test_catalog.py::test_overdue[x - y] - AssertionError: assert [('ana', ...
= 1 failed, 5 passed, 3 skipped, 1 xfailed, 1 xpassed, 2 errors in 0.13s =
";

    #[test]
    fn reads_every_kind_of_short_summary_line() {
        let t = parse(MIXED).unwrap();
        assert_eq!(
            t.lines.passed,
            [
                "tests/test_catalog.py::test_add_new_book",
                "tests/test_catalog.py::test_loan_checked_at_teardown",
                "tests/test_isbn.py::test_isbn13[978 0 13 468599 1-True]",
                "tests/test_isbn.py::test_normalize",
                "tests/test_isbn.py::test_isbn10[a - b]",
            ]
        );
        assert_eq!(
            t.lines.failed,
            ["tests/test_catalog.py::test_overdue[x - y]"]
        );
        assert_eq!(
            t.lines.errors,
            [
                "tests/test_catalog.py::test_loan_checked_at_teardown",
                "tests/test_catalog.py::test_remote_search",
            ]
        );
        assert_eq!(t.lines.skipped, 3);
        assert_eq!(
            t.lines.xfailed,
            ["tests/test_isbn.py::test_isbn13_979_prefix"]
        );
        assert_eq!(
            t.lines.xpassed,
            ["tests/test_catalog.py::TestAvailability::test_after_return"]
        );
        let counts: Vec<(&str, usize)> = t.counts.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(
            counts,
            [
                ("errors", 2),
                ("failed", 1),
                ("passed", 5),
                ("skipped", 3),
                ("xfailed", 1),
                ("xpassed", 1),
            ]
        );
        assert_eq!(t.interrupted, None);
        t.check_consistent().unwrap();
    }

    #[test]
    fn reads_collection_errors_and_the_interrupted_line() {
        let text = "\
collected 2 items / 2 errors
=========================== short test summary info ============================
ERROR tests/test_import_error.py
ERROR tests/test_syntax_error.py - SyntaxError: expected ':'
!!!!!!!!!!!!!!!!!!! Interrupted: 2 errors during collection !!!!!!!!!!!!!!!!!!!!
============================== 2 errors in 0.52s ===============================
";
        let t = parse(text).unwrap();
        assert_eq!(
            t.lines.errors,
            ["tests/test_import_error.py", "tests/test_syntax_error.py"]
        );
        assert_eq!(t.interrupted, Some(2));
        assert_eq!(t.collected_errors, Some(2));
        assert_eq!(t.collection_error_ids(), t.lines.errors);
        assert_eq!(t.counts.get("errors"), Some(&2));
        t.check_consistent().unwrap();
    }

    #[test]
    fn a_class_that_cannot_be_collected_is_a_collection_error() {
        let text = "\
collected 1 item / 1 error / 1 deselected / 0 selected
_______________________ ERROR collecting tests/test_c.py _______________________
=========================== short test summary info ============================
ERROR tests/test_c.py::TestC - Failed: In tests/test_c.py::TestC::test_m: fun...
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
=============================== 1 error in 0.21s ===============================
";
        let t = parse(text).unwrap();
        assert_eq!(t.collected_errors, Some(1));
        assert_eq!(t.collection_error_ids(), ["tests/test_c.py::TestC"]);
        t.check_consistent().unwrap();
    }

    #[test]
    fn reads_reports_of_the_teardown_phase() {
        let text = "\
collected 2 items
=========================== short test summary info ============================
XFAIL tests/t.py::test_a - known
XFAIL at teardown of tests/t.py::test_a - known
XFAIL at teardown of tests/t.py::test_b - maybe
XPASS tests/t.py::test_b - maybe
================== 3 xfailed, 1 xpassed in 0.08s ===================
";
        let t = parse(text).unwrap();
        assert_eq!(
            t.lines.xfailed,
            [
                "tests/t.py::test_a",
                "tests/t.py::test_a",
                "tests/t.py::test_b"
            ]
        );
        t.check_consistent().unwrap();
        assert!(t.collection_error_ids().is_empty());
    }

    #[test]
    fn reads_no_tests_ran_singular_words_and_long_durations() {
        let empty = parse("collected 0 items\n\n=== no tests ran in 0.01s ===\n").unwrap();
        assert_eq!(
            empty,
            Terminal {
                collected_errors: Some(0),
                ..Terminal::default()
            }
        );

        let t = parse(
            "=== short test summary info ===\n\
             ERROR t.py::a - boom\n\
             === 1 error, 1 warning in 65.12s (0:01:05) ===\n",
        )
        .unwrap();
        assert_eq!(t.counts.get("errors"), Some(&1));
        assert_eq!(t.counts.get("warnings"), Some(&1));
        t.check_consistent().unwrap();
    }

    #[test]
    fn a_disagreement_between_lines_and_counts_is_reported() {
        let t = parse(
            "=== short test summary info ===\n\
             PASSED t.py::a\n\
             === 2 passed in 0.01s ===\n",
        )
        .unwrap();
        let err = t.check_consistent().unwrap_err();
        assert!(
            err.contains("passed: final line says 2, -rA lines say 1"),
            "{err}"
        );
    }

    #[test]
    fn rejects_output_without_a_final_line_or_with_unknown_words() {
        assert!(parse("collected 3 items\n").is_err());
        assert!(parse("=== 3 exploded in 0.1s ===\n").is_err());
    }
}
