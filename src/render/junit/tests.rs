use quick_junit::{Report, TestCase, TestCaseStatus, TestSuite};

use super::names::{other_names, pytest_names};
use super::render;
use super::xml::{Field, REF_CLOSE, REF_OPEN, restore_char_refs, xml_text};
use crate::model::{Outcome, Run, TestResult};

#[test]
fn pytest_names_follow_pytest() {
    let n = pytest_names("tests/test_x.py::TestA::TestB::test_c[a::b.c]");
    assert_eq!(n.file, "tests/test_x.py");
    assert_eq!(n.classname, "tests.test_x.TestA.TestB");
    assert_eq!(n.name, "test_c[a::b.c]");
    let m = pytest_names("tests/test_mod.py");
    assert_eq!(
        (m.classname.as_str(), m.name.as_str()),
        ("", "tests.test_mod")
    );
}

#[test]
fn other_names_pick_what_reads_back() {
    assert_eq!(other_names("a.B#m", "a.B", false), (Some("a.B"), "m"));
    assert_eq!(
        other_names("FooTest#FooTest_x", "FooTest", false),
        (Some("FooTest"), "FooTest#FooTest_x")
    );
    assert_eq!(other_names("Suite X > t", "Suite X", false), (None, "t"));
    assert_eq!(other_names("S > ", "S", false), (None, ""));
    assert_eq!(
        other_names("a › b › c", "a", false),
        (Some("a › b"), "a › b › c")
    );
    assert_eq!(other_names("f.js › ", "f.js", true), (None, ""));
    assert_eq!(other_names("a › b › ", "a › b", true), (None, ""));
    assert_eq!(other_names("a.B#m", "a.B", true), (Some("a.B"), "a.B#m"));
    assert_eq!(
        other_names("plain", "tests", false),
        (Some("plain"), "plain")
    );
}

#[test]
fn char_refs_survive_quick_junit() {
    let mut report = Report::new("r");
    let mut suite = TestSuite::new("s");
    let mut case = TestCase::new(
        xml_text("a\tb\nc\u{85}\u{1b}\u{fffe}", Field::Id),
        TestCaseStatus::success(),
    );
    case.set_system_out(xml_text("x\ty\r\nz\u{1b}[31mred\u{1b}[0m", Field::Text));
    suite.add_test_case(case);
    report.add_test_suite(suite);
    let xml = restore_char_refs(&report.to_string().expect("serializes"));
    assert!(
        xml.contains(r#"name="a&#x9;b&#xA;c&#x85;#x1B#xFFFE""#),
        "{xml}"
    );
    assert!(xml.contains("x&#x9;y&#xD;\nzred"), "{xml}");
    assert!(!xml.contains([REF_OPEN, REF_CLOSE]));
}

#[test]
fn bad_durations_do_not_panic() {
    let mut run = Run::default();
    for d in [f64::NAN, -1.0, f64::INFINITY, 1e300] {
        let mut t = TestResult::new("t.py::x", Outcome::Passed);
        t.duration = Some(d);
        run.tests.push(t);
    }
    run.duration = Some(f64::NAN);
    assert!(render(&run).contains("<testcase name=\"x\""));
}
