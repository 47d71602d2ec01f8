//! Failures that share a root cause, shown as one section.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::HashMap;

use super::detail::Section;
use super::sections::label;
use crate::model::{Run, TestResult};
use crate::pytest_text;

/// Failures that share their [`root_cause`], shown as one section: `first`
/// gets it, `same` are named in it.
pub(super) struct Group<'r> {
    pub(super) first: &'r TestResult,
    pub(super) same: Vec<&'r TestResult>,
    /// The section's [`Section`] once worked out, when the group may be
    /// rendered at more than one level of detail.
    kept: Option<OnceCell<Section<'r>>>,
}

impl<'r> Group<'r> {
    /// What the group's section shows: worked out once if kept, else each
    /// time.
    pub(super) fn section(&self) -> Cow<'_, Section<'r>> {
        match &self.kept {
            Some(cell) => Cow::Borrowed(cell.get_or_init(|| Section::new(self.first))),
            None => Cow::Owned(Section::new(self.first)),
        }
    }
}

/// The fewest characters a failure section takes: `\n### ERROR: \n`.
pub(super) const MIN_SECTION_CHARS: usize = 13;

/// The run's failed and erroring tests, in order.
pub(super) fn problems(run: &Run) -> Vec<&TestResult> {
    run.tests.iter().filter(|t| t.is_problem()).collect()
}

/// Failures and errors in [`Group`]s, in order of first appearance. The
/// sections of the first `keep` groups are kept once worked out.
pub(super) fn failure_groups<'r>(problems: &[&'r TestResult], keep: usize) -> Vec<Group<'r>> {
    let mut groups: Vec<Group<'_>> = Vec::with_capacity(problems.len());
    let mut index: HashMap<RootCause<'_>, usize> = HashMap::with_capacity(problems.len());
    for &t in problems {
        let alone = Group {
            first: t,
            same: Vec::new(),
            kept: (groups.len() < keep).then(OnceCell::new),
        };
        let Some(key) = root_cause(t) else {
            groups.push(alone);
            continue;
        };
        match index.entry(key) {
            std::collections::hash_map::Entry::Occupied(e) => groups[*e.get()].same.push(t),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(groups.len());
                groups.push(alone);
            }
        }
    }
    groups
}

/// Heading, message, and the failing place's path and line, borrowed from
/// the test.
pub(super) type RootCause<'t> = (&'static str, Cow<'t, str>, &'t str, u32);

/// What makes two failures the same: the heading, the message and the
/// place it failed. Failures without a known place are never grouped (a
/// bare "Failed" from two Go tests says nothing about a shared cause).
pub(super) fn root_cause(t: &TestResult) -> Option<RootCause<'_>> {
    // The last frame of the last traceback: other failing phases' come after
    // the test's own.
    let place = t
        .phase_failures()
        .iter()
        .rev()
        .filter_map(|p| p.traceback.as_deref())
        .chain(t.traceback())
        .find_map(|tb| tb.lines().rev().find_map(pytest_text::frame_line))?;
    let message = t.joined_message().unwrap_or_default();
    Some((label(t), message, place.path, place.line))
}
