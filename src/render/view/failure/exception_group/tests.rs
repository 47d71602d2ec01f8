use super::*;

const GROUP: &str = r#"+ Exception Group Traceback (most recent call last):
  |   File "/tmp/p/tests/test_kinds.py", line 33, in test_group
  |     raise ExceptionGroup("two problems", [check(1), KeyError("missing")])
  | ExceptionGroup: two problems (2 sub-exceptions)
  +-+---------------- 1 ----------------
    | Traceback (most recent call last):
    |   File "/tmp/p/app/check.py", line 5, in check
    |     raise ValueError("bad value")
    | ValueError: bad value
    +---------------- 2 ----------------
    | KeyError: 'missing'
    +------------------------------------"#;

#[test]
fn the_group_and_each_member_are_told_with_their_places_relative_to_the_project() {
    assert!(is_exception_group(GROUP));
    assert_eq!(
        detail(GROUP, Some("tests/test_kinds.py")),
        [
            "at tests/test_kinds.py:33",
            "> raise ExceptionGroup(\"two problems\", [check(1), KeyError(\"missing\")])",
            "1: ValueError: bad value (at app/check.py:5)",
            "2: KeyError: 'missing'",
        ]
    );
}

#[test]
fn without_the_tests_file_paths_stay_as_given_and_outside_ones_are_not_listed() {
    let lines = detail(GROUP, None);
    assert_eq!(lines[0], "1: ValueError: bad value");
    assert!(!is_exception_group("Traceback (most recent call last):"));
}

#[test]
fn many_members_are_counted_beyond_the_tenth() {
    let mut tb = String::from("+ Exception Group Traceback (most recent call last):\n");
    for n in 1..=12 {
        tb.push_str(&format!(
            "  +---------------- {n} ----------------\n    | ValueError: {n}\n"
        ));
    }
    let lines = detail(&tb, None);
    assert_eq!(lines.len(), 11, "{lines:?}");
    assert_eq!(lines[10], "… 2 more members");
}
