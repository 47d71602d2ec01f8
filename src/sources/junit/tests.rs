//! Unit tests of the JUnit reader's parts; the reader as a whole is tested
//! through its output (`tests/junit_rules.rs`, `tests/corpus.rs`, goldens).

use super::attrs::skip_word;
use super::attrs::{parse_time, plain_decimal, scan_attributes};
use super::foreign::unnamed_id;
use super::pytest::error_phase;
use crate::model::{Attempt, Outcome, Phase};

#[test]
fn plain_decimals_read_exactly_as_the_float_parser_does() {
    let mut cases: Vec<String> = [
        "0",
        "0.001",
        "1",
        "12.5",
        "0.1",
        "0.3",
        "123456789.012345",
        "999999999999999",
        "00.000",
        "5.",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // A spread of millisecond and microsecond timings.
    let mut x: u64 = 12345;
    for _ in 0..20_000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let digits = (x >> 33) % 10_000_000;
        let scale = ((x >> 20) % 8) as usize;
        let s = format!("{digits:0>width$}", width = scale + 1);
        let (a, b) = s.split_at(s.len() - scale);
        cases.push(format!("{a}.{b}"));
    }
    for case in &cases {
        assert_eq!(plain_decimal(case), case.parse::<f64>().ok(), "{case}");
    }
    for not_plain in [
        "",
        ".5",
        "1e3",
        "-1",
        "1,5",
        "1.2.3",
        "0.0000000000000001",
        " 1",
    ] {
        assert_eq!(plain_decimal(not_plain), None, "{not_plain:?}");
    }
    assert_eq!(parse_time("1,5"), Some(1.5));
    assert_eq!(parse_time(" 2.25 "), Some(2.25));
    assert_eq!(parse_time("-1"), None);
}

