//! Failures that share a root cause ([`crate::model::groups`]), shown as
//! one section naming the other tests.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::fmt::Write as _;

use super::detail::Section;
use crate::model::groups::{
    IdItem, Parametrizations, failure_groups as groups_of, listed_ids, new_in,
};
use crate::model::{Run, TestResult};
use crate::text::one_line;

/// Ids listed in a group's line before the rest are counted (`+N more`).
pub(super) const LISTED_IDS: usize = 5;

/// Failures that share their shape, shown as one section: `first` gets it,
/// the others are named in it.
pub(super) struct Group<'r> {
    pub(super) first: &'r TestResult,
    /// How many tests the group holds, `first` included.
    pub(super) count: usize,
    /// How many of them fail now and did not last time (`Run::changes`);
    /// `first` is one of them when any is.
    pub(super) new: usize,
    /// The others' ids, parametrizations compressed to their function where
    /// the group holds all of them (that function then stands for `first`
    /// too).
    pub(super) ids: Vec<IdItem<'r>>,
    /// The section's [`Section`] once worked out, when the group may be
    /// rendered at more than one level of detail.
    kept: Option<OnceCell<Section<'r>>>,
}

impl<'r> Group<'r> {
    /// What a heading says of a group with new failures: ` (new)` when
    /// all its tests are, ` (2 of 5 new)` when some.
    pub(super) fn new_mark(&self) -> String {
        match self.new {
            0 => String::new(),
            n if n == self.count => " (new)".to_string(),
            n => format!(" ({n} of {} new)", self.count),
        }
    }

    /// Whether every test of the group failed last time too: its detail
    /// was shown then, and is the first to shrink.
    pub(super) fn seen_before(&self, run: &Run) -> bool {
        self.new == 0 && run.changes.is_some()
    }

    /// What the group's section shows: worked out once if kept, else each
    /// time.
    pub(super) fn section(&self) -> Cow<'_, Section<'r>> {
        match &self.kept {
            Some(cell) => Cow::Borrowed(cell.get_or_init(|| Section::new(self.first))),
            None => Cow::Owned(Section::new(self.first)),
        }
    }

    /// `Same failure in 29 more: tests/t.py::test_total (all 30 cases)`,
    /// or `Same failure in 11 more: a, b, c, d, e, +6 more`: every id an
    /// id pytest accepts as given, at most `listed` of them (one more when
    /// it is the last). `None` for a failure with no twin.
    pub(super) fn same_line(&self, listed: usize) -> Option<String> {
        if self.count < 2 {
            return None;
        }
        let mut line = format!("  Same failure in {} more: ", self.count - 1);
        self.write_ids(&mut line, listed);
        Some(line)
    }

    /// The others' ids, at most `listed` (one more when it is the last),
    /// then `+N more` for the tests not covered.
    pub(super) fn write_ids(&self, line: &mut String, listed: usize) {
        let (shown, rest) = listed_ids(&self.ids, &self.first.node_id, self.count, listed);
        for (n, item) in shown.iter().enumerate() {
            if n > 0 {
                line.push_str(", ");
            }
            match item {
                IdItem::Test(id) => line.push_str(&one_line(id)),
                IdItem::Function { id, count } => {
                    let _ = write!(line, "{} (all {count} cases)", one_line(id));
                }
            }
        }
        if rest > 0 {
            let sep = if shown.is_empty() { "" } else { ", " };
            let _ = write!(line, "{sep}+{rest} more");
        }
    }
}

/// Failures and errors in [`Group`]s, largest first, ties in order of
/// appearance. The sections of the first `keep` groups are kept once
/// worked out.
pub(super) fn failure_groups(run: &Run, keep: usize) -> Vec<Group<'_>> {
    let groups = groups_of(run);
    let new = run
        .changes
        .as_ref()
        .map(|c| c.new_set())
        .unwrap_or_default();
    let params = Parametrizations::for_groups(run, &groups);
    groups
        .iter()
        .enumerate()
        .map(|(n, g)| {
            let first = &run.tests[g.tests[0]];
            let mut ids = if g.tests.len() > 1 {
                params.compress(run, &g.tests)
            } else {
                Vec::new()
            };
            if ids.first() == Some(&IdItem::Test(&first.node_id)) {
                ids.remove(0);
            }
            Group {
                first,
                count: g.tests.len(),
                new: new_in(run, &new, &g.tests),
                ids,
                kept: (n < keep).then(OnceCell::new),
            }
        })
        .collect()
}
