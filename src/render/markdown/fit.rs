//! Fitting a Markdown answer to its [`Budget`], in steps, stopping at the
//! first that fits:
//!
//! 1. failures grouped by root cause (always);
//! 2. captured output dropped ([`Detail::NoOutput`]);
//! 3. tracebacks cut to the crash lines ([`Detail::CrashLines`]);
//! 4. one id named per group ([`Detail::FewerIds`]);
//! 5. fewer groups in full, the others one line each (count, outcome, id,
//!    message, crash location): as many in full as fit, largest first;
//! 6. counts only: the status line, the summary counts and one line per
//!    group; when even those do not all fit, the largest groups' lines and
//!    how many groups and tests were left out.
//!
//! Sections are dropped or replaced whole, so a cut never falls inside a
//! line or a code fence. The last notes say what was left out (then the
//! line to rerun the failures, which stays last). Steps 2 to 6 and the
//! last resort are [`Plan`]s offered ([`Plans`]) to the one fitting loop,
//! [`crate::budget::fit`], which chooses: this file only says how each
//! plan is rendered.

use std::cell::OnceCell;
use std::fmt::Write as _;

use super::grouping::{self, ShownGroup, failure_groups, new_mark};
use super::sections::{collection_errors, coverage, failure, flaky, notes, skipped};
use super::{Detail, closing, header};
use crate::budget::{BYTES_PER_TOKEN, Budget, Fitted, Offer, Plans, Rung, Truncation};
use crate::model::Run;
use crate::model::groups::IdItem;
use crate::pytest_text::parametrized_function;
use crate::render::view::Group;
use crate::render::view::failure::lean_message;
use crate::text::{clip_chars, first_line, one_line, thousands};

/// The fewest characters a failure section takes: `\n### ERROR: \n`.
const MIN_SECTION_CHARS: usize = 13;

/// The longest message shown in a group's one-line form.
const LINE_MESSAGE_CHARS: usize = 120;

/// How far a rendering may grow before a level of detail is given up.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cap {
    chars: usize,
    bytes: usize,
}

impl Cap {
    pub(super) const NONE: Cap = Cap {
        chars: usize::MAX,
        bytes: usize::MAX,
    };

    fn of(budget: &Budget) -> Cap {
        Cap {
            chars: budget.chars.unwrap_or(usize::MAX),
            bytes: budget
                .tokens
                .map_or(usize::MAX, |t| t.saturating_mul(BYTES_PER_TOKEN)),
        }
    }

    /// The size of `out` so far, to grow with [`Size::add`].
    pub(super) fn start(self, out: &str) -> Size {
        let chars = if self.chars == usize::MAX {
            0
        } else {
            out.chars().count()
        };
        Size {
            cap: self,
            chars,
            bytes: out.len(),
        }
    }
}

/// A rendering's size as it grows.
pub(super) struct Size {
    cap: Cap,
    chars: usize,
    bytes: usize,
}

impl Size {
    /// Adds `text`; whether the rendering is still within the cap.
    pub(super) fn add(&mut self, text: &str) -> bool {
        self.bytes += text.len();
        if self.cap.chars != usize::MAX {
            self.chars += text.chars().count();
        }
        self.chars <= self.cap.chars && self.bytes <= self.cap.bytes
    }
}

/// The agent Markdown of `run` offered to fit `budget`, shrinking in the
/// steps above. `preface` (a comparison with a baseline, say) goes right
/// under the header line and is kept at every step. With `collapse` (PR
/// comments, job summaries) long failure sections fold their detail into
/// `<details>` blocks.
pub(super) fn offer<'r>(
    run: &'r Run,
    budget: Budget,
    preface: &str,
    collapse: bool,
) -> Offer<'r, Fitted> {
    match plans(run, budget, preface, collapse) {
        Ok(whole) => Offer::Whole(whole),
        Err(plans) => Offer::plans(*plans),
    }
}

/// The whole answer when it fits `budget`, else the plans to shorten it
/// (for an answer whose plans include these: an execution error's).
pub(crate) fn plans<'r>(
    run: &'r Run,
    budget: Budget,
    preface: &str,
    collapse: bool,
) -> Result<Fitted, Box<Fitting<'r>>> {
    let head = format!("{}{preface}", header(run));
    let cap = Cap::of(&budget);
    // Lower steps stop at the first section past the cap, so only the
    // first groups can be rendered more than once: their sections are kept.
    let keep = cap.chars.min(cap.bytes) / MIN_SECTION_CHARS + 1;
    let groups = grouping::shown(failure_groups(run), keep);
    // Step 1, the whole answer: every shortened one names its size.
    let mut full = head.clone();
    let whole = Levels::same(Detail::Full);
    super::body_until(&mut full, run, &groups, whole, collapse, Cap::NONE);
    notes(&mut full, run, &closing(run, Vec::new()));
    if budget.fits(&full) {
        return Ok(Fitted::whole(full));
    }
    Err(Box::new(Fitting {
        run,
        budget,
        head,
        collapse,
        cap,
        full_size: budget.describe_size(&full),
        lines: GroupLines::new(groups.len()),
        groups,
    }))
}

