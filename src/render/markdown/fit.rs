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
//! line to rerun the failures, which stays last).

use std::fmt::Write as _;

use super::grouping::{Group, failure_groups};
use super::sections::{collection_errors, failure, flaky, label, notes, skipped};
use super::{Detail, closing, header};
use crate::budget::{BYTES_PER_TOKEN, Budget, Fitted, Truncation, largest_fitting};
use crate::model::Run;
use crate::model::groups::{IdItem, shape};
use crate::pytest_text::parametrized_function;
use crate::text::{first_line, one_line, thousands};

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

/// Renders a run within `budget`, shrinking in the steps above. `preface`
/// (a comparison with a baseline, say) goes right under the header line
/// and is kept at every step. With `collapse` (PR comments, job summaries)
/// long failure sections fold their detail into `<details>` blocks.
pub fn render_fitted(run: &Run, budget: &Budget, preface: &str, collapse: bool) -> Fitted {
    let head = format!("{}{preface}", header(run));
    let cap = Cap::of(budget);
    // Lower steps stop at the first section past the cap, so only the
    // first groups can be rendered more than once: their sections are kept.
    let keep = cap.chars.min(cap.bytes) / MIN_SECTION_CHARS + 1;
    let groups = failure_groups(run, keep);
    let mut full = head.clone();
    let whole = Levels::same(Detail::Full);
    super::body_until(&mut full, run, &groups, whole, collapse, Cap::NONE);
    notes(&mut full, run, &closing(run, Vec::new()));
    if budget.fits(&full) {
        return Fitted {
            text: full,
            truncation: None,
        };
    }
    let shrink = Shrink {
        run,
        budget,
        head: &head,
        groups: &groups,
        collapse,
        full_size: budget.describe_size(&full),
    };
    for levels in Levels::steps(run, &groups) {
        let mut out = head.clone();
        if !super::body_until(&mut out, run, &groups, levels, collapse, cap) {
            continue;
        }
        let truncation = shrink.truncation(&levels.dropped());
        notes(&mut out, run, &closing(run, vec![shrink.note(&truncation)]));
        if budget.fits(&out) {
            return shrink.done(out, truncation);
        }
    }
    shrink.fewer_groups_in_full()
}

/// The detail of the new failures' groups and of the groups that failed
/// last time too (`seen`, shown then): with what changed since the last
/// run, those shrink first (steps 2 to 4 start with them at the least).
#[derive(Debug, Clone, Copy)]
pub(super) struct Levels {
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
    fn steps(run: &Run, groups: &[Group<'_>]) -> Vec<Levels> {
        let shrinking = [Detail::NoOutput, Detail::CrashLines, Detail::FewerIds];
        let split = groups.iter().any(|g| g.new > 0) && groups.iter().any(|g| g.seen_before(run));
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
        let mut dropped = self.detail.dropped().to_vec();
        if self.seen > self.detail {
            dropped.push("the detail of the failures that also failed last run (shown then)");
        }
        dropped
    }
}

/// What every step past the sections needs.
struct Shrink<'a, 'r> {
    run: &'r Run,
    budget: &'a Budget,
    head: &'a str,
    groups: &'a [Group<'r>],
    collapse: bool,
    /// The full answer's size, as the note says it.
    full_size: String,
}

impl Shrink<'_, '_> {
    fn truncation(&self, dropped: &[&str]) -> Truncation {
        let mut t = Truncation::new(self.budget);
        t.dropped = dropped.iter().map(|d| d.to_string()).collect();
        t
    }

    fn done(&self, text: String, truncation: Truncation) -> Fitted {
        Fitted {
            text,
            truncation: Some(truncation),
        }
    }

    /// The closing note: the budget, the full size, what was left out.
    fn note(&self, t: &Truncation) -> String {
        let mut note = format!(
            "Shortened to fit {} (the full answer has {}): {} left out",
            self.budget.describe(),
            self.full_size,
            t.dropped.join(", ")
        );
        if t.groups_omitted > 0 {
            let _ = write!(
                note,
                "; {} more failure groups ({} tests) not listed",
                thousands(t.groups_omitted),
                thousands(t.tests_omitted)
            );
        }
        note.push_str(". Rerun one test by its id for its full detail.");
        note
    }

    /// Step 5: the largest `k` groups in full (one id each, crash lines),
    /// the rest one line each, for the largest `k` that fits; else step 6.
    fn fewer_groups_in_full(&self) -> Fitted {
        // Each group's one-line form, made once: every try below and step
        // 6 use the same lines (a message's shape is not cheap to find).
        let lines: Vec<String> = self.groups.iter().map(|g| group_line(g, true)).collect();
        // The size grows with `k`: the largest `k` short of all groups
        // that fits, rendering about log2(n) answers.
        let best = largest_fitting(self.groups.len().saturating_sub(1), |k| {
            let (text, truncation) = self.with_full(k, &lines[k..]);
            self.budget.fits(&text).then_some((text, truncation))
        });
        match best {
            Some((_, (text, truncation))) => self.done(text, truncation),
            None => self.counts_only(&lines),
        }
    }

