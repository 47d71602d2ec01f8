use super::*;

fn label(msg: Option<&str>, params: &[(&str, &str)]) -> SubtestLabel {
    SubtestLabel {
        msg: msg.map(str::to_string),
        params: params
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

#[test]
fn a_label_is_written_as_pytest_writes_it() {
    assert_eq!(
        label(Some("size"), &[("i", "2"), ("s", "'a'")]).to_string(),
        "[size] (i=2, s='a')"
    );
    assert_eq!(label(Some("first"), &[]).to_string(), "[first]");
    assert_eq!(label(None, &[("n", "1")]).to_string(), "(n=1)");
    assert_eq!(label(None, &[]).to_string(), "(<subtest>)");
}

const TRACEBACK: &str = "subtests = <Subtests>\n\n    def test_sizes(subtests):\n>       assert i < 2, f\"i={i} too big\"\nE       AssertionError: i=2 too big\nE       assert 2 < 2\n\ntests/test_subtests.py:12: AssertionError";

#[test]
fn a_subtest_is_placed_and_worded_from_its_traceback() {
    let s = Subtest::new(None, None, Some(TRACEBACK.to_string()));
    assert_eq!(
        s.location,
        Some(Location::new("tests/test_subtests.py", Some(12)))
    );
    assert_eq!(s.message.as_deref(), Some("assert 2 < 2"));
    let blank = Subtest::new(None, Some(" ".into()), Some("\n".into()));
    assert_eq!(
        (blank.message, blank.traceback, blank.location),
        (None, None, None)
    );
}

#[test]
fn subtests_failing_alike_are_told_apart_from_others() {
    let at = |m: &str| Subtest::new(None, Some(m.to_string()), Some(TRACEBACK.to_string()));
    assert!(at("AssertionError: i=2 too big").same_failure(&at("AssertionError: i=3 too big")));
    assert!(!at("AssertionError: i=2 too big").same_failure(&at("ValueError: odd")));
    let nowhere = Subtest::new(None, Some("x".into()), None);
    assert!(!nowhere.same_failure(&nowhere.clone()));
}

#[test]
fn pytest_words_for_a_test_its_subtests_failed_are_known() {
    let mut s = Subtests {
        failed: vec![Subtest::default()],
        test_passed: true,
    };
    assert_eq!(s.summary(), "contains 1 failed subtest");
    s.failed.push(Subtest::default());
    assert_eq!(s.summary(), "contains 2 failed subtests");
    assert!(Subtests::is_summary("contains 2 failed subtests"));
    assert!(Subtests::is_summary("contains 1 failed subtest"));
    assert!(!Subtests::is_summary("contains failed subtests"));
    assert!(!Subtests::is_summary("contains 2 failed tests"));
}

#[test]
fn the_tests_own_failure_listed_last_among_its_subtests_is_taken_out() {
    let sub = |m: &str| Subtest::new(None, Some(m.to_string()), None);
    let s = Subtests {
        failed: vec![sub("a"), sub("own")],
        test_passed: true,
    };
    let kept = s.clone().without_own_failure(Some("own"));
    assert_eq!((kept.failed.len(), kept.test_passed), (1, false));
    assert_eq!(s.clone().without_own_failure(Some("other")), s);
    assert_eq!(s.clone().without_own_failure(None), s);
}
