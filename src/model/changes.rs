//! What changed since the last run, from pytest's own cache: the agent's
//! loop (run, edit, run again) learns what it fixed and what it broke
//! without comparing two answers itself.
//!
//! Before a run pytest's cache holds `cache/lastfailed`: the ids that
//! failed or errored last time (a file, for a collection error), kept
//! across runs of other selections. Our event-log plugin reads it before
//! pytest rewrites it ([`LastRun`]); this module compares it with the run
//! that just finished. Only what this run selected is compared: a run of
//! one file says nothing about the rest. Pure: a run and the cache's record
//! in, [`Changes`] out.

use std::collections::{HashMap, HashSet};

use crate::model::history::History;
use crate::model::{Outcome, Run};
use crate::text::plural;

/// What pytest's cache said about the run before this one.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
pub struct LastRun {
    /// `cache/lastfailed`: ids that failed or errored, and files that did
    /// not collect, the last time each ran.
    #[serde(default)]
    pub failed: Vec<String>,
    /// Those of `failed` this run would have collected (within its paths,
    /// in a file it collected or one that no longer exists) and did not:
    /// renamed or deleted tests.
    #[serde(default)]
    pub missing: Vec<String>,
}

/// How this run's failures differ from the last run's, over this run's
/// selection. Ids in this run's order (the cache's for `gone`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Changes {
    /// Failing or erroring now, and not last time: it passed, or did not
    /// exist. A file that does not collect now and did before.
    pub new_failures: Vec<String>,
    /// Failing last time and passing now (a file: collecting now).
    pub fixed: Vec<String>,
    /// Failing last time and now.
    pub still_failing: Vec<String>,
    /// Failing last time and no longer collected (renamed or deleted):
    /// neither fixed nor new.
    pub gone: Vec<String>,
    /// Failing now and not last time, and flaky by the history of runs
    /// (docs/flaky.md): a flip, not something new.
    pub flaky: Vec<String>,
}

/// Compares `run` with the last run's record.
pub fn since(run: &Run, last: &LastRun) -> Changes {
    let failed: HashSet<&str> = last.failed.iter().map(String::as_str).collect();
    let mut c = Changes::default();
    let mut seen: HashSet<&str> = HashSet::new();
    // An id listed twice (a rerun in JUnit) counts once, as failing when
    // any of its results fails.
    let mut problem: HashMap<&str, bool> = HashMap::new();
    let mut order: Vec<&str> = Vec::new();
    for t in &run.tests {
        let id = t.node_id.as_str();
        let slot = problem.entry(id).or_insert_with(|| {
            order.push(id);
            false
        });
        *slot |= t.is_problem();
    }
    let ran_ok: HashSet<&str> = run
        .tests
        .iter()
        .filter(|t| t.outcome == Outcome::Passed)
        .map(|t| t.node_id.as_str())
        .collect();
    for id in order {
        seen.insert(id);
        let before = failed.contains(id);
        match (problem[id], before) {
            (true, true) => c.still_failing.push(id.to_string()),
            (true, false) => c.new_failures.push(id.to_string()),
            (false, true) if ran_ok.contains(id) => c.fixed.push(id.to_string()),
            _ => {}
        }
    }
    let broken_files: HashSet<&str> = run
        .collection_errors
        .iter()
        .map(|e| e.file.as_str())
        .collect();
    for file in &broken_files {
        seen.insert(file);
    }
    for e in &run.collection_errors {
        let file = e.file.as_str();
        let list = if failed.contains(file) {
            &mut c.still_failing
        } else {
            &mut c.new_failures
        };
        if !e.file.is_empty() && !list.iter().any(|id| id == file) {
            list.push(file.to_string());
        }
    }
    let missing: HashSet<&str> = last.missing.iter().map(String::as_str).collect();
    for id in &last.failed {
        if seen.contains(id.as_str()) {
            continue;
        }
        if missing.contains(id.as_str()) {
            c.gone.push(id.clone());
        } else if !id.contains("::") && collects_now(run, id) {
            // A file that did not collect last time and does now.
            c.fixed.push(id.clone());
        }
    }
    c
}

/// Whether this run holds tests of `file`.
fn collects_now(run: &Run, file: &str) -> bool {
    run.tests.iter().any(|t| {
        t.node_id
            .strip_prefix(file)
            .is_some_and(|rest| rest.starts_with("::"))
    })
}

impl Changes {
    /// `2 fixed, 1 new failure, 1 still failing` (`, 1 gone`, `, 1 flaky`):
    /// the counts that are not zero, always in that order.
    pub fn phrase(&self) -> String {
        let mut parts = Vec::new();
        if !self.fixed.is_empty() {
            parts.push(format!("{} fixed", self.fixed.len()));
        }
        if !self.new_failures.is_empty() {
            parts.push(plural(
                self.new_failures.len(),
                "new failure",
                "new failures",
            ));
        }
        if !self.still_failing.is_empty() {
            parts.push(format!("{} still failing", self.still_failing.len()));
        }
        if !self.gone.is_empty() {
            parts.push(format!("{} gone", self.gone.len()));
        }
        if !self.flaky.is_empty() {
            parts.push(format!("{} flaky", self.flaky.len()));
        }
        parts.join(", ")
    }

    /// Moves the new failures that the history holds flaky to `flaky`, and
    /// takes the tests it holds flaky out of `fixed`: a flaky test that
    /// passes now flipped again, and an edit made since did not fix it
    /// (docs/flaky.md).
    pub fn set_apart_flaky(&mut self, history: &History) {
        let (flaky, new): (Vec<String>, Vec<String>) = std::mem::take(&mut self.new_failures)
            .into_iter()
            .partition(|id| history.is_flaky(id));
        self.new_failures = new;
        self.flaky = flaky;
        self.fixed.retain(|id| !history.is_flaky(id));
    }

    /// The last run had failures (within this run's selection): some
    /// still fail, were fixed, or are gone.
    pub fn last_run_failed(&self) -> bool {
        !(self.still_failing.is_empty() && self.fixed.is_empty() && self.gone.is_empty())
    }

    /// Nothing of this run fails: no new, flaky or still failing test.
    pub fn nothing_fails(&self) -> bool {
        self.new_failures.is_empty() && self.still_failing.is_empty() && self.flaky.is_empty()
    }

    /// Nothing failed last time or now (within this run's selection).
    pub fn is_empty(&self) -> bool {
        self.nothing_fails() && !self.last_run_failed()
    }

    /// The new failures' ids, to look up.
    pub fn new_set(&self) -> HashSet<&str> {
        self.new_failures.iter().map(String::as_str).collect()
    }
}

#[cfg(test)]
mod tests;
