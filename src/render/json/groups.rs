//! The JSON report's `failure_groups` (a shortened answer's): every root
//! cause with its count, outcome, exception, message, crash location, ids
//! and the one id that reruns the whole group when there is one.

use std::borrow::Cow;

use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};

use crate::model::groups::IdItem;
use crate::model::{Phase, Run};
use crate::render::view;
use crate::text::{clip_chars, first_line};

/// A failure group (`view::Group`) and what its entry says beside the
/// ids, worked out once for every plan.
pub(super) struct Cause<'r> {
    pub(super) group: view::Group<'r>,
    exception: Option<&'r str>,
    /// The first test's message, first line.
    message: Cow<'r, str>,
    /// The crash location: `path:line`, or another framework's frame.
    location: Option<String>,
    /// The one id that reruns the whole group, when there is one.
    rerun: Option<&'r str>,
    /// How many of its tests are new, when the last run is known.
    new: Option<usize>,
    /// Its standing by the history of runs, in words.
    standing: Option<String>,
}

impl<'r> Cause<'r> {
    pub(super) fn of(run: &Run, group: view::Group<'r>) -> Self {
        let t = group.first;
        let message = match t.joined_message() {
            Some(Cow::Borrowed(m)) => Cow::Borrowed(first_line(m)),
            Some(Cow::Owned(m)) => Cow::Owned(first_line(&m).to_string()),
            None => Cow::Borrowed(""),
        };
        let rerun = match group.items.as_slice() {
            [IdItem::Test(id)] => Some(*id),
            [IdItem::Function { id, count }] if *count == group.count => Some(*id),
            _ => None,
        };
        Cause {
            exception: group.exception(),
            message,
            location: group.place().map(|place| match place {
                (path, Some(line)) => format!("{path}:{line}"),
                (frame, None) => frame.to_string(),
            }),
            rerun,
            new: (run.changes.is_some() || run.history.is_some()).then_some(group.new),
            standing: view::standing_mark(&group),
            group,
        }
    }
}

/// The failure groups a shortened answer keeps, each as it shows them.
pub(super) struct Groups<'a> {
    pub(super) causes: &'a [Cause<'a>],
    /// Ids each group names.
    pub(super) ids: usize,
    /// The longest message a group shows, in characters.
    pub(super) message_chars: usize,
}

/// One root cause: how many tests it broke and how to find them.
#[derive(Serialize)]
struct GroupEntry<'a> {
    count: usize,
    /// `failed`, or `error` (`error_phase` says when).
    outcome: &'static str,
    error_phase: Option<&'static str>,
    exception: Option<&'a str>,
    /// The representative's message, first line.
    message: Cow<'a, str>,
    location: Option<&'a str>,
    /// The tests' ids, a parametrized function's id standing for all its
    /// cases when the group holds every one of them.
    ids: Ids<'a>,
    /// Ids of the group not in `ids`.
    ids_omitted: usize,
    rerun: Option<&'a str>,
    /// How many of its tests fail now and did not last time (the groups
    /// holding any come first); only when the last run is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    new: Option<usize>,
    /// By the history of runs: `flaky, failed 3 of the last 5 runs` or
    /// `failing for 4 runs, since 1a2b3c4`; only when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    history: Option<&'a str>,
}

impl Serialize for Groups<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.causes.len()))?;
        for c in self.causes {
            let items = &c.group.items;
            let shown = items.len().min(self.ids);
            seq.serialize_element(&GroupEntry {
                count: c.group.count,
                outcome: c.group.first.outcome.as_str(),
                error_phase: view::error_phase(c.group.first).map(Phase::as_str),
                exception: c.exception,
                message: clip_chars(&c.message, self.message_chars),
                location: c.location.as_deref(),
                ids: Ids(&items[..shown]),
                ids_omitted: items.len() - shown,
                rerun: c.rerun,
                new: c.new,
                history: c.standing.as_deref(),
            })?;
        }
        seq.end()
    }
}

/// Ids as pytest accepts them.
struct Ids<'a>(&'a [IdItem<'a>]);

impl Serialize for Ids<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|i| match i {
            IdItem::Test(id) | IdItem::Function { id, .. } => *id,
        }))
    }
}