/// The detail of the new failures' groups and of the groups that failed
/// last time too (`seen`, shown then): with what changed since the last
/// run, those shrink first (steps 2 to 4 start with them at the least).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Levels {
    detail: Detail,
    seen: Detail,
}

impl Levels {
    pub(super) fn same(detail: Detail) -> Levels {
        Levels {
            detail,
            seen: detail,
        }
    }

    /// The detail of `group`'s section.
    pub(super) fn of(self, run: &Run, group: &Group<'_>) -> Detail {
        if group.seen_before(run) {
            self.detail.max(self.seen)
        } else {
            self.detail
        }
    }

    /// Steps 2 to 4; when the run has both new groups and groups seen
    /// before, the ones seen before are cut to [`Detail::FewerIds`] first.
    fn steps(run: &Run, groups: &[ShownGroup<'_>]) -> Vec<Levels> {
        let shrinking = [Detail::NoOutput, Detail::CrashLines, Detail::FewerIds];
        let mut groups = groups.iter().map(|g| &g.group);
        let split = groups.clone().any(|g| g.new > 0) && groups.any(|g| g.seen_before(run));
        if !split {
            return shrinking.into_iter().map(Levels::same).collect();
        }
        std::iter::once(Detail::Full)
            .chain(shrinking)
            .map(|detail| Levels {
                detail,
                seen: Detail::FewerIds,
            })
            .collect()
    }

    /// What the step drops, as the closing note says it.
    fn dropped(self) -> Vec<&'static str> {
        let mut dropped = super::dropped(self.detail).to_vec();
        if self.seen > self.detail {
            dropped.push("the detail of the failures that also failed last run (shown then)");
        }
        dropped
    }
}

/// A shortened answer, one per step past the first: the rungs of the
/// ladder the fitting loop climbs down.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Plan {
    /// Steps 2 to 4: every group's section, at these levels of detail.
    Sections(Levels),
    /// Step 5: the first `k` groups in full (one id each, crash lines),
    /// the rest one line each.
    InFull(usize),
    /// Step 6: one line per collection error and per group, `shown` of
    /// them (largest first), the first `with_message` with their message
    /// and crash location.
    Counts { with_message: usize, shown: usize },
}

/// What every shortened answer needs.
pub(crate) struct Fitting<'r> {
    run: &'r Run,
    budget: Budget,
    head: String,
    groups: Vec<ShownGroup<'r>>,
    collapse: bool,
    /// Where steps 2 to 4 give up rendering.
    cap: Cap,
    /// The full answer's size, as the note says it.
    full_size: String,
    lines: GroupLines,
}

impl Plans for Fitting<'_> {
    type Plan = Plan;
    type Answer = Fitted;

    /// The plans, richest first: steps 2 to 4, then as many groups in
    /// full as fit, then every group's line with its message, as many
    /// messages as fit, as many lines as fit; the clipped answer is the
    /// last resort.
    fn ladder(&self) -> Vec<Rung<'_, Plan>> {
        let all = self.groups.len();
        let mut rungs: Vec<Rung<'_, Plan>> = Levels::steps(self.run, &self.groups)
            .into_iter()
            .map(|levels| Rung::One(Plan::Sections(levels)))
            .collect();
        // Short of all groups: all in full is step 4.
        rungs.push(Rung::most(1, all.saturating_sub(1), Plan::InFull));
        rungs.push(Rung::One(Plan::Counts {
            with_message: all,
            shown: all,
        }));
        if all > 0 {
            // Every line without its message, then the largest groups'
            // messages back; else the largest groups' lines.
            rungs.push(Rung::most(0, all, move |k| Plan::Counts {
                with_message: k,
                shown: all,
            }));
            rungs.push(Rung::most(0, all - 1, |shown| Plan::Counts {
                with_message: 0,
                shown,
            }));
        }
        rungs
    }

    /// `plan`'s answer with its closing notes, if it fits the budget.
    fn attempt(&self, plan: Plan) -> Option<Fitted> {
        let (mut text, truncation) = match plan {
            Plan::Sections(levels) => self.sections(levels)?,
            Plan::InFull(k) => self.in_full(k),
            Plan::Counts {
                with_message,
                shown,
            } => self.counts(with_message, shown, self.cap),
        };
        notes(
            &mut text,
            self.run,
            &closing(self.run, vec![self.note(&truncation)]),
        );
        self.budget.fits(&text).then_some(Fitted {
            text,
            truncation: Some(truncation),
        })
    }

    /// For a budget smaller than the header and the notes themselves (a
    /// long comparison with a baseline under a few hundred characters):
    /// step 6 without a group's line, cut to fit (at worst empty).
    fn last_resort(&self) -> Fitted {
        let (mut text, truncation) = self.counts(0, 0, Cap::NONE);
        notes(
            &mut text,
            self.run,
            &closing(self.run, vec![self.note(&truncation)]),
        );
        Fitted {
            text: self.clipped(text),
            truncation: Some(truncation),
        }
    }
}

