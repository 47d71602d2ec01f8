//! Fitting a structured result to its budget (see the parent module). Its
//! plans, richest first, each leaving out what the one before did and
//! more (the one fitting loop, [`crate::budget::fit`], keeps the first
//! whose compact JSON fits): one
//! id per group, shorter messages, then none from the last groups up,
//! then fewer groups (a discovery: fewer test functions), then fewer
//! collection errors.

use super::{
    DiscoveryResult, FailureEntry, FileError, IDS_NAMED, RunResult, Structured, TestFunction,
    compact,
};
use crate::budget::{Budget, Truncation};
use crate::budget::{Offer, Plans, Rung};
use crate::text::clip_chars;
use serde::Serialize;

/// Characters of a group's message kept when the whole message does not
/// fit the budget: the exception and the start of what it says.
const SHORT_MESSAGE_CHARS: usize = 80;

/// Whether `value`'s compact JSON fits `budget`.
pub(super) fn fits(budget: &Budget, value: &impl Serialize) -> bool {
    budget.fits(&compact(value))
}

/// One step of the ladder: what a structured result keeps.
#[derive(Debug, Clone, Copy)]
struct Plan {
    /// Ids each group names: [`IDS_NAMED`], or 1 (`node ids` dropped).
    ids: usize,
    messages: Messages,
    /// The first items kept (`failure groups`, `test functions` dropped);
    /// all of them when `None`.
    items: Option<usize>,
    /// The first collection errors kept (`collection errors` dropped); all
    /// of them when `None`.
    errors: Option<usize>,
}

/// The groups' messages a plan keeps.
#[derive(Debug, Clone, Copy)]
enum Messages {
    /// As they are.
    Whole,
    /// Cut to [`SHORT_MESSAGE_CHARS`] (`long messages` dropped).
    Short,
    /// Cut, and only on the first `k` groups, with their place (`messages`
    /// dropped, those beyond the first `k` groups when `k` > 0).
    First(usize),
}

impl Plan {
    const WHOLE: Plan = Plan {
        ids: IDS_NAMED,
        messages: Messages::Whole,
        items: None,
        errors: None,
    };

    /// What the plan leaves out, in the order the ladder leaves it out.
    fn dropped(self, items: &str) -> Vec<String> {
        let mut dropped = Vec::new();
        if self.ids < IDS_NAMED {
            dropped.push("node ids".to_string());
        }
        match self.messages {
            Messages::Whole => {}
            Messages::Short => dropped.push("long messages".into()),
            Messages::First(0) => dropped.push("messages".into()),
            Messages::First(k) => dropped.push(format!("messages beyond the first {k} groups")),
        }
        if self.items.is_some() {
            dropped.push(items.into());
        }
        if self.errors.is_some() {
            dropped.push("collection errors".into());
        }
        dropped
    }
}

/// A structured result whose list shrinks to fit a budget.
trait Ladder: Structured + Clone {
    type Item: Clone;
    /// What leaving out items is called: `failure groups`, `test
    /// functions`.
    const ITEMS: &'static str;
    fn items(&mut self) -> &mut Vec<Self::Item>;
    fn errors(&mut self) -> &mut Vec<FileError>;
    /// The `i`th item as `plan` shows it.
    fn shown(item: &Self::Item, i: usize, plan: Plan) -> Self::Item;
    /// Says in `t` how many tests (and groups) are not named, with `kept`
    /// the items kept and `left` those left out.
    fn count_omitted(t: &mut Truncation, kept: &[Self::Item], left: &[Self::Item]);
}

impl Ladder for RunResult {
    type Item = FailureEntry;
    const ITEMS: &'static str = "failure groups";
    fn items(&mut self) -> &mut Vec<FailureEntry> {
        &mut self.failures
    }
    fn errors(&mut self) -> &mut Vec<FileError> {
        &mut self.collection_errors
    }
    fn shown(g: &FailureEntry, i: usize, plan: Plan) -> FailureEntry {
        let mut g = g.clone();
        if g.node_ids.len() > plan.ids {
            g.node_ids.truncate(plan.ids);
            g.covers.truncate(plan.ids);
            g.more = g.count.saturating_sub(g.covers.iter().sum());
        }
        match plan.messages {
            Messages::Whole => {}
            Messages::First(k) if i >= k => (g.message, g.at) = (String::new(), None),
            Messages::Short | Messages::First(_) => {
                g.message = clip_chars(&g.message, SHORT_MESSAGE_CHARS).into_owned();
            }
        }
        g
    }
    fn count_omitted(t: &mut Truncation, kept: &[FailureEntry], left: &[FailureEntry]) {
        t.groups_omitted = left.len();
        t.tests_omitted = kept.iter().map(|g| g.more).sum::<usize>()
            + left.iter().map(|g| g.count).sum::<usize>();
    }
}

impl Ladder for DiscoveryResult {
    type Item = TestFunction;
    const ITEMS: &'static str = "test functions";
    fn items(&mut self) -> &mut Vec<TestFunction> {
        &mut self.tests
    }
    fn errors(&mut self) -> &mut Vec<FileError> {
        &mut self.collection_errors
    }
    fn shown(f: &TestFunction, _: usize, _: Plan) -> TestFunction {
        f.clone()
    }
    fn count_omitted(t: &mut Truncation, _: &[TestFunction], left: &[TestFunction]) {
        t.tests_omitted = left.iter().map(|f| f.cases.unwrap_or(1)).sum();
    }
}

