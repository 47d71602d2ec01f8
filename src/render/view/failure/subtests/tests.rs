use super::*;
use crate::model::{Location, Subtest, SubtestLabel, Subtests};
use crate::render::view::failure::failure_lines;

fn traceback(i: usize, line: u32) -> String {
    format!(
        "    def test_s(subtests):\n>       check({i})\nE       AssertionError: i={i} too big\n\nt.py:{line}: AssertionError"
    )
}

fn subtest(i: usize, line: u32, labelled: bool) -> Subtest {
    let label = labelled.then(|| SubtestLabel {
        msg: Some("size".into()),
        params: vec![("i".into(), i.to_string())],
    });
    let mut s = Subtest::new(
        label,
        Some(format!("AssertionError: i={i} too big")),
        Some(traceback(i, line)),
    );
    s.stdout = Some(format!("checking {i}"));
    s
}

fn test_with(failed: Vec<Subtest>) -> TestResult {
    let mut t = TestResult::new("t.py::test_s", Outcome::Failed);
    t.location = Some(Location::new("t.py", Some(3)));
    t.set_subtests(Subtests {
        failed,
        test_passed: false,
    });
    t
}

#[test]
fn each_failed_subtest_is_named_with_its_message_place_and_output() {
    let t = test_with(vec![subtest(2, 7, true), subtest(3, 9, true)]);
    let text = failure_lines(&t, Detail::Full);
    assert_eq!(
        text,
        "contains 2 failed subtests\n  at t.py:3\n\
         \x20 subtest [size] (i=2): AssertionError: i=2 too big\n\
         \x20   at t.py:7\n    > check(2)\n    Captured stdout:\n    checking 2\n\
         \x20 subtest [size] (i=3): AssertionError: i=3 too big\n\
         \x20   at t.py:9\n    > check(3)\n    Captured stdout:\n    checking 3\n"
    );
    let lean = failure_lines(&t, Detail::NoOutput);
    assert!(!lean.contains("checking"), "{lean}");
}

#[test]
fn subtests_failing_alike_take_a_line_each_and_many_are_counted() {
    let t = test_with((0..12).map(|i| subtest(i, 7, true)).collect());
    let text = failure_lines(&t, Detail::Full);
    let named: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("  subtest "))
        .collect();
    assert_eq!(named.len(), 10, "{text}");
    assert_eq!(
        named[1],
        "  subtest [size] (i=1): AssertionError: i=1 too big"
    );
    assert_eq!(text.matches("at t.py:7").count(), 1, "{text}");
    assert!(text.ends_with("  … 2 more failed subtests\n"), "{text}");
    let crash = failure_lines(&t, Detail::CrashLines);
    assert!(crash.ends_with("  … 9 more failed subtests\n"), "{crash}");
}

#[test]
fn unnamed_subtests_are_numbered() {
    let t = test_with(vec![subtest(2, 7, false), subtest(3, 9, false)]);
    let text = failure_lines(&t, Detail::Full);
    assert!(
        text.contains("\n  subtest 1 of 2: AssertionError: i=2 too big\n"),
        "{text}"
    );
    assert!(
        text.contains("\n  subtest 2 of 2: AssertionError: i=3 too big\n"),
        "{text}"
    );
    let one = failure_lines(&test_with(vec![subtest(2, 7, false)]), Detail::Full);
    assert!(
        one.contains("\n  subtest: AssertionError: i=2 too big\n"),
        "{one}"
    );
}
