//! The page of a run told against a history of runs, as the golden of
//! tests/history_golden.rs has it (seven runs; three failures, one flaky;
//! one test slower than usual): the trend's chart of the runs, each
//! failure's strip of recent outcomes and the tests slower than usual, as
//! markup and as Chromium draws them without scripts, in the light and the
//! dark colour scheme.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::browser::{drive, driver};
use super::markup::{assert_one_document, assert_safe_markup, assert_strict_csp};
use super::{root, write_page};

/// The runs of the golden, oldest first: their commits and days.
const RUNS: [(&str, &str); 7] = [
    ("7777777", "18"),
    ("8888888", "19"),
    ("8888888", "20"),
    ("aaaaaaa", "21"),
    ("bbbbbbb", "22"),
    ("bbbbbbb", "23"),
    ("ccccccc", "24"),
];

fn history_page() -> String {
    std::fs::read_to_string(root().join("golden/history/expected.html"))
        .expect("golden/history/expected.html")
}

#[test]
fn the_history_page_draws_the_trend_the_strips_and_the_slower_tests() {
    let page = history_page();
    assert_one_document(&page, "pytest-mcp report");
    assert_safe_markup(&page);
    assert_strict_csp(&page);
    // A run per bar, oldest first, each titled with its commit and time.
    let runs: Vec<&str> = page.split("<g class=\"run").skip(1).collect();
    assert_eq!(runs.len(), RUNS.len(), "{page}");
    for (n, (run, (commit, day))) in runs.iter().zip(RUNS).enumerate() {
        let title = format!("<title>Run {} ", n + 1);
        assert!(run.contains(&title), "{run}");
        let when = format!(" · {commit} · 2026-11-{day} 10:00 UTC: ");
        assert!(run.contains(&when), "{run}");
    }
    assert!(runs[6].starts_with(" now\"><title>Run 7 (this run) · ccccccc"));
    assert!(runs[6].contains(": 2 passed, 3 failed, 0 flaky · 2.760s</title>"));
    // The same runs as a table, folded.
    assert!(page.contains("<details class=runs><summary>The runs as a table</summary>"));
    assert!(page.contains("<tr class=now><td>7 (this run)<td>ccccccc<td>2026-11-24 10:00"));
    // Each failure card's strip, in symbols and in words.
    assert_eq!(page.matches("<span class=strip role=img").count(), 3);
    let flip = "aria-label=\"Last 7 runs, oldest first: passed, flaky, passed 3 times, \
                failed 2 times\"><i class=p>✓</i><i class=k>↻</i>";
    assert!(page.contains(flip), "{page}");
    // The test slower than usual: how many times, now, its median.
    let slower = page.split("<section id=slower>").nth(1).unwrap_or_default();
    assert!(
        slower.starts_with("\n<h2>Slower than usual <span class=n>1 test at least")
            && slower.contains(
                "<td>tests/test_shop.py::test_slow<td>7.7× its median<small>median \
                 0.305s</small><td>2.350s"
            ),
        "{slower}"
    );
    assert!(page.contains("<a href=\"#trend\">Trend</a>"));
}

/// What the browser says was drawn, in one colour scheme.
fn drawn(driver: &std::path::Path, work: &std::path::Path, page: &PathBuf, dark: bool) -> Value {
    let scheme = if dark { "dark" } else { "light" };
    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("html-report-history-{scheme}.png"));
    let answer = drive(
        driver,
        work,
        &json!({"page": page, "script": false, "checks": ["history"], "shot": shot,
                "ids": [], "texts": [], "dark": dark}),
    );
    eprintln!("screenshot: {}", shot.display());
    answer["history"].clone()
}

#[test]
fn the_trend_and_the_strips_are_drawn_in_light_and_dark_without_scripts() {
    let Some(driver) = driver() else { return };
    let work = tempfile::tempdir().expect("temp dir");
    let page = write_page(work.path(), "history.html", &history_page());
    let mut fills = Vec::new();
    for dark in [false, true] {
        let h = drawn(&driver, work.path(), &page, dark);
        let t = &h["trend"];
        let background = h["background"].as_str().unwrap_or_default();
        // As wide as the page, and tall enough to read.
        assert!(t["width"].as_f64() > Some(800.0), "{t}");
        assert!(t["height"].as_f64() > Some(140.0), "{t}");
        assert_eq!(t["runs"], RUNS.len(), "{t}");
        assert_eq!(t["titles"].as_array().map(Vec::len), Some(RUNS.len()));
        // Passed, failed and flaky in colours of their own, none the
        // page's; the hit areas unseen; the durations a line.
        let f = &t["fills"];
        let parts = [&f["p"], &f["f"], &f["k"], &f["text"]];
        for (i, a) in parts.iter().enumerate() {
            assert!(a.as_str().is_some_and(|c| c.starts_with("rgb(")), "{f}");
            assert_ne!(a.as_str(), Some(background), "{f}");
            for b in &parts[i + 1..] {
                assert_ne!(a, b, "{f}");
            }
        }
        assert_eq!(f["hit"], "rgba(0, 0, 0, 0)", "{f}");
        assert_eq!(t["line"]["fill"], "none", "{t}");
        assert_ne!(t["line"]["stroke"], "none", "{t}");
        fills.push(f.clone());
        strips_read_in_symbols_and_colours(&h["strips"]);
    }
    // The dark scheme has colours of its own.
    assert_ne!(fills[0], fills[1]);
}

/// Each strip sits in its card's heading, says its outcomes in words,
/// shows them as symbols that read without colour, and colours each mark
/// apart from its background, failures apart from passes.
fn strips_read_in_symbols_and_colours(strips: &Value) {
    let strips = strips.as_array().expect("strips");
    assert_eq!(strips.len(), 3, "{strips:?}");
    for s in strips {
        assert_eq!(s["inside"], true, "{s}");
        let label = s["label"].as_str().unwrap_or_default();
        assert!(label.starts_with("Last 7 runs, oldest first: "), "{s}");
        let text = s["text"].as_str().unwrap_or_default();
        assert_eq!(text.chars().count(), 7, "{s}");
        assert!(text.chars().all(|c| "✓✗↻".contains(c)), "{s}");
        let marks = s["marks"].as_array().expect("marks");
        let color = |cls: &str| {
            marks
                .iter()
                .find(|m| m["cls"] == cls)
                .map(|m| m["color"].clone())
        };
        for m in marks {
            assert_ne!(m["color"], m["background"], "{s}");
        }
        if let (Some(p), Some(f)) = (color("p"), color("f")) {
            assert_ne!(p, f, "{s}");
        }
    }
}
