//! The ADR-006 JSON within a [`Budget`]. Every key of ADR-006 stays; what
//! goes, in order, stopping at the first answer that fits:
//!
//! 1. `json_report` and `text_output` (become `null`): pytest's own views
//!    of what the rest already says;
//! 2. passing (and skipped) tests from `tests`: the summary still counts
//!    them;
//! 3. failing tests beyond those that fit, each group's first test first;
//! 4. collection errors' tracebacks, then the ids each group names beyond
//!    the first few, then whole groups from the smallest.
//!
//! A shortened answer adds `truncated` (the budget, what was dropped, how
//! many tests are not listed) and `failure_groups`: every root cause with
//! its count, outcome, exception, message, crash location, ids and the one
//! id that reruns the whole group when there is one.

use std::borrow::Cow;

use serde::Serialize;

use super::{Answer, Tests, answer, serialized};
use crate::budget::{Budget, Fitted, Truncation, largest_fitting};
use crate::model::groups::{IdItem, Parametrizations, failure_groups, new_in, shape};
use crate::model::{Outcome, Phase, Run, TestResult};
use crate::text::first_line;

/// Ids a group lists in a shortened answer...
const MANY_IDS: usize = 20;
/// ... and when even the groups alone do not fit.
const FEW_IDS: usize = 5;
/// The longest message a group shows...
const GROUP_MESSAGE_CHARS: usize = 300;
/// ... and when groups are all an answer can hold.
const SHORT_MESSAGE_CHARS: usize = 80;

/// One root cause: how many tests it broke and how to find them.
#[derive(Debug, Clone, Serialize)]
pub(super) struct GroupEntry<'r> {
    count: usize,
    /// `failed`, or `error` (`error_phase` says when).
    outcome: &'static str,
    error_phase: Option<&'static str>,
    exception: Option<&'r str>,
    /// The representative's message, first line.
    message: Cow<'r, str>,
    /// The crash location: `path:line`, or another framework's frame.
    location: Option<String>,
    /// The tests' ids, a parametrized function's id standing for all its
    /// cases when the group holds every one of them.
    ids: Vec<&'r str>,
    /// Ids of the group not in `ids`.
    ids_omitted: usize,
    /// The one id that reruns the whole group, when there is one.
    rerun: Option<&'r str>,
    /// How many of its tests fail now and did not last time (the groups
    /// holding any come first); only when the last run is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    new: Option<usize>,
}

/// The run's ADR-006 JSON (indented when `pretty`) within `budget`, and
/// what it left out.
pub fn render_fitted(run: &Run, budget: &Budget, pretty: bool) -> Fitted {
    let full = super::render(run, pretty);
    if budget.fits(&full) {
        return Fitted {
            text: full,
            truncation: None,
        };
    }
    let (groups, firsts) = groups_of(run);
    let mut fit = Fit {
        run,
        budget,
        pretty,
        groups,
        truncation: Truncation::new(budget),
        tracebacks: true,
        change_ids: MANY_IDS,
    };
    fit.drop("json_report");
    fit.drop("text_output");
    let mut is_first = vec![false; run.tests.len()];
    for &i in &firsts {
        is_first[i] = true;
    }
    let problems: Vec<&TestResult> = firsts
        .iter()
        .map(|&i| &run.tests[i])
        .chain(
            run.tests
                .iter()
                .zip(&is_first)
                .filter(|(t, first)| t.is_problem() && !**first)
                .map(|(t, _)| t),
        )
        .collect();
    let unlisted_problems = |listed: usize| problems.len() - listed;
    let passing = run.tests.len() - problems.len();
    // Passing tests go first, all at once.
    fit.truncation.tests_omitted = passing;
    if passing > 0 {
        fit.drop("passing tests");
    }
    let text = fit.text(&problems);
    if budget.fits(&text) {
        return fit.done(text);
    }
    // Then failing tests beyond the first `k` that fit. The note naming
    // `k` is part of each text measured, so the text that fitted is the
    // answer.
    fit.truncation.dropped.push(String::new());
    let best = largest_fitting(problems.len().saturating_sub(1), |k| {
        fit.truncation.tests_omitted = passing + unlisted_problems(k);
        if let Some(last) = fit.truncation.dropped.last_mut() {
            *last = format!("failing tests beyond the first {k}");
        }
        let text = fit.text(&problems[..k]);
        budget.fits(&text).then_some((text, fit.truncation.clone()))
    });
    if let Some((_, (text, truncation))) = best {
        fit.truncation = truncation;
        return fit.done(text);
    }
    fit.truncation.dropped.pop();
    fit.truncation.tests_omitted = run.tests.len();
    fit.drop("every test's entry");
    fit.groups_only()
}

