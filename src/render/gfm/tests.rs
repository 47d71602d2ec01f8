use super::*;
use crate::budget::Budget;
use crate::model::{Outcome, TestResult};

fn failing(id: &str, message: &str) -> TestResult {
    let mut t = TestResult::new(id, Outcome::Failed);
    t.set_message(Some(message.to_string()));
    t
}

fn run_of(tests: Vec<TestResult>) -> Run {
    Run {
        tests,
        exit_code: Some(1),
        duration: Some(1.5),
        ..Run::default()
    }
}

#[test]
fn test_text_goes_into_code() {
    let run = run_of(vec![failing(
        "t.py::test_x[<b>@octocat #1]",
        "</details> **bold** <img src=x>",
    )]);
    let text = render(&run, None, &Options::default());
    assert!(
        text.starts_with("## Test FAILURE — 1 run, 1 failed\n"),
        "{text}"
    );
    assert!(
        text.contains("<code>t.py::test_x[&lt;b&gt;@octocat #1]</code>"),
        "{text}"
    );
    assert!(
        text.contains("```text\n</details> **bold** <img src=x>\n"),
        "{text}"
    );
}

#[test]
fn links_need_a_base_and_a_path_in_the_repository() {
    let mut options = Options::default();
    assert_eq!(sections::place(&options, "a b.py", Some(3)), "`a b.py:3`");
    options.link_base = Some("https://github.com/o/r/blob/abc".into());
    options.path_prefix = "sub/".into();
    options.workspace = Some("/w".into());
    assert_eq!(
        sections::place(&options, "t/a b.py", Some(3)),
        "[`t/a b.py:3`](https://github.com/o/r/blob/abc/sub/t/a%20b.py#L3)"
    );
    assert_eq!(
        sections::place(&options, "/w/x.py", None),
        "[`/w/x.py`](https://github.com/o/r/blob/abc/x.py)"
    );
    assert_eq!(
        sections::place(&options, "/elsewhere/x.py", Some(1)),
        "`/elsewhere/x.py:1`"
    );
    assert_eq!(sections::place(&options, "../x.py", Some(1)), "`../x.py:1`");
}

#[test]
fn shrinking_keeps_the_table_and_says_so() {
    let tests: Vec<TestResult> = (0..300)
        .map(|i| {
            failing(
                &format!("t.py::test_{i}"),
                &format!("Error{i}: {}", "x".repeat(200)),
            )
        })
        .collect();
    let run = run_of(tests);
    let fitted = render_fitted(&run, None, &Options::default(), &Budget::chars(5_000));
    assert!(
        fitted.text.chars().count() <= 5_000,
        "{}",
        fitted.text.len()
    );
    assert!(fitted.text.contains("| Passed | Failed |"));
    assert!(
        fitted.text.contains("Shortened to fit 5,000 characters"),
        "{}",
        fitted.text
    );
    assert!(fitted.truncation.is_some());
}
