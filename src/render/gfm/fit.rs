//! Fitting the GitHub rendering to its [`Budget`] (65,536 characters for
//! a comment, 1 MiB for a job summary), in steps, stopping at the first
//! that fits (each step a rung of plans offered to the one fitting loop,
//! [`crate::budget::fit`]):
//!
//! 1. everything;
//! 2. captured output dropped from the code blocks;
//! 3. tracebacks cut to the crash lines;
//! 4. the flaky, slowest and skipped lists and the fixed tests' ids left
//!    out (their counts stay in the table), and with them, with a history
//!    of runs, the trend and the tests slower than usual;
//! 5. fewer groups in full, the others one line each, new failures first;
//! 6. the first groups in full (at most the open ones), as many others
//!    one line each as fit; the new failures of the groups left out still
//!    named by id;
//! 7. no group listed: the new failures' ids, as many as fit.
//!
//! When even that does not fit, the steps are taken again with the
//! collection errors one line per file, then only counted.
//!
//! The first line and the table always stay, and a closing note says what
//! was left out. Parts are dropped whole, so a cut never falls inside a
//! code block or a `<details>`. New failures are a baseline's, or the
//! history of runs' (a flaky failure is never one); the flaky failures'
//! groups come last, in the Flaky section, so they are the first to be
//! shortened.

use super::document::{Doc, OPEN_GROUPS, Plan};
use super::sections::Collection;
use super::{Baseline, Options};
use crate::budget::{Budget, Fitted, Offer, Plans, Rung, Truncation};
use crate::model::Run;
use crate::render::view::failure::Detail;
use crate::text::plural;

/// The rendering of `run` (compared with `baseline` when given) offered
/// to fit `budget`, saying what it left out: whole when it fits.
pub(super) fn offer<'r>(
    run: &'r Run,
    baseline: Option<Baseline<'r>>,
    options: &'r Options,
    budget: Budget,
) -> Offer<'r, Fitted> {
    let mut doc = Doc::new(run, baseline, options, budget);
    doc.whole.new_ids = doc.omitted_new(0);
    let text = doc.render(&doc.whole, None);
    if budget.fits(&text) {
        return Offer::Whole(Fitted::whole(text));
    }
    doc.size = budget.describe_size(&text);
    Offer::plans(doc)
}

impl Doc<'_> {
    /// The collection errors' levels the plans go through: shorter ones
    /// only when there are collection errors.
    fn levels(&self) -> &'static [Collection] {
        if self.run.collection_errors.is_empty() {
            &[Collection::Full]
        } else {
            &[Collection::Full, Collection::OneLine, Collection::Counted]
        }
    }
}

impl Plans for Doc<'_> {
    type Plan = Plan;
    type Answer = Fitted;

    /// Steps 2 to 7 at each level of the collection errors.
    fn ladder(&self) -> Vec<Rung<'_, Plan>> {
        let whole = self.whole;
        self.levels()
            .iter()
            .flat_map(|&collection| {
                self.steps(Plan {
                    collection,
                    ..whole
                })
            })
            .collect()
    }

    fn attempt(&self, plan: Plan) -> Option<Fitted> {
        let fitted = self.shortened(&plan, &self.size);
        self.budget.fits(&fitted.text).then_some(fitted)
    }

    /// The leanest plan, whatever its size.
    fn last_resort(&self) -> Fitted {
        let last = self.levels().last().copied().unwrap_or(Collection::Full);
        let leanest = Plan {
            detail: Detail::CrashLines,
            extras: false,
            full: 0,
            listed: 0,
            new_ids: 0,
            collection: last,
        };
        self.shortened(&leanest, &self.size)
    }
}

impl Doc<'_> {
    /// Steps 2 to 7 from `whole` (step 1 too with the collection errors
    /// shorter), richest first.
    fn steps(&self, whole: Plan) -> Vec<Rung<'_, Plan>> {
        let n = self.groups.len();
        let mut rungs = Vec::new();
        if whole.collection > Collection::Full {
            rungs.push(Rung::One(whole));
        }
        for detail in [Detail::NoOutput, Detail::CrashLines] {
            rungs.push(Rung::One(Plan { detail, ..whole }));
        }
        let lean = Plan {
            detail: Detail::CrashLines,
            extras: false,
            ..whole
        };
        rungs.push(Rung::One(lean));
        // Step 5: the first `k` groups in full, the rest one line each.
        rungs.push(Rung::most(1, n.saturating_sub(1), move |full| Plan {
            full,
            ..lean
        }));
        // Step 6: the first few groups in full (as many of the open ones
        // as fit), then as many as fit one line each.
        for full in (1..=OPEN_GROUPS.min(n)).rev().chain([0]) {
            rungs.push(Rung::most(0, n - full, move |extra| Plan {
                full,
                listed: full + extra,
                new_ids: self.omitted_new(full + extra),
                ..lean
            }));
        }
        // Step 7: no group; the new failures' ids, as many as fit.
        rungs.push(Rung::most(0, whole.new_ids, move |new_ids| Plan {
            full: 0,
            listed: 0,
            new_ids,
            ..lean
        }));
        rungs
    }

    /// The rendering of `plan` with its note on what it left out, `size`
    /// the whole rendering's.
    fn shortened(&self, plan: &Plan, size: &str) -> Fitted {
        let truncation = self.truncation(plan);
        let text = self.render(plan, Some((&truncation, size)));
        Fitted {
            text,
            truncation: Some(truncation),
        }
    }

    /// What `plan` leaves out.
    fn truncation(&self, plan: &Plan) -> Truncation {
        let mut t = Truncation::new(&self.budget);
        match plan.collection {
            Collection::Full => {}
            Collection::OneLine => t
                .dropped
                .push("the collection errors' detail (one line per file)".into()),
            Collection::Counted => t
                .dropped
                .push("the collection errors (counted only)".into()),
        }
        if plan.detail >= Detail::NoOutput {
            t.dropped.push("captured output".into());
        }
        if plan.detail >= Detail::CrashLines {
            t.dropped.push("traceback lines beyond the crash".into());
        }
        if !plan.extras {
            t.dropped.push(self.extras_words.clone());
        }
        if plan.full == 0 && !self.groups.is_empty() {
            t.dropped
                .push("the failures' detail (one line per group)".into());
        } else if plan.full < self.groups.len() {
            t.dropped.push(format!(
                "the detail of all but the first {} (one line each)",
                plural(plan.full, "group", "groups")
            ));
        }
        let omitted = &self.groups[plan.listed.min(self.groups.len())..];
        t.groups_omitted = omitted.len();
        t.tests_omitted = omitted.iter().map(|g| g.count).sum();
        t
    }
}