struct Fit<'a, 'r> {
    run: &'r Run,
    budget: &'a Budget,
    pretty: bool,
    groups: Vec<GroupEntry<'r>>,
    truncation: Truncation,
    tracebacks: bool,
    /// Ids `changes` names per list (the counts stay whole): as many as
    /// each group names.
    change_ids: usize,
}

impl<'r> Fit<'_, 'r> {
    fn drop(&mut self, what: &str) {
        self.truncation.dropped.push(what.to_string());
    }

    fn done(self, text: String) -> Fitted {
        Fitted {
            text,
            truncation: Some(self.truncation),
        }
    }

    /// The answer listing `tests`, with every group.
    fn text(&self, tests: &[&TestResult]) -> String {
        let mut a: Answer<'_> = answer(self.run);
        a.json_report = None;
        a.text_output = None;
        a.truncated = Some(&self.truncation);
        a.failure_groups = Some(&self.groups);
        if let Some(c) = &self.run.changes {
            a.changes = Some(super::ChangesEntry::of(c, self.change_ids));
        }
        a.tests = Tests::Some(tests.to_vec());
        if !self.tracebacks {
            for e in &mut a.collection_errors {
                e.traceback = None;
            }
        }
        serialized(&a, self.pretty)
    }

    /// No test listed: collection tracebacks go, then ids beyond the first
    /// few per group, then the smallest groups.
    fn groups_only(mut self) -> Fitted {
        let text = self.text(&[]);
        if self.budget.fits(&text) {
            return self.done(text);
        }
        if !self.run.collection_errors.is_empty() {
            self.tracebacks = false;
            self.drop("collection errors' tracebacks");
            let text = self.text(&[]);
            if self.budget.fits(&text) {
                return self.done(text);
            }
        }
        // Fewer ids per group, then one id and a short message each.
        for (ids, chars) in [(FEW_IDS, GROUP_MESSAGE_CHARS), (1, SHORT_MESSAGE_CHARS)] {
            self.drop(&match ids {
                1 => "ids beyond the first of each group".to_string(),
                n => format!("ids beyond the first {n} of each group"),
            });
            self.change_ids = ids;
            for g in &mut self.groups {
                if g.ids.len() > ids {
                    g.ids_omitted += g.ids.len() - ids;
                    g.ids.truncate(ids);
                }
                if let Some((cut, _)) = g.message.char_indices().nth(chars) {
                    g.message = Cow::Owned(format!("{}…", &g.message[..cut]));
                }
            }
            let text = self.text(&[]);
            if self.budget.fits(&text) {
                return self.done(text);
            }
        }
        if self.groups.is_empty() {
            let text = self.text(&[]);
            return self.done(text);
        }
        // The smallest groups go (groups are largest first): the largest
        // count that fits, found by bisection (the size grows with it; all
        // of them did not fit), else none.
        self.drop("the smallest groups");
        let all = std::mem::take(&mut self.groups);
        match largest_fitting(all.len() - 1, |n| {
            let text = self.with_groups(&all, n);
            self.budget.fits(&text).then_some(text)
        }) {
            Some((n, text)) => {
                self.keep_groups(&all, n);
                self.done(text)
            }
            None => {
                let text = self.with_groups(&all, 0);
                self.done(text)
            }
        }
    }

    /// The answer without tests, with the first `n` of `all` groups.
    fn with_groups(&mut self, all: &[GroupEntry<'r>], n: usize) -> String {
        self.keep_groups(all, n);
        self.text(&[])
    }

    /// Keeps the first `n` of `all` groups, and says how many went.
    fn keep_groups(&mut self, all: &[GroupEntry<'r>], n: usize) {
        self.groups = all[..n].to_vec();
        self.truncation.groups_omitted = all.len() - n;
    }
}

/// Every failure group as JSON lists it, and each group's first test.
fn groups_of(run: &Run) -> (Vec<GroupEntry<'_>>, Vec<usize>) {
    let groups = failure_groups(run);
    let params = Parametrizations::for_groups(run, &groups);
    let firsts = groups.iter().map(|g| g.tests[0]).collect();
    let new = run.changes.as_ref().map(|c| c.new_set());
    let entries = groups
        .iter()
        .map(|g| {
            let t = &run.tests[g.tests[0]];
            let items = params.compress(run, &g.tests);
            let mut ids: Vec<&str> = items
                .iter()
                .map(|i| match i {
                    IdItem::Test(id) | IdItem::Function { id, .. } => *id,
                })
                .collect();
            let omitted = ids.len().saturating_sub(MANY_IDS);
            ids.truncate(MANY_IDS);
            let rerun = match items.as_slice() {
                [IdItem::Test(id)] => Some(*id),
                [IdItem::Function { id, count }] if *count == g.tests.len() => Some(*id),
                _ => None,
            };
            let mut e = entry(t, g.tests.len(), ids, rerun);
            e.ids_omitted = omitted;
            e.new = new.as_ref().map(|new| new_in(run, new, &g.tests));
            e
        })
        .collect();
    (entries, firsts)
}

fn entry<'r>(
    t: &'r TestResult,
    count: usize,
    ids: Vec<&'r str>,
    rerun: Option<&'r str>,
) -> GroupEntry<'r> {
    let s = shape(t);
    let message = match t.joined_message() {
        Some(Cow::Borrowed(m)) => Cow::Borrowed(first_line(m)),
        Some(Cow::Owned(m)) => Cow::Owned(first_line(&m).to_string()),
        None => Cow::Borrowed(""),
    };
    let message = match message.char_indices().nth(GROUP_MESSAGE_CHARS) {
        Some((cut, _)) => Cow::Owned(format!("{}…", &message[..cut])),
        None => message,
    };
    let location = s.as_ref().map(|s| match s.place {
        (path, Some(line)) => format!("{path}:{line}"),
        (frame, None) => frame.to_string(),
    });
    GroupEntry {
        count,
        outcome: t.outcome.as_str(),
        error_phase: match (t.outcome, t.phase) {
            (Outcome::Error, Some(Phase::Setup)) => Some("setup"),
            (Outcome::Error, Some(Phase::Teardown)) => Some("teardown"),
            _ => None,
        },
        exception: s.and_then(|s| s.exception),
        message,
        location,
        ids,
        ids_omitted: 0,
        rerun,
        new: None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::budget::count_tokens;
    use crate::model::Location;

    /// Failing tests of many sizes, at budgets a few tokens apart: the
    /// answer is the text that was measured, never over its budget, and
    /// says how many failing tests it lists.
    #[test]
    fn every_budget_holds_while_failing_tests_are_dropped() {
        let tests: Vec<TestResult> = (0..120)
            .map(|n| {
                let mut t =
                    TestResult::new(format!("tests/t{}.py::test_x[{n}]", n % 7), Outcome::Failed);
                t.set_message(Some(format!("AssertionError: assert {n} == {}", n + 1)));
                t.location = Some(Location::new(format!("tests/t{}.py", n % 7), Some(1)));
                t.set_traceback(Some(format!("line {n}\n").repeat(n % 5 + 1)));
                t
            })
            .collect();
        let run = Run {
            tests,
            ..Run::default()
        };
        let mut listed_seen = std::collections::BTreeSet::new();
        for limit in (600..6_000).step_by(23) {
            let fitted = render_fitted(&run, &Budget::tokens(limit), false);
            let n = count_tokens(&fitted.text);
            assert!(n <= limit, "{n} tokens over {limit}");
            let v: Value = serde_json::from_str(&fitted.text).unwrap();
            let listed = v["tests"].as_array().map_or(0, Vec::len);
            let truncation = fitted.truncation.unwrap();
            assert_eq!(
                v["truncated"]["dropped"],
                serde_json::json!(truncation.dropped)
            );
            if let Some(note) = truncation
                .dropped
                .iter()
                .find(|d| d.starts_with("failing tests"))
            {
                assert_eq!(note, &format!("failing tests beyond the first {listed}"));
            }
            listed_seen.insert(listed);
        }
        assert!(listed_seen.len() > 20, "{listed_seen:?}");
    }

    /// 300 failures, each its own group: the smallest groups go, and the
    /// answer keeps as many as fit (one more group would not).
    #[test]
    fn as_many_groups_stay_as_fit() {
        let run = crate::model::testing::distinct_failures(300);
        for limit in [300, 1_000, 3_000] {
            let fitted = render_fitted(&run, &Budget::tokens(limit), false);
            assert!(count_tokens(&fitted.text) <= limit, "{limit}");
            let mut v: Value = serde_json::from_str(&fitted.text).unwrap();
            let groups = v["failure_groups"].as_array().unwrap().clone();
            let omitted = v["truncated"]["groups_omitted"].as_u64().unwrap() as usize;
            assert!(!groups.is_empty() && groups.len() < 300, "{limit}");
            assert_eq!(groups.len() + omitted, 300);
            assert_eq!(
                v["truncated"]["dropped"]
                    .as_array()
                    .unwrap()
                    .last()
                    .unwrap(),
                "the smallest groups"
            );
            // One more group, as large as the last one kept: over the budget.
            let mut more = groups.clone();
            more.push(groups[groups.len() - 1].clone());
            v["failure_groups"] = Value::Array(more);
            v["truncated"]["groups_omitted"] = (omitted - 1).into();
            let more = serde_json::to_string(&v).unwrap();
            assert!(count_tokens(&more) > limit, "{limit}: {}", groups.len());
        }
    }
}
