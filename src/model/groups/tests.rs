use super::*;
use crate::model::{Location, Outcome, Phase, Run, TestResult, Unlisted};

fn failed(id: &str, message: &str, traceback: &str) -> TestResult {
    let mut t = TestResult::new(id, Outcome::Failed);
    t.phase = Some(Phase::Call);
    t.set_message(Some(message.to_string()));
    t.set_traceback(Some(traceback.to_string()));
    t
}

#[test]
fn numbers_strings_addresses_and_temp_paths_are_values() {
    assert_eq!(message_shape("assert 3 == 4"), "assert <n> == <n>");
    assert_eq!(message_shape("assert 3.25e-3 != -7"), "assert <n> != -<n>");
    assert_eq!(
        message_shape("KeyError: 'apple' not in \"x y\""),
        "KeyError: '…' not in \"…\""
    );
    assert_eq!(
        message_shape("<Foo object at 0x7f3a2b1c>"),
        "<Foo object at 0x<hex>>"
    );
    assert_eq!(
        message_shape("no file /tmp/pytest-of-ann/pytest-3/test_a0/x.txt here"),
        "no file <tmp> here"
    );
    assert_eq!(
        message_shape("missing /home/u/pytest-of-u/pytest-12/t0, ok"),
        "missing <tmp>, ok"
    );
}

#[test]
fn lists_of_one_kind_of_value_have_the_shape_of_one_value() {
    let shape = "where <n> = total([<n>])";
    assert_eq!(message_shape("where 177 = total([38, 139, 240])"), shape);
    assert_eq!(message_shape("where 186 = total([186, 287])"), shape);
    assert_eq!(message_shape("where 0 = total([7])"), shape);
    assert_eq!(message_shape("keys ('a', 'b', 'c')"), "keys ('…')");
    // A separator other than ", ", or values of different kinds, stay.
    assert_eq!(message_shape("assert 3 == 4"), "assert <n> == <n>");
    assert_eq!(message_shape("got 1, 'x'"), "got <n>, '…'");
    assert_eq!(message_shape("(1; 2)"), "(<n>; <n>)");
}

#[test]
fn names_apostrophes_and_other_paths_are_shape() {
    // Digits inside names, a word's apostrophe, a path outside temp dirs.
    assert_eq!(message_shape("test_2 failed"), "test_2 failed");
    assert_eq!(message_shape("can't open x2"), "can't open x2");
    assert_eq!(message_shape("no /etc/hosts"), "no /etc/hosts");
    assert_eq!(message_shape("größe 3"), "größe <n>");
    assert_eq!(message_shape("größe3"), "größe3");
    assert_ne!(message_shape("1kB is odd"), message_shape("1MB is odd"));
    // An unclosed quote is kept as it is.
    assert_eq!(message_shape("it's 'open"), "it's 'open");
}

#[test]
fn failures_differing_in_values_group_largest_first() {
    let tb = |line: u32| format!("tests/test_a.py:{line}: AssertionError");
    let mut run = Run::default();
    run.tests.push(failed(
        "tests/test_a.py::test_one",
        "ValueError: bad",
        &tb(3),
    ));
    run.tests
        .push(TestResult::new("tests/test_a.py::test_ok", Outcome::Passed));
    for (i, (a, b)) in [(3, 4), (5, 6), (7, 8)].into_iter().enumerate() {
        let id = format!("tests/test_a.py::test_total[{i}]");
        run.tests
            .push(failed(&id, &format!("assert {a} == {b}"), &tb(9)));
    }
    // Same message, other place: its own group.
    run.tests.push(failed(
        "tests/test_a.py::test_elsewhere",
        "assert 1 == 2",
        &tb(20),
    ));
    let groups = failure_groups(&run);
    let sizes: Vec<Vec<usize>> = groups.into_iter().map(|g| g.tests).collect();
    assert_eq!(sizes, vec![vec![2, 3, 4], vec![0], vec![5]]);
}

#[test]
fn setup_errors_do_not_group_with_failures() {
    let tb = "tests/conftest.py:4: RuntimeError";
    let mut run = Run::default();
    run.tests
        .push(failed("tests/test_a.py::test_a", "RuntimeError: x", tb));
    let mut error = failed("tests/test_a.py::test_b", "RuntimeError: x", tb);
    error.outcome = Outcome::Error;
    error.phase = Some(Phase::Setup);
    run.tests.push(error.clone());
    error.node_id = "tests/test_a.py::test_c".into();
    run.tests.push(error);
    let sizes: Vec<Vec<usize>> = failure_groups(&run).into_iter().map(|g| g.tests).collect();
    assert_eq!(sizes, vec![vec![1, 2], vec![0]]);
}

