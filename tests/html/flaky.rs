//! The page of a run told against a history of runs (docs/flaky.md): a
//! failure failing before says since when, a flaky one its rate, and the
//! list marks the flaky tests, which the filter hides and shows.

use std::collections::HashMap;
use std::path::PathBuf;

use super::browser::driver;
use super::{fixture_run, interact, report_page, write_page};
use pytest_mcp::model::Run;
use pytest_mcp::model::history::{History, Since, TestHistory};

/// The mixed project's run with a history: its first failure failing for
/// 4 runs since commit aaaaaaa, the next two failures and its error at
/// teardown flaky (failed 2 of the last 5 runs); the flaky ids.
fn mixed_with_history() -> (Run, Vec<String>) {
    let mut run = fixture_run("mixed");
    let failing: Vec<String> = run
        .tests
        .iter()
        .filter(|t| t.is_problem())
        .map(|t| t.node_id.clone())
        .collect();
    let old = &failing[0];
    let flaky: Vec<String> = failing[1..]
        .iter()
        .filter(|id| {
            id.ends_with("test_search_multiple")
                || id.ends_with("test_overdue")
                || id.ends_with("test_loan_checked_at_teardown")
        })
        .cloned()
        .collect();
    assert_eq!(flaky.len(), 3, "{failing:?}");
    let mut tests = HashMap::new();
    let since = Since {
        run: 1,
        commit: Some("aaaaaaa1111111111".into()),
        runs: 4,
    };
    tests.insert(
        old.clone(),
        TestHistory {
            runs: 4,
            failed: 4,
            flaky: false,
            failing_since: Some(since),
            ..TestHistory::default()
        },
    );
    for id in &flaky {
        let rate = TestHistory {
            runs: 5,
            failed: 2,
            flaky: true,
            failing_since: None,
            ..TestHistory::default()
        };
        tests.insert(id.clone(), rate);
    }
    run.history = Some(History {
        runs: 5,
        run: 5,
        commit: Some("bbbbbbb2222222222".into()),
        tests,
        ..History::default()
    });
    (run, flaky)
}

#[test]
fn flaky_failures_show_their_rate_and_the_filter_hides_them() {
    let (run, flaky) = mixed_with_history();
    let page = report_page(&run, "mixed, told against its history");
    assert!(
        page.contains("<span class=hist>failing for 4 runs, since aaaaaaa</span>"),
        "the old failure's heading"
    );
    let rate = "<span class=hist>flaky, failed 2 of the last 5 runs</span>";
    assert_eq!(
        page.matches(rate).count(),
        flaky.len(),
        "each flaky heading"
    );
    assert_eq!(
        page.matches("<article class=\"grp f k\"").count()
            + page.matches("<article class=\"grp e k\"").count(),
        flaky.len()
    );
    let rows = page.split("<div id=files>").nth(1).unwrap_or_default();
    assert_eq!(rows.matches(" k\"><td>").count(), flaky.len(), "flaky rows");
    assert!(
        page.contains("value=k checked> flaky <b>3</b>"),
        "the filter"
    );
    // Without a history the page has neither.
    let plain = report_page(&fixture_run("mixed"), "mixed");
    assert!(!plain.contains("value=k") && !plain.contains("class=hist"));

    let Some(driver) = driver() else { return };
    let work = tempfile::tempdir().expect("temp dir");
    let path = write_page(work.path(), "mixed-history.html", &page);
    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("html-report-history.png");
    let (answer, _) = interact(&driver, work.path(), &path, &run, &shot);
    let r = &answer["interact"];
    let shown = |state: &str, o: &str| r[state]["shown"][o].as_u64().unwrap_or(u64::MAX) as usize;
    assert_eq!(shown("initial", "k"), flaky.len(), "{r}");
    // Unticking "flaky" hides the flaky rows only: two failed, one error.
    assert_eq!(shown("no_flaky", "k"), 0, "{r}");
    let c = run.counts();
    assert_eq!(shown("no_flaky", "f"), c.failed - 2, "{r}");
    assert_eq!(shown("no_flaky", "e"), c.errors - 1, "{r}");
    assert_eq!(shown("no_flaky", "p"), c.passed, "{r}");
    assert_eq!(
        r["no_flaky"]["status"],
        format!("{} of {} tests shown", c.total - flaky.len(), c.total)
    );
    for state in ["initial", "no_flaky", "no_passed", "search", "cleared"] {
        assert_eq!(r[state]["style_disagrees"], 0, "{state}: {r}");
    }
    eprintln!("screenshot: {}", shot.display());
}
