use super::*;

#[test]
fn failures_and_the_counts_line() {
    let out = "tests/a.py .F\n=== short test summary info ===\nFAILED tests/a.py::test_b - assert 1 == 2\nERROR tests/a.py::test_c - RuntimeError: x\n==== 1 failed, 1 passed, 1 error in 0.12s ====\n";
    let run = parse(out).expect("something read");
    assert_eq!(run.tests.len(), 2);
    assert_eq!(run.tests[0].node_id, "tests/a.py::test_b");
    assert_eq!(run.tests[0].message(), Some("assert 1 == 2"));
    assert_eq!(run.tests[1].outcome, Outcome::Error);
    assert!(run.notes[0].contains("1 failed, 1 passed, 1 error in 0.12s"));
    assert!(parse("Fatal Python error: Segmentation fault\n").is_none());
}

const COVERAGE_GATE: &str = "\
============================= test session starts ==============================
collected 2 items

tests/test_f.py ..
ERROR: Coverage failure: total of 83 is less than fail-under=90
                                                                         [100%]

================================ tests coverage ================================
_______________ coverage: platform linux, python 3.11.7-final-0 ________________

Name              Stmts   Miss  Cover
-------------------------------------
pkg/__init__.py       6      1    83%   7, 12
pkg/other.py          6      0   100%
-------------------------------------
TOTAL                12      1    92%
FAIL Required test coverage of 95% not reached. Total coverage: 91.67%
============================== 2 passed in 0.16s ===============================
";

#[test]
fn a_coverage_gate_is_its_verdict_below_the_table() {
    assert_eq!(
        closing_lines(COVERAGE_GATE).as_deref(),
        Some("FAIL Required test coverage of 95% not reached. Total coverage: 91.67%")
    );
    // -q: no header, no borders on the closing line.
    let quiet = COVERAGE_GATE.replace(
        "============================== 2 passed in 0.16s ===============================",
        "2 passed in 0.16s",
    );
    assert!(closing_lines(&quiet).is_some_and(|l| l.ends_with("Total coverage: 91.67%")));
    // A table alone is what there is to say.
    let table =
        "tests/a.py .  [100%]\nName Stmts Miss Cover\nTOTAL 12 1 92%\n=== 1 passed in 0.1s ===\n";
    assert_eq!(
        closing_lines(table).as_deref(),
        Some("Name Stmts Miss Cover\nTOTAL 12 1 92%")
    );
}

#[test]
fn unused_snapshots_are_said_whole_after_the_short_summary() {
    let out = "\
tests/test_s.py .s                                                       [100%]

--------------------------- snapshot report summary ----------------------------
1 snapshot passed. 1 snapshot unused.

Re-run pytest with --snapshot-update to delete unused snapshots.
=========================== short test summary info ============================
SKIPPED [1] tests/test_s.py:4: later
========================= 1 passed, 1 skipped in 0.02s =========================
";
    assert_eq!(
        closing_lines(out).as_deref(),
        Some(
            "1 snapshot passed. 1 snapshot unused.\nRe-run pytest with --snapshot-update to delete unused snapshots."
        )
    );
}

#[test]
fn pytest_s_own_sections_and_progress_are_no_closing_words() {
    // Nothing after the progress: a conftest.py set the status silently.
    let silent = "tests/test_a.py ..                                                       [100%]\n\n============================== 2 passed in 0.01s ===============================\n";
    assert_eq!(closing_lines(silent), None);
    // -rA: a passing test's captured output is pytest's PASSES section.
    let passes = "tests/test_a.py .                                                        [100%]\n\n==================================== PASSES ====================================\n___________________________________ test_a ____________________________________\n----------------------------- Captured stdout call -----------------------------\nhello\n=========================== short test summary info ============================\nPASSED tests/test_a.py::test_a\n============================== 1 passed in 0.01s ===============================\n";
    assert_eq!(closing_lines(passes), None);
    // What a sessionfinish printed after the progress is said.
    let printed = "tests/test_a.py .                                                        [100%]\nthe database was left dirty\n\n============================== 1 passed in 0.01s ===============================\n";
    assert_eq!(
        closing_lines(printed).as_deref(),
        Some("the database was left dirty")
    );
    // No closing line (pytest killed): nothing to say.
    assert_eq!(closing_lines("tests/test_a.py .\n"), None);
}
