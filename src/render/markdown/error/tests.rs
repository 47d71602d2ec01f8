use super::{error as error_md, error_offer};
use crate::budget::{Budget, Fitted};
use crate::model::exec_error::{ErrorKind, ExecError, Running};

/// A timeout after hundreds of failures, with long output: within the
/// budget, its own lines first, what finished shrunk as a run's answer,
/// the note on what went and the command last; whole when it fits.
#[test]
fn an_error_with_many_partial_results_fits_its_budget() {
    use crate::budget::count_tokens;
    use crate::model::{Outcome, Run, TestResult};
    let mut e = ExecError::spawn(
        "pytest execution exceeded timeout of 5 seconds while running tests/t.py::test_slow".into(),
        vec!["python".into(), "-m".into(), "pytest".into()],
    );
    e.kind = ErrorKind::Timeout;
    e.stdout = "progress line that goes on and on\n".repeat(200);
    e.partial = Run {
        tests: (0..500)
            .map(|n| {
                let mut t = TestResult::new(format!("tests/t{n}.py::test_x"), Outcome::Failed);
                t.set_message(Some(format!("ValueError{n}: broken in its own way")));
                t.set_traceback(Some(format!("tests/t{n}.py:3: in test_x\n    x()\n")));
                t
            })
            .collect(),
        ..Run::default()
    };
    let whole = error_md(&e);
    assert!(count_tokens(&whole) > 8_000, "{}", count_tokens(&whole));
    for max in [300, 1_000, 8_000] {
        let fitted = error_markdown_fitted(&e, &Budget::tokens(max));
        let n = count_tokens(&fitted.text);
        assert!(n <= max, "{n} tokens at {max}");
        assert!(fitted.text.starts_with(&crate::render::view::headline(
            "Test",
            crate::render::view::Verdict::Timeout,
            Some(0.0),
            "pytest execution exceeded"
        )));
        assert!(
            fitted.text.contains("Finished before the end: 500"),
            "{}",
            fitted.text
        );
        assert!(fitted.text.contains(&format!(
            "Shortened to fit {} tokens",
            crate::text::thousands(max)
        )));
        assert!(
            fitted.text.ends_with("> Command: python -m pytest\n"),
            "{}",
            fitted.text
        );
        let t = fitted.truncation.expect("truncation");
        assert_eq!(t.dropped[0], "pytest's last output lines");
    }
    // A command naming two thousand ids: clipped, still within.
    let mut long = e.clone();
    long.command
        .extend((0..2_000).map(|n| format!("tests/t{n}.py::test_x")));
    for max in [200, 1_000] {
        let fitted = error_markdown_fitted(&long, &Budget::tokens(max));
        assert!(count_tokens(&fitted.text) <= max, "{max}: {}", fitted.text);
        let start =
            crate::render::view::headline_start("Test", crate::render::view::Verdict::Timeout);
        assert!(fitted.text.starts_with(&start), "{}", fitted.text);
    }
    e.partial.tests.truncate(1);
    e.stdout.clear();
    let small = error_markdown_fitted(&e, &Budget::tokens(8_000));
    assert_eq!(small, Fitted::whole(error_md(&e)));
}

/// Ids are shown with their control characters escaped, as in reports.
#[test]
fn ids_in_errors_are_escaped() {
    let id = "tests/t.py::test_\u{1b}[31mred";
    let e = ExecError {
        kind: ErrorKind::Timeout,
        message: format!("pytest execution exceeded timeout of 1 seconds while running {id}"),
        exit_code: None,
        signal: None,
        stdout: String::new(),
        stderr: String::new(),
        command: vec!["python".into(), id.into()],
        duration: 1.0,
        partial: crate::model::Run::default(),
        running: vec![Running {
            node_id: id.into(),
            worker: None,
        }],
        collected: None,
        not_run: Vec::new(),
    };
    let md = error_md(&e);
    assert!(!md.contains('\u{1b}'), "{md:?}");
    assert_eq!(md.matches(r"test_\u{1b}[31mred").count(), 3, "{md}");
}

/// Under pytest-xdist: one line per busy worker, and every running test
/// in the JSON; `running_test` stays the one started last.
#[test]
fn tests_running_on_several_workers_are_all_named() {
    let running = |id: &str, worker: &str| Running {
        node_id: id.into(),
        worker: Some(worker.into()),
    };
    let mut e = ExecError::spawn(String::new(), vec![]);
    e.kind = ErrorKind::Timeout;
    e.message =
        "pytest execution exceeded timeout of 5 seconds while running 2 tests: t.py::a, t.py::b"
            .into();
    e.running = vec![running("t.py::a", "gw1"), running("t.py::b", "gw0")];
    let md = error_md(&e);
    assert!(
        md.contains("\nRunning at the end (2):\n- t.py::a (gw1)\n- t.py::b (gw0)\n"),
        "{md}"
    );
    e.running.truncate(1);
    let md = error_md(&e);
    assert!(md.contains("\nRunning at the end: t.py::a (gw1)\n"), "{md}");
    e.running.clear();
    assert!(!error_md(&e).contains("Running at the end"));
}

/// The error's Markdown fitted as the dispatch fits it.
fn error_markdown_fitted(e: &ExecError, budget: &Budget) -> Fitted {
    crate::budget::fit(error_offer(e, &crate::render::Style::within(*budget)))
}
