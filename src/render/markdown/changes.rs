//! What changed since the last run ([`crate::model::changes`]), right
//! under the status line:
//!
//! ```text
//! Test FAILURE (0.4s) — 12 run, 4 failed
//! Since the last run: 3 fixed, 1 new failure, 3 still failing, 1 gone
//! Fixed: tests/test_cart.py::test_total (all 3 cases)
//! Gone (no longer collected): tests/test_user.py::test_old_name
//! ```
//!
//! The counts line always (its counts that are not zero); fixed and gone
//! tests named compactly (a parametrized function's id when every case of
//! it is in the list), at most [`LISTED`] each, never in detail: the agent
//! has read them before. Fixed tests are not named when nothing fails any
//! more: they are all that failed last time.
//! New failures are marked where their groups are shown, first.

use std::fmt::Write as _;

use crate::model::Run;
use crate::model::changes::Changes;
use crate::model::groups::{IdItem, Parametrizations};
use crate::text::one_line;

/// Ids a list names before the rest are counted (`+N more`).
const LISTED: usize = 10;

/// The lines under the status line, each ending in a newline.
pub(super) fn block(run: &Run, changes: &Changes) -> String {
    let mut out = format!("Since the last run: {}\n", changes.phrase());
    // When nothing fails any more, the fixed tests are all that failed
    // last time: the agent has read them, the count says enough.
    if !changes.fixed.is_empty() && !changes.nothing_fails() {
        out.push_str("Fixed: ");
        list(&mut out, &compact(run, &changes.fixed));
    }
    if !changes.gone.is_empty() {
        out.push_str("Gone (no longer collected): ");
        let items: Vec<(String, usize)> = changes
            .gone
            .iter()
            .map(|id| (one_line(id).into_owned(), 1))
            .collect();
        list(&mut out, &items);
    }
    out
}

/// `ids` as a reader feeds them back: tests of this run (parametrizations
/// folded into their function where every case is there), then ids the
/// run holds no test for (files that collect again), each with how many
/// tests it stands for.
fn compact(run: &Run, ids: &[String]) -> Vec<(String, usize)> {
    let wanted: std::collections::HashSet<&str> = ids.iter().map(String::as_str).collect();
    let mut seen = std::collections::HashSet::new();
    let tests: Vec<usize> = run
        .tests
        .iter()
        .enumerate()
        .filter(|(_, t)| wanted.contains(t.node_id.as_str()) && seen.insert(t.node_id.as_str()))
        .map(|(i, _)| i)
        .collect();
    let mut items: Vec<(String, usize)> = Parametrizations::among(run, tests.iter().copied())
        .compress(run, &tests)
        .into_iter()
        .map(|item| match item {
            IdItem::Test(id) => (one_line(id).into_owned(), 1),
            IdItem::Function { id, count } => {
                (format!("{} (all {count} cases)", one_line(id)), count)
            }
        })
        .collect();
    items.extend(
        ids.iter()
            .filter(|id| !seen.contains(id.as_str()))
            .map(|id| (one_line(id).into_owned(), 1)),
    );
    items
}

/// `a, b (all 3 cases), +4 more` and a newline: at most [`LISTED`] items
/// (one more when it is the last).
fn list(out: &mut String, items: &[(String, usize)]) {
    let shown = if items.len() <= LISTED + 1 {
        items.len()
    } else {
        LISTED
    };
    let names: Vec<&str> = items[..shown]
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    out.push_str(&names.join(", "));
    let rest: usize = items[shown..].iter().map(|(_, n)| n).sum();
    if rest > 0 {
        let _ = write!(out, ", +{rest} more");
    }
    out.push('\n');
}
