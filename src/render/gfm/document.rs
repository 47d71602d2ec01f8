//! The GitHub rendering as a document: what every rendering of a run is
//! made of, worked out once ([`Doc`]), and a rendering as a [`Plan`]
//! says: which parts, how much of each. Which plans are tried, and in
//! what order, is [`super::fit`]'s.

use std::cell::OnceCell;
use std::fmt::Write as _;

use super::history;
use super::sections::{self, Collection, LISTED, tests};
use super::{Baseline, Options};
use crate::budget::{Budget, Truncation};
use crate::model::Run;
use crate::render::view::failure::Detail;
use crate::render::view::{self, Group, New};
use crate::text::plural;

/// Groups shown open (`<details open>`): the first few, new ones first.
pub(super) const OPEN_GROUPS: usize = 3;

/// How much a rendering shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Plan {
    /// [`Detail::Full`], [`Detail::NoOutput`] or [`Detail::CrashLines`].
    pub(super) detail: Detail,
    /// The flaky, slowest and skipped lists, and the fixed tests' ids.
    pub(super) extras: bool,
    /// Groups shown in full (the first ones).
    pub(super) full: usize,
    /// Groups shown at all (in full or one line each).
    pub(super) listed: usize,
    /// New failures of the groups not listed, named by id.
    pub(super) new_ids: usize,
    /// How much of the collection errors is shown.
    pub(super) collection: Collection,
}

/// What every rendering is made of, worked out once.
pub(super) struct Doc<'r> {
    pub(super) run: &'r Run,
    pub(super) baseline: Option<Baseline<'r>>,
    pub(super) options: &'r Options,
    pub(super) budget: Budget,
    pub(super) head: String,
    /// The collection errors at each [`Collection`] level, in its order.
    pub(super) collection: [String; 3],
    /// The failure groups as the view orders them, the flaky ones (by the
    /// history of runs) moved last: they are shown in the Flaky section.
    pub(super) groups: Vec<Group<'r>>,
    /// How many of `groups` hold a new failure, by a baseline or a history
    /// of runs (they come first).
    pub(super) new_groups: usize,
    /// Where the flaky groups begin in `groups`.
    pub(super) flaky_at: usize,
    /// The tests that passed only after failing, listed in the Flaky
    /// section with the extras, and how many.
    pub(super) retried: (String, usize),
    /// The tests slower than usual and the trend (with a history of
    /// runs), the slowest and skipped lists.
    pub(super) extras: String,
    /// What leaving the extras out leaves out, as the closing note says
    /// it.
    pub(super) extras_words: String,
    /// Every group in full at each detail a plan shows, rendered when a
    /// plan first asks for it and kept for the plans after it.
    pub(super) fulls: [OnceCell<Vec<String>>; 3],
    /// The whole rendering's plan, and its size as the notes say it.
    pub(super) whole: Plan,
    pub(super) size: String,
}

/// `the flaky, slowest and skipped tests and the fixed tests' ids`, with
/// the trend and the tests slower than usual when there are some.
fn extras_words(trend: bool, slower: bool) -> String {
    let lists = if slower {
        "flaky, slower than usual, slowest and skipped"
    } else {
        "flaky, slowest and skipped"
    };
    let trend = if trend { "the trend, " } else { "" };
    format!("{trend}the {lists} tests and the fixed tests' ids")
}

impl<'r> Doc<'r> {
    /// What every rendering of `run` (compared with `baseline` when given)
    /// is made of; `size` is set once the whole is known not to fit.
    pub(super) fn new(
        run: &'r Run,
        baseline: Option<Baseline<'r>>,
        options: &'r Options,
        budget: Budget,
    ) -> Doc<'r> {
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
        let (slower, trend) = (history::slower(run), history::trend(run));
        let extras_words = extras_words(!trend.is_empty(), !slower.is_empty());
        let extras = [slower, trend, sections::slowest(run), sections::skips(run)].concat();
        let mut head = super::head(run, &counts, baseline.as_ref());
        if groups.iter().any(|g| view::strip(g).is_some()) {
            head.push_str(&history::legend());
        }
        let n = groups.len();
        Doc {
            run,
            head,
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
            extras_words,
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
    pub(super) fn omitted_new(&self, listed: usize) -> usize {
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

    /// `plan`'s rendering, with the note `shortened` says when given.
    pub(super) fn render(&self, plan: &Plan, shortened: Option<(&Truncation, &str)>) -> String {
        let mut out = self.head.clone();
        // A pull request's reader asks first whether the change was tested.
        out.push_str(&sections::coverage(self.options, self.run));
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
