//! GitHub workflow commands (`--format github`, the name ruff and others
//! use): failures as annotations on the lines where tests failed.
//!
//! ```text
//! Test FAILURE (0.4s) — 12 run, 3 failed
//! ::error file=tests/test_calc.py,line=42,title=FAILED (2 tests)%3A tests/test_calc.py%3A%3Atest_div%2C +1 more::assert 0.5 == 0.6%0ASame failure in 1 more: tests/test_calc.py::test_half
//! ::notice title=pytest-mcp::2 more failure groups (5 tests) are not annotated (GitHub shows 10 error annotations per step): the job summary lists them all
//! ```
//!
//! The first line is the Markdown report's header, plain log text. Then one
//! `::error` per collection error and per failure group
//! ([`crate::render::view::failure_groups`], largest first), at most
//! [`MAX_ERRORS`] in all, which is what GitHub shows per step; its `file`
//! and `line` are the crash line ([`crate::model::crash`]), not the
//! test's `def`; its `title` the group's kind, size and first test id; its
//! message the failure's message and the group's other ids, listed as
//! every output lists them ([`crate::render::view::Group::same_line`]). With
//! a history of runs, new failures come first, a title says how its group
//! stands (`(failing for 4 runs, since 1a2b3c4)`), and a flaky failure is a
//! `::warning` titled with its rate (`(flaky, failed 2 of the last 5
//! runs)`), at most [`MAX_WARNINGS`], not an error. One `::notice` then
//! says how many groups were left out. Nothing else is printed: every
//! command is one line, its values escaped, so no text of a test can start
//! a workflow command of its own.
//!
//! **Paths.** GitHub resolves an annotation's `file` against the
//! repository root. The run's paths are pytest's, relative to its rootdir
//! (for other frameworks, whatever their JUnit says, often absolute):
//! [`Options::path_prefix`] (the rootdir's directory in the repository) is
//! put before relative paths, and an absolute path under
//! [`Options::workspace`] (the checkout, `GITHUB_WORKSPACE`) is made
//! relative to it. Other absolute paths are left as they are.

use std::fmt::Write as _;

use crate::budget::{Fitted, Offer};
use crate::model::coverage::ChangeCoverage;
use crate::model::crash::crash_line;
use crate::model::crash::is_framework_frame;
use crate::model::groups::IdItem;
use crate::model::{CollectionError, Run, TestResult};
use crate::pytest_text::{self, frame_line};
use crate::render::Style;
use crate::render::view::{self, Compared, Group, New, label};
use crate::text::{first_line, one_line, plural};

/// `::error` annotations GitHub shows for one step (it keeps 10 of each
/// kind per step, 50 per job).
pub const MAX_ERRORS: usize = 10;
/// `::warning` annotations GitHub shows for one step: flaky failures.
pub const MAX_WARNINGS: usize = 10;
/// Lines of a failure's message kept in its annotation.
const MESSAGE_LINES: usize = 20;
/// Longest line kept in an annotation's message, in characters.
const LINE_CHARS: usize = 400;
/// Lines of another framework's stack trace added to a message.
const FOREIGN_LINES: usize = 8;
/// Other ids of a group named in its annotation before the rest are counted.
const LISTED_IDS: usize = 5;

/// What the annotations need to know about where they are shown.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// The directory the run's relative paths are relative to, relative to
    /// the repository root, `/`-separated (`backend`; empty at the root).
    pub path_prefix: String,
    /// The repository's checkout, absolute (`GITHUB_WORKSPACE`): absolute
    /// paths under it become relative to it.
    pub workspace: Option<String>,
    /// Whether the Markdown report goes to the job summary: the notice
    /// about groups left out points there.
    pub step_summary: bool,
}

/// A run's workflow commands, never cut (GitHub shows what it shows),
/// paths by the style's annotations options. Every output's offer takes
/// the same three.
pub fn offer<'a>(run: &'a Run, _: Option<&'a Compared>, style: &'a Style) -> Offer<'a, Fitted> {
    Offer::Whole(Fitted::whole(render(run, &style.annotations)))
}

