//! Comparing a run with an earlier one (`report --baseline`): what broke,
//! what was fixed, what still fails, which tests appeared or went away, and
//! how the duration moved. Pure: two runs in, a comparison out.

use foldhash::{HashMap, HashMapExt};

use serde_json::{Value, json};

use crate::model::{Outcome, Run, TestResult};
use crate::text::plural;

/// How a run differs from its baseline. Ids keep the current run's order
/// (the baseline's for removed tests).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Comparison {
    /// Failing or erroring now; passed, skipped or absent before.
    pub new_failures: Vec<String>,
    /// Failing or erroring before; passing now.
    pub fixed: Vec<String>,
    /// Failing or erroring in both.
    pub still_failing: Vec<String>,
    /// In this run only.
    pub added: Vec<String>,
    /// In the baseline only.
    pub removed: Vec<String>,
    /// Seconds: this run's duration minus the baseline's.
    pub duration_change: f64,
    pub baseline_duration: f64,
}

/// What a run says about one id. A file may list an id more than once (a
/// name used twice, `go test -count=2`): the id counts as failing when any
/// of its results fails or errors, so a failure beside a pass of the same
/// id is never hidden.
#[derive(Debug, Clone, Copy, Default)]
struct IdState {
    problem: bool,
    passed: bool,
}

/// Each id of `tests` with its state, in order of first appearance.
fn states(tests: &[TestResult]) -> (Vec<&str>, HashMap<&str, IdState>) {
    let mut order = Vec::new();
    let mut by_id: HashMap<&str, IdState> = HashMap::with_capacity(tests.len());
    for t in tests {
        let state = by_id.entry(t.node_id.as_str()).or_insert_with(|| {
            order.push(t.node_id.as_str());
            IdState::default()
        });
        state.problem |= t.is_problem();
        state.passed |= t.outcome == Outcome::Passed;
    }
    (order, by_id)
}

/// Compares `current` with `baseline` by test id.
pub fn compare(current: &Run, baseline: &Run) -> Comparison {
    let (before_order, before) = states(&baseline.tests);
    let (now_order, now) = states(&current.tests);
    let mut c = Comparison {
        baseline_duration: baseline.duration_secs(),
        duration_change: current.duration_secs() - baseline.duration_secs(),
        ..Comparison::default()
    };
    for id in now_order {
        let t = now[id];
        match before.get(id) {
            None => {
                c.added.push(id.to_string());
                if t.problem {
                    c.new_failures.push(id.to_string());
                }
            }
            Some(old) => match (old.problem, t.problem) {
                (false, true) => c.new_failures.push(id.to_string()),
                (true, true) => c.still_failing.push(id.to_string()),
                (true, false) if t.passed => c.fixed.push(id.to_string()),
                _ => {}
            },
        }
    }
    for id in before_order {
        if !now.contains_key(id) {
            c.removed.push(id.to_string());
        }
    }
    c
}

impl Comparison {
    /// `1 new failure, 2 fixed, 1 still failing, 3 added, 1 removed, +0.4s (+8%)`
    pub fn phrase(&self) -> String {
        let mut parts = vec![
            plural(self.new_failures.len(), "new failure", "new failures"),
            format!("{} fixed", self.fixed.len()),
            format!("{} still failing", self.still_failing.len()),
        ];
        if !self.added.is_empty() {
            parts.push(format!("{} added", self.added.len()));
        }
        if !self.removed.is_empty() {
            parts.push(format!("{} removed", self.removed.len()));
        }
        let pct = if self.baseline_duration > 0.0 {
            format!(
                " ({:+.0}%)",
                100.0 * self.duration_change / self.baseline_duration
            )
        } else {
            String::new()
        };
        // Under a twentieth of a second, tenths would say "+0.0s" of a
        // real change: milliseconds then.
        let change = self.duration_change;
        if change != 0.0 && change.abs() < 0.05 {
            parts.push(format!("{:+.0}ms{pct}", change * 1000.0));
        } else {
            parts.push(format!("{change:+.1}s{pct}"));
        }
        parts.join(", ")
    }

    /// The comparison as JSON (the `baseline` key of `report --format json`).
    pub fn to_value(&self) -> Value {
        json!({
            "new_failures": self.new_failures,
            "fixed": self.fixed,
            "still_failing": self.still_failing,
            "added": self.added,
            "removed": self.removed,
            "duration_change": (self.duration_change * 1000.0).round() / 1000.0,
            "baseline_duration": (self.baseline_duration * 1000.0).round() / 1000.0,
        })
    }
}

#[cfg(test)]
mod tests;
