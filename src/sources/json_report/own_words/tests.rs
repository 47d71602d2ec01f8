use super::*;

#[test]
fn sybil_is_its_text_and_the_line_its_closing_line_gives_with_the_folders() {
    let text = "Example at /p/docs/usage.rst, line 19, column 1 did not evaluate as expected:\n\
                Expected:\n    rock-and-roll\nGot:\n    rock-roll\n\nusage.rst:19: SybilFailure";
    let words = read(text, "docs/usage.rst::line:19,column:1").expect("own words");
    assert!(words.message.starts_with("Example at /p/docs/usage.rst"));
    assert!(
        words.message.ends_with("Got:\n    rock-roll"),
        "{}",
        words.message
    );
    assert_eq!(words.line, Some(19));
}

#[test]
fn findings_stay_in_their_order_and_the_first_gives_the_line() {
    let mypy = "5: error: Incompatible return value\n13: error: Incompatible return\n21: error: Argument 1";
    let words = read(mypy, "src/app.py::mypy").expect("own words");
    assert_eq!(words.message, mypy);
    assert_eq!(words.line, Some(5));
    let ruff = "F401 [*] `os` imported but unused\n --> src/app.py:3:8\n  |\nF821 Undefined name\n --> src/app.py:9:24";
    let words = read(ruff, "src/app.py::ruff").expect("own words");
    assert_eq!(words.line, Some(3));
}

#[test]
fn pytest_checks_location_of_the_id_is_dropped_and_its_first_check_placed() {
    let text = "tests/t.py::test_a:0: check 3 == 2\n\nFAILURE: check 3 == 2\n\
                tests/t.py:7 in test_a() -> check.equal(a, 2)\n\nFailed Checks: 1";
    let words = read(text, "tests/t.py::test_a").expect("own words");
    assert!(
        words.message.starts_with("check 3 == 2\n"),
        "{}",
        words.message
    );
    assert_eq!(words.line, Some(7));
}

#[test]
fn a_traceback_and_a_doctest_are_not_own_words() {
    assert_eq!(
        read(
            "    def f():\n>       assert 1 == 2\nE       assert 1 == 2\n\nt.py:2: AssertionError",
            "t.py::f"
        ),
        None
    );
    let doctest =
        "003 >>> add(1, 2)\nExpected:\n    4\nGot:\n    3\n\n/p/shop/calc.py:3: DocTestFailure";
    assert_eq!(read(doctest, "shop/calc.py::shop.calc.add"), None);
    // Written on Windows, or with no line known: still a doctest's.
    let windows = doctest.replace("/p/shop/calc.py", "C:\\p\\shop\\calc.py");
    assert_eq!(read(&windows, "shop/calc.py::shop.calc.add"), None);
    let unknown = doctest.replace(":3: DocTestFailure", ":None: DocTestFailure");
    assert_eq!(read(&unknown, "shop/calc.py::shop.calc.add"), None);
}

#[test]
fn a_text_with_no_line_is_kept_whole_and_placed_nowhere() {
    let text = "\u{1b}[91mNotebook cell execution failed\u{1b}[0m\nCell 2: Cell outputs differ\n  - ben 85\n  + bob 58\n";
    let words = read(text, "nb/report.ipynb::Cell 2").expect("own words");
    assert_eq!(
        words.message,
        "Notebook cell execution failed\nCell 2: Cell outputs differ\n  - ben 85\n  + bob 58"
    );
    assert_eq!(words.line, None);
}