#[test]
fn the_deepest_project_frame_is_the_place() {
    let tb = |test_line: u32| {
        format!(
            "tests/test_a.py:{test_line}: \nsrc/app.py:7: in lookup\n/usr/lib/python3/site-packages/x.py:1: KeyError"
        )
    };
    let a = failed("tests/test_a.py::test_a", "KeyError: 'a'", &tb(3));
    let b = failed("tests/test_a.py::test_b", "KeyError: 'b'", &tb(9));
    let (sa, sb) = (shape(&a).unwrap(), shape(&b).unwrap());
    assert_eq!(sa.place, ("src/app.py", Some(7)));
    assert_eq!(sa.exception, Some("KeyError"));
    assert_eq!(sa, sb);
}

#[test]
fn other_frameworks_group_by_their_first_own_frame_or_location() {
    let java = |id: &str, msg: &str| {
        failed(
            id,
            msg,
            &format!(
                "java.lang.AssertionError: {msg}\n\tat org.junit.Assert.fail(Assert.java:88)\n\tat com.acme.Util.check(Util.java:12)\n\tat com.acme.FooTest.{id}(FooTest.java:30)"
            ),
        )
    };
    let (a, b) = (java("a", "expected 1 got 2"), java("b", "expected 3 got 4"));
    assert_eq!(
        shape(&a).unwrap().place,
        ("at com.acme.Util.check(Util.java:12)", None)
    );
    assert_eq!(shape(&a), shape(&b));
    // No trace: the test's own place, when it has a line; else none.
    let mut go = TestResult::new("TestX", Outcome::Failed);
    go.set_message(Some("Failed".into()));
    assert_eq!(shape(&go), None);
    go.location = Some(Location::new("x_test.go", Some(4)));
    assert_eq!(shape(&go).unwrap().place, ("x_test.go", Some(4)));
}

#[test]
fn every_parametrization_failing_is_named_by_its_function() {
    let mut run = Run::default();
    for i in 0..3 {
        let id = format!("tests/test_a.py::test_total[{i}]");
        run.tests.push(failed(
            &id,
            "assert 1 == 2",
            "tests/test_a.py:3: AssertionError",
        ));
    }
    run.tests
        .push(failed("tests/test_a.py::test_b[x]", "m", "t"));
    run.tests.push(TestResult::new(
        "tests/test_a.py::test_b[y]",
        Outcome::Passed,
    ));
    run.tests
        .push(failed("tests/test_a.py::test_b[z]", "m", "t"));
    let p = Parametrizations::of(&run);
    assert_eq!(
        p.compress(&run, &[0, 1, 2, 3, 5]),
        vec![
            IdItem::Function {
                id: "tests/test_a.py::test_total",
                count: 3
            },
            IdItem::Test("tests/test_a.py::test_b[x]"),
            IdItem::Test("tests/test_a.py::test_b[z]"),
        ]
    );
    // Only part of the parametrizations: listed one by one.
    assert_eq!(
        p.compress(&run, &[0, 1]),
        vec![
            IdItem::Test("tests/test_a.py::test_total[0]"),
            IdItem::Test("tests/test_a.py::test_total[1]"),
        ]
    );
    // A counted pass of the function: not all of them failed.
    run.unlisted.passed = 1;
    run.unlisted.add_parametrized("tests/test_a.py::test_other");
    let p = Parametrizations::of(&run);
    assert_eq!(p.compress(&run, &[0, 1, 2]).len(), 1);
    run.unlisted.add_parametrized("tests/test_a.py::test_total");
    run.unlisted.add_parametrized("tests/test_a.py::test_more");
    let p = Parametrizations::of(&run);
    assert_eq!(p.compress(&run, &[0, 1, 2]).len(), 3);
}

#[test]
fn function_keys_differ_for_near_ids() {
    let key = Unlisted::function_key;
    assert_eq!(key("tests/a.py::f"), key("tests/a.py::f"));
    assert_ne!(key("tests/a.py::f"), key("tests/a.py::g"));
    assert_ne!(key("tests/a.py::test_12345"), key("tests/a.py::test_12346"));
    // Same bytes in the last word, other lengths.
    assert_ne!(key("tests/a.py::f"), key("tests/a.py::f\0"));
}

#[test]
fn a_test_rerun_before_failing_is_not_grouped_with_one_that_was_not() {
    let tb = "tests/test_a.py:3: AssertionError";
    let a = failed("tests/test_a.py::test_a", "assert 1 == 2", tb);
    let mut b = failed("tests/test_a.py::test_b", "assert 3 == 4", tb);
    assert_eq!(shape(&a), shape(&b));
    b.reruns_mut().push(crate::model::Attempt::failed(None));
    assert_ne!(shape(&a), shape(&b));
}

