//! Shards merged and checked against their plan (`report --plan`,
//! docs/sharding.md): which shards' results came back, which planned tests
//! no shard ran, and which tests two shards ran.
//!
//! Each result file is one shard's (or a file with no planned test): it
//! is the shard that plans most of its tests. A test is run by the shards
//! whose files hold it, so a JUnit file and a JSON report of one shard run
//! it once. A planned test no file holds is not run; it becomes an error
//! of the merged run ([`ShardCheck::apply`]), so that every output shows
//! it as one and the run fails.
//!
//! Pure: the plan comes in as each shard's node ids, the files as their
//! tests' ids, in the order they were given.

use std::collections::HashMap;
use std::sync::Arc;

use super::{Location, Outcome, Run, TestResult};

/// What the results of a sharded run say against their plan.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ShardCheck {
    /// Shards in the plan.
    pub planned: usize,
    /// Shards whose results came back (a file holds some of their planned
    /// tests), ascending.
    pub came_back: Vec<usize>,
    /// Shards the plan gave no test, ascending: nothing was to come back.
    pub empty: Vec<usize>,
    /// Planned tests no file holds, with their shard, in the plan's order.
    pub not_run: Vec<(String, usize)>,
    /// Tests the files of two or more shards hold, with those shards
    /// (ascending; 0 for a file that holds no planned test), in the order
    /// they were found twice.
    pub run_twice: Vec<(String, Vec<usize>)>,
    /// Tests the files hold that the plan does not name (collected since
    /// it was made).
    pub unplanned: usize,
}

impl ShardCheck {
    /// Shards that had tests to run and whose results did not come back.
    pub fn missing(&self) -> Vec<usize> {
        (1..=self.planned)
            .filter(|k| !self.came_back.contains(k) && !self.empty.contains(k))
            .collect()
    }

    /// Adds each test that was not run to `run` as an error (its message
    /// says which shard it was planned for and what came back), and keeps
    /// this check as `run.shards`.
    pub fn apply(self, run: &mut Run) {
        let missing = self.missing();
        for (id, shard) in &self.not_run {
            let why = if missing.contains(shard) {
                format!(
                    "Not run: planned for shard {shard} of {}, whose results did not come back",
                    self.planned
                )
            } else {
                format!(
                    "Not run: planned for shard {shard} of {}, whose results came back without it (not collected there?)",
                    self.planned
                )
            };
            let mut test = TestResult::new(id.clone(), Outcome::Error);
            test.set_message(Some(why));
            let file = id.split("::").next().unwrap_or(id);
            test.location = Some(Location::new(Arc::<str>::from(file), None));
            run.tests.push(test);
        }
        run.shards = Some(self);
    }
}

/// Checks the files of a sharded run against its plan, one file at a time
/// ([`Checker::file`]), in the order they were given.
#[derive(Debug)]
pub struct Checker<'p> {
    plan: &'p [Vec<String>],
    /// Each planned test: its shard, and the first shard whose file held it.
    planned: HashMap<&'p str, Seen>,
    /// Tests the plan does not name: the first shard whose file held them.
    others: HashMap<String, Option<usize>>,
    /// Tests held by the files of two shards or more: every such shard, in
    /// the order first seen twice.
    twice: Vec<(String, Vec<usize>)>,
    twice_at: HashMap<String, usize>,
    came_back: Vec<bool>,
}

/// A planned test: its shard, and the first shard whose file held it (0
/// for a file of no shard).
#[derive(Debug, Clone, Copy)]
struct Seen {
    shard: usize,
    first: Option<usize>,
}

impl<'p> Checker<'p> {
    /// A checker of the plan whose shard K (1-based) holds `plan[K - 1]`.
    pub fn new(plan: &'p [Vec<String>]) -> Checker<'p> {
        let mut planned = HashMap::with_capacity(plan.iter().map(Vec::len).sum());
        for (k, ids) in plan.iter().enumerate() {
            for id in ids {
                let seen = Seen {
                    shard: k + 1,
                    first: None,
                };
                planned.insert(id.as_str(), seen);
            }
        }
        Checker {
            plan,
            planned,
            others: HashMap::new(),
            twice: Vec::new(),
            twice_at: HashMap::new(),
            came_back: vec![false; plan.len()],
        }
    }

    /// One result file's test ids: the file is the shard's that plans most
    /// of them (the lowest on a tie); a shard of its own (0) when it holds
    /// no planned test.
    pub fn file<'a>(&mut self, ids: impl Iterator<Item = &'a str> + Clone) {
        let mut votes = vec![0usize; self.plan.len()];
        for id in ids.clone() {
            if let Some(seen) = self.planned.get(id) {
                votes[seen.shard - 1] += 1;
            }
        }
        let best = votes.iter().copied().max().unwrap_or(0);
        let by = match votes.iter().position(|&v| v == best && v > 0) {
            Some(k) => {
                self.came_back[k] = true;
                k + 1
            }
            None => 0,
        };
        for id in ids {
            let first = match self.planned.get_mut(id) {
                Some(seen) => &mut seen.first,
                None => self.others.entry(id.to_string()).or_default(),
            };
            match *first {
                None => *first = Some(by),
                Some(f) if f != by => {
                    let at = *self.twice_at.entry(id.to_string()).or_insert_with(|| {
                        self.twice.push((id.to_string(), vec![f]));
                        self.twice.len() - 1
                    });
                    let shards = &mut self.twice[at].1;
                    if !shards.contains(&by) {
                        shards.push(by);
                    }
                }
                Some(_) => {}
            }
        }
    }

    /// What the files said, once all are in.
    pub fn finish(mut self) -> ShardCheck {
        let not_run = self
            .plan
            .iter()
            .enumerate()
            .flat_map(|(k, ids)| ids.iter().map(move |id| (id, k + 1)))
            .filter(|(id, _)| self.planned[id.as_str()].first.is_none())
            .map(|(id, k)| (id.clone(), k))
            .collect();
        for (_, shards) in &mut self.twice {
            shards.sort_unstable();
        }
        let shards = 1..=self.plan.len();
        ShardCheck {
            planned: self.plan.len(),
            came_back: shards.clone().filter(|&k| self.came_back[k - 1]).collect(),
            empty: shards.filter(|&k| self.plan[k - 1].is_empty()).collect(),
            not_run,
            run_twice: self.twice,
            unplanned: self.others.len(),
        }
    }
}

#[cfg(test)]
mod tests;
