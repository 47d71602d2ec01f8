use super::*;
use crate::budget::Budget;
use crate::model::testing::history;
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
        text.starts_with(&heading(crate::model::Counts {
            total: 1,
            failed: 1,
            ..Default::default()
        })),
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
    crate::budget::fit(super::fit::offer(run, baseline.cloned(), options, *budget))
}

/// `message` failing at its own line of t.py.
fn failing_at(id: &str, message: &str, line: u32) -> TestResult {
    let mut t = failing(id, message);
    t.location = Some(crate::model::Location::new("t.py", Some(line)));
    t
}

/// With a history: the new failure first, then the one failing before
/// saying since when (both open, as the first groups are), and one Flaky
/// section with the flaky failure (collapsed: its rate, its text in a code
/// block) and the test that passed after a retry; flaky failures counted
/// apart, never as new.
#[test]
fn a_history_puts_new_failures_first_and_flaky_ones_under_flaky() {
    let mut retried = TestResult::new("t.py::test_retry", Outcome::Passed);
    retried.set_reruns(vec![crate::model::Attempt::failed(Some("E: once".into()))]);
    let mut run = run_of(vec![
        failing_at("t.py::test_old", "E: old", 1),
        failing_at("t.py::test_flip", "E: **flip** <b>", 2),
        failing_at("t.py::test_new", "E: new", 3),
        retried,
    ]);
    run.history = Some(history(
        5,
        &["t.py::test_old"],
        "aaaaaaa111",
        &["t.py::test_flip"],
    ));
    let text = render_fitted(&run, None, &Options::default(), &Budget::NONE).text;
    assert!(
        text.starts_with(&heading(crate::model::Counts {
            total: 4,
            failed: 3,
            flaky_failures: 1,
            flaky: 1,
            ..Default::default()
        })),
        "{text}"
    );
    assert!(text.contains("| 1 | 3 | 0 | 0 | 2 | 1.5s |"), "{text}");
    assert!(
        text.contains("\nAgainst the history of 5 runs: 1 new, 1 failing before, 1 flaky\n"),
        "{text}"
    );
    let at = |part: &str| {
        text.find(part)
            .unwrap_or_else(|| panic!("{part} in\n{text}"))
    };
    let failures = at("\n### Failures: 2 tests in 2 groups\n");
    let new = at(
        "\n<details open>\n<summary><strong>FAILED</strong> · 1 test (new) · <code>t.py::test_new</code></summary>\n",
    );
    let old = at(
        "\n<details open>\n<summary><strong>FAILED</strong> · 1 test (failing for 4 runs, since aaaaaaa) · <code>t.py::test_old</code></summary>\n",
    );
    let flaky = at("\n### Flaky (2)\n");
    let flip = at(
        "\n<details>\n<summary><strong>FAILED</strong> · 1 test (flaky, failed 2 of the last 5 runs) · <code>t.py::test_flip</code></summary>\n",
    );
    let flip_text = at("```text\nE: **flip** <b>\n");
    let retry = at("\n- `t.py::test_retry` passed after 1 failed attempt, first: `E: once`\n");
    assert!(failures < new && new < old && old < flaky, "{text}");
    assert!(
        flaky < flip && flip < flip_text && flip_text < retry,
        "{text}"
    );
    assert_eq!(text.matches("### Flaky").count(), 1, "{text}");
}

/// Shrunk, a history's new failures are kept as a baseline's are: named
/// when their groups are left out; the flaky failures are not among them.
#[test]
fn shrinking_keeps_every_new_failure_of_a_history() {
    let long = "x".repeat(300);
    let mut tests: Vec<TestResult> = (0..30)
        .map(|i| {
            failing_at(
                &format!("t.py::test_new_{i}"),
                &format!("N{i}: {long}"),
                i + 1,
            )
        })
        .collect();
    tests.extend((0..30).map(|i| {
        failing_at(
            &format!("t.py::test_flip_{i}"),
            &format!("F{i}: {long}"),
            100 + i,
        )
    }));
    let mut run = run_of(tests);
    let flips: Vec<String> = (0..30).map(|i| format!("t.py::test_flip_{i}")).collect();
    let flips: Vec<&str> = flips.iter().map(String::as_str).collect();
    run.history = Some(history(5, &[], "a", &flips));
    for max in [2_500, 6_000] {
        let fitted = render_fitted(&run, None, &Options::default(), &Budget::chars(max));
        let text = &fitted.text;
        assert!(
            text.chars().count() <= max,
            "{max}: {}",
            text.chars().count()
        );
        assert!(text.contains("Shortened to fit"), "{text}");
        for i in 0..30 {
            let id = format!("t.py::test_new_{i}");
            let named =
                text.contains(&format!("`{id}`")) || text.contains(&format!("<code>{id}</code>"));
            assert!(named, "{max}: {id} in\n{text}");
        }
        if let Some((_, omitted)) = text.split_once("New failures in the groups not shown:") {
            assert!(!omitted.contains("test_flip"), "{max}: {text}");
        }
    }
}