/// The run as workflow commands (see the module's documentation).
pub fn render(run: &Run, options: &Options) -> String {
    let status = view::status(run);
    let mut out = status.headline(Some(run.duration_secs()), &view::counts_phrase(run));
    out.push('\n');
    // Failed with every test passed: the reason, as an error of the run.
    if let Some(reason) = &status.exit_reason {
        out.push_str(&command(
            "error",
            &[("title", &reason.lead())],
            &reason.text,
        ));
    }
    if let Some(shards) = view::shards(run) {
        shards_command(&mut out, &shards);
    }
    let errors = &run.collection_errors;
    for e in errors.iter().take(MAX_ERRORS) {
        collection_error(&mut out, e, options);
    }
    // In the view's order: new failures first, then those failing before;
    // the flaky ones (by the history of runs) are warnings.
    let (flaky, groups): (Vec<Group<'_>>, Vec<Group<'_>>) =
        view::failure_groups(run, New::SinceLastRun)
            .into_iter()
            .partition(Group::is_flaky);
    let room = MAX_ERRORS.saturating_sub(errors.len());
    for g in groups.iter().take(room) {
        failure(&mut out, g, "error", options);
    }
    for g in flaky.iter().take(MAX_WARNINGS) {
        failure(&mut out, g, "warning", options);
    }
    if let Some(c) = &run.coverage {
        let room = MAX_WARNINGS.saturating_sub(flaky.len());
        coverage(&mut out, c, room, options);
    }
    let left = LeftOut {
        groups: &groups[room.min(groups.len())..],
        flaky: &flaky[MAX_WARNINGS.min(flaky.len())..],
        errors: errors.len().saturating_sub(MAX_ERRORS),
    };
    if !left.groups.is_empty() || !left.flaky.is_empty() || left.errors > 0 {
        left_out(&mut out, &left, options);
    }
    out
}

/// The change's coverage (`run --coverage`): a warning on each range no
/// test ran (its file, first and last line), `room` of them; a notice
/// with how many changed lines ran, the ranges left out, or why the
/// change could not be judged.
fn coverage(out: &mut String, c: &ChangeCoverage, room: usize, options: &Options) {
    let gaps = view::coverage_gaps(c);
    for (path, gap) in gaps.iter().take(room) {
        let file = repository_path(path, options);
        let (start, end) = (gap.start.to_string(), gap.end.to_string());
        let within = match &gap.function {
            Some(f) => format!(" in {f}"),
            None => String::new(),
        };
        let word = if gap.start == gap.end {
            "Line"
        } else {
            "Lines"
        };
        let was = view::coverage_was(gap).map_or(String::new(), |w| format!(" ({w})"));
        let message = format!(
            "{word} {}{within} changed and no test ran them{was}",
            gap.lines()
        );
        let properties = [
            ("file", file.as_str()),
            ("line", start.as_str()),
            ("endLine", end.as_str()),
            ("title", "Changed lines no test ran"),
        ];
        out.push_str(&command("warning", &properties, &message));
    }
    let mut summary = view::coverage_phrase(c, true);
    if gaps.len() > room {
        let _ = write!(
            summary,
            "; {} more ranges not run: see the job summary",
            gaps.len() - room
        );
    }
    let left = view::coverage_left_behind(c);
    if !left.is_empty() {
        let _ = write!(
            summary,
            "; ran before the change, not now: {}",
            left.join("; ")
        );
    }
    out.push_str(&command(
        "notice",
        &[("title", "Change coverage")],
        &summary,
    ));
}

/// The shards against their plan (`report --plan`), one command: an
/// error when a planned test was not run (each is an error group too), a
/// warning when a test ran on two shards, else a notice.
fn shards_command(out: &mut String, shards: &view::Shards<'_>) {
    let lines: Vec<String> = shards
        .lines()
        .iter()
        .map(|l| l.format(str::to_string, |id| one_line(id).into_owned()))
        .collect();
    let level = if !shards.not_run().is_empty() {
        "error"
    } else if !shards.run_twice().is_empty() {
        "warning"
    } else {
        "notice"
    };
    out.push_str(&command(level, &[("title", "Shards")], &lines.join("\n")));
}

/// An error that is not a result (a refused parameter, unreadable input,
/// a timeout) as one `::error` titled `title`, `markdown` its message:
/// the workflow log shows it as an error, the run's annotations list it.
/// Its blank lines go: GitHub shows an annotation's lines as they are, and
/// the Markdown's paragraph breaks would be empty lines there.
pub fn error(title: &str, markdown: &str) -> String {
    let lines: Vec<&str> = markdown.lines().filter(|l| !l.trim().is_empty()).collect();
    command("error", &[("title", title)], &lines.join("\n"))
}

