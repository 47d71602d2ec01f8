//! Our Markdown and GitHub annotations against a project's expectations:
//! the status word and counts of the first line, each failure's message,
//! place and details, the reason, the crash; every heading's `(line N)`
//! and annotation's line is a line of the file it names.

use std::path::Path;

use crate::closing::Closing;
use crate::common::headline::{Counts, Verdict, counts, run_failed, says, start};
use crate::{Crash, Expect, Failure, Ran};

/// The phrases of our status line the closing line's counts make:
/// `9 run, 2 failed`, `, 1 error`, `, 1 skipped`, `, 1 xpassed`,
/// `, 1 warning` (xfailed tests are counted as skipped), each as the
/// library words it.
fn count_phrases(c: &Closing) -> Vec<String> {
    let n = |word: &str| c.get(word) as usize;
    let mut phrases = vec![run_failed(c.total() as usize, n("failed"))];
    // One count alone: what the counts phrase adds for it after its
    // `0 run, 0 failed`.
    let none = run_failed(0, 0);
    let alone = |one: Counts| {
        counts(one)
            .strip_prefix(&none)
            .unwrap_or_else(|| panic!("the counts phrase of {one:?} does not start with `{none}`"))
            .to_string()
    };
    for one in [
        Counts {
            errors: n("error"),
            ..Counts::default()
        },
        Counts {
            skipped: n("skipped") + n("xfailed"),
            ..Counts::default()
        },
        Counts {
            xpassed: n("xpassed"),
            ..Counts::default()
        },
        Counts {
            warnings: n("warning"),
            ..Counts::default()
        },
    ] {
        if one != Counts::default() {
            phrases.push(alone(one));
        }
    }
    phrases
}

/// The status an `expect.json` names (`success`, `failure`, `crash`: the
/// name the structured results give it).
fn verdict_named(name: &str) -> Option<Verdict> {
    [
        Verdict::Success,
        Verdict::Failure,
        Verdict::NoTests,
        Verdict::Interrupted,
        Verdict::Error,
        Verdict::Timeout,
        Verdict::Crash,
        Verdict::Cancelled,
    ]
    .into_iter()
    .find(|v| serde_json::to_value(v).is_ok_and(|named| named == name))
}

/// The first line of an answer (`Markdown`, `GitHub`: our status line
/// leads both) and our exit status: pytest's, its status word, its
/// counts.
fn check_headline(
    what: &str,
    expect: &Expect,
    closing: Option<&Closing>,
    run: &Ran,
) -> Vec<String> {
    let mut problems = Vec::new();
    let first = run.stdout.lines().next().unwrap_or_default();
    if run.status != Some(expect.exit) {
        problems.push(format!(
            "{what}: pytest-mcp exited {:?} where pytest exited {}",
            run.status, expect.exit
        ));
    }
    match verdict_named(&expect.status) {
        Some(verdict) if !says(first, verdict) => problems.push(format!(
            "{what}: the first line is not `{}...`: {first}",
            start(verdict)
        )),
        Some(_) => {}
        None => problems.push(format!(
            "expect.json: the status `{}` is no status of ours",
            expect.status
        )),
    }
    if let Some(c) = closing {
        for phrase in count_phrases(c) {
            if !first.contains(&phrase) {
                problems.push(format!(
                    "{what}: the first line lacks `{phrase}` ({}): {first}",
                    c.line
                ));
            }
        }
    }
    problems
}

/// The Markdown: exit status, status word and counts, each failure
/// (message, place, details), the reason, the crash.
pub fn check_markdown(
    expect: &Expect,
    closing: Option<&Closing>,
    run: &Ran,
    dir: &Path,
) -> Vec<String> {
    let md = &run.stdout;
    let first = md.lines().next().unwrap_or_default();
    let mut problems = check_headline("Markdown", expect, closing, run);
    for failure in &expect.failures {
        problems.extend(check_failure_section(md, failure));
    }
    problems.extend(check_headed_ids(md, expect));
    for line in md.lines().map(str::trim_start) {
        let place = line.starts_with("at ") || line.contains("(at ");
        if place && installed(line) {
            problems.push(format!(
                "Markdown: a failure placed in an installed package: {line}"
            ));
        }
    }
    for id in &expect.flaky {
        if !md
            .lines()
            .any(|l| l.starts_with("- ") && l.contains(id.as_str()))
        {
            problems.push(format!("Markdown: the flaky test {id} is not listed"));
        }
    }
    problems.extend(check_heading_lines(md, dir));
    if let Some(reason) = expect.reason.as_deref().filter(|r| !r.is_empty()) {
        if !md.contains(reason) {
            problems.push(format!("Markdown: the reason `{reason}` is not said"));
        }
    }
    if let Some(crash) = &expect.crash {
        problems.extend(check_crash_markdown(md, first, crash));
    }
    problems
}

