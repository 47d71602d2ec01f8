//! The ADR-006 JSON within a [`Budget`]. Every key of ADR-006 stays; the
//! plans a shortened answer is tried with, richest first, each leaving out
//! what the one before did and more (the one fitting loop,
//! [`crate::budget::fit`], sends the first that fits):
//!
//! 1. `json_report` and `text_output` (become `null`): pytest's own views
//!    of what the rest already says; and passing (and skipped) tests from
//!    `tests`: the summary still counts them;
//! 2. failing tests beyond the first that fit, each group's first test
//!    first;
//! 3. every test's entry;
//! 4. collection errors' tracebacks, then the ids each group names beyond
//!    the first few, then beyond the first (with a shorter message), then
//!    whole groups from the smallest.
//!
//! A shortened answer adds `truncated` (the budget, what was dropped, how
//! many tests are not listed) and `failure_groups`: every root cause with
//! its count, outcome, exception, message, crash location, ids and the one
//! id that reruns the whole group when there is one.

use serde_json::Value;

use super::groups::{Cause, Groups};
use super::{ChangesEntry, TestList, answer, serialized};
use crate::budget::{Budget, Fitted, Offer, Plans, Rung, Truncation};
use crate::model::{Run, TestResult};
use crate::render::view::{self, New};

/// Ids a group lists in a shortened answer...
const MANY_IDS: usize = 20;
/// ... and when even the groups alone do not fit.
const FEW_IDS: usize = 5;
/// The longest message a group shows...
const GROUP_MESSAGE_CHARS: usize = 300;
/// ... and when groups are all an answer can hold.
const SHORT_MESSAGE_CHARS: usize = 80;

/// One step of the ladder: what a shortened answer keeps. `json_report`,
/// `text_output` and the passing tests' entries go in every step.
#[derive(Debug, Clone, Copy)]
struct Plan {
    /// The failing tests listed, each group's first test first.
    tests: Listed,
    /// Whether collection errors keep their tracebacks.
    tracebacks: bool,
    /// Ids each group names, and each list of `changes`.
    ids: usize,
    /// The longest message a group shows, in characters.
    message_chars: usize,
    /// The groups kept, largest first.
    groups: usize,
}

/// The failing tests a plan lists.
#[derive(Debug, Clone, Copy)]
enum Listed {
    All,
    First(usize),
    None,
}

/// The run's JSON report (indented when `pretty`) offered to fit
/// `budget`, the comparison with a baseline as its last key, `baseline`,
/// when there is one (see [`super::render_compared`]): kept whole in every
/// plan, the caller fits its lists first.
pub(super) fn offer(
    run: &Run,
    baseline: Option<Value>,
    budget: Budget,
    pretty: bool,
) -> Offer<'_, Fitted> {
    let full = super::render_compared(run, baseline.as_ref(), pretty);
    if budget.fits(&full) {
        return Offer::Whole(Fitted::whole(full));
    }
    let causes: Vec<Cause<'_>> = view::failure_groups(run, New::SinceLastRun)
        .into_iter()
        .map(|g| Cause::of(run, g))
        .collect();
    Offer::plans(Shortened {
        run,
        baseline,
        budget,
        pretty,
        problems: problems(run, &causes),
        causes,
    })
}

/// The failing tests: each group's first, then the others in the run's
/// order.
fn problems<'r>(run: &'r Run, causes: &[Cause<'r>]) -> Vec<&'r TestResult> {
    let mut is_first = vec![false; run.tests.len()];
    for c in causes {
        is_first[c.group.tests[0]] = true;
    }
    causes
        .iter()
        .map(|c| c.group.first)
        .chain(
            run.tests
                .iter()
                .zip(&is_first)
                .filter(|(t, first)| t.is_problem() && !**first)
                .map(|(t, _)| t),
        )
        .collect()
}

/// What every plan of a shortened answer is rendered from.
struct Shortened<'r> {
    run: &'r Run,
    baseline: Option<Value>,
    budget: Budget,
    pretty: bool,
    causes: Vec<Cause<'r>>,
    problems: Vec<&'r TestResult>,
}