/// `::name key=value,...::message` and a newline, every value escaped.
fn command(name: &str, properties: &[(&str, &str)], message: &str) -> String {
    let mut line = format!("::{name}");
    for (i, (key, value)) in properties.iter().enumerate() {
        line.push(if i == 0 { ' ' } else { ',' });
        let _ = write!(line, "{key}={}", escape_property(value));
    }
    let _ = writeln!(line, "::{}", escape_data(message));
    line
}

/// A command's message as GitHub's toolkit escapes it (`toCommandValue`,
/// `escapeData`): `%`, CR and LF.
pub fn escape_data(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c => out.push(c),
        }
    }
    out
}

/// A command's property value (`escapeProperty`): as [`escape_data`], and
/// `:` and `,`, which end a value.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// A collection error's annotation, on its file when it names one (a
/// Surefire suite's error names a class: that annotation has no `file`).
fn collection_error(out: &mut String, e: &CollectionError, options: &Options) {
    let file = is_file_name(&e.file).then(|| repository_path(&e.file, options));
    let title = format!("COLLECTION ERROR: {}", one_line(&e.file));
    let message = match &e.error_type {
        Some(kind) if !e.message.starts_with(kind.as_str()) => format!("{kind}: {}", e.message),
        _ => e.message.clone(),
    };
    let line = e.line.filter(|&l| l > 0);
    let message = clipped(&without_noise(&message));
    out.push_str(&annotation(
        "error",
        file.as_deref(),
        line,
        &title,
        &message,
    ));
}

/// An annotation of `kind` (`error`, `warning`) titled `title`, on `file`
/// (at `line`) when there is one: a `line` without a `file` means nothing
/// to GitHub.
fn annotation(
    kind: &str,
    file: Option<&str>,
    line: Option<u32>,
    title: &str,
    message: &str,
) -> String {
    let line = line.map(|l| l.to_string());
    let mut properties = Vec::new();
    if let Some(file) = file {
        properties.push(("file", file));
        if let Some(line) = &line {
            properties.push(("line", line.as_str()));
        }
    }
    properties.push(("title", title));
    command(kind, &properties, message)
}

/// Whether `path` looks like a file's path: its last part has an extension
/// of a few lower-case letters or digits (`test_x.py`, `Foo.java`), which
/// a dotted class name (`org.example.FooTest`) has not.
fn is_file_name(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=5).contains(&ext.len())
            && ext
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    })
}

/// One group's annotation of `kind`: on its first test's crash line,
/// titled with its kind, size and ids (a function's, when the group is all
/// of its cases) and how it stands against the history of runs (`(flaky,
/// failed 2 of the last 4 runs)`, `(failing for 4 runs, since 1a2b3c4)`),
/// the others' ids after the message.
fn failure(out: &mut String, g: &Group<'_>, kind: &str, options: &Options) {
    let t = g.first;
    let size = g.count;
    let id = one_line(&t.node_id);
    let whole_function = match g.items.as_slice() {
        [IdItem::Function { id, count }] => Some((*id, *count)),
        _ => None,
    };
    let title = match whole_function {
        Some((function, count)) => format!(
            "{} ({size} tests): {} (all {count} cases)",
            g.label(),
            one_line(function)
        ),
        None if size > 1 => format!("{} ({size} tests): {id}, +{} more", g.label(), size - 1),
        None => format!("{}: {id}", g.label()),
    };
    let title = match view::standing_mark(g) {
        Some(mark) => format!("{title} ({})", one_line(&mark)),
        None => title,
    };
    let mut message = clipped(&message_first(&without_noise(&message_of(t)), t));
    if whole_function.is_none()
        && let Some(same) = g.same_line(LISTED_IDS, |id| one_line(id).into_owned())
    {
        let _ = write!(message, "\n{same}");
    }
    let (file, line) = place_of(t, options);
    out.push_str(&annotation(kind, file.as_deref(), line, &title, &message));
}

