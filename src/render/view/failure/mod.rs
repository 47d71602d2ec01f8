//! A failure's lines as every output shows them, written once: under a
//! failure's heading in the agent Markdown, in a group's code block on
//! GitHub (`render::gfm`), in a failure card of the HTML page. The
//! message (a failed `assert` without `AssertionError: `), earlier
//! attempts, the frames in the project (`at file:line`), the failing
//! source line (`> ...`), the explanation lines the message does not
//! already hold, failed subtests, then captured output; each at a level of
//! [`Detail`], the steps the Markdown's budget takes. Tracebacks are read
//! in [`traceback`]; pytest's ExceptionGroups in [`exception_group`].

mod body;
mod exception_group;
mod lines;
mod subtests;
#[cfg(test)]
mod tests;
mod traceback;

pub use body::{Lean, collection_detail, failure_body, lean_message, message_lines};
pub use lines::{clip, indent_line, line_breaks};
pub use traceback::{Section, is_framework_frame};

/// The lines an exception group's traceback is told in (its frames in
/// the project, its failing line, its members, each with its place), when
/// the test's traceback is one; none otherwise.
pub fn exception_group_lines(t: &TestResult) -> Option<Vec<String>> {
    let tb = t.traceback()?;
    exception_group::is_exception_group(tb).then(|| {
        let file = t.location.as_ref().map(|l| &*l.file);
        exception_group::detail(tb, file)
    })
}

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::model::{CollectionError, Run, TestResult};
use crate::text::first_line;

/// Lines of captured output kept per stream: the head and the tail.
const OUTPUT_HEAD: usize = 5;
const OUTPUT_TAIL: usize = 15;
/// Lines kept from a non-pytest stack trace.
const FOREIGN_TRACE_LINES: usize = 8;
/// Frames listed per failure before the rest are summarised.
const MAX_FRAMES: usize = 6;
/// Lines of a message shown, its first line aside; a longer one is cut in
/// the middle, or finding by finding (`body::message_lines`).
pub const MAX_MESSAGE_LINES: usize = 20;
/// Longest line kept anywhere; longer ones are cut with a marker.
const MAX_LINE_CHARS: usize = 400;

/// How much of each failure is shown: the first steps of fitting an answer
/// to its budget (the Markdown's `fit`), each dropping more than the one
/// before. Every failing group keeps its section at each of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Detail {
    /// Everything: message, frames, failing line, explanation, output.
    Full,
    /// Captured output dropped.
    NoOutput,
    /// Also the traceback cut to the crash lines: where the test failed,
    /// the failing source line and a few explanation lines; messages to
    /// their first line and a few more, cut in the middle (a long
    /// message's end says what it found).
    CrashLines,
    /// Also one id named per group, the others counted.
    FewerIds,
}

impl Detail {
    /// Lines of a message shown.
    pub fn message_lines(self) -> usize {
        match self {
            Detail::Full | Detail::NoOutput => MAX_MESSAGE_LINES,
            Detail::CrashLines | Detail::FewerIds => 3,
        }
    }
    fn shows_output(self) -> bool {
        self == Detail::Full
    }
    fn crash_only(self) -> bool {
        self >= Detail::CrashLines
    }
}

/// What the agent Markdown writes under a failure's heading, at `detail`:
/// the message, earlier attempts, the frames (`at file:line`), the failing
/// source line (`> ...`), explanation lines and captured output, as plain
/// lines. Other renderers show them as they are (`render::gfm`, in a code
/// block), so that every rendering reads a failure the same way.
pub fn failure_lines(t: &TestResult, detail: Detail) -> String {
    let mut out = String::new();
    body::failure_body(&mut out, t, None, &Section::new(t), detail, Lean::default());
    out
}

/// A collection error's detail lines as the agent Markdown writes them
/// under its `- L12 — ImportError: ...` line (the offending source line,
/// explanation lines the message does not hold), unindented.
pub fn collection_error_lines(e: &CollectionError) -> Vec<String> {
    let tb = e.traceback.as_deref().unwrap_or_default();
    body::collection_detail(tb, &e.message, &e.file)
}

/// The run's collection errors by file, files in order, each with its
/// errors as collected; the session's own (no file) as `(session)`.
pub fn collection_errors_by_file(run: &Run) -> Vec<(&str, Vec<&CollectionError>)> {
    let mut by_file: BTreeMap<&str, Vec<_>> = BTreeMap::new();
    for e in &run.collection_errors {
        by_file.entry(e.file.as_str()).or_default().push(e);
    }
    by_file
        .into_iter()
        .map(|(file, errors)| (if file.is_empty() { "(session)" } else { file }, errors))
        .collect()
}

/// A collection error's first line: `L12 — ImportError: <message's first
/// line>` (the line and the type when known).
pub fn collection_error_head(e: &CollectionError) -> String {
    let mut head = String::new();
    if let Some(line) = e.line {
        let _ = write!(head, "L{line} — ");
    }
    if let Some(t) = &e.error_type {
        let _ = write!(head, "{t}: ");
    }
    head.push_str(first_line(&e.message));
    head
}