impl Plans for Shortened<'_> {
    type Plan = Plan;
    type Answer = Fitted;

    /// The plans, richest first (the steps of the module's doc).
    fn ladder(&self) -> Vec<Rung<'_, Plan>> {
        let whole = Plan {
            tests: Listed::All,
            tracebacks: true,
            ids: MANY_IDS,
            message_chars: GROUP_MESSAGE_CHARS,
            groups: self.causes.len(),
        };
        let unlisted = Plan {
            tests: Listed::None,
            ..whole
        };
        let mut rungs = vec![
            Rung::One(whole),
            // The note naming `k` is part of each text measured.
            Rung::most(1, self.problems.len().saturating_sub(1), move |k| Plan {
                tests: Listed::First(k),
                ..whole
            }),
            Rung::One(unlisted),
        ];
        let mut bare = unlisted;
        if !self.run.collection_errors.is_empty() {
            bare.tracebacks = false;
            rungs.push(Rung::One(bare));
        }
        let few = Plan {
            ids: FEW_IDS,
            ..bare
        };
        let one = Plan {
            ids: 1,
            message_chars: SHORT_MESSAGE_CHARS,
            ..few
        };
        rungs.extend([
            Rung::One(few),
            Rung::One(one),
            // The smallest groups go (groups are largest first).
            Rung::most(1, self.causes.len().saturating_sub(1), move |n| Plan {
                groups: n,
                ..one
            }),
        ]);
        rungs
    }

    fn attempt(&self, plan: Plan) -> Option<Fitted> {
        let fitted = self.render(plan);
        self.budget.fits(&fitted.text).then_some(fitted)
    }

    /// No test, no group, `truncated` saying so.
    fn last_resort(&self) -> Fitted {
        self.render(Plan {
            ids: 1,
            message_chars: SHORT_MESSAGE_CHARS,
            tests: Listed::None,
            tracebacks: self.run.collection_errors.is_empty(),
            groups: 0,
        })
    }
}

impl Shortened<'_> {
    /// The answer `plan` keeps, with the note on what it left out.
    fn render(&self, plan: Plan) -> Fitted {
        let truncation = self.truncation(plan);
        let mut a = answer(self.run);
        a.baseline = self.baseline.as_ref();
        a.json_report = None;
        a.text_output = None;
        a.truncated = Some(&truncation);
        a.failure_groups = Some(Groups {
            causes: &self.causes[..plan.groups],
            ids: plan.ids,
            message_chars: plan.message_chars,
        });
        if let Some(c) = &self.run.changes {
            a.changes = Some(ChangesEntry::of(c, plan.ids));
        }
        a.tests.listed = TestList::Some(match plan.tests {
            Listed::All => &self.problems,
            Listed::First(k) => &self.problems[..k],
            Listed::None => &[],
        });
        if !plan.tracebacks {
            for e in &mut a.collection_errors {
                e.traceback = None;
            }
        }
        let text = serialized(&a, self.pretty);
        Fitted {
            text,
            truncation: Some(truncation),
        }
    }

    /// What `plan` leaves out, in the order the ladder leaves it out.
    fn truncation(&self, plan: Plan) -> Truncation {
        let mut t = Truncation::new(&self.budget);
        let mut drop = |what: String| t.dropped.push(what);
        drop("json_report".into());
        drop("text_output".into());
        if self.problems.len() < self.run.tests.len() {
            drop("passing tests".into());
        }
        let listed = match plan.tests {
            Listed::All => self.problems.len(),
            Listed::First(k) => {
                drop(format!("failing tests beyond the first {k}"));
                k
            }
            Listed::None => {
                drop("every test's entry".into());
                0
            }
        };
        if !plan.tracebacks {
            drop("collection errors' tracebacks".into());
        }
        if plan.ids <= FEW_IDS {
            drop(format!("ids beyond the first {FEW_IDS} of each group"));
        }
        if plan.ids == 1 {
            drop("ids beyond the first of each group".into());
        }
        if plan.groups < self.causes.len() {
            drop("the smallest groups".into());
        }
        t.tests_omitted = self.run.tests.len() - listed;
        t.groups_omitted = self.causes.len() - plan.groups;
        t
    }
}

#[cfg(test)]
mod tests;