/// Where a failure's annotation goes: its crash line, in the repository.
/// A place outside the project (a library's or a plugin's file: a test
/// pytest-bdd made fails in pytest_bdd/scenario.py) is no line of the
/// test's: the annotation goes on the test's own file, with no line.
fn place_of(t: &TestResult, options: &Options) -> (Option<String>, Option<u32>) {
    let Some(place) = crash_line(t) else {
        return (None, None);
    };
    let file = repository_path(place.file, options);
    if !pytest_text::is_outside_project(&file) {
        return (Some(file), place.line);
    }
    let own = t
        .node_id
        .split_once("::")
        .map(|(file, _)| file)
        .filter(|file| is_file_name(file) && !pytest_text::is_outside_project(file));
    (own.map(|file| repository_path(file, options)), None)
}

/// What was not annotated: failure groups, flaky ones, collection errors.
struct LeftOut<'a, 'r> {
    groups: &'a [Group<'r>],
    flaky: &'a [Group<'r>],
    errors: usize,
}

/// The notice about what was not annotated.
fn left_out(out: &mut String, left: &LeftOut<'_, '_>, options: &Options) {
    let mut what = Vec::new();
    let kinds = [
        (left.groups, "failure group", "failure groups"),
        (left.flaky, "flaky failure group", "flaky failure groups"),
    ];
    for (groups, one, many) in kinds.into_iter().filter(|(g, ..)| !g.is_empty()) {
        let tests: usize = groups.iter().map(|g| g.count).sum();
        what.push(format!(
            "{} ({})",
            plural(groups.len(), one, many),
            plural(tests, "test", "tests")
        ));
    }
    if left.errors > 0 {
        what.push(plural(left.errors, "collection error", "collection errors"));
    }
    if let Some(first) = what.first_mut() {
        first.insert_str(first.find(' ').map_or(0, |i| i + 1), "more ");
    }
    let count = left.groups.len() + left.flaky.len() + left.errors;
    let verb = if count == 1 { "is" } else { "are" };
    let shown = if left.flaky.is_empty() {
        format!("{MAX_ERRORS} error annotations")
    } else {
        format!("{MAX_ERRORS} error and {MAX_WARNINGS} warning annotations")
    };
    let where_ = if options.step_summary {
        "the job summary lists them all"
    } else {
        "the Markdown report (`--format markdown`) lists them all"
    };
    let message = format!(
        "{} {} not annotated (GitHub shows {shown} per step): {where_}",
        listed(&what),
        verb,
    );
    out.push_str(&command("notice", &[("title", "pytest-mcp")], &message));
}

/// `a`, `a and b`, `a, b and c`.
fn listed(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The failure's message (other failing phases' too), else the first line
/// of its traceback; then, for another framework's stack trace, its first
/// [`FOREIGN_LINES`] lines that neither repeat the message nor are a
/// framework's frames (PHPUnit's message is only the test's name).
fn message_of(t: &TestResult) -> String {
    let mut text = t
        .joined_message()
        .map(|m| m.into_owned())
        .or_else(|| t.traceback().map(|tb| first_line(tb).to_string()))
        .filter(|m| !m.trim().is_empty())
        .unwrap_or_else(|| format!("{} (no message)", label(t)));
    let Some(tb) = t.traceback() else {
        return text;
    };
    if tb.lines().any(|l| frame_line(l).is_some()) {
        return text;
    }
    if let Some(lines) = view::failure::exception_group_lines(t) {
        for line in lines {
            text.push('\n');
            text.push_str(&line);
        }
        return text;
    }
    let said: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    // A line ending with a long message line repeats it
    // (`java.lang.AssertionError: <message>`).
    let repeats = |line: &str| {
        said.iter()
            .any(|m| line == *m || (m.chars().count() >= 8 && line.ends_with(m)))
    };
    let extra: Vec<&str> = tb
        .lines()
        .map(str::trim_end)
        .filter(|l| {
            let l = l.trim();
            !l.is_empty() && !repeats(l) && !is_framework_frame(l)
        })
        .take(FOREIGN_LINES)
        .collect();
    for line in extra {
        text.push('\n');
        text.push_str(line);
    }
    text
}

/// Whole lines that only tell how to rerun with more output (pytest's
/// `Use -v to get more diff`, Rust's `RUST_BACKTRACE` note): an annotation's
/// reader cannot act on them, and they push the explanation out of sight.
fn is_rerun_hint(line: &str) -> bool {
    (line.starts_with("Use -v") && line.contains(" diff"))
        || (line.starts_with("note: run with `RUST_BACKTRACE=") && line.ends_with("backtrace"))
}

