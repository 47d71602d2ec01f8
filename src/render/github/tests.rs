use super::*;
use crate::model::history::History;
use crate::model::{CollectionError, Location, Outcome, Run, TestResult};

fn failing(id: &str, message: &str, file: &str, line: u32) -> TestResult {
    let mut t = TestResult::new(id, Outcome::Failed);
    t.location = Some(Location::new(file, Some(line)));
    t.set_message(Some(message.to_string()));
    t
}

fn run_of(tests: Vec<TestResult>) -> Run {
    Run {
        tests,
        ..Run::default()
    }
}

fn commands(out: &str) -> Vec<&str> {
    out.lines().filter(|l| l.starts_with("::")).collect()
}

/// Every character GitHub gives a meaning is escaped where it has one:
/// `%`, CR and LF everywhere, `:` and `,` in property values too; nothing
/// else is touched.
#[test]
fn every_special_character_is_escaped() {
    assert_eq!(escape_data("a%b\rc\nd:e,f"), "a%25b%0Dc%0Ad:e,f");
    assert_eq!(escape_property("a%b\rc\nd:e,f"), "a%25b%0Dc%0Ad%3Ae%2Cf");
    assert_eq!(
        escape_data("%0A"),
        "%250A",
        "an escape in the text is not one"
    );
    assert_eq!(escape_data("été ::x"), "été ::x");
    let t = failing(
        "t.py::test_a[1,2:%]",
        "assert 'a:b,c%' == 'x'\nline two\r",
        "dir,1/t:x%.py",
        3,
    );
    let out = render(&run_of(vec![t]), &Options::default());
    let errors = commands(&out);
    assert_eq!(
        errors,
        vec![
            "::error file=dir%2C1/t%3Ax%25.py,line=3,title=FAILED%3A t.py%3A%3Atest_a[1%2C2%3A%25]::assert 'a:b,c%25' == 'x'%0Aline two"
        ],
        "{out}"
    );
    // One command per line: no text of a test can start one of its own.
    let hostile = failing(
        "t.py::test_b",
        "x\n::add-mask::secret\r::set-env",
        "t.py",
        1,
    );
    let out = render(&run_of(vec![hostile]), &Options::default());
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(out.contains("x%0A::add-mask::secret%0D::set-env"), "{out}");
}

#[test]
fn at_most_ten_errors_then_one_notice() {
    let tests: Vec<TestResult> = (0..13)
        .map(|i| {
            failing(
                &format!("t.py::test_{i}"),
                &format!("E{i}Error: x"),
                "t.py",
                i + 1,
            )
        })
        .collect();
    let out = render(&run_of(tests), &Options::default());
    let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("::error ")).collect();
    assert_eq!(errors.len(), MAX_ERRORS, "{out}");
    let notices: Vec<&str> = out.lines().filter(|l| l.starts_with("::notice ")).collect();
    assert_eq!(
        notices,
        vec![
            "::notice title=pytest-mcp::3 more failure groups (3 tests) are not annotated (GitHub shows 10 error annotations per step): the Markdown report (`--format markdown`) lists them all"
        ]
    );
    // Exactly ten: no notice.
    let ten: Vec<TestResult> = (0..10)
        .map(|i| {
            failing(
                &format!("t.py::test_{i}"),
                &format!("E{i}Error: x"),
                "t.py",
                1,
            )
        })
        .collect();
    let out = render(&run_of(ten), &Options::default());
    assert_eq!(commands(&out).len(), 10);
    assert!(!out.contains("::notice"), "{out}");
}

#[test]
fn collection_errors_come_first_and_count_toward_the_ten() {
    let mut run = run_of(
        (0..10)
            .map(|i| {
                failing(
                    &format!("t.py::test_{i}"),
                    &format!("E{i}Error: x"),
                    "t.py",
                    1,
                )
            })
            .collect(),
    );
    run.collection_errors.push(CollectionError {
        file: "tests/test_broken.py".into(),
        error_type: Some("SyntaxError".into()),
        message: "invalid syntax".into(),
        line: Some(4),
        traceback: None,
    });
    let options = Options {
        step_summary: true,
        ..Options::default()
    };
    let out = render(&run, &options);
    let lines = commands(&out);
    assert_eq!(
        lines[0],
        "::error file=tests/test_broken.py,line=4,title=COLLECTION ERROR%3A tests/test_broken.py::SyntaxError: invalid syntax"
    );
    assert_eq!(lines.len(), 11);
    assert_eq!(
        lines[10],
        "::notice title=pytest-mcp::1 more failure group (1 test) is not annotated (GitHub shows 10 error annotations per step): the job summary lists them all"
    );
}