/// With a baseline and a history, a flaky failure that is new against the
/// baseline is under Flaky, not counted among the new failures.
#[test]
fn a_flaky_failure_new_against_the_baseline_is_under_flaky() {
    let mut run = run_of(vec![
        failing_at("t.py::test_new", "E: new", 1),
        failing_at("t.py::test_flip", "E: flip", 2),
    ]);
    run.history = Some(history(3, &[], "a", &["t.py::test_flip"]));
    let before = run_of(vec![
        TestResult::new("t.py::test_new", Outcome::Passed),
        TestResult::new("t.py::test_flip", Outcome::Passed),
    ]);
    let text = fitted_against(&run, &before, 65_536).text;
    let new = text.find("\n### New failures: 1 test\n").expect(&text);
    let flaky = text.find("\n### Flaky (1)\n").expect(&text);
    let flip = text.find("<code>t.py::test_flip</code>").expect(&text);
    assert!(new < flaky && flaky < flip, "{text}");
    assert!(
        text.contains("· 1 test (flaky, failed 2 of the last 3 runs) · <code>t.py::test_flip"),
        "{text}"
    );
}

/// The commit in a mark is our text from outside: escaped in a
/// `<summary>` and in a one-line group, kept from mentioning anyone.
#[test]
fn a_commit_in_a_mark_is_text() {
    let mut run = run_of(vec![failing_at("t.py::test_old", "E: old", 1)]);
    run.history = Some(history(5, &["t.py::test_old"], "<@a#1>*", &[]));
    let whole = render_fitted(&run, None, &Options::default(), &Budget::NONE).text;
    assert!(
        whole.contains("(failing for 4 runs, since &lt;@\u{2060}a#\u{2060}1&gt;*)"),
        "{whole}"
    );
    let g = view::failure_groups(&run, view::New::SinceLastRun);
    let line = sections::group_line(&Options::default(), &g[0], false);
    assert!(
        line.contains("(failing for 4 runs, since \\<\\@\u{2060}a\\#\u{2060}1\\>\\*)"),
        "{line}"
    );
}

/// With a history's trend: each group's summary carries its strip (a
/// legend under the counts says the symbols, the group says them in
/// words), the test slower than usual is listed, and the trend is a table,
/// collapsed, whose commits neither end a cell nor read as Markdown.
#[test]
fn a_history_shows_strips_the_slower_tests_and_the_trend() {
    let run = crate::model::testing::run_with_trend();
    let text = render_fitted(&run, None, &Options::default(), &Budget::NONE).text;
    let at = |part: &str| {
        text.find(part)
            .unwrap_or_else(|| panic!("{part} in\n{text}"))
    };
    let legend = at(
        "\n\nEach failure's last runs, oldest first: ✓ passed, ✗ failed, ↻ flaky (passed after failing)\n",
    );
    let summary = at(
        "<summary><strong>FAILED</strong> · 1 test (flaky, failed 3 of the last 12 runs) · ✓↻✓✓✓✓✗✓✗✗ · <code>t.py::test_flip</code></summary>",
    );
    at(
        "\n\nLast 10 runs, oldest first: passed, flaky, passed 4 times, failed, passed, failed 2 times.\n\n",
    );
    let slower =
        at("\n### Slower than usual (1)\n\n- 3.0s (median 500 ms, 6.0×) `t.py::test_slow`\n");
    let trend = at("\n<details>\n<summary>Trend of the last 3 runs</summary>\n\n| Run | Commit |");
    at("\n| 12 | `aaaaaaa` | 2023-11-14 22:13 | 2 | 0 | 1 | 1.0s |\n");
    at("\n| 13 | `b\\|<b>bb` | 2023-11-15 22:13 | 2 | 1 | 0 | – |\n");
    at("\n| 14, this run | `ccccccc` | 2023-11-16 22:13 | 2 | 1 | 0 | 4.0s |\n\n</details>\n");
    let slowest = at("<summary>Slowest 2 tests</summary>");
    assert!(legend < summary && summary < slower && slower < trend && trend < slowest);
    let g = view::failure_groups(&run, view::New::SinceLastRun);
    let line = sections::group_line(&Options::default(), &g[0], false);
    assert!(
        line.starts_with(
            "- **FAILED** · 1 test (flaky, failed 3 of the last 12 runs) · ✓↻✓✓✓✓✗✓✗✗ · `t.py::test_flip`"
        ),
        "{line}"
    );
}

/// Shrunk, the trend and the tests slower than usual go first, with the
/// other lists, and the note says so; the strips stay with their groups.
/// Without a history, no legend.
#[test]
fn a_small_budget_drops_the_trend_and_says_so() {
    let run = crate::model::testing::run_with_trend();
    let whole = render_fitted(&run, None, &Options::default(), &Budget::NONE).text;
    let max = whole.chars().count() - 1;
    let text = render_fitted(&run, None, &Options::default(), &Budget::chars(max)).text;
    assert!(text.chars().count() <= max, "{text}");
    assert!(
        !text.contains("Trend of") && !text.contains("Slower than usual"),
        "{text}"
    );
    assert!(
        text.contains(
            ", the trend, the flaky, slower than usual, slowest and skipped tests and the fixed tests' ids left out."
        ),
        "{text}"
    );
    assert!(text.contains(" · ✓↻✓✓✓✓✗✓✗✗ · "), "{text}");
    let mut bare = run.clone();
    bare.history = None;
    let text = render_fitted(&bare, None, &Options::default(), &Budget::NONE).text;
    assert!(
        !text.contains("last runs, oldest first") && !text.contains('✓'),
        "{text}"
    );
}

/// The page's first line for a failing run with `counts`, in the view's
/// words: `## Test FAILURE — 1 run, 1 failed`.
fn heading(counts: crate::model::Counts) -> String {
    let phrase = crate::render::view::counts_phrase_of(&counts);
    let line =
        crate::render::view::headline("Test", crate::render::view::Verdict::Failure, None, &phrase);
    format!("## {line}\n")
}
