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
