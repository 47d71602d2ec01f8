use super::*;
use crate::model::Location;

#[test]
fn tests_are_listed_under_their_file_or_suite() {
    let mut t = TestResult::new("tests/t.py::TestA::test_x[1]", Outcome::Passed);
    assert_eq!(split_id(&t), ("tests/t.py", "TestA::test_x[1]", "::"));
    t.node_id = "org.example.CartTest#totals".into();
    assert_eq!(split_id(&t), ("org.example.CartTest", "totals", "#"));
    t.node_id = "cart › totals › rounds".into();
    assert_eq!(split_id(&t), ("cart", "totals › rounds", " › "));
    t.node_id = "lonely".into();
    assert_eq!(split_id(&t), ("", "lonely", ""));
    t.location = Some(Location::new("src/cart.rs", Some(3)));
    assert_eq!(split_id(&t), ("src/cart.rs", "lonely", ""));
}

#[test]
fn a_row_is_short_and_its_text_escaped() {
    let mut run = Run::default();
    let mut t = TestResult::new("t.py::test_a[<b>]", Outcome::Skipped);
    t.duration = Some(0.25);
    t.set_message(Some("needs <gpu>".into()));
    run.tests.push(t);
    let mut out = String::new();
    let links = Links {
        group_of: &HashMap::new(),
        flaky: None,
    };
    rows(&mut out, &run, &[0], &links);
    assert_eq!(
        out,
        "<table class=t><tbody>\n<tr class=s><td>test_a[&lt;b&gt;]<small>needs &lt;gpu&gt;</small><td>skipped<td>0.250s\n</tbody></table>\n"
    );
}

/// With a history of runs a flaky test's row has class `k` too (a failure
/// says it is flaky beside its outcome), and the filter has a box for them.
#[test]
fn flaky_rows_are_marked_with_a_history() {
    let mut run = Run::default();
    let mut t = TestResult::new("t.py::test_flip", Outcome::Failed);
    t.set_message(Some("E: odd".into()));
    run.tests.push(t);
    run.tests
        .push(TestResult::new("t.py::test_ok", Outcome::Passed));
    let group_of: HashMap<usize, usize> = [(0, 2)].into_iter().collect();
    let flaky: HashSet<usize> = [0].into_iter().collect();
    let links = Links {
        group_of: &group_of,
        flaky: Some(&flaky),
    };
    let mut out = String::new();
    rows(&mut out, &run, &[0, 1], &links);
    assert!(
        out.contains(
            "<tr class=\"f k\"><td>test_flip<small>E: odd</small><td><a href=\"#g2\">failed</a> <i class=k>flaky</i><td>\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("<tr class=p><td>test_ok<td>passed<td>\n"),
        "{out}"
    );

    let c = Counts {
        failed: 1,
        flaky_failures: 1,
        flaky: 2,
        ..Counts::default()
    };
    let mut with = String::new();
    controls(&mut with, &c, true);
    assert!(
        with.contains(
            "<label class=k><input type=checkbox name=o value=k checked> flaky <b>3</b></label>"
        ),
        "{with}"
    );
    let mut without = String::new();
    controls(&mut without, &c, false);
    assert!(!without.contains("value=k"), "{without}");
}
