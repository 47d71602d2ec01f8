//! Failure groups as every output shows them: the first test, how many
//! tests, how many of them are new, the others' ids (parametrizations
//! compressed to their function), and the heading's label. Worked out
//! once per answer from [`crate::model::groups`]; the outputs only format
//! them.

use std::collections::HashSet;
use std::fmt::Write as _;

use crate::model::groups::{self as model_groups, IdItem, Parametrizations, listed_ids};
use crate::model::{Outcome, Phase, Run, TestResult};

/// What "new" means for a group: failing now and not in the last run
/// (pytest's cache, [`Run::changes`]), or not failing in a baseline run
/// (`report --baseline`): the comparison's new failures.
#[derive(Debug, Clone, Copy)]
pub enum New<'a> {
    SinceLastRun,
    Baseline(&'a [String]),
    /// Nothing is new: no comparison is shown.
    Nothing,
}

/// Failures that share their shape, shown once: `first` gets the detail,
/// the others are named.
#[derive(Debug, Clone)]
pub struct Group<'r> {
    pub first: &'r TestResult,
    /// The group's tests, indices into [`Run::tests`], `first`'s first.
    pub tests: Vec<usize>,
    /// How many tests the group holds, `first` included.
    pub count: usize,
    /// How many of them are new ([`New`]).
    pub new: usize,
    /// Every test's id in order, parametrizations compressed to their
    /// function where the group holds all of them.
    pub items: Vec<IdItem<'r>>,
    /// The ids of its tests that are new failures, with a baseline.
    pub new_ids: Vec<&'r str>,
    /// Where the first test crashed and with which exception.
    crash: Crash<'r>,
}

/// Where a group's first test crashed: a path and line, or another
/// framework's stack frame; and the exception's name, when known.
#[derive(Debug, Clone, Copy, Default)]
struct Crash<'r> {
    place: Option<(&'r str, Option<u32>)>,
    exception: Option<&'r str>,
}

impl<'r> Group<'r> {
    /// The ids of the tests but the first (the function's when it stands
    /// for the first too).
    pub fn others(&self) -> &[IdItem<'r>] {
        match self.items.first() {
            Some(IdItem::Test(id)) if *id == self.first.node_id => &self.items[1..],
            _ if self.count < 2 => &[],
            _ => &self.items,
        }
    }

    /// The heading's label of the group's first test.
    pub fn label(&self) -> &'static str {
        label(self.first)
    }

    /// Where the first test crashed: a path and its line, or a stack
    /// frame's text with no line.
    pub fn place(&self) -> Option<(&'r str, Option<u32>)> {
        self.crash.place
    }

    /// The exception the first test failed with, when known.
    pub fn exception(&self) -> Option<&'r str> {
        self.crash.exception
    }

    /// Whether every test of the group failed last time too (its detail
    /// was shown then), with what changed since the last run.
    pub fn seen_before(&self, run: &Run) -> bool {
        self.new == 0 && run.changes.is_some()
    }

    /// `Same failure in 11 more: a, b, c, +8 more`: every id one pytest
    /// accepts, each shown by `show`, at most `listed` of them (one more
    /// when it is the last). `None` for a failure with no twin.
    pub fn same_line(&self, listed: usize, show: impl Fn(&str) -> String) -> Option<String> {
        if self.count < 2 {
            return None;
        }
        let mut line = format!("Same failure in {} more: ", self.count - 1);
        self.write_ids(&mut line, listed, show);
        Some(line)
    }

    /// The others' ids, at most `listed` (one more when it is the last),
    /// then `+N more` for the tests not covered.
    pub fn write_ids(&self, line: &mut String, listed: usize, show: impl Fn(&str) -> String) {
        let (shown, rest) = listed_ids(self.others(), &self.first.node_id, self.count, listed);
        for (n, item) in shown.iter().enumerate() {
            if n > 0 {
                line.push_str(", ");
            }
            match item {
                IdItem::Test(id) => line.push_str(&show(id)),
                IdItem::Function { id, count } => {
                    let _ = write!(line, "{} (all {count} cases)", show(id));
                }
            }
        }
        if rest > 0 {
            let sep = if shown.is_empty() { "" } else { ", " };
            let _ = write!(line, "{sep}+{rest} more");
        }
    }
}

/// The run's failures and errors in groups, largest first (ties in order
/// of appearance); with what changed since the last run, the groups
/// holding a new failure first ([`model_groups::failure_groups`]); with a
/// baseline, those holding one of its new failures first.
pub fn failure_groups<'r>(run: &'r Run, new: New<'_>) -> Vec<Group<'r>> {
    let found = model_groups::failure_groups(run);
    let params = Parametrizations::for_groups(run, &found);
    let changes = match new {
        New::SinceLastRun => run.changes.as_ref().map(|c| c.new_set()),
        _ => None,
    };
    let baseline: Option<HashSet<&str>> = match new {
        New::Baseline(ids) => Some(ids.iter().map(String::as_str).collect()),
        _ => None,
    };
    let mut groups: Vec<Group<'r>> = found
        .into_iter()
        .map(|g| {
            let first = &run.tests[g.tests[0]];
            let items = params.compress(run, &g.tests);
            let new_ids: Vec<&str> = match &baseline {
                Some(set) => g
                    .tests
                    .iter()
                    .map(|&i| run.tests[i].node_id.as_str())
                    .filter(|id| set.contains(id))
                    .collect(),
                None => Vec::new(),
            };
            let new = match &changes {
                Some(set) => model_groups::new_in(run, set, &g.tests),
                None => new_ids.len(),
            };
            Group {
                first,
                count: g.tests.len(),
                tests: g.tests,
                new,
                items,
                new_ids,
                crash: match model_groups::shape(first) {
                    Some(s) => Crash {
                        place: Some(s.place),
                        exception: s.exception,
                    },
                    None => Crash::default(),
                },
            }
        })
        .collect();
    if baseline.is_some() {
        // Stable: the groups keep their order within each part.
        groups.sort_by_key(|g| g.new == 0);
    }
    groups
}

/// A failure's heading label: `FAILED`, `ERROR at setup`, ...
pub fn label(t: &TestResult) -> &'static str {
    match (t.outcome, error_phase(t)) {
        (_, Some(Phase::Setup)) => "ERROR at setup",
        (_, Some(_)) => "ERROR at teardown",
        (Outcome::Error, None) => "ERROR",
        _ => "FAILED",
    }
}

/// The phase an error happened in when it is not the test's own call:
/// setup or teardown (a label's `ERROR at setup`, JSON's `error_phase`).
pub fn error_phase(t: &TestResult) -> Option<Phase> {
    match (t.outcome, t.phase) {
        (Outcome::Error, Some(phase @ (Phase::Setup | Phase::Teardown))) => Some(phase),
        _ => None,
    }
}