/// `r` within `budget`: one id per group, then shorter messages, then
/// none from the last groups up, then fewer groups (the last go first:
/// the smallest of those seen before); when not even the counts and the
/// collection errors fit, fewer collection errors and no group.
pub(super) fn fit_run(mut r: RunResult, budget: Budget) -> Offer<'static, RunResult> {
    if !budget.is_limited() || fits(&budget, &r) {
        return Offer::Whole(r);
    }
    // How fast the run was says nothing of its results: it goes first
    // (docs/warm.md).
    r.warm = None;
    if fits(&budget, &r) {
        return Offer::Whole(r);
    }
    let groups = &r.failures;
    let mut plan = Plan::WHOLE;
    let mut steps = Vec::new();
    if groups.iter().any(|g| g.node_ids.len() > 1) {
        plan.ids = 1;
        steps.push(Step::One(plan));
    }
    // Every group kept with one line, as the text keeps them, before any
    // group goes.
    if groups
        .iter()
        .any(|g| g.message.chars().count() > SHORT_MESSAGE_CHARS)
    {
        steps.push(Step::One(Plan {
            messages: Messages::Short,
            ..plan
        }));
    }
    if groups
        .iter()
        .any(|g| !g.message.is_empty() || g.at.is_some())
    {
        steps.push(Step::Messages(groups.len(), plan));
        plan.messages = Messages::First(0);
    }
    Offer::plans(Shaping::new(r, budget, steps, plan))
}

/// `r` within `budget`: fewer test functions (the last go first), until
/// its compact JSON fits; when not even the counts and the collection
/// errors fit, fewer collection errors and no test function.
pub(super) fn fit_discovery(r: DiscoveryResult, budget: Budget) -> Offer<'static, DiscoveryResult> {
    if !budget.is_limited() || fits(&budget, &r) {
        return Offer::Whole(r);
    }
    Offer::plans(Shaping::new(r, budget, Vec::new(), Plan::WHOLE))
}

/// A step of a structured result's own before its items go.
#[derive(Debug, Clone, Copy)]
enum Step {
    One(Plan),
    /// Messages on the first `k` of the `n` groups only, from `plan`.
    Messages(usize, Plan),
}

/// A structured result to be fitted: its plans are `steps`, then fewer
/// items (the first `k` kept), then no item and fewer collection errors,
/// `plan` saying what else goes; no item and no collection error when
/// nothing fits.
struct Shaping<R: Ladder> {
    /// The result without its items and errors: each plan's copy takes
    /// only those it keeps.
    bare: R,
    items: Vec<R::Item>,
    errors: Vec<FileError>,
    budget: Budget,
    steps: Vec<Step>,
    plan: Plan,
}

impl<R: Ladder> Shaping<R> {
    fn new(mut r: R, budget: Budget, steps: Vec<Step>, plan: Plan) -> Shaping<R> {
        Shaping {
            items: std::mem::take(r.items()),
            errors: std::mem::take(r.errors()),
            bare: r,
            budget,
            steps,
            plan,
        }
    }

    /// The result as `plan` shapes it, saying what it left out.
    fn shaped(&self, plan: Plan) -> R {
        let mut s = self.bare.clone();
        let (kept, left) = self.items.split_at(plan.items.unwrap_or(self.items.len()));
        *s.items() = kept
            .iter()
            .enumerate()
            .map(|(i, item)| R::shown(item, i, plan))
            .collect();
        *s.errors() = self.errors[..plan.errors.unwrap_or(self.errors.len())].to_vec();
        let mut t = Truncation::new(&self.budget);
        t.dropped = plan.dropped(R::ITEMS);
        R::count_omitted(&mut t, s.items(), left);
        *s.truncated() = Some(t);
        s
    }
}

impl<R: Ladder> Plans for Shaping<R> {
    type Plan = Plan;
    type Answer = R;

    fn ladder(&self) -> Vec<Rung<'_, Plan>> {
        let mut rungs: Vec<Rung<'_, Plan>> = self
            .steps
            .iter()
            .map(|&step| match step {
                Step::One(plan) => Rung::One(plan),
                Step::Messages(n, plan) => Rung::most(0, n, move |k| Plan {
                    messages: Messages::First(k),
                    ..plan
                }),
            })
            .collect();
        let plan = self.plan;
        rungs.push(Rung::most(0, self.items.len(), move |k| Plan {
            items: Some(k),
            ..plan
        }));
        rungs.push(Rung::most(1, self.errors.len(), move |k| Plan {
            items: Some(0),
            errors: Some(k),
            ..plan
        }));
        rungs
    }

    fn attempt(&self, plan: Plan) -> Option<R> {
        let s = self.shaped(plan);
        fits(&self.budget, &s).then_some(s)
    }

    fn last_resort(&self) -> R {
        self.shaped(Plan {
            items: Some(0),
            errors: Some(0),
            ..self.plan
        })
    }
}
