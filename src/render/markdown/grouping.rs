//! Failures that share a root cause, as [`view::failure_groups`] shows
//! them, with what only the Markdown adds: the `(new)` mark of a heading,
//! the indented `Same failure in` line, and each section's detail kept
//! once worked out.

use std::borrow::Cow;
use std::cell::OnceCell;

use crate::model::{Run, TestResult};
use crate::pytest_text;
use crate::render::view::failure::Section;
use crate::render::view::{self, New};
use crate::text::one_line;

/// Ids listed in a group's line before the rest are counted (`+N more`).
pub(super) const LISTED_IDS: usize = 5;

/// A failure group of the view and, when it may be rendered at more than
/// one level of detail, its [`Section`] once worked out: reading a
/// traceback is most of the cost of rendering a failure.
pub(super) struct ShownGroup<'r> {
    pub(super) group: view::Group<'r>,
    kept: Option<OnceCell<Section<'r>>>,
}

impl<'r> ShownGroup<'r> {
    /// What the group's section shows: worked out once if kept, else each
    /// time.
    pub(super) fn section(&self) -> Cow<'_, Section<'r>> {
        match &self.kept {
            Some(cell) => Cow::Borrowed(cell.get_or_init(|| Section::new(self.group.first))),
            None => Cow::Owned(Section::new(self.group.first)),
        }
    }
}

/// The run's failure groups, new failures (since the last run) first.
pub(super) fn failure_groups(run: &Run) -> Vec<view::Group<'_>> {
    view::failure_groups(run, New::SinceLastRun)
}

/// `groups` to be shown, the sections of the first `keep` of them kept
/// once worked out.
pub(super) fn shown(groups: Vec<view::Group<'_>>, keep: usize) -> Vec<ShownGroup<'_>> {
    groups
        .into_iter()
        .enumerate()
        .map(|(n, group)| ShownGroup {
            group,
            kept: (n < keep).then(OnceCell::new),
        })
        .collect()
}

/// What a heading says of how a group stands: ` (new)` when all its
/// tests are new, ` (2 of 5 new)` when some; with a history of runs,
/// ` (flaky, failed 3 of the last 5 runs)` or ` (failing for 4 runs,
/// since 1a2b3c4)`.
pub(super) fn new_mark(group: &view::Group<'_>) -> String {
    view::standing_mark(group)
        .or_else(|| view::new_words(group))
        .map_or_else(String::new, |mark| format!(" ({mark})"))
}

/// The view's `Same failure in 11 more: a, b, c, d, e, +6 more`, indented
/// under the message: ids as pytest accepts them, at most `listed`. A test
/// that failed on another line of its own file than the heading's
/// (`line`) says which: `tests/test_b.py::test_y (line 348)`.
pub(super) fn same_line(
    run: &Run,
    group: &view::Group<'_>,
    listed: usize,
    line: Option<u32>,
) -> Option<String> {
    let first_file = group.first.location.as_ref().map(|l| &*l.file);
    let line = group.same_line(listed, |id| {
        let shown = one_line(id).into_owned();
        let own = group
            .tests
            .iter()
            .map(|&i| &run.tests[i])
            .find(|t| t.node_id == id)
            .and_then(|t| Some((t, own_line(t)?)));
        match own {
            Some((t, n))
                if Some(n) != line || t.location.as_ref().map(|l| &*l.file) != first_file =>
            {
                format!("{shown} (line {n})")
            }
            _ => shown,
        }
    })?;
    Some(["  ", &line].concat())
}

/// The line of its own file where `t` failed: its traceback's first frame
/// there, when its id names that file.
fn own_line(t: &TestResult) -> Option<u32> {
    let file = &*t.location.as_ref()?.file;
    if !t.node_id.starts_with(file) {
        return None;
    }
    t.traceback()?
        .lines()
        .filter_map(pytest_text::frame_line)
        .find(|f| pytest_text::paths_match(f.path, file))
        .map(|f| f.line)
}
