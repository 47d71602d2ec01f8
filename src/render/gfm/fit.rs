//! Fitting the GitHub rendering to its [`Budget`] (65,536 characters for
//! a comment, 1 MiB for a job summary), in steps, stopping at the first
//! that fits (each step a rung of plans offered to the one fitting loop,
//! [`crate::budget::fit`]):
//!
//! 1. everything;
//! 2. captured output dropped from the code blocks;
//! 3. tracebacks cut to the crash lines;
//! 4. the flaky, slowest and skipped lists and the fixed tests' ids left
//!    out (their counts stay in the table);
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

use std::cell::OnceCell;
use std::fmt::Write as _;

use super::sections::{self, Collection, LISTED, tests};
use super::{Baseline, Options};
use crate::budget::{Budget, Fitted, Offer, Plans, Rung, Truncation};
use crate::model::Run;
use crate::render::view::failure::Detail;
use crate::render::view::{self, Group, New};
use crate::text::plural;

/// Groups shown open (`<details open>`): the first few, new ones first.
const OPEN_GROUPS: usize = 3;

/// How much a rendering shows.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Plan {
    /// [`Detail::Full`], [`Detail::NoOutput`] or [`Detail::CrashLines`].
    detail: Detail,
    /// The flaky, slowest and skipped lists, and the fixed tests' ids.
    extras: bool,
    /// Groups shown in full (the first ones).
    full: usize,
    /// Groups shown at all (in full or one line each).
    listed: usize,
    /// New failures of the groups not listed, named by id.
    new_ids: usize,
    /// How much of the collection errors is shown.
    collection: Collection,
}

/// What every rendering is made of, worked out once.
struct Doc<'r> {
    run: &'r Run,
    baseline: Option<Baseline<'r>>,
    options: &'r Options,
    budget: Budget,
    head: String,
    /// The collection errors at each [`Collection`] level, in its order.
    collection: [String; 3],
    /// The failure groups as the view orders them, the flaky ones (by the
    /// history of runs) moved last: they are shown in the Flaky section.
    groups: Vec<Group<'r>>,
    /// How many of `groups` hold a new failure, by a baseline or a history
    /// of runs (they come first).
    new_groups: usize,
    /// Where the flaky groups begin in `groups`.
    flaky_at: usize,
    /// The tests that passed only after failing, listed in the Flaky
    /// section with the extras, and how many.
    retried: (String, usize),
    /// The slowest and skipped lists.
    extras: String,
    /// Every group in full at each detail a plan shows, rendered when a
    /// plan first asks for it and kept for the plans after it.
    fulls: [OnceCell<Vec<String>>; 3],
    /// The whole rendering's plan, and its size as the notes say it.
    whole: Plan,
    size: String,
}