impl Fitting<'_> {
    fn truncation(&self, dropped: &[&str]) -> Truncation {
        let mut t = Truncation::new(&self.budget);
        t.dropped = dropped.iter().map(|d| d.to_string()).collect();
        t
    }

    /// The closing note: the budget, the full size, what was left out.
    fn note(&self, t: &Truncation) -> String {
        let note = t.note(&self.budget, "answer", &self.full_size);
        format!("{note} Rerun one test by its id for its full detail.")
    }

    /// Steps 2 to 4: every section at `levels`; `None` as soon as the
    /// answer is past the cap.
    fn sections(&self, levels: Levels) -> Option<(String, Truncation)> {
        let mut out = self.head.to_string();
        let (run, groups) = (self.run, &self.groups);
        super::body_until(&mut out, run, groups, levels, self.collapse, self.cap)
            .then(|| (out, self.truncation(&levels.dropped())))
    }

    /// Step 5: the first `k` groups in full, the rest one line each (cut
    /// short past the cap: [`GroupLines::push`]).
    fn in_full(&self, k: usize) -> (String, Truncation) {
        let mut out = self.head.to_string();
        collection_errors(&mut out, self.run);
        for group in &self.groups[..k] {
            failure(&mut out, self.run, group, Detail::FewerIds, self.collapse);
        }
        let rest = &self.groups[k..];
        let tests: usize = rest.iter().map(|g| g.group.count).sum();
        let _ = write!(
            out,
            "\n### MORE FAILURES ({}, {}), ONE LINE EACH\n",
            groups_phrase(rest.len()),
            tests_phrase(tests)
        );
        let all = self.groups.len();
        self.lines
            .push(&mut out, self.cap, (&self.groups, k), all, &[]);
        coverage(&mut out, self.run, false);
        flaky(&mut out, self.run);
        skipped(&mut out, self.run);
        let mut dropped: Vec<&str> = super::dropped(Detail::FewerIds).to_vec();
        let detail = format!("the detail of {}", groups_phrase(rest.len()));
        dropped.push(&detail);
        (out, self.truncation(&dropped))
    }

    /// Step 6: the header, one line per collection error and per group
    /// (the first `shown`, the first `with_message` of them with their
    /// message and crash location), what was left out; the lines cut
    /// short past `cap` ([`GroupLines::push`]).
    fn counts(&self, with_message: usize, shown: usize, cap: Cap) -> (String, Truncation) {
        let groups = &self.groups;
        let tests: usize = groups.iter().map(|g| g.group.count).sum();
        let errors = self.lines.errors(self.run);
        let mut out = self.head.to_string();
        if !errors.is_empty() || shown > 0 {
            let _ = write!(
                out,
                "\n### FAILURES ({}, {})\n",
                groups_phrase(groups.len()),
                tests_phrase(tests)
            );
        }
        let lines = (&groups[..shown], 0);
        self.lines.push(&mut out, cap, lines, with_message, errors);
        coverage(&mut out, self.run, true);
        let mut truncation = self.truncation(&[
            "captured output",
            "tracebacks",
            "ids beyond the first of each group",
            "skip reasons",
        ]);
        if self
            .run
            .coverage
            .as_ref()
            .is_some_and(|c| !c.files.is_empty())
        {
            truncation
                .dropped
                .push("the ranges of changed lines not run (each file's count kept)".to_string());
        }
        if with_message < shown {
            truncation.dropped.push(if with_message == 0 {
                "messages".to_string()
            } else {
                format!("the messages of {}", groups_phrase(shown - with_message))
            });
        }
        truncation.groups_omitted = groups.len() - shown;
        truncation.tests_omitted = groups[shown..].iter().map(|g| g.group.count).sum();
        (out, truncation)
    }

    /// `text` cut at a line end to fit, then within its first line.
    fn clipped(&self, mut text: String) -> String {
        while !self.budget.fits(&text) {
            let body = text.trim_end_matches('\n');
            match body.rfind('\n') {
                Some(cut) if cut > 0 => text.truncate(cut + 1),
                _ => return self.clip_line(body),
            }
        }
        text
    }

    /// The longest start of `line`, marked `…`, that fits; empty when
    /// not even the mark does.
    fn clip_line(&self, line: &str) -> String {
        let starts: Vec<usize> = line.char_indices().map(|(i, _)| i).collect();
        let kept = |n: usize| {
            let end = starts.get(n).copied().unwrap_or(line.len());
            format!("{}…\n", &line[..end])
        };
        if !self.budget.fits(&kept(0)) {
            return String::new();
        }
        let (mut lo, mut hi) = (0, starts.len());
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if self.budget.fits(&kept(mid)) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        kept(lo)
    }
}