/// The section of the failure `id`: from its heading (`### FAILED: <id>`,
/// `### ERROR: <id>`, then the end of the line or ` (...)`) to the next.
fn failure_section<'a>(md: &'a str, id: &str) -> Option<&'a str> {
    let start = md.match_indices(&format!(": {id}")).find_map(|(i, _)| {
        let line_start = md[..i].rfind('\n').map_or(0, |n| n + 1);
        let after = &md[i + id.len() + 2..];
        let heading = md[line_start..].starts_with("### ");
        (heading && (after.starts_with('\n') || after.starts_with(" (") || after.is_empty()))
            .then_some(line_start)
    })?;
    let rest = &md[start..];
    let end = rest[1..].find("\n### ").map_or(rest.len(), |i| i + 1);
    Some(&rest[..end])
}

/// Every failure section is of a test pytest failed: a test that passed
/// in the end (on a retry) has none.
fn check_headed_ids(md: &str, expect: &Expect) -> Vec<String> {
    let known = |id: &str| {
        expect.failures.iter().any(|f| f.id == id)
            || expect.crash.as_ref().is_some_and(|c| c.running == id)
    };
    md.lines()
        .filter_map(|l| {
            let rest = l
                .strip_prefix("### FAILED: ")
                .or_else(|| l.strip_prefix("### ERROR: "))?;
            Some(rest.split(" (line ").next().unwrap_or(rest))
        })
        .filter(|id| !known(id))
        .map(|id| format!("Markdown: a failure section for {id}, which pytest did not fail"))
        .collect()
}

fn check_failure_section(md: &str, failure: &Failure) -> Vec<String> {
    let id = &failure.id;
    let Some(section) = failure_section(md, id) else {
        return vec![format!("Markdown: no section for the failure {id}")];
    };
    let mut problems = Vec::new();
    if !section.contains(&failure.message) {
        problems.push(format!(
            "Markdown: {id} lacks its message `{}`",
            failure.message
        ));
    }
    problems.extend(check_place(section, failure));
    for detail in &failure.details {
        if !section.contains(detail.as_str()) {
            problems.push(format!("Markdown: {id} lacks `{detail}`"));
        }
    }
    for absent in &failure.absent {
        if section.contains(absent.as_str()) {
            problems.push(format!("Markdown: {id} shows `{absent}`"));
        }
    }
    problems
}

/// The failure's section names its place: in its heading (`(line N)`,
/// the test's own file) or an `at` line; an item with no line of its own
/// (`place` a path alone) is headed with none.
fn check_place(section: &str, failure: &Failure) -> Option<String> {
    let id = &failure.id;
    let heading = section.lines().next().unwrap_or_default();
    let Some((path, line)) = failure
        .place
        .rsplit_once(':')
        .filter(|(_, line)| line.parse::<u32>().is_ok())
    else {
        let own_file = id.split("::").next() == Some(failure.place.as_str());
        return (heading.contains(" (line ") || !own_file).then(|| {
            format!(
                "Markdown: {id} is not placed at {} with no line: {heading}",
                failure.place
            )
        });
    };
    let own_file = id.split("::").next() == Some(path);
    let in_heading = own_file && heading.contains(&format!(" (line {line})"));
    let in_at_line = section.lines().any(|l| {
        mentions(l, &failure.place) && (l.trim_start().starts_with("at ") || l.contains("(at "))
    });
    (!in_heading && !in_at_line).then(|| {
        format!(
            "Markdown: {id} is not placed at {} (its heading's line, or an `at` line)",
            failure.place
        )
    })
}

/// True when `line` names `place` (`path:12`, not `path:123`).
fn mentions(line: &str, place: &str) -> bool {
    line.match_indices(place)
        .any(|(i, _)| !line[i + place.len()..].starts_with(|c: char| c.is_ascii_digit()))
}