/// A group: its size and first id in the title, the others in the message;
/// a parametrized function whose every case failed is named once.
#[test]
fn a_group_names_its_size_and_its_tests() {
    let same = |id: &str| failing(id, "AssertionError: assert 1 == 2", "t.py", 5);
    let run = run_of(vec![
        same("t.py::test_a"),
        same("t.py::test_b"),
        same("t.py::test_c"),
    ]);
    let out = render(&run, &Options::default());
    assert_eq!(
        commands(&out),
        vec![
            "::error file=t.py,line=5,title=FAILED (3 tests)%3A t.py%3A%3Atest_a%2C +2 more::AssertionError: assert 1 == 2%0ASame failure in 2 more: t.py::test_b, t.py::test_c"
        ]
    );
    let run = run_of(vec![same("t.py::test_p[1]"), same("t.py::test_p[2]")]);
    let out = render(&run, &Options::default());
    assert_eq!(
        commands(&out),
        vec![
            "::error file=t.py,line=5,title=FAILED (2 tests)%3A t.py%3A%3Atest_p (all 2 cases)::AssertionError: assert 1 == 2"
        ]
    );
}

/// A group's other ids as every output lists them
/// ([`crate::render::view::Group::same_line`]): the first five, or six
/// when the sixth is the last, then the rest counted.
#[test]
fn a_group_names_five_others_or_six_when_that_is_all() {
    let same_line = |size: usize| {
        let run = run_of(
            (0..size)
                .map(|i| failing(&format!("t.py::test_{i}"), "E: x", "t.py", 5))
                .collect(),
        );
        let out = render(&run, &Options::default());
        let line = commands(&out)[0].rsplit("%0A").next().unwrap_or_default();
        line.to_string()
    };
    let ids = |n: usize| {
        (1..=n)
            .map(|i| format!("t.py::test_{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    assert_eq!(same_line(7), format!("Same failure in 6 more: {}", ids(6)));
    assert_eq!(
        same_line(8),
        format!("Same failure in 7 more: {}, +2 more", ids(5))
    );
}

#[test]
fn paths_are_made_relative_to_the_repository() {
    let options = Options {
        path_prefix: "backend/".into(),
        workspace: Some("/home/runner/work/app/app/".into()),
        step_summary: false,
    };
    for (path, expected) in [
        ("tests/t.py", "backend/tests/t.py"),
        ("./tests/t.py", "backend/tests/t.py"),
        ("tests\\t.py", "backend/tests/t.py"),
        ("/home/runner/work/app/app/src/T.php", "src/T.php"),
        (
            "/home/runner/work/app/apple/T.php",
            "/home/runner/work/app/apple/T.php",
        ),
        ("/usr/lib/x.py", "/usr/lib/x.py"),
    ] {
        assert_eq!(repository_path(path, &options), expected, "{path}");
    }
    assert_eq!(repository_path("t.py", &Options::default()), "t.py");
}

/// No place known: an annotation without `file` (GitHub shows it on the
/// run, not on a line); no message: the kind of failure says what it was.
#[test]
fn a_failure_without_a_place_or_message() {
    let t = TestResult::new("suite > test", Outcome::Error);
    let out = render(&run_of(vec![t]), &Options::default());
    assert_eq!(
        commands(&out),
        vec!["::error title=ERROR%3A suite > test::ERROR (no message)"]
    );
    let start = crate::render::view::headline_start("Test", crate::render::view::Verdict::Failure);
    assert!(out.starts_with(&start), "{out}");
}

#[test]
fn long_messages_are_clipped() {
    let long: Vec<String> = (0..30)
        .map(|i| format!("{i} {}", "x".repeat(500)))
        .collect();
    let t = failing("t.py::test_a", &long.join("\n"), "t.py", 1);
    let out = render(&run_of(vec![t]), &Options::default());
    let message = out.lines().nth(1).unwrap().split("::").nth(2).unwrap();
    assert_eq!(
        message.matches("%0A").count(),
        20,
        "20 lines, then the count"
    );
    assert!(message.ends_with("%0A… 10 more lines"), "{message}");
    assert!(message.len() < 20 * 410 + 100);
}

#[test]
fn an_error_is_one_annotation() {
    assert_eq!(
        error(
            "pytest-mcp: run failed",
            "Test TIMEOUT (3.0s) — x\n\n- a, b: 50%\n"
        ),
        "::error title=pytest-mcp%3A run failed::Test TIMEOUT (3.0s) — x%0A- a, b: 50%25\n",
        "no empty line between the Markdown's paragraphs"
    );
}

#[test]
fn a_collection_error_of_a_class_has_no_file() {
    for (path, file) in [
        ("tests/test_x.py", true),
        ("src\\Foo.java", true),
        ("org.example.geo.TileCacheTest", false),
        ("tests", false),
        (".hidden", false),
    ] {
        assert_eq!(is_file_name(path), file, "{path}");
    }
}

/// The annotation's message without pytest's noise: no empty line, no
/// hint to rerun with `-v` (a tail such as `, use -vv to show` goes, the
/// rest of its line stays), the explanation's indentation kept.
#[test]
fn pytest_noise_is_left_out() {
    let message = "AssertionError: assert {'a': 1, 'b': 2} == {'a': 1, 'b': 3}\n  \n  \
                   Omitting 1 identical items, use -vv to show\n  Differing items:\n  \
                   {'b': 2} != {'b': 3}\n\n  Use -v to get more diff\n  \
                   ...Full output truncated (3 lines hidden), use '-vv' to show";
    let t = failing("t.py::test_a", message, "t.py", 4);
    let out = render(&run_of(vec![t]), &Options::default());
    assert_eq!(
        commands(&out),
        vec![
            "::error file=t.py,line=4,title=FAILED%3A t.py%3A%3Atest_a::AssertionError: assert {'a': 1, 'b': 2} == {'a': 1, 'b': 3}%0A  Omitting 1 identical items%0A  Differing items:%0A  {'b': 2} != {'b': 3}%0A  ...Full output truncated (3 lines hidden)"
        ]
    );
    // A collection error's message too.
    let mut run = run_of(vec![]);
    run.collection_errors.push(CollectionError {
        file: "t.py".into(),
        error_type: None,
        message: "E   SyntaxError: bad\n\nE   line two".into(),
        line: None,
        traceback: None,
    });
    let out = render(&run, &Options::default());
    assert!(
        out.ends_with("::E   SyntaxError: bad%0AE   line two\n"),
        "{out}"
    );
}

/// The failure's own words first: GitHub shows an annotation's first line
/// before it is expanded.
#[test]
fn the_message_comes_first() {
    let with_trace = |id: &str, message: &str, traceback: &str| {
        let mut t = TestResult::new(id, Outcome::Failed);
        t.set_message(Some(message.to_string()));
        t.set_traceback(Some(traceback.to_string()));
        t
    };
    let message = |t: TestResult| {
        let out = render(&run_of(vec![t]), &Options::default());
        let line = commands(&out)[0].to_string();
        line.split_once("::")
            .unwrap()
            .1
            .split_once("::")
            .unwrap()
            .1
            .to_string()
    };
    // PHPUnit: the message attribute is the test's name.
    let t = with_trace(
        "App.StockTest#testReserve",
        "App\\StockTest::testReserve",
        "App\\StockTest::testReserve\nFailed asserting that 7 is identical to 6.\n",
    );
    assert_eq!(message(t), "Failed asserting that 7 is identical to 6.");
    // Go and XCTest: a bare `Failed`, the words in the text.
    let t = with_trace(
        "example.com/cart#TestRemove",
        "Failed",
        "    cart_test.go:27: got 1 items, want 0",
    );
    assert_eq!(message(t), "cart_test.go:27: got 1 items, want 0");
    // Nothing else to say: `Failed` stays.
    let t = with_trace("example.com/cart#TestCheckout", "Failed", "Failed");
    assert_eq!(message(t), "Failed");
    // A `.phpt` test's name glued to its message.
    let t = with_trace(
        "Inventory > report.phpt",
        "report.phptFailed asserting that string matches format description.",
        "report.phptFailed asserting that string matches format description.",
    );
    assert_eq!(
        message(t),
        "Failed asserting that string matches format description."
    );
    // A message that only starts like the name keeps its words.
    let t = failing("t.py::test_a", "test_a\nassert 1 == 2", "t.py", 1);
    assert_eq!(message(t), "assert 1 == 2", "the name alone is no message");
    let t = failing(
        "t.py::test_a",
        "test_alpha is wrong\nassert 1 == 2",
        "t.py",
        1,
    );
    assert_eq!(message(t), "test_alpha is wrong%0Aassert 1 == 2");
}

#[test]
fn rust_backtrace_note_is_left_out() {
    let t = failing(
        "crate#clips",
        "thread 'clips' panicked at tests/render.rs:88:9:\nassertion failed\n\
         note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
        "tests/render.rs",
        88,
    );
    let out = render(&run_of(vec![t]), &Options::default());
    assert!(
        out.contains("::thread 'clips' panicked at tests/render.rs:88:9:%0Aassertion failed\n"),
        "{out}"
    );
}

/// A history of runs on commit bbbbbbb: `old` failing for 4 runs since
/// aaaaaaa, `flaky` flaky (failed 2 of 5).
fn history(old: &[&str], flaky: &[&str]) -> History {
    crate::model::testing::history(5, old, "aaaaaaa111", flaky)
}

/// With a history: a flaky failure is a warning titled with its rate,
/// after the errors; one failing before says since when; a new one is as
/// without a history.
#[test]
fn a_flaky_failure_is_a_warning_with_its_rate() {
    let mut run = run_of(vec![
        failing("t.py::test_flip", "E: flip", "t.py", 1),
        failing("t.py::test_old", "E: old", "t.py", 2),
        failing("t.py::test_new", "E: new", "t.py", 3),
    ]);
    run.history = Some(history(&["t.py::test_old"], &["t.py::test_flip"]));
    let out = render(&run, &Options::default());
    assert_eq!(
        commands(&out),
        vec![
            "::error file=t.py,line=3,title=FAILED%3A t.py%3A%3Atest_new::E: new",
            "::error file=t.py,line=2,title=FAILED%3A t.py%3A%3Atest_old (failing for 4 runs%2C since aaaaaaa)::E: old",
            "::warning file=t.py,line=1,title=FAILED%3A t.py%3A%3Atest_flip (flaky%2C failed 2 of the last 5 runs)::E: flip",
        ],
        "{out}"
    );
}

/// Flaky failures do not take the errors' room: ten errors and ten
/// warnings per step, and the notice counts what is left of each.
#[test]
fn flaky_warnings_have_their_own_ten() {
    let tests: Vec<TestResult> = (0..24)
        .map(|i| {
            let id = format!("t.py::test_{i}");
            failing(&id, &format!("E{i}Error: x"), "t.py", i + 1)
        })
        .collect();
    let flaky: Vec<String> = (12..24).map(|i| format!("t.py::test_{i}")).collect();
    let flaky: Vec<&str> = flaky.iter().map(String::as_str).collect();
    let mut run = run_of(tests);
    run.history = Some(history(&[], &flaky));
    let out = render(&run, &Options::default());
    let count = |kind: &str| out.lines().filter(|l| l.starts_with(kind)).count();
    assert_eq!(count("::error "), MAX_ERRORS, "{out}");
    assert_eq!(count("::warning "), MAX_WARNINGS, "{out}");
    let notices: Vec<&str> = out.lines().filter(|l| l.starts_with("::notice ")).collect();
    assert_eq!(
        notices,
        vec![
            "::notice title=pytest-mcp::2 more failure groups (2 tests) and 2 flaky failure groups (2 tests) are not annotated (GitHub shows 10 error and 10 warning annotations per step): the Markdown report (`--format markdown`) lists them all"
        ]
    );
    assert_eq!(listed(&["a".into(), "b".into(), "c".into()]), "a, b and c");
}
