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

use std::borrow::Cow;

use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};
use serde_json::Value;

use super::{ChangesEntry, Shown, answer, serialized};
use crate::budget::{Budget, Fitted, Offer, Plans, Rung, Truncation};
use crate::model::groups::IdItem;
use crate::model::{Phase, Run, TestResult};
use crate::render::view::{self, New};
use crate::text::{clip_chars, first_line};

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
pub fn offer(
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
            plan,
        });
        if let Some(c) = &self.run.changes {
            a.changes = Some(ChangesEntry::of(c, plan.ids));
        }
        a.tests.listed = Shown::Some(match plan.tests {
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

/// A failure group (`view::Group`) and what its entry says beside the
/// ids, worked out once for every plan.
struct Cause<'r> {
    group: view::Group<'r>,
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
    fn of(run: &Run, group: view::Group<'r>) -> Self {
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

/// The failure groups a plan keeps, each as it shows them.
pub(super) struct Groups<'a> {
    causes: &'a [Cause<'a>],
    plan: Plan,
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
            let shown = items.len().min(self.plan.ids);
            seq.serialize_element(&GroupEntry {
                count: c.group.count,
                outcome: c.group.first.outcome.as_str(),
                error_phase: view::error_phase(c.group.first).map(Phase::as_str),
                exception: c.exception,
                message: clip_chars(&c.message, self.plan.message_chars),
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

/// `text` cut to `max` characters, with `…` when cut.
#[cfg(test)]
mod tests;
