//! Failure groups as every output shows them: the first test, how many
//! tests, how many of them are new, the others' ids (parametrizations
//! compressed to their function), and the heading's label. Worked out
//! once per answer from [`crate::model::groups`]; the outputs only format
//! them.

use std::collections::HashSet;
use std::fmt::Write as _;

use crate::model::groups::{self as model_groups, Crash, IdItem, Parametrizations, listed_ids};
use crate::model::history::{Standing, TestHistory};
use crate::model::{Outcome, Phase, Run, TestResult};

/// What "new" means for a group: failing now and not in the last run
/// (by the history of runs, [`Run::history`], else pytest's cache,
/// [`Run::changes`]), or not failing in a baseline run (`report
/// --baseline`): the comparison's new failures.
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
    /// The ids of its tests that are new failures, with a baseline or a
    /// history of runs (pytest's cache alone says how many, not which).
    pub new_ids: Vec<&'r str>,
    /// How the group stands against the history of runs, when one was
    /// kept: flaky groups hold flaky tests only; a group with a new
    /// failure is new, else failing before.
    pub standing: Option<Standing>,
    /// The history of the first test, when it has one to tell.
    pub history: Option<&'r TestHistory>,
    /// The commit this run ran, when the history knows it.
    commit: Option<&'r str>,
    /// Where the first test crashed (a path and line, or another
    /// framework's stack frame) and with which exception.
    crash: Crash<'r>,
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
    /// frame's text with no line. A line of an installed package (a
    /// plugin's: pytest-bdd's scenarios fail in pytest_bdd/scenario.py) is
    /// no place of the project's: the test's own file stands, with no line.
    pub fn place(&self) -> Option<(&'r str, Option<u32>)> {
        match self.crash.place {
            Some((path, Some(_))) if crate::pytest_text::is_outside_project(path) => self
                .first
                .location
                .as_ref()
                .map(|l| (&*l.file, None))
                .filter(|(file, _)| !crate::pytest_text::is_outside_project(file)),
            place => place,
        }
    }

    /// The exception the first test failed with, when known.
    pub fn exception(&self) -> Option<&'r str> {
        self.crash.exception
    }

    /// Whether every test of the group failed last time too (its detail
    /// was shown then), with what changed since the last run.
    pub fn seen_before(&self, run: &Run) -> bool {
        self.new == 0 && (run.changes.is_some() || run.history.is_some())
    }

    /// Whether the group's tests are flaky by the history of runs.
    pub fn is_flaky(&self) -> bool {
        self.standing == Some(Standing::Flaky)
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
/// history of runs, new groups, then those failing before, then the flaky
/// ones (a group's flaky tests made a group of their own); with a
/// baseline, those holding one of its new failures first (flaky ones
/// still last).
pub fn failure_groups<'r>(run: &'r Run, new: New<'_>) -> Vec<Group<'r>> {
    let found = model_groups::failure_groups(run);
    let params = Parametrizations::for_groups(run, &found);
    let history = run.history.as_ref();
    let changes: Option<HashSet<&str>> = match (new, history) {
        (New::SinceLastRun, Some(h)) => Some(
            run.tests
                .iter()
                .filter(|t| h.standing(t) == Some(Standing::New))
                .map(|t| t.node_id.as_str())
                .collect(),
        ),
        (New::SinceLastRun, None) => run.changes.as_ref().map(|c| c.new_set()),
        _ => None,
    };
    let baseline: Option<HashSet<&str>> = match new {
        New::Baseline(ids) => Some(ids.iter().map(String::as_str).collect()),
        _ => None,
    };
    // Whose new failures are named: a baseline's, else the history's.
    let named = baseline
        .as_ref()
        .or(changes.as_ref().filter(|_| history.is_some()));
    let flaky =
        |i: &usize| history.is_some_and(|h| h.standing(&run.tests[*i]) == Some(Standing::Flaky));
    let mut parts: Vec<(Vec<usize>, (usize, Crash<'r>))> = Vec::with_capacity(found.len());
    for g in found {
        let (flips, rest): (Vec<usize>, Vec<usize>) = g.tests.into_iter().partition(flaky);
        let parted = [rest, flips].into_iter().filter(|p| !p.is_empty());
        parts.extend(parted.map(|p| (p, g.crash)));
    }
    let mut groups: Vec<Group<'r>> = parts
        .into_iter()
        .map(|(tests, (found_first, crash))| {
            let first = &run.tests[tests[0]];
            // The crash grouping found, unless another test leads now.
            let crash = if tests[0] == found_first {
                crash
            } else {
                model_groups::crash(first)
            };
            let items = params.compress(run, &tests);
            let new_ids: Vec<&str> = match named {
                Some(set) => tests
                    .iter()
                    .map(|&i| run.tests[i].node_id.as_str())
                    .filter(|id| set.contains(id))
                    .collect(),
                None => Vec::new(),
            };
            let new = match &changes {
                Some(set) => model_groups::new_in(run, set, &tests),
                None => new_ids.len(),
            };
            // New when any test is (New < FailingBefore < Flaky); a flaky
            // group holds flaky tests only.
            let standing = history.map(|h| {
                tests
                    .iter()
                    .filter_map(|&i| h.standing(&run.tests[i]))
                    .min()
                    .unwrap_or(Standing::New)
            });
            Group {
                first,
                count: tests.len(),
                tests,
                new,
                items,
                new_ids,
                standing,
                history: history.and_then(|h| h.of(&first.node_id)),
                commit: history.and_then(|h| h.commit.as_deref()),
                crash,
            }
        })
        .collect();
    if history.is_some() {
        // Stable: the groups keep their order within each part.
        groups.sort_by_key(|g| g.standing);
    }
    if baseline.is_some() {
        // A baseline's new failures first, the flaky ones still last.
        groups.sort_by_key(|g| (g.is_flaky(), g.new == 0));
    }
    groups
}

/// How a group stands against the history of runs, in the words every
/// output uses: `flaky, failed 3 of the last 5 runs`, or `failing for 4
/// runs, since 1a2b3c4` (the commit the streak began on, when it is not
/// this run's); a flaky test failing again says so: `failing for 3 runs;
/// flaky before`, or, failing every attempt of this run, `failed every
/// attempt; flaky before`. `None` for another new group, or with no
/// history.
pub fn standing_mark(group: &Group<'_>) -> Option<String> {
    let h = group.history?;
    let mut mark = match group.standing? {
        Standing::Flaky => return Some(rate(h)),
        Standing::FailingBefore => {
            let since = h.failing_since.as_ref()?;
            let mut mark = format!("failing for {} runs", since.runs);
            if let Some(commit) = since.commit.as_deref().filter(|c| Some(*c) != group.commit) {
                let _ = write!(mark, ", since {}", short_commit(commit));
            }
            mark
        }
        Standing::New if h.flaky_before => "failed every attempt".to_string(),
        Standing::New => return None,
    };
    if h.flaky_before {
        mark.push_str("; flaky before");
    }
    Some(mark)
}

/// How a group stands against the history of runs, in words, when one
/// was kept: [`standing_mark`], or `new` when all its tests are new, `2 of
/// 5 new` when some. `None` with no history (or nothing to say).
pub fn history_mark(group: &Group<'_>) -> Option<String> {
    match group.standing? {
        Standing::New => standing_mark(group).or_else(|| new_words(group)),
        _ => standing_mark(group),
    }
}

/// `new` when all the group's tests are new, `2 of 5 new` when some;
/// `None` when none is.
pub fn new_words(group: &Group<'_>) -> Option<String> {
    match group.new {
        0 => None,
        n if n == group.count => Some("new".to_string()),
        n => Some(format!("{n} of {} new", group.count)),
    }
}

/// `flaky, failed 3 of the last 5 runs`.
pub fn rate(h: &TestHistory) -> String {
    format!("flaky, failed {} of the last {} runs", h.failed, h.runs)
}

/// A commit as people quote it: its first 7 characters, none of them a
/// control character (`--commit` takes what it is given).
pub fn short_commit(commit: &str) -> String {
    commit.chars().filter(|c| !c.is_control()).take(7).collect()
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