    /// The answer with the first `k` groups in full and the rest as
    /// `lines` (theirs, from [`group_line`]).
    fn with_full(&self, k: usize, lines: &[String]) -> (String, Truncation) {
        let mut out = self.head.to_string();
        collection_errors(&mut out, self.run);
        for group in &self.groups[..k] {
            failure(&mut out, group, Detail::FewerIds, self.collapse);
        }
        let rest = &self.groups[k..];
        let tests: usize = rest.iter().map(|g| g.count).sum();
        let _ = write!(
            out,
            "\n### MORE FAILURES ({}, {}), ONE LINE EACH\n",
            groups_phrase(rest.len()),
            tests_phrase(tests)
        );
        for line in lines {
            out.push_str(line);
        }
        flaky(&mut out, self.run);
        skipped(&mut out, self.run);
        let mut dropped: Vec<&str> = Detail::FewerIds.dropped().to_vec();
        let detail = format!("the detail of {}", groups_phrase(rest.len()));
        dropped.push(&detail);
        let truncation = self.truncation(&dropped);
        notes(
            &mut out,
            self.run,
            &closing(self.run, vec![self.note(&truncation)]),
        );
        (out, truncation)
    }

    /// Step 6: the header, one line per collection error and per group
    /// (as many as fit, largest first), and the notes. `full`: each
    /// group's line with its message and crash location, made once.
    fn counts_only(&self, full: &[String]) -> Fitted {
        let lines = CountLines {
            errors: collection_error_lines(self.run),
            full: full.to_vec(),
            short: self.groups.iter().map(|g| group_line(g, false)).collect(),
        };
        let all = self.groups.len();
        let (text, truncation) = self.count_lines(&lines, all, all);
        if self.budget.fits(&text) {
            return self.done(text, truncation);
        }
        // Lines without messages: as many as fit, counted down from what the
        // lines' own sizes allow, then checked whole.
        let mut shown = all;
        let room = self.budget.room(&self.count_lines(&lines, 0, 0).0);
        let mut used = 0.0;
        for (i, line) in lines.short.iter().enumerate() {
            used += self.budget.used(line);
            if used > room {
                shown = i;
                break;
            }
        }
        loop {
            let (text, truncation) = self.count_lines(&lines, 0, shown);
            if self.budget.fits(&text) || shown == 0 {
                if shown < all || shown == 0 {
                    return self.done(self.clipped(text), truncation);
                }
                break;
            }
            shown -= 1;
        }
        // Every group's line fits without its message: the largest groups
        // get theirs back, as many as fit.
        let best = largest_fitting(all, |k| {
            let (text, truncation) = self.count_lines(&lines, k, all);
            self.budget.fits(&text).then_some((text, truncation))
        });
        let (text, truncation) = match best {
            Some((_, found)) => found,
            None => self.count_lines(&lines, 0, all),
        };
        self.done(text, truncation)
    }

    /// The counts-only answer: the first `with_message` groups' full
    /// lines, then short ones, `shown` in all.
    fn count_lines(
        &self,
        lines: &CountLines,
        with_message: usize,
        shown: usize,
    ) -> (String, Truncation) {
        let tests: usize = self.groups.iter().map(|g| g.count).sum();
        let mut out = self.head.to_string();
        if !lines.errors.is_empty() || shown > 0 {
            let _ = write!(
                out,
                "\n### FAILURES ({}, {})\n",
                groups_phrase(self.groups.len()),
                tests_phrase(tests)
            );
        }
        let groups = lines.full[..with_message]
            .iter()
            .chain(&lines.short[with_message..shown]);
        for line in lines.errors.iter().chain(groups) {
            out.push_str(line);
        }
        let mut truncation = self.truncation(&[
            "captured output",
            "tracebacks",
            "ids beyond the first of each group",
            "skip reasons",
        ]);
        if with_message < shown {
            truncation.dropped.push(if with_message == 0 {
                "messages".to_string()
            } else {
                format!("the messages of {}", groups_phrase(shown - with_message))
            });
        }
        truncation.groups_omitted = self.groups.len() - shown;
        truncation.tests_omitted = self.groups[shown..].iter().map(|g| g.count).sum();
        notes(
            &mut out,
            self.run,
            &closing(self.run, vec![self.note(&truncation)]),
        );
        (out, truncation)
    }

    /// The last resort, for a budget smaller than the header and the notes
    /// themselves (a long comparison with a baseline under a few hundred
    /// characters): the text cut at a line end to fit, then within its
    /// first line.
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

/// The lines of the counts-only step.
struct CountLines {
    errors: Vec<String>,
    /// Each group's line with its message and crash location...
    full: Vec<String>,
    /// ... and with its id alone.
    short: Vec<String>,
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
    line.push_str(label(t));
    line.push_str(&group.new_mark());
    line.push(' ');
    let function = parametrized_function(&t.node_id);
    match group.ids.first() {
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
    let message = first_line(message.as_deref().unwrap_or_default()).trim();
    if !message.is_empty() {
        let _ = write!(
            line,
            " — {}",
            clip_chars(&one_line(message), LINE_MESSAGE_CHARS)
        );
    }
    if let Some(place) = shape(t).and_then(|s| Some((s.place.0, s.place.1?))) {
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

/// `text` cut to at most `max` characters and a `…`.
fn clip_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}
