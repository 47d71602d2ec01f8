use super::*;
use crate::model::{CollectionError, Outcome, TestResult};

#[test]
fn the_projects_paths_lose_the_root_and_others_stay() {
    let mut t = TestResult::new("shop/calc.py::shop.calc.total", Outcome::Failed);
    t.set_message(Some("/tmp/p/shop/calc.py:4: DocTestFailure".into()));
    t.set_traceback(Some(
        "/usr/lib/python3/doctest.py:9\n/tmp/p/shop/calc.py:4: DocTestFailure".into(),
    ));
    let mut ok = TestResult::new("t.py::ok", Outcome::Passed);
    ok.set_message(Some("/tmp/p/x".into()));
    let mut run = Run {
        tests: vec![t, ok],
        collection_errors: vec![CollectionError {
            file: "tests/test_x.py".into(),
            error_type: None,
            message: "/tmp/p/tests/test_x.py:3: in <module>".into(),
            line: None,
            traceback: None,
        }],
        ..Run::default()
    };
    relativize(&mut run, "/tmp/p/");
    assert_eq!(
        run.tests[0].message(),
        Some("shop/calc.py:4: DocTestFailure")
    );
    assert_eq!(
        run.tests[0].traceback(),
        Some("/usr/lib/python3/doctest.py:9\nshop/calc.py:4: DocTestFailure")
    );
    assert_eq!(
        run.tests[1].message(),
        Some("/tmp/p/x"),
        "a passing test is left"
    );
    assert_eq!(
        run.collection_errors[0].message,
        "tests/test_x.py:3: in <module>"
    );
}

#[test]
fn a_root_that_is_no_directory_changes_nothing() {
    let mut t = TestResult::new("a", Outcome::Failed);
    t.set_message(Some("/x/y".into()));
    let mut run = Run {
        tests: vec![t],
        ..Run::default()
    };
    relativize(&mut run, "/");
    relativize(&mut run, "");
    assert_eq!(run.tests[0].message(), Some("/x/y"));
}

#[test]
fn a_path_among_compared_values_is_data_and_stays() {
    let mut t = TestResult::new("a", Outcome::Failed);
    t.set_message(Some("assert '/tmp/p/out.txt' == 'x'".into()));
    t.set_traceback(Some(
        "E       assert '/tmp/p/out.txt' == 'x'\nfile /tmp/p/t.py, line 3\n  |   File \"/tmp/p/g.py\", line 2".into(),
    ));
    let mut run = Run {
        tests: vec![t],
        ..Run::default()
    };
    relativize(&mut run, "/tmp/p");
    assert_eq!(
        run.tests[0].message(),
        Some("assert '/tmp/p/out.txt' == 'x'")
    );
    assert_eq!(
        run.tests[0].traceback(),
        Some(
            "E       assert '/tmp/p/out.txt' == 'x'\nfile t.py, line 3\n  |   File \"g.py\", line 2"
        )
    );
}
