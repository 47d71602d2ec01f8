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
        recorded_exit: Some(1),
        duration: Some(1.5),
        ..Run::default()
    }
}

/// `run` compared with `before`, rendered within `max` characters.
fn fitted_against(run: &Run, before: &Run, max: usize) -> crate::budget::Fitted {
    let comparison = crate::model::baseline::compare(run, before);
    let baseline = Baseline {
        comparison: &comparison,
        counts: before.counts(),
    };
    render_fitted(
        run,
        Some(&baseline),
        &Options::default(),
        &Budget::chars(max),
    )
}

#[test]
fn test_text_goes_into_code() {
    let run = run_of(vec![failing(
        "t.py::test_x[<b>@octocat #1]",
        "</details> **bold** <img src=x>",
    )]);
    let text = render_fitted(
        &run,
        None,
        &Options::default(),
        &crate::budget::Budget::NONE,
    )
    .text;
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

/// Shrinking keeps every new failure: groups of new failures come first,
/// and the ids of those whose groups are left out are still named.
#[test]
fn shrinking_keeps_every_new_failure() {
    let mut tests: Vec<TestResult> = (0..40)
        .map(|i| {
            let mut t = failing(
                &format!("old.py::test_{i}"),
                &format!("E{i}: {}", "o".repeat(300)),
            );
            t.location = Some(crate::model::Location::new(format!("old{i}.py"), Some(1)));
            t
        })
        .collect();
    tests.extend((0..30).map(|i| {
        let mut t = failing(
            &format!("new.py::test_{i}"),
            &format!("N{i}: {}", "n".repeat(300)),
        );
        t.location = Some(crate::model::Location::new(format!("new{i}.py"), Some(1)));
        t
    }));
    let run = run_of(tests);
    let before = run_of(
        (0..40)
            .map(|i| failing(&format!("old.py::test_{i}"), "x"))
            .collect(),
    );
    let comparison = crate::model::baseline::compare(&run, &before);
    assert_eq!(comparison.new_failures.len(), 30);
    for max in [3_000, 6_000, 20_000] {
        let fitted = fitted_against(&run, &before, max);
        let text = &fitted.text;
        assert!(
            text.chars().count() <= max,
            "{max}: {}",
            text.chars().count()
        );
        assert!(text.contains("| Change |"), "{text}");
        for i in 0..30 {
            let id = format!("new.py::test_{i}");
            let named =
                text.contains(&format!("`{id}`")) || text.contains(&format!("<code>{id}</code>"));
            assert!(named, "{max}: {id} in\n{text}");
        }
        assert!(text.contains("Shortened to fit"), "{text}");
    }
}

/// More new failures than the ids fit: as many as fit are named (not
/// none), the rest counted, within the budget. 3,000 new failures of
/// 3,000 shapes leave no room for any group, so only step 7 fits.
#[test]
fn thousands_of_new_failures_are_named_as_far_as_they_fit() {
    let tests: Vec<TestResult> = (0..3_000)
        .map(|i| {
            let mut t = failing(&format!("new.py::test_{i}"), &format!("Error{i}: {i}"));
            t.location = Some(crate::model::Location::new(format!("m{i}.py"), Some(1)));
            t
        })
        .collect();
    let run = run_of(tests);
    let before = run_of(
        (0..3_000)
            .map(|i| TestResult::new(format!("new.py::test_{i}"), Outcome::Passed))
            .collect(),
    );
    let max = 65_536;
    let fitted = fitted_against(&run, &before, max);
    let text = &fitted.text;
    let size = text.chars().count();
    assert!(size <= max, "{size}");
    let named = (0..3_000)
        .filter(|i| text.contains(&format!("`new.py::test_{i}`")))
        .count();
    assert!(named > 1_000, "{named} named in {size} characters:\n{text}");
    assert!(
        text.contains(&format!("… {} more", 3_000 - named)),
        "{text}"
    );
}

/// Collection errors shrink too (one line per file, then only counted):
/// hundreds of long tracebacks still give a report within the budget,
/// which says what it left out.
#[test]
fn collection_errors_shrink_to_fit() {
    let mut run = run_of(vec![failing("t.py::test_a", "E: a")]);
    run.collection_errors = (0..400)
        .map(|i| crate::model::CollectionError {
            file: format!("tests/test_{i}.py"),
            error_type: Some("ImportError".into()),
            message: format!("No module named 'missing_{i}'"),
            line: Some(3),
            traceback: Some(
                (0..30)
                    .map(|l| format!("tests/test_{i}.py:{l}: in <module>\n    import x{l}\n"))
                    .collect(),
            ),
        })
        .collect();
    let whole = render_fitted(
        &run,
        None,
        &Options::default(),
        &crate::budget::Budget::NONE,
    )
    .text;
    let cases = [(65_536, "one line per file"), (3_000, "counted only")];
    for (max, said) in cases {
        assert!(whole.chars().count() > max);
        let fitted = render_fitted(&run, None, &Options::default(), &Budget::chars(max));
        let size = fitted.text.chars().count();
        assert!(size <= max, "{max}: {size}");
        assert!(fitted.text.contains("### Collection errors: 400 files"));
        assert!(fitted.text.contains(said), "{max}: {}", fitted.text);
        assert!(
            fitted.text.contains("`t.py::test_a`")
                || fitted.text.contains("<code>t.py::test_a</code>")
        );
    }
}

/// The rendering fitted as the dispatch fits it.
fn render_fitted(
    run: &Run,
    baseline: Option<&Baseline<'_>>,
    options: &Options,
    budget: &Budget,
) -> crate::budget::Fitted {
    crate::budget::fit(offer(run, baseline.cloned(), options, *budget))
}

/// A run judged against three runs of history (`model::history::judge`):
/// `test_known` failed in all of them since commit aaaaaaa, `test_flip`
/// passed and failed on this run's commit.
fn judged_run() -> Run {
    use crate::model::history::{Mark, RunInfo, Window, judge};
    let info = |id, commit: &str| RunInfo {
        id,
        commit: Some(commit.to_string()),
        code: Some(format!("commit {commit}")),
    };
    let window = Window {
        runs: vec![
            info(1, "aaaaaaa1"),
            info(2, "bbbbbbb2"),
            info(3, "bbbbbbb2"),
        ],
        marks: [
            (
                "t.py::test_known",
                vec![(0, Mark::Failed), (1, Mark::Failed), (2, Mark::Failed)],
            ),
            (
                "t.py::test_flip",
                vec![(1, Mark::Passed), (2, Mark::Failed)],
            ),
        ]
        .into_iter()
        .map(|(id, marks)| (id.to_string(), marks))
        .collect(),
    };
    let mut run = run_of(vec![
        failing("t.py::test_known", "assert 1 == 2"),
        failing("t.py::test_flip", "TimeoutError: no answer"),
    ]);
    run.history = Some(judge(&window));
    run
}

/// With a history of runs, each group says how it stands, in the words of
/// the agent's Markdown: in its `<summary>` and in its one-line form.
#[test]
fn groups_say_how_they_stand_against_the_history() {
    let run = judged_run();
    let text = render_fitted(&run, None, &Options::default(), &Budget::NONE).text;
    assert!(
        text.contains(
            "<summary><strong>FAILED</strong> · 1 test (failing for 3 runs, since aaaaaaa) · <code>t.py::test_known</code></summary>"
        ),
        "{text}"
    );
    assert!(
        text.contains("<strong>FAILED</strong> · 1 test (flaky, failed 1 of the last 2 runs) · "),
        "{text}"
    );
    let groups = crate::render::view::failure_groups(&run, crate::render::view::New::Nothing);
    let line = sections::group_line(&Options::default(), &groups[0]);
    assert!(
        line.contains(" · 1 test (failing for 3 runs, since aaaaaaa) · "),
        "{line}"
    );
    let mut alone = run.clone();
    alone.history = None;
    let text = render_fitted(&alone, None, &Options::default(), &Budget::NONE).text;
    assert!(
        !text.contains("failing for") && !text.contains("flaky, failed"),
        "{text}"
    );
}
