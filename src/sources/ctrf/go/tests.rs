use super::*;
use crate::model::crash::line_in;

#[test]
fn the_failure_is_the_output_between_the_framing() {
    let m = "=== RUN   TestTotal/cents\n    cart_test.go:21: total = 10.19, want 10.20\n        more\n--- FAIL: TestTotal/cents (0.00s)\n";
    assert_eq!(
        output(m).as_deref(),
        Some("cart_test.go:21: total = 10.19, want 10.20\n    more")
    );
    assert_eq!(line_in(m, "cart/cart_test.go"), Some(21));
    assert_eq!(line_in(m, "cart/other_test.go"), None);
}

#[test]
fn a_parent_that_failed_by_its_subtests_keeps_its_fail_line() {
    let m = "=== RUN   TestTotal\n--- FAIL: TestTotal (0.01s)\n";
    assert_eq!(output(m).as_deref(), Some("--- FAIL: TestTotal (0.01s)"));
    assert_eq!(line_in(m, "cart_test.go"), None);
}

#[test]
fn other_messages_are_not_go_output() {
    assert_eq!(output("expected 1 to be 2\n=== RUN x"), None);
    assert_eq!(output(""), None);
    assert_eq!(line_in("a.go:x: y", "a.go"), None);
}