#[test]
fn the_code_under_test_is_the_first_call_that_is_not_a_builtin() {
    assert_eq!(callee("assert available(\"kiwi\") == 0"), Some("available"));
    assert_eq!(
        callee("assert len(catalog.search(\"s\")) == 3"),
        Some("catalog.search")
    );
    assert_eq!(callee("assert x == \"f(1)\""), None, "a string is not code");
    assert_eq!(callee("assert 0, \"shelf 1 is empty\""), None);
}

/// Two tests of one file failing on their own assertions, with messages
/// of one shape and calling the same code, are one failure; calling
/// other code, or on an assertion with no call, two.
#[test]
fn own_assertions_on_the_same_code_are_one_failure_at_any_line() {
    let on = |id: &str, line: u32, source: &str, message: &str| {
        let mut t = failed(
            id,
            message,
            &format!(
                "    def test():\n>       {source}\nE       {message}\n\ntests/test_s.py:{line}: AssertionError"
            ),
        );
        t.location = Some(Location {
            file: "tests/test_s.py".into(),
            line: Some(line - 1),
        });
        t
    };
    let run = Run {
        tests: vec![
            on(
                "tests/test_s.py::test_kiwi",
                9,
                "assert available(\"kiwi\") == 0",
                "assert None == 0",
            ),
            on(
                "tests/test_s.py::test_leek",
                13,
                "assert available(\"leek\") == 0",
                "assert None == 0",
            ),
            on(
                "tests/test_s.py::test_price",
                17,
                "assert price(\"kiwi\") == 0",
                "assert None == 0",
            ),
            on(
                "tests/test_s.py::test_a",
                21,
                "assert a == 0",
                "assert None == 0",
            ),
            on(
                "tests/test_s.py::test_b",
                25,
                "assert b == 0",
                "assert None == 0",
            ),
        ],
        ..Run::default()
    };
    let sizes: Vec<Vec<usize>> = failure_groups(&run).into_iter().map(|g| g.tests).collect();
    assert_eq!(sizes, [vec![0, 1], vec![2], vec![3], vec![4]]);
}

#[test]
fn failures_with_different_diffs_are_two_groups() {
    let approval = |id: &str, diff: &str| {
        let mut t = failed(
            id,
            "ApprovalException: Approval Mismatch, received != approved",
            &format!(
                "    verify(x)\nE   ApprovalException: Approval Mismatch\n\n{}:7: ApprovalException",
                "tests/test_r.py"
            ),
        );
        t.location = Some(Location::new("tests/test_r.py", Some(5)));
        t.set_stdout(Some(diff.to_string()));
        t
    };
    let diff = |name: &str, lines: &str| {
        format!("--- {name}.approved.txt\n+++ {name}.received.txt\n{lines}")
    };
    let run = Run {
        tests: vec![
            approval(
                "tests/test_r.py::test_a",
                &diff("a", "-TOTAL 6.25\n+TOTAL 6.75\n"),
            ),
            approval(
                "tests/test_r.py::test_b",
                &diff("b", " apple: 3\n-pear: 0\n"),
            ),
            approval(
                "tests/test_r.py::test_c",
                &diff("c", "-TOTAL 6.25\n+TOTAL 6.75\n"),
            ),
        ],
        ..Run::default()
    };
    let groups = failure_groups(&run);
    assert_eq!(groups.len(), 2, "{groups:?}");
    assert_eq!(groups[0].tests, [0, 2]);
}

#[test]
fn cases_of_one_test_differing_in_their_compared_values_stay_one_failure() {
    let case = |id: &str, got: u32| {
        let message = format!(
            "assert [1, {got}] == [1, 2]\n  At index 1 diff: {got} != 2\n  Full diff:\n  - [1, 2]\n  + [1, {got}]"
        );
        let tb = format!(
            ">       assert calc(x) == [1, 2]\nE       {}\n\ntests/t.py:4: AssertionError",
            message.lines().next().unwrap_or_default()
        );
        let mut t = failed(id, &message, &tb);
        t.location = Some(Location::new("tests/t.py", Some(3)));
        t
    };
    let run = Run {
        tests: vec![
            case("tests/t.py::test_calc[a]", 3),
            case("tests/t.py::test_calc[b]", 4),
        ],
        ..Run::default()
    };
    assert_eq!(failure_groups(&run).len(), 1);
}
