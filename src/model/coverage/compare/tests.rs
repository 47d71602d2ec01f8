use super::*;
use crate::model::coverage::{FileGaps, Gap};

fn state(text: &str, counted: &[u32], ran: &[u32]) -> FileState {
    FileState {
        path: "shop/pricing.py".into(),
        text: text.lines().map(str::to_string).collect(),
        counted: counted.to_vec(),
        ran: ran.to_vec(),
    }
}

fn gap(start: u32, end: u32) -> Gap {
    Gap {
        start,
        end,
        function: None,
        source: Vec::new(),
        was: None,
    }
}

const BEFORE: &str = "def total(items):\n    return sum(items)\n\ndef refund(x):\n    return -x\n";
// Line 2 gains a branch (lines 2-3 new), refund's line (now 6) is rewritten,
// and the old `return sum(items)` (now 4) no longer runs.
const NOW: &str = "def total(items):\n    if items is not None:\n        return 0\n    return sum(items)\n\ndef refund(x):\n    return -abs(x)\n";

fn now(gaps: Vec<Gap>, changed: &[u32]) -> ChangeCoverage {
    ChangeCoverage {
        files: vec![FileGaps {
            path: "shop/pricing.py".into(),
            changed: changed.to_vec(),
            covered: Vec::new(),
            gaps,
        }],
        measured: vec![state(NOW, &[1, 2, 3, 4, 6, 7], &[1, 2, 6])],
        ..ChangeCoverage::default()
    }
}

#[test]
fn added_code_is_new_and_rewritten_untested_code_was_not_run_before_either() {
    let mut c = now(vec![gap(3, 3), gap(7, 7)], &[2, 3, 7]);
    let before = [state(BEFORE, &[1, 2, 4, 5], &[1, 2, 4])];
    compare(&mut c, &before, "the base's coverage");
    let was: Vec<Option<Was>> = c.files[0].gaps.iter().map(|g| g.was).collect();
    assert_eq!(was, [Some(Was::New), Some(Was::NotRunBefore)]);
    assert_eq!(c.compared_with.as_deref(), Some("the base's coverage"));
    // `return sum(items)` ran before and does not now: left behind.
    assert_eq!(
        c.left_behind,
        [LeftBehind {
            path: "shop/pricing.py".into(),
            lines: vec![4]
        }]
    );
}

#[test]
fn rewritten_code_that_ran_before_is_new() {
    let mut c = now(vec![gap(7, 7)], &[7]);
    let before = [state(BEFORE, &[1, 2, 4, 5], &[1, 2, 4, 5])];
    compare(&mut c, &before, "the previous run");
    assert_eq!(c.files[0].gaps[0].was, Some(Was::New));
}

#[test]
fn without_a_state_before_nothing_is_said() {
    let mut c = now(vec![gap(7, 7)], &[7]);
    let other = FileState {
        path: "shop/other.py".into(),
        ..state(BEFORE, &[], &[])
    };
    compare(&mut c, &[other], "the previous run");
    assert_eq!((c.files[0].gaps[0].was, c.compared_with), (None, None));
    assert!(c.left_behind.is_empty());
}

#[test]
fn a_file_that_did_not_exist_is_all_new() {
    let mut c = now(vec![gap(1, 7)], &[1, 2, 3, 4, 6, 7]);
    compare(&mut c, &[state("", &[], &[])], "the base's coverage");
    assert_eq!(c.files[0].gaps[0].was, Some(Was::New));
}