/// The one-line forms of steps 5 and 6, each made once, when first
/// needed: every plan uses the same lines (a message's shape is not cheap
/// to find), and a plan past the cap stops needing them, so a run of
/// thousands of groups makes only the lines an answer could hold.
struct GroupLines {
    /// Each group's line with its message and crash location...
    full: Vec<OnceCell<String>>,
    /// ... and with its id alone.
    short: Vec<OnceCell<String>>,
    /// One line per collection error.
    errors: OnceCell<Vec<String>>,
}

impl GroupLines {
    /// Room for the lines of `groups` groups.
    fn new(groups: usize) -> GroupLines {
        GroupLines {
            full: std::iter::repeat_with(OnceCell::new).take(groups).collect(),
            short: std::iter::repeat_with(OnceCell::new).take(groups).collect(),
            errors: OnceCell::new(),
        }
    }

    /// Pushes `errors`, then a line for each of `groups` from the index
    /// `from` on, with its message before the index `with_message`; stops
    /// as soon as `out` is past `cap`: such an answer cannot fit the
    /// budget, however it ends, and the lines after are not made.
    fn push(
        &self,
        out: &mut String,
        cap: Cap,
        (groups, from): (&[ShownGroup<'_>], usize),
        with_message: usize,
        errors: &[String],
    ) {
        let mut size = cap.start(out);
        for line in errors.iter().map(String::as_str) {
            out.push_str(line);
            if !size.add(line) {
                return;
            }
        }
        for (i, g) in groups.iter().enumerate().skip(from) {
            let full = i < with_message;
            let cell = if full { &self.full[i] } else { &self.short[i] };
            let line = cell.get_or_init(|| group_line(&g.group, full));
            out.push_str(line);
            if !size.add(line) {
                return;
            }
        }
    }

    fn errors(&self, run: &Run) -> &[String] {
        self.errors.get_or_init(|| collection_error_lines(run))
    }
}

/// A group in one line: `- 400× FAILED tests/t.py::test_total (all 400
/// cases) — AssertionError: assert 3 == 4 (at tests/t.py:12)`. The id can
/// be fed back as it is: the function when the group holds all its cases,
/// else the representative, then how many more.
fn group_line(group: &Group<'_>, with_message: bool) -> String {
    let t = group.first;
    let mut line = String::from("- ");
    if group.count > 1 {
        let _ = write!(line, "{}× ", thousands(group.count));
    }
    line.push_str(group.label());
    line.push_str(&new_mark(group));
    line.push(' ');
    let function = parametrized_function(&t.node_id);
    match group.others().first() {
        Some(IdItem::Function { id, count }) if *count == group.count && function == Some(*id) => {
            let _ = write!(line, "{} (all {count} cases)", one_line(id));
        }
        _ => {
            line.push_str(&one_line(&t.node_id));
            if group.count > 1 {
                let _ = write!(line, " +{} more", thousands(group.count - 1));
            }
        }
    }
    if !with_message {
        line.push('\n');
        return line;
    }
    let message = t.joined_message();
    let message = lean_message(first_line(message.as_deref().unwrap_or_default()).trim());
    if !message.is_empty() {
        let _ = write!(
            line,
            " — {}",
            clip_chars(&one_line(message), LINE_MESSAGE_CHARS)
        );
    }
    if let Some(place) = group.place().and_then(|(file, line)| Some((file, line?))) {
        let _ = write!(line, " (at {}:{})", one_line(place.0), place.1);
    }
    line.push('\n');
    line
}

/// One line per collection error: `- COLLECTION ERROR <file> — <message>`.
fn collection_error_lines(run: &Run) -> Vec<String> {
    run.collection_errors
        .iter()
        .map(|e| {
            let file = if e.file.is_empty() {
                "(session)"
            } else {
                &e.file
            };
            let line = format!(
                "- COLLECTION ERROR {} — {}",
                one_line(file),
                first_line(&e.message)
            );
            format!("{}\n", clip_chars(&line, LINE_MESSAGE_CHARS * 2))
        })
        .collect()
}

fn groups_phrase(n: usize) -> String {
    match n {
        1 => "1 group".to_string(),
        n => format!("{} groups", thousands(n)),
    }
}

fn tests_phrase(n: usize) -> String {
    match n {
        1 => "1 test".to_string(),
        n => format!("{} tests", thousands(n)),
    }
}