/// The rendering of `run` (compared with `baseline` when given) offered
/// to fit `budget`, saying what it left out: whole when it fits.
pub fn offer<'r>(
    run: &'r Run,
    baseline: Option<Baseline<'r>>,
    options: &'r Options,
    budget: Budget,
) -> Offer<'r, Fitted> {
    let counts = run.counts();
    let new = match &baseline {
        Some(b) => New::Baseline(&b.comparison.new_failures),
        None => New::SinceLastRun,
    };
    // The view puts the flaky groups last, whatever the comparison.
    let groups = view::failure_groups(run, new);
    let flaky_at = groups
        .iter()
        .position(Group::is_flaky)
        .unwrap_or(groups.len());
    // New failures are named with a baseline or a history of runs.
    let new_groups = groups[..flaky_at]
        .iter()
        .take_while(|g| !g.new_ids.is_empty())
        .count();
    let retried = view::flaky(run);
    let extras = [sections::slowest(run), sections::skips(run)].concat();
    let n = groups.len();
    let mut doc = Doc {
        run,
        head: super::head(run, &counts, baseline.as_ref()),
        baseline,
        options,
        budget,
        collection: [Collection::Full, Collection::OneLine, Collection::Counted]
            .map(|level| sections::collection_errors(options, run, level)),
        new_groups,
        groups,
        flaky_at,
        retried: (sections::retried(options, &retried), retried.len()),
        extras,
        fulls: Default::default(),
        whole: Plan {
            detail: Detail::Full,
            extras: true,
            full: n,
            listed: n,
            new_ids: 0,
            collection: Collection::Full,
        },
        size: String::new(),
    };
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

    /// Every group in full at `detail`, rendered once.
    fn fulls(&self, detail: Detail) -> &[String] {
        let at = match detail {
            Detail::Full => 0,
            Detail::NoOutput => 1,
            _ => 2,
        };
        self.fulls[at].get_or_init(|| {
            let baseline = self.baseline.is_some();
            self.groups
                .iter()
                .enumerate()
                .map(|(i, g)| {
                    let open = i < OPEN_GROUPS && i < self.open_groups();
                    sections::group_full(self.options, g, detail, open, baseline)
                })
                .collect()
        })
    }

    /// How many of the first groups may be open: with a baseline its new
    /// ones (the others are collapsed as already failing), else all but
    /// the flaky ones.
    fn open_groups(&self) -> usize {
        match self.baseline {
            Some(_) => self.new_groups,
            None => self.flaky_at,
        }
    }

    /// How many new failures the groups from `listed` on hold (a flaky
    /// failure is never new).
    fn omitted_new(&self, listed: usize) -> usize {
        self.groups[..self.flaky_at]
            .iter()
            .skip(listed)
            .map(|g| g.new_ids.len())
            .sum()
    }

    /// The new failures in the groups from `listed` on.
    fn omitted_new_ids(&self, listed: usize) -> Vec<&str> {
        self.groups[..self.flaky_at]
            .iter()
            .skip(listed)
            .flat_map(|g| g.new_ids.iter().copied())
            .collect()
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
            t.dropped
                .push("the flaky, slowest and skipped tests and the fixed tests' ids".into());
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

    /// `plan`'s rendering, with the note `shortened` says when given.
    fn render(&self, plan: &Plan, shortened: Option<(&Truncation, &str)>) -> String {
        let mut out = self.head.clone();
        out.push_str(&self.collection[plan.collection as usize]);
        let n = self.flaky_at;
        if self.baseline.is_some() {
            self.new_part(&mut out, plan);
            self.fixed(&mut out, plan.extras);
            if self.new_groups < n {
                let old = &self.groups[self.new_groups..n];
                let count: usize = old.iter().map(|g| g.count).sum();
                let _ = write!(
                    out,
                    "\n<details>\n<summary>Already failing: {} in {}</summary>\n",
                    tests(count),
                    plural(old.len(), "group", "groups")
                );
                self.groups_part(&mut out, plan, self.new_groups..n);
                out.push_str("\n</details>\n");
            }
        } else if n > 0 {
            let count: usize = self.groups[..n].iter().map(|g| g.count).sum();
            let _ = write!(
                out,
                "\n### Failures: {} in {}\n",
                tests(count),
                plural(n, "group", "groups")
            );
            self.groups_part(&mut out, plan, 0..n);
            self.omitted_new_part(&mut out, plan);
        }
        self.flaky_part(&mut out, plan);
        if plan.extras {
            out.push_str(&self.extras);
        }
        let extra: Vec<String> = shortened
            .map(|(t, size)| vec![t.note(&self.budget, "report", size)])
            .unwrap_or_default();
        out.push_str(&sections::notes(self.run, &extra));
        out
    }

    /// New failures: their groups, then the ids of those in groups left
    /// out. The baseline's new failures that are flaky are in the Flaky
    /// section.
    fn new_part(&self, out: &mut String, plan: &Plan) {
        let Some(b) = &self.baseline else { return };
        let flaky: usize = self.groups[self.flaky_at..]
            .iter()
            .map(|g| g.new_ids.len())
            .sum();
        let new = b.comparison.new_failures.len().saturating_sub(flaky);
        if new == 0 {
            return;
        }
        let _ = writeln!(out, "\n### New failures: {}", tests(new));
        self.groups_part(out, plan, 0..self.new_groups);
        self.omitted_new_part(out, plan);
    }

    /// The ids of the new failures in the groups `plan` leaves out.
    fn omitted_new_part(&self, out: &mut String, plan: &Plan) {
        let omitted = self.omitted_new_ids(plan.listed);
        if !omitted.is_empty() && self.new_groups > plan.listed {
            let _ = writeln!(out, "\nNew failures in the groups not shown:\n");
            sections::id_list(out, &omitted, plan.new_ids);
        }
    }

    /// The Flaky section: the failures flaky by the history of runs, as
    /// `plan` shows groups, and (with the extras) the tests that passed
    /// only after failing.
    fn flaky_part(&self, out: &mut String, plan: &Plan) {
        let groups = &self.groups[self.flaky_at..];
        let (retried, retried_count) = &self.retried;
        if groups.is_empty() && !(plan.extras && *retried_count > 0) {
            return;
        }
        let failed: usize = groups.iter().map(|g| g.count).sum();
        out.push_str(&sections::flaky_heading(failed + retried_count));
        self.groups_part(out, plan, self.flaky_at..self.groups.len());
        if plan.extras {
            out.push_str(retried);
        }
    }

    /// Fixed tests: their ids (with the extras), else their number.
    fn fixed(&self, out: &mut String, ids: bool) {
        let Some(b) = &self.baseline else { return };
        let fixed = &b.comparison.fixed;
        if fixed.is_empty() {
            return;
        }
        let _ = writeln!(out, "\n### Fixed: {}", tests(fixed.len()));
        if ids {
            out.push('\n');
            let ids: Vec<&str> = fixed.iter().map(String::as_str).collect();
            sections::id_list(out, &ids, LISTED);
        }
    }

    /// The groups in `range`: in full, one line each, or left out, as
    /// `plan` says.
    fn groups_part(&self, out: &mut String, plan: &Plan, range: std::ops::Range<usize>) {
        let fulls = if plan.full > range.start {
            self.fulls(plan.detail)
        } else {
            &[]
        };
        let mut in_list = false;
        for i in range {
            if i < plan.full {
                out.push_str(&fulls[i]);
            } else if i < plan.listed {
                if !in_list {
                    out.push('\n');
                    in_list = true;
                }
                let baseline = self.baseline.is_some();
                let line = sections::group_line(self.options, &self.groups[i], baseline);
                out.push_str(&line);
            }
        }
    }
}
