use super::*;

#[test]
fn node_ids_from_xunit1_and_xunit2() {
    assert_eq!(
        node_id("tests.test_mix", "test_a", Some("tests/test_mix.py")),
        "tests/test_mix.py::test_a"
    );
    assert_eq!(
        node_id(
            "tests.test_mix.TestK.TestIn",
            "test_m",
            Some("tests/test_mix.py")
        ),
        "tests/test_mix.py::TestK::TestIn::test_m"
    );
    assert_eq!(
        node_id("tests.test_mix.TestK", "test_m[a.b::c]", None),
        "tests/test_mix.py::TestK::test_m[a.b::c]"
    );
    assert_eq!(node_id("test_top", "test_x", None), "test_top.py::test_x");
    // Capitalised directories are directories, not classes.
    assert_eq!(
        node_id("tests.Unit.test_x.TestA", "test_a", None),
        "tests/Unit/test_x.py::TestA::test_a"
    );
    // Modules not named like test files: classes start at a capital.
    assert_eq!(
        node_id("checks.TestA", "test_a", None),
        "checks.py::TestA::test_a"
    );
    assert_eq!(node_id("a.b", "c", None), "a/b.py::c");
    assert_eq!(
        node_id("tests.helpers.TestA", "test_a", None),
        "tests/helpers.py::TestA::test_a"
    );
    // A test inherited from another file: `file` does not match, fall back.
    assert_eq!(
        node_id("tests.test_b.TestB", "test_x", Some("tests/base.py")),
        "tests/test_b.py::TestB::test_x"
    );
}

#[test]
fn skip_reasons() {
    assert_eq!(
        skip_reason("('/p/tests/test_mix.py', 31, 'Skipped: not today')"),
        "not today"
    );
    assert_eq!(
        skip_reason("('/p/t.py', 3, \"Skipped: it's, odd\")"),
        "it's, odd"
    );
    assert_eq!(skip_reason("plain"), "plain");
    // repr's escapes for control and other non-printable characters.
    assert_eq!(
        skip_reason(r"('/p/t.py', 3, 'Skipped: \x1b[31mred\x1b[0m \u2028 \U0001f600 \r')"),
        "\u{1b}[31mred\u{1b}[0m \u{2028} \u{1f600} \r"
    );
    assert_eq!(
        skip_reason(r"('/p/t.py', 3, 'a \xZZ \x+1 \u12')"),
        r"a \xZZ \x+1 \u12"
    );
}

#[test]
fn the_xdist_worker_line_is_dropped() {
    let header = "[gw1] linux -- Python 3.11.7 /venv/bin/python";
    let failure = "def test_x():\n>       assert 1 == 2\nE       assert 1 == 2";
    assert_eq!(
        without_worker_line(&format!("{header}\n\n    {failure}")),
        failure
    );
    assert_eq!(without_worker_line(header), "");
    let skip = "('/p/t.py', 32, 'Skipped: later')";
    assert_eq!(without_worker_line(&format!("{header}\n{skip}")), skip);
    for text in [
        failure,
        skip,
        "[a b] x -- Python y",
        "[gw0] no python here\nline",
        "",
    ] {
        assert_eq!(without_worker_line(text), text);
    }
}

#[test]
fn frame_lines() {
    let f = frame_line("tests/test_mix.py:4: ZeroDivisionError").unwrap();
    assert_eq!(
        (f.path, f.line, f.rest),
        ("tests/test_mix.py", 4, "ZeroDivisionError")
    );
    let f = frame_line("<frozen importlib._bootstrap>:1204: in _gcd_import").unwrap();
    assert_eq!(f.line, 1204);
    assert!(frame_line("E       assert x: 1: 2").is_none());
    assert!(frame_line("    def f(x): return 1").is_none());
    assert!(frame_line("C:\\x\\t.py:3: Err").is_some());
    assert!(frame_line("tests/t.py:3: ").is_some());
    assert!(frame_line("tests/t.py:3: in test_x").is_some());
    assert!(frame_line("stdout_test.go:22: single-line error").is_none());
    assert!(frame_line("stdout_test.go:23: error").is_none());
    assert!(frame_line("t.py:9: _pytest.outcomes.Failed").is_some());
}

#[test]
fn exceptions() {
    assert_eq!(
        split_exception("ValueError: bad"),
        Some(("ValueError", "bad"))
    );
    assert_eq!(
        split_exception("mod.CustomError: x: y"),
        Some(("mod.CustomError", "x: y"))
    );
    assert_eq!(split_exception("assert 1 == 2"), None);
    assert_eq!(split_exception("where x: 1"), None);
}

#[test]
fn parametrized_function_is_the_id_before_the_parameters() {
    assert_eq!(
        parametrized_function("tests/test_x.py::test_total[3-4]"),
        Some("tests/test_x.py::test_total")
    );
    assert_eq!(
        parametrized_function("t/test_a.py::TestC::test_b[a::b-[1]]"),
        Some("t/test_a.py::TestC::test_b")
    );
    assert_eq!(parametrized_function("tests/test_x.py::test_total"), None);
    assert_eq!(parametrized_function("FooTest#bar[1]"), None);
    assert_eq!(parametrized_function("tests/test_x.py::[1]"), None);
}

#[test]
fn a_group_of_one_names_its_exception_and_python_frames_their_place() {
    let tb = "+ Exception Group Traceback (most recent call last):\n\
              |   File \"tests/test_p.py\", line 7, in test_fetch\n\
              |     run()\n\
              | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)\n\
              +-+---------------- 1 ----------------\n\
                | Traceback (most recent call last):\n\
                |   File \"src/p.py\", line 11, in fetch\n\
                |     raise ValueError(\"bad price\")\n\
                | ValueError: bad price\n\
                +------------------------------------";
    assert_eq!(single_exception_of_group(tb), Some("ValueError: bad price"));
    let frames: Vec<_> = tb.lines().filter_map(python_frame).collect();
    assert_eq!(frames, [("tests/test_p.py", 7), ("src/p.py", 11)]);
    assert_eq!(single_exception_of_group("E   ValueError: x"), None);
    let noted = tb.replace(
        "| ValueError: bad price\n",
        "| ValueError: bad price\n    | while pricing pear\n",
    );
    assert!(noted.contains("while pricing"));
    assert_eq!(
        single_exception_of_group(&noted),
        Some("ValueError: bad price")
    );
}

#[test]
fn line_zero_of_a_file_that_is_not_python_is_no_line() {
    assert_eq!(item_line("tests/test_a.py", 0), Some(1));
    assert_eq!(item_line("tests/test_a.py", 4), Some(5));
    assert_eq!(item_line("notebooks/report.ipynb", 0), None);
    assert_eq!(item_line("specs/test_orders.yaml", 0), None);
    assert_eq!(item_line("docs/usage.rst", 18), Some(19));
}