/// Every heading's `(line N)` is a line of the file its id names.
fn check_heading_lines(md: &str, dir: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    for heading in md.lines().filter(|l| l.starts_with("### ")) {
        let Some((before, after)) = heading.rsplit_once(" (line ") else {
            continue;
        };
        let Some(n) = after
            .strip_suffix(')')
            .and_then(|n| n.parse::<usize>().ok())
        else {
            continue;
        };
        let Some(file) = before
            .split(": ")
            .nth(1)
            .and_then(|id| id.split("::").next())
        else {
            continue;
        };
        if let Some(lines) = line_count(dir, file) {
            if n > lines {
                problems.push(format!(
                    "Markdown: `{heading}` names line {n} of {file}, which has {lines} lines"
                ));
            }
        }
    }
    problems
}

fn line_count(dir: &Path, file: &str) -> Option<usize> {
    std::fs::read_to_string(dir.join(file))
        .ok()
        .map(|t| t.lines().count())
}

/// A crash names the running test on the first line and the tests that
/// never ran: how many, and each id.
fn check_crash_markdown(md: &str, first: &str, crash: &Crash) -> Vec<String> {
    let mut problems = Vec::new();
    if !first.contains(&format!("while running {}", crash.running)) {
        problems.push(format!(
            "Markdown: the first line does not say `while running {}`: {first}",
            crash.running
        ));
    }
    let count = crash.not_run.len().to_string();
    let said = md.lines().any(|l| {
        l.to_lowercase().contains("never ran")
            && l.split(|c: char| !c.is_ascii_digit()).any(|n| n == count)
    });
    if !said {
        problems.push(format!(
            "Markdown: no line says the {count} tests that never ran (`never ran` and the count)"
        ));
    }
    for id in &crash.not_run {
        if !md.contains(id.as_str()) {
            problems.push(format!(
                "Markdown: the test that never ran {id} is not named"
            ));
        }
    }
    problems
}

/// Whether a place is inside a virtualenv or an interpreter's packages,
/// which no failure of the project's is.
fn installed(place: &str) -> bool {
    ["site-packages", "/.venv", ".venv-plugins/", "/lib/python3"]
        .iter()
        .any(|p| place.contains(p))
}

/// `--format github`: its status line as the Markdown's; every error
/// annotation of a test pytest failed (none of a test that passed in the
/// end); every annotation's line a line of its file, none in an
/// installed package.
pub fn check_github(
    expect: &Expect,
    closing: Option<&Closing>,
    run: &Ran,
    dir: &Path,
) -> Vec<String> {
    let mut problems = if expect.crash.is_some() {
        Vec::new()
    } else {
        check_headline("GitHub", expect, closing, run)
    };
    for annotation in run.stdout.lines().filter(|l| l.starts_with("::error ")) {
        let title = annotation
            .split_once("title=")
            .map(|(_, t)| t.split("::").next().unwrap_or(t))
            .unwrap_or_default()
            .replace("%3A", ":")
            .replace("%2C", ",")
            .replace("%25", "%");
        let of_a_test = title.starts_with("FAILED") || title.starts_with("ERROR");
        let named = Some(title.as_str())
            .filter(|_| of_a_test)
            .and_then(|t| t.split_once(": "))
            .map(|(_, ids)| ids.split(", +").next().unwrap_or(ids));
        let known = named.is_some_and(|id| {
            expect
                .failures
                .iter()
                .any(|f| id == f.id || id.starts_with(&format!("{} ", f.id)))
                || id.contains(" (all ")
        });
        if named.is_some() && !known {
            problems.push(format!(
                "GitHub: an error annotation of a test pytest did not fail: {annotation}"
            ));
        }
    }
    for annotation in run.stdout.lines().filter(|l| l.starts_with("::")) {
        let Some(props) = annotation
            .split_once(' ')
            .and_then(|(_, rest)| rest.split_once("::"))
            .map(|(props, _)| props)
        else {
            continue;
        };
        let prop = |key: &str| {
            props
                .split(',')
                .find_map(|p| p.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
        };
        if prop("file").is_some_and(installed) {
            problems.push(format!(
                "GitHub: an annotation in an installed package: {annotation}"
            ));
        }
        let (Some(file), Some(n)) = (
            prop("file"),
            prop("line").and_then(|n| n.parse::<usize>().ok()),
        ) else {
            continue;
        };
        if let Some(lines) = line_count(dir, file) {
            if n > lines {
                problems.push(format!(
                    "GitHub: an annotation at {file} line {n}, which has {lines} lines"
                ));
            }
        }
    }
    problems
}