#[test]
fn attribute_scan_reads_keys_and_raw_values_or_gives_up() {
    let mut seen = Vec::new();
    assert!(scan_attributes(
        r#" classname="a.b" ns:name = 'x "y"'	time="0.1"/"#,
        |k, v, _| seen.push((k, v))
    ));
    assert_eq!(
        seen,
        [("classname", "a.b"), ("name", r#"x "y""#), ("time", "0.1")]
    );
    let mut plain = Vec::new();
    assert!(scan_attributes(
        " a=\"x\" b=\"1 &amp; 2\" c=\"tab\there\"",
        |_, _, p| plain.push(p)
    ));
    assert_eq!(plain, [true, false, false]);
    for malformed in [
        r#" a="1"b="2""#,
        r#" a=1"#,
        r#" a="1"#,
        r#" ="1""#,
        r#" a b="1""#,
    ] {
        assert!(!scan_attributes(malformed, |_, _, _| {}), "{malformed}");
    }
}

#[test]
fn status_words_that_skip_and_those_that_do_not() {
    assert_eq!(skip_word("disabled"), Some("disabled"));
    assert_eq!(skip_word(" NotRun "), Some("notrun"));
    assert_eq!(skip_word("not_run"), Some("not_run"));
    assert_eq!(skip_word("Ignored"), Some("ignored"));
    assert_eq!(skip_word("skipped"), Some("skipped"));
    for runs in ["run", "passed", "pass", "success", "failed", "errored", ""] {
        assert_eq!(skip_word(runs), None, "{runs}");
    }
}

#[test]
fn unnamed_ids_name_their_scope_and_position() {
    assert_eq!(unnamed_id("s", "", 3, false), "s > #3");
    assert_eq!(unnamed_id("s", "C", 1, false), "C > #1");
    assert_eq!(unnamed_id("s", " ", 2, true), "s › #2");
    assert_eq!(unnamed_id("", "", 4, false), "#4");
}

#[test]
fn error_phases() {
    assert_eq!(
        error_phase("failed on setup with \"RuntimeError: boom\""),
        Some((Phase::Setup, "RuntimeError: boom".to_string()))
    );
    assert_eq!(error_phase("collection failure"), None);
}

/// pytest writes each failed attempt pytest-rerunfailures reran as a bare
/// case of the test's id: attempts of one test, not tests.
#[test]
fn bare_pytest_cases_before_the_same_id_are_failed_attempts() {
    let case = |name: &str, body: &str| {
        format!(
            r#"<testcase classname="t" name="{name}" file="t.py" line="1" time="0.5">{body}</testcase>"#
        )
    };
    let xml = format!(
        r#"<testsuites><testsuite name="pytest">{}{}{}{}{}{}</testsuite></testsuites>"#,
        case("test_flip", ""),
        case("test_flip", ""),
        case("test_fail", ""),
        case("test_fail", ""),
        case("test_fail", r#"<failure message="boom">tb</failure>"#),
        case("test_pass", ""),
    );
    let run = super::parse(xml.as_bytes(), "j.xml").expect("parse");
    let [flip, fail, pass] = &run.tests[..] else {
        panic!("{:?}", run.tests)
    };
    assert!(flip.is_flaky(), "{flip:?}");
    assert_eq!(flip.reruns(), &[Attempt::failed(None)]);
    assert_eq!(flip.duration, Some(1.0));
    assert_eq!(fail.outcome, Outcome::Failed);
    assert_eq!(fail.message(), Some("boom"));
    assert_eq!(fail.reruns().len(), 2);
    assert!(pass.is_plain_pass());
}

/// pytest writes each failed subtest as one more `<failure>` of its test's
/// case, then (for its `subtests` fixture) the test's own; unittest's
/// subTest leaves no such line, and the test's own phases passed.
#[test]
fn pytests_failures_of_one_case_are_its_subtests() {
    let xml = r#"<testsuites><testsuite name="pytest">
<testcase classname="t" name="test_s" file="t.py" line="3">
<failure message="assert 2 &lt; 2">t.py:7: AssertionError</failure>
<failure message="ValueError: odd">t.py:9: ValueError</failure>
<failure message="contains 2 failed subtests">contains 2 failed subtests</failure>
</testcase>
<testcase classname="t.C" name="test_u" file="t.py" line="12">
<failure message="AssertionError: 1 is odd">t.py:15: AssertionError</failure>
<failure message="AssertionError: 3 is odd">t.py:15: AssertionError</failure>
</testcase>
<testcase classname="t" name="test_one" file="t.py" line="20">
<failure message="assert 0">t.py:21: AssertionError</failure>
</testcase>
</testsuite></testsuites>"#;
    let run = super::parse(xml.as_bytes(), "j.xml").expect("parse");
    let [s, u, one] = &run.tests[..] else {
        panic!("{:?}", run.tests)
    };
    let subtests = s.subtests().expect("subtests");
    assert!(!subtests.test_passed);
    let messages: Vec<_> = subtests
        .failed
        .iter()
        .map(|f| f.message.as_deref())
        .collect();
    assert_eq!(messages, [Some("assert 2 < 2"), Some("ValueError: odd")]);
    assert_eq!(subtests.failed[1].label, None);
    assert_eq!(
        subtests.failed[1].location,
        Some(crate::model::Location::new("t.py", Some(9)))
    );
    assert_eq!(s.message(), Some("contains 2 failed subtests"));

    let unittest = u.subtests().expect("subtests");
    assert!(unittest.test_passed);
    assert_eq!(unittest.failed.len(), 2);
    assert_eq!(u.message(), Some("contains 2 failed subtests"));
    assert_eq!(u.traceback(), None);

    assert_eq!((one.subtests(), one.message()), (None, Some("assert 0")));
    let c = run.counts();
    assert_eq!(
        (c.total, c.passed, c.failed, c.subtests_failed),
        (7, 1, 6, 4)
    );
}

/// Other frameworks' cases keep their further failures as `also failure`
/// lines: only pytest's are subtests.
#[test]
fn other_frameworks_further_failures_are_no_subtests() {
    let xml = r#"<testsuites><testsuite name="Suite">
<testcase classname="A" name="b"><failure message="one">x</failure><failure message="two">y</failure></testcase>
</testsuite></testsuites>"#;
    let run = super::parse(xml.as_bytes(), "j.xml").expect("parse");
    assert_eq!(run.tests[0].subtests(), None);
    assert_eq!(run.tests[0].message(), Some("one\nalso failure: two"));
}
