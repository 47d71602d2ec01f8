//! Fitting a structured result to its budget (see the parent module):
//! fewer ids per group, shorter messages, then none from the last groups
//! up, then fewer groups (a discovery: fewer test functions), then fewer
//! collection errors, until its compact JSON fits.

use super::*;

/// Characters of a group's message kept when the whole message does not
/// fit the budget: the exception and the start of what it says.
const SHORT_MESSAGE_CHARS: usize = 80;

/// Bytes no o200k token exceeds (its longest, runs of spaces, hold 128):
/// a text longer than this many bytes per token of the budget cannot fit,
/// which is known without counting.
const MAX_TOKEN_BYTES: usize = 256;

/// Whether `value`'s compact JSON fits `budget`.
pub(super) fn fits(budget: &Budget, value: &impl Serialize) -> bool {
    let text = compact(value);
    if let Some(max) = budget.tokens
        && text.len() > max.saturating_mul(MAX_TOKEN_BYTES)
    {
        return false;
    }
    budget.fits(&text)
}

/// The largest `k` in `0..=n` for which `fits(k)` holds (0 when none).
fn largest_fitting(n: usize, mut fits: impl FnMut(usize) -> bool) -> usize {
    crate::budget::largest_fitting(n, |k| fits(k).then_some(())).map_or(0, |(k, ())| k)
}

/// Names at most `cap` ids per group.
fn cap_ids(groups: &mut [FailureGroup], cap: usize) {
    for g in groups {
        if g.node_ids.len() > cap {
            g.node_ids.truncate(cap);
            g.covers.truncate(cap);
            g.more = g.count.saturating_sub(g.covers.iter().sum());
        }
    }
}

/// Failing tests that no listed id names.
fn unnamed(groups: &[FailureGroup]) -> usize {
    groups.iter().map(|g| g.more).sum()
}

/// `result` within `budget`: fewer ids per group, then shorter messages,
/// then none, then fewer groups (the last go first: the smallest of those
/// seen before), until its compact JSON fits; when not even the
/// counts and the collection errors fit, fewer collection errors and no
/// group.
pub(super) fn fit_run(mut r: RunResult, budget: &Budget) -> RunResult {
    if !budget.is_limited() || fits(budget, &r) {
        return r;
    }
    let mut t = Truncation::new(budget);
    if r.failures.iter().any(|g| g.node_ids.len() > 1) {
        cap_ids(&mut r.failures, 1);
        t.dropped.push("node ids".into());
        t.tests_omitted = unnamed(&r.failures);
        r.truncated = Some(t.clone());
        if fits(budget, &r) {
            return r;
        }
    }
    if shed_messages(&mut r, &mut t, budget) {
        return r;
    }
    t.dropped.push("failure groups".into());
    // With the first `k` groups, the rest left out.
    keep_fitting(r, budget, |all: &[FailureGroup], k| {
        let mut t = t.clone();
        t.groups_omitted = all.len() - k;
        t.tests_omitted = unnamed(&all[..k]) + all[k..].iter().map(|g| g.count).sum::<usize>();
        t
    })
}

/// Every group kept with one line, as the text keeps them: messages cut
/// to [`SHORT_MESSAGE_CHARS`], then left out from the last groups up,
/// before any group is. Whether `r` then fits, `t` saying what went.
fn shed_messages(r: &mut RunResult, t: &mut Truncation, budget: &Budget) -> bool {
    if r.failures
        .iter()
        .any(|g| g.message.chars().count() > SHORT_MESSAGE_CHARS)
    {
        for g in &mut r.failures {
            g.message = cut_chars(&g.message, SHORT_MESSAGE_CHARS);
        }
        t.dropped.push("long messages".into());
        r.truncated = Some(t.clone());
        if fits(budget, r) {
            return true;
        }
    }
    if !r
        .failures
        .iter()
        .any(|g| !g.message.is_empty() || g.at.is_some())
    {
        return false;
    }
    // Messages left out include the long ones shortened before.
    t.dropped.retain(|d| d != "long messages");
    t.dropped.push("messages".into());
    r.truncated = Some(t.clone());
    let lines: Vec<(String, Option<String>)> = r
        .failures
        .iter()
        .map(|g| (g.message.clone(), g.at.clone()))
        .collect();
    // The first `k` groups with their message and place, not the rest.
    let keep = |r: &mut RunResult, k: usize| {
        for (i, (g, (message, at))) in r.failures.iter_mut().zip(&lines).enumerate() {
            (g.message, g.at) = if i < k {
                (message.clone(), at.clone())
            } else {
                (String::new(), None)
            };
        }
    };
    let k = largest_fitting(lines.len(), |k| {
        keep(r, k);
        fits(budget, r)
    });
    keep(r, k);
    if !fits(budget, r) {
        return false;
    }
    if k > 0 {
        t.dropped.pop();
        t.dropped
            .push(format!("messages beyond the first {k} groups"));
        r.truncated = Some(t.clone());
    }
    true
}

/// `result` within `budget`: fewer test functions (the last go first),
/// until its compact JSON fits; when not even the counts and the collection
/// errors fit, fewer collection errors and no test function.
pub(super) fn fit_discovery(r: DiscoveryResult, budget: &Budget) -> DiscoveryResult {
    if !budget.is_limited() || fits(budget, &r) {
        return r;
    }
    let mut t = Truncation::new(budget);
    t.dropped.push("test functions".into());
    keep_fitting(r, budget, |all: &[TestFunction], k| {
        let mut t = t.clone();
        t.tests_omitted = all[k..].iter().map(|f| f.cases.unwrap_or(1)).sum();
        t
    })
}

/// `r` with the first `k` of its items that fit, `truncation(all, k)`
/// saying what went; when not even none of them fits, no item and as many
/// collection errors as fit.
fn keep_fitting<R: Structured>(
    mut r: R,
    budget: &Budget,
    truncation: impl Fn(&[R::Item], usize) -> Truncation,
) -> R {
    let mut all = std::mem::take(r.items());
    *r.truncated() = Some(truncation(&all, 0));
    if !fits(budget, &r) {
        let mut t = truncation(&all, 0);
        t.dropped.push("collection errors".into());
        *r.truncated() = Some(t);
        let keep = largest_fitting(r.errors().len(), |k| {
            let rest = r.errors().split_off(k);
            let fits = fits(budget, &r);
            r.errors().extend(rest);
            fits
        });
        r.errors().truncate(keep);
        return r;
    }
    let k = largest_fitting(all.len(), |k| {
        *r.items() = all[..k].to_vec();
        *r.truncated() = Some(truncation(&all, k));
        fits(budget, &r)
    });
    *r.truncated() = Some(truncation(&all, k));
    all.truncate(k);
    *r.items() = all;
    r
}
