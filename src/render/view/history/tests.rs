use super::*;
use crate::model::history::Mark::{Failed, FailedAll, Flaky, Passed};
use crate::model::testing::run_with_trend;
use crate::render::view::{New, failure_groups};

#[test]
fn a_strip_reads_in_symbols_and_in_words() {
    let marks = [Passed, Passed, Flaky, Failed, FailedAll, Passed];
    let strip = Strip { marks: &marks };
    assert_eq!(strip.symbols(), "✓✓↻✗✗✓");
    // Failed every attempt is said as failed, with the other failure.
    assert_eq!(
        strip.words(),
        "Last 6 runs, oldest first: passed 2 times, flaky, failed 2 times, passed"
    );
    let one = Strip { marks: &[Failed] };
    assert_eq!(
        (one.symbols().as_str(), one.words().as_str()),
        ("✗", "Last run: failed")
    );
    assert_eq!(
        strip_legend(),
        "✓ passed, ✗ failed, ↻ flaky (passed after failing)"
    );
}

/// A group's strip is its first test's last 10 outcomes, oldest first;
/// none without a history, or for a test it has no word on.
#[test]
fn a_group_has_its_first_tests_last_ten_outcomes() {
    let run = run_with_trend();
    let groups = failure_groups(&run, New::SinceLastRun);
    let shown = strip(&groups[0]).expect("a strip");
    assert_eq!(shown.symbols(), "✓↻✓✓✓✓✗✓✗✗");
    let mut bare = run.clone();
    bare.history = None;
    let groups = failure_groups(&bare, New::SinceLastRun);
    assert_eq!(strip(&groups[0]), None);
}

/// The trend: the last runs, oldest first, this one last; commits as
/// people quote them (no control character), times in UTC; bars scaled to
/// the run with the most tests, the line to the longest run.
#[test]
fn the_trend_scales_the_runs_for_a_chart() {
    let run = run_with_trend();
    let trend = trend(&run, 10).expect("a trend");
    assert_eq!(
        (trend.most_tests, trend.longest, trend.window),
        (3, Some(4.0), 3)
    );
    let ids: Vec<i64> = trend.runs.iter().map(|r| r.id).collect();
    assert_eq!(ids, [12, 13, 14]);
    let [a, b, c] = &trend.runs[..] else {
        panic!("{trend:?}")
    };
    assert!(!a.this && !b.this && c.this);
    assert_eq!(a.commit.as_deref(), Some("aaaaaaa"));
    assert_eq!(b.commit.as_deref(), Some("b|<b>bb"));
    assert_eq!(a.when.as_deref(), Some("2023-11-14 22:13"));
    assert_eq!(c.when.as_deref(), Some("2023-11-16 22:13"));
    let third = 1.0 / 3.0;
    assert_eq!(a.heights, [2.0 * third, third, 0.0]);
    assert_eq!(b.heights, [2.0 * third, 0.0, third]);
    assert_eq!((a.line, b.line, c.line), (Some(0.25), None, Some(1.0)));
    assert_eq!((b.duration, c.duration), (None, Some(4.0)));
    // The last 2 of the 3: the window says how many there were.
    let last = super::trend(&run, 2).expect("a trend");
    assert_eq!((last.runs.len(), last.runs[0].id, last.window), (2, 13, 3));
    assert_eq!((last.longest, last.runs[0].line), (Some(4.0), None));
}

/// No trend without a history, or with one run in it; one run of
/// thousands of tests with one failure still shows the failure, taken from
/// its passes.
#[test]
fn a_failure_among_thousands_stays_visible() {
    assert_eq!(heights([0, 0, 0], 0), [0.0; 3]);
    let h = heights([9_999, 0, 1], 10_000);
    assert_eq!(h[2], LEAST_PART);
    assert!((h.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{h:?}");
    let h = heights([0, 0, 1], 10_000);
    assert_eq!(h, [0.0, 0.0, LEAST_PART]);
    let mut run = run_with_trend();
    if let Some(h) = run.history.as_mut() {
        h.trend.truncate(1);
    }
    assert_eq!(trend(&run, 10), None);
    run.history = None;
    assert_eq!(trend(&run, 10), None);
}

#[test]
fn slower_tests_say_their_median_and_how_many_times() {
    let run = run_with_trend();
    let slower = slower(&run);
    assert_eq!(slower.len(), 1, "{slower:?}");
    let s = slower[0];
    assert_eq!(
        (s.test.node_id.as_str(), s.now, s.median, s.times()),
        ("t.py::test_slow", 3.0, 0.5, 6.0)
    );
    let mut bare = run.clone();
    bare.history = None;
    assert!(super::slower(&bare).is_empty());
}