/// The tails pytest adds to a line that also says something
/// (`Omitting 1 identical items, use -vv to show`): the tail goes, the
/// rest stays.
const RERUN_HINT_TAILS: &[&str] = &[
    ", use -vv to show",
    ", use -v to show",
    ", use '-vv' to show",
    ", use '-v' to show",
];

/// `text` without pytest's noise: blank lines (pytest puts one between the
/// assertion and its explanation, GitHub would show it as an empty line),
/// rerun hints ([`is_rerun_hint`], [`RERUN_HINT_TAILS`]).
fn without_noise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || is_rerun_hint(trimmed) {
            continue;
        }
        let line = line.trim_end();
        let line = RERUN_HINT_TAILS
            .iter()
            .find_map(|tail| line.strip_suffix(tail))
            .unwrap_or(line);
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
    }
    out
}

/// `text` with the failure's own words on its first line, which is what
/// GitHub shows of an annotation before it is expanded: a first line that
/// only names the test (PHPUnit's `Class::method`) or only says `Failed`
/// (Go, XCTest) goes when more follows, and a `.phpt` test's name glued to
/// its message (`stock-report-cli.phptFailed asserting ...`) is cut off.
fn message_first(text: &str, t: &TestResult) -> String {
    let name = test_name(&t.node_id);
    let Some((first, rest)) = text.split_once('\n') else {
        return strip_glued_name(text, name).to_string();
    };
    let first = first.trim();
    let names_the_test = !name.is_empty()
        && !first.contains(char::is_whitespace)
        && (first == name
            || first
                .strip_suffix(name)
                .is_some_and(|head| head.ends_with([':', '\\', '.', '#', '/'])));
    let bare = ["failed", "failure", "error"]
        .iter()
        .any(|w| first.eq_ignore_ascii_case(w));
    if names_the_test || bare {
        return rest.trim_start().to_string();
    }
    format!("{}\n{rest}", strip_glued_name(first, name))
}

/// The test's own name: the last part of its id (`Class#method`,
/// `suite > name`, `file::function`).
fn test_name(id: &str) -> &str {
    [" > ", " › ", "::", "#"]
        .iter()
        .filter_map(|sep| id.rfind(sep).map(|i| i + sep.len()))
        .max()
        .map_or(id, |i| &id[i..])
}

/// `line` without a file-named test's name glued before a capitalized
/// word (`stock-report-cli.phptFailed asserting` -> `Failed asserting`).
fn strip_glued_name<'a>(line: &'a str, name: &str) -> &'a str {
    match line.strip_prefix(name) {
        Some(rest) if name.contains('.') && rest.starts_with(|c: char| c.is_ascii_uppercase()) => {
            rest
        }
        _ => line,
    }
}

/// The first [`MESSAGE_LINES`] lines of `text`, each cut at [`LINE_CHARS`]
/// characters, saying how many lines were left out.
fn clipped(text: &str) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let mut out = String::new();
    for (i, line) in lines.iter().take(MESSAGE_LINES).enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match line.char_indices().nth(LINE_CHARS) {
            Some((cut, _)) => {
                out.push_str(&line[..cut]);
                out.push('…');
            }
            None => out.push_str(line),
        }
    }
    if lines.len() > MESSAGE_LINES {
        let _ = write!(out, "\n… {} more lines", lines.len() - MESSAGE_LINES);
    }
    out
}

/// `path` as GitHub needs it: relative to the repository root, `/`
/// between directories (see the module's documentation). A control
/// character in a file's name is shown escaped (`\u{1b}`), as in the title:
/// never a raw byte in a workflow command.
fn repository_path(path: &str, options: &Options) -> String {
    let path = one_line(&path.replace('\\', "/")).into_owned();
    let absolute = path.starts_with('/') || path.as_bytes().get(1) == Some(&b':');
    if absolute {
        let workspace = options.workspace.as_deref().map(|w| w.replace('\\', "/"));
        return match workspace.as_deref().map(|w| w.trim_end_matches('/')) {
            Some(w) if !w.is_empty() => match path.strip_prefix(w) {
                Some(rest) if rest.starts_with('/') => rest[1..].to_string(),
                _ => path,
            },
            _ => path,
        };
    }
    let path = path.strip_prefix("./").unwrap_or(&path);
    let prefix = options.path_prefix.trim_matches('/');
    if prefix.is_empty() || prefix == "." {
        path.to_string()
    } else {
        format!("{prefix}/{path}")
    }
}

#[cfg(test)]
mod tests;
