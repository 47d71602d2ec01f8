//! Shards planned from known durations (issue 42; the format and the
//! algorithm for users: docs/sharding.md).
//!
//! A pure function: the collected tests in collection order, each with the
//! durations an earlier run gave it (when known), and a number of shards in;
//! a [`Plan`] out. Where the durations come from (a pytest-json-report file,
//! JUnit XML, the history of runs) is the caller's business, so this module
//! uses no other stage.
//!
//! Two steps, one file each:
//! - `scopes`: the node ids read as a tree of packages, modules and
//!   classes, and each test's durations read as its own cost plus the
//!   shared setup it paid for a scope (the first test of a module pays the
//!   module's fixtures); tests without durations estimated;
//! - `assign`: the tests dealt to shards so that the slowest shard is as
//!   fast as it can be, a scope's shared setup counted once on every shard
//!   that runs any of its tests, and a scope kept whole unless splitting
//!   it shortens the slowest shard by more than the setup it repeats
//!   (issue 49; the rule and where it applies: `assign`'s documentation).
//!
//! The same input gives the same plan, byte for byte: nothing iterates a
//! hash map, and every tie is broken by collection order (then by shard
//! index). Timings are read to the microsecond, as the history keeps them,
//! so a result file and the history it was recorded into plan alike.

mod assign;
mod scopes;

use std::num::NonZeroUsize;

use serde::{Deserialize, Serialize};

/// How long one test took in an earlier run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// Setup, call and teardown seconds, when the source split them
    /// (pytest-json-report does). Only with them can shared setup be told
    /// from a test's own time.
    pub phases: Option<Phases>,
    /// Seconds in all: the phases' sum when they are known, else the
    /// source's one figure (JUnit's `time`).
    pub total: f64,
}

/// A test's three phases, in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Phases {
    pub setup: f64,
    pub call: f64,
    pub teardown: f64,
}

impl Timing {
    /// A test known only by its total (JUnit XML).
    pub fn total(seconds: f64) -> Timing {
        Timing {
            phases: None,
            total: seconds,
        }
    }

    /// A test known phase by phase (pytest-json-report).
    pub fn phased(setup: f64, call: f64, teardown: f64) -> Timing {
        Timing {
            phases: Some(Phases {
                setup,
                call,
                teardown,
            }),
            total: setup + call + teardown,
        }
    }

    /// One timing for several runs of a test: the median of each phase
    /// when every run has phases, else the median of the totals. The
    /// median, because one slow run (a cold cache, a busy machine) should
    /// not move a plan. `None` for no runs.
    pub fn median(runs: &[Timing]) -> Option<Timing> {
        if runs.is_empty() {
            return None;
        }
        let of = |f: &dyn Fn(&Timing) -> f64| median(runs.iter().map(f).collect());
        if runs.iter().all(|r| r.phases.is_some()) {
            let phase = |p: fn(&Phases) -> f64| of(&|r: &Timing| r.phases.as_ref().map_or(0.0, p));
            return Some(Timing::phased(
                phase(|p| p.setup),
                phase(|p| p.call),
                phase(|p| p.teardown),
            ));
        }
        Some(Timing::total(of(&|r: &Timing| r.total)))
    }

    /// Whether every figure is a duration a run can have (finite, not
    /// negative): anything else is read as no timing at all.
    fn usable(&self) -> bool {
        let ok = |s: f64| s.is_finite() && s >= 0.0;
        ok(self.total)
            && self
                .phases
                .is_none_or(|p| ok(p.setup) && ok(p.call) && ok(p.teardown))
    }
}

/// The median of some numbers (the mean of the middle two for an even
/// count); 0 for none.
pub(crate) fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

/// One collected test: its node id and, when an earlier run timed it, how
/// long it took.
#[derive(Debug, Clone, PartialEq)]
pub struct Test {
    pub id: String,
    pub timing: Option<Timing>,
}

/// What a plan is made from.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// The collected tests, in collection order (pytest's, which keeps a
    /// module's and a class's tests together).
    pub tests: &'a [Test],
    pub shards: NonZeroUsize,
    /// How many earlier runs the timings come from, for [`Basis::runs`].
    pub runs: usize,
}

/// The plan: which tests each shard runs, and what it was made from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub shards: Vec<Shard>,
    pub basis: Basis,
}

/// One shard of a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shard {
    /// 1-based, as CI matrices count.
    pub index: usize,
    /// The expected seconds of its tests, shared setup counted once per
    /// scope it runs (the interpreter's start and collection left out).
    pub seconds: f64,
    /// Node ids in collection order; empty when there are more shards
    /// than tests to fill them.
    pub tests: Vec<String>,
}

/// What a plan rests on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Basis {
    /// Earlier runs the durations come from.
    pub runs: usize,
    /// Tests planned.
    pub tests: usize,
    /// Tests without a known duration, given the mean of their module's
    /// known tests (else of the suite's).
    pub estimated: usize,
    /// Seconds of shared setup and teardown read from the phases
    /// (modules', classes', packages'), counted once.
    pub shared_setup: f64,
}

/// Plans `input.shards` shards of `input.tests`.
pub fn plan(input: Input<'_>) -> Plan {
    let suite = scopes::Suite::read(input.tests);
    let shard_of = assign::assign(&suite, input.shards.get());
    let mut shards: Vec<Shard> = (0..input.shards.get())
        .map(|k| Shard {
            index: k + 1,
            seconds: 0.0,
            tests: Vec::new(),
        })
        .collect();
    for (test, &k) in input.tests.iter().zip(&shard_of) {
        shards[k].tests.push(test.id.clone());
    }
    for (k, seconds) in suite.loads(&shard_of, shards.len()).into_iter().enumerate() {
        shards[k].seconds = millis(seconds);
    }
    Plan {
        shards,
        basis: Basis {
            runs: input.runs,
            tests: input.tests.len(),
            estimated: suite.estimated,
            shared_setup: millis(suite.shared_setup()),
        },
    }
}

/// Seconds to the millisecond: a plan reads as durations do, and its bytes
/// do not carry noise from the last bits of a float sum.
fn millis(seconds: f64) -> f64 {
    (seconds * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests;
