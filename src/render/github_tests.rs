use super::*;
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
    assert!(out.starts_with("Test FAILURE ("), "{out}");
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
        "::error title=pytest-mcp%3A run failed::Test TIMEOUT (3.0s) — x%0A%0A- a, b: 50%25\n"
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
