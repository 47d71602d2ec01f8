use super::*;

#[test]
fn the_template_has_each_placeholder_once() {
    for name in ["title", "csp", "style", "script", "body"] {
        let placeholder = format!("{{{{{name}}}}}");
        assert_eq!(TEMPLATE.matches(&placeholder).count(), 1, "{placeholder}");
    }
    // The hash is of exactly what stands between the tags.
    let page = fill("t", "");
    assert!(page.contains(&format!("<script>{SCRIPT}</script>")));
    assert!(page.contains(&format!("<style>{STYLE}</style>")));
}

#[test]
fn hashes_are_csp_sources() {
    // echo -n abc | openssl dgst -sha256 -binary | base64
    assert_eq!(
        source_hash("abc"),
        "sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="
    );
}

#[test]
fn durations_read_as_numbers() {
    assert_eq!(secs(0.0123), "0.012s");
    assert_eq!(secs(12.345), "12.35s");
    assert_eq!(secs(1234.56), "1234.6s");
}

/// A run told against a history of runs: new failures first, each
/// heading saying how its group stands (flaky ones marked `k`, with their
/// rate), the flaky tests marked in the list and counted in the legend.
#[test]
fn a_history_marks_the_groups_and_the_flaky_rows() {
    use crate::model::history::{History, Since, TestHistory};
    use crate::model::{Location, Outcome, TestResult};
    let failing = |id: &str, line: u32| {
        let mut t = TestResult::new(id, Outcome::Failed);
        t.set_message(Some(format!("E{line}: no")));
        t.location = Some(Location::new("t.py", Some(line)));
        t
    };
    let history = |failed: u32, flaky: bool, since: Option<Since>| TestHistory {
        runs: 4,
        failed,
        flaky,
        failing_since: since,
        ..TestHistory::default()
    };
    let since = Since {
        run: 1,
        commit: Some("<b>aaaa111".into()),
        runs: 4,
    };
    let run = Run {
        tests: vec![
            failing("t.py::test_old", 1),
            failing("t.py::test_flip", 2),
            failing("t.py::test_new", 3),
        ],
        history: Some(History {
            runs: 4,
            run: 4,
            commit: Some("bbbbbbb".into()),
            tests: [
                ("t.py::test_old".into(), history(4, false, Some(since))),
                ("t.py::test_flip".into(), history(2, true, None)),
            ]
            .into_iter()
            .collect(),
            ..History::default()
        }),
        ..Run::default()
    };
    let page = report(&run, None, "t");
    let at = |text: &str| {
        page.find(text)
            .unwrap_or_else(|| panic!("{text} in\n{page}"))
    };
    let new = at("<code>t.py::test_new</code> <span class=hist>new</span>");
    let old = at(
        "<code>t.py::test_old</code> <span class=hist>failing for 4 runs, since &lt;b&gt;aaaa</span>",
    );
    let flip = at(
        "<article class=\"grp f k\" id=g2>\n<h3><span class=tag>FAILED</span> <code>t.py::test_flip</code> <span class=hist>flaky, failed 2 of the last 4 runs</span>",
    );
    assert!(new < old && old < flip);
    assert!(page.contains("<li class=x><b>1</b> flaky"));
    assert_eq!(page.matches("<tr class=\"f k\">").count(), 1);
    assert!(page.contains("value=k checked> flaky <b>1</b>"));
}

/// With a history's trend: the chart and its table, the failure card's
/// strip in symbols with its words as title and label, the test slower
/// than usual; a commit from outside is text in the chart, its titles and
/// the table. With one run in the history, no trend.
#[test]
fn a_history_draws_the_trend_the_strips_and_the_slower_tests() {
    let run = crate::model::testing::run_with_trend();
    let page = report(&run, None, "t");
    let words = "Last 10 runs, oldest first: passed, flaky, passed 4 times, failed, passed, \
                 failed 2 times";
    assert!(
        page.contains(&format!(
            "<h3><span class=strip role=img title=\"{words}\" aria-label=\"{words}\">\
             <i class=p>✓</i><i class=k>↻</i><i class=p>✓</i>"
        )),
        "{page}"
    );
    assert!(page.contains("<a href=\"#trend\">Trend</a>"));
    assert!(page.contains("<h2>Trend <span class=n>the last 3 runs, oldest first</span></h2>"));
    assert_eq!(page.matches("<g class=\"run").count(), 3);
    assert!(page.contains(
        "<title>Run 13 · b|&lt;b&gt;bb · 2023-11-15 22:13 UTC: 2 passed, 1 failed, 0 flaky</title>"
    ));
    assert!(page.contains("<text class=c x="), "{page}");
    assert!(page.contains(">b|&lt;b&gt;bb</text>"), "{page}");
    assert!(page.contains("<tr><td>13<td>b|&lt;b&gt;bb<td>2023-11-15 22:13<td>2<td>1<td>0<td>–"));
    // The line is broken where a run has no duration: two dots, no line.
    assert_eq!(page.matches("<circle class=dur").count(), 2);
    assert!(!page.contains("<polyline"), "{page}");
    assert!(page.contains(
        "<tr><td>t.py::test_slow<td>6.0× its median<small>median 0.500s</small><td>3.000s"
    ));
    let mut one = run.clone();
    if let Some(h) = one.history.as_mut() {
        h.trend.truncate(1);
    }
    let page = report(&one, None, "t");
    assert!(
        !page.contains("id=trend") && !page.contains("#trend"),
        "{page}"
    );
}
