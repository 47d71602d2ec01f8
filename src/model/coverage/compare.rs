//! A change's gaps told apart by what ran before it (issue 48 item 4,
//! docs/coverage.md): the base's coverage (`report --baseline-coverage`)
//! or the previous run's (the agent's loop, kept in the history). Each
//! file's lines now are matched with its lines then by a line diff: an
//! unchanged line with itself, a rewritten block with the block it
//! replaced, an added line with nothing. A range no test ran is
//! `not run before either` when the code it replaced was measured and did
//! not run either (a typo fixed in untested code is no lost test), and
//! `new` otherwise: added code, or code that ran before. Unchanged lines
//! that ran then and do not now are what the change left behind. Pure.

use std::collections::BTreeSet;

use similar::{Algorithm, DiffOp, capture_diff_slices};

use super::{ChangeCoverage, FileState, LeftBehind, Was};

/// Marks each range of `now` by the states `before` (matched by path) and
/// lists the lines left behind; `what` names what was compared with.
pub fn compare(now: &mut ChangeCoverage, before: &[FileState], what: &str) {
    let ChangeCoverage {
        files,
        measured,
        left_behind,
        compared_with,
        ..
    } = now;
    for file in files.iter_mut() {
        let state = measured.iter().find(|s| s.path == file.path);
        let old = before.iter().find(|b| b.path == file.path);
        let (Some(state), Some(old)) = (state, old) else {
            continue;
        };
        *compared_with = Some(what.to_string());
        let ops = capture_diff_slices(Algorithm::Myers, &old.text, &state.text);
        let then = Lines::of(old);
        let counted: BTreeSet<u32> = state.counted.iter().copied().collect();
        for gap in &mut file.gaps {
            let lines = (gap.start..=gap.end).filter(|n| counted.contains(n));
            gap.was = Some(was(lines.map(|n| counterpart(&ops, n)), &then));
        }
        let left = left_over(&ops, &then, state, &file.changed);
        if !left.is_empty() {
            left_behind.push(LeftBehind {
                path: file.path.clone(),
                lines: left,
            });
        }
    }
}

/// A state's counted and run lines as sets.
struct Lines {
    counted: BTreeSet<u32>,
    ran: BTreeSet<u32>,
}

impl Lines {
    fn of(state: &FileState) -> Lines {
        Lines {
            counted: state.counted.iter().copied().collect(),
            ran: state.ran.iter().copied().collect(),
        }
    }
}

/// The lines then (1-based) that line `n` now stands for: itself when
/// unchanged, the block it replaced, none when it was added.
fn counterpart(ops: &[DiffOp], n: u32) -> Vec<u32> {
    let at = (n as usize).saturating_sub(1);
    let one = |i: usize| u32::try_from(i + 1).unwrap_or(u32::MAX);
    for op in ops {
        match *op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } if (new_index..new_index + len).contains(&at) => {
                return vec![one(old_index + at - new_index)];
            }
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } if (new_index..new_index + new_len).contains(&at) => {
                return (old_index..old_index + old_len).map(one).collect();
            }
            DiffOp::Insert {
                new_index, new_len, ..
            } if (new_index..new_index + new_len).contains(&at) => return Vec::new(),
            _ => {}
        }
    }
    Vec::new()
}

/// A range's verdict from its lines' counterparts: not run before either
/// when every line replaced measured code and none of it ran.
fn was(counterparts: impl Iterator<Item = Vec<u32>>, then: &Lines) -> Was {
    let mut measured = false;
    for lines in counterparts {
        if lines.is_empty() || lines.iter().any(|l| then.ran.contains(l)) {
            return Was::New;
        }
        measured |= lines.iter().any(|l| then.counted.contains(l));
    }
    if measured {
        Was::NotRunBefore
    } else {
        Was::New
    }
}

/// Unchanged lines (not among `changed`) that ran then and count but did
/// not run now.
fn left_over(ops: &[DiffOp], then: &Lines, now: &FileState, changed: &[u32]) -> Vec<u32> {
    let changed: BTreeSet<u32> = changed.iter().copied().collect();
    let ran_now: BTreeSet<u32> = now.ran.iter().copied().collect();
    let counted_now: BTreeSet<u32> = now.counted.iter().copied().collect();
    let mut left = Vec::new();
    for op in ops {
        let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = *op
        else {
            continue;
        };
        for k in 0..len {
            let (b, n) = (old_index + k + 1, new_index + k + 1);
            let (Ok(b), Ok(n)) = (u32::try_from(b), u32::try_from(n)) else {
                continue;
            };
            let lost = then.ran.contains(&b) && counted_now.contains(&n) && !ran_now.contains(&n);
            if lost && !changed.contains(&n) {
                left.push(n);
            }
        }
    }
    left
}

#[cfg(test)]
mod tests;
