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
    rows(&mut out, &run, &[0], &HashMap::new());
    assert_eq!(
        out,
        "<table class=t><tbody>\n<tr class=s><td>test_a[&lt;b&gt;]<small>needs &lt;gpu&gt;</small><td>skipped<td>0.250s\n</tbody></table>\n"
    );
}
