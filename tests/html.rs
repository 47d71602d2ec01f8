//! The HTML report (`pytest_mcp::render::html`): structure, escaping, no
//! external resources, and the page driven in headless Chromium (filter,
//! search, sort, scripts off, 100,000 cases, a history's trend and strips
//! in light and dark).
//!
//! The browser tests need Debian's `chromium` package at /usr/bin/chromium
//! (`apt-get install chromium`), Node 20+ and npm (playwright-core, locked
//! in `tests/html_browser/`, is installed with `npm ci` into `target/`).
//! Without them the tests fail, unless `PYTEST_MCP_SKIP_CHROMIUM=1` is set
//! (for machines without a browser); they never pass silently. A
//! screenshot of the mixed project's report is left in
//! `target/tmp/html-report-mixed.png` for a look.

#[path = "html/browser.rs"]
mod browser;
#[path = "html/flaky.rs"]
mod flaky;
#[path = "html/history.rs"]
mod history;
#[path = "html/markup.rs"]
mod markup;

mod common;

use pytest_mcp::frontend::dispatch;
use pytest_mcp::frontend::report;
use pytest_mcp::render::view::{self, Compared};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::json;

use browser::{browse, chromium, drive, driver};
use common::headline::{Counts, Verdict, line, start};
use markup::{assert_one_document, assert_safe_markup, assert_strict_csp, report_text, text};
use pytest_mcp::budget::Budget;
use pytest_mcp::frontend::report::Input;
use pytest_mcp::model::Run;
use pytest_mcp::render::{html, markdown};
use pytest_mcp::request::OutputFormat;
use pytest_mcp::sources::junit;
use pytest_mcp_testkit::inputs;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read_run(files: &[PathBuf]) -> Run {
    let inputs: Vec<Input> = files
        .iter()
        .map(|file| Input {
            name: file.display().to_string(),
            contents: std::fs::read(file).map_err(|e| e.to_string()),
        })
        .collect();
    report::read_run(&inputs, report::Reading::for_format(OutputFormat::Html))
        .unwrap_or_else(|e| panic!("{files:?} do not read: {e:?}"))
}

/// The run of a pytest fixture, from its JSON report and xunit1 JUnit XML.
fn fixture_run(name: &str) -> Run {
    let dir = root().join("tests/fixtures/pytest").join(name);
    read_run(&[dir.join("report.json"), dir.join("junit-xunit1.xml")])
}

/// The ids a reader must find: failing and erroring tests, and files that
/// did not collect.
fn problem_ids(run: &Run) -> Vec<String> {
    let mut ids: Vec<String> = run
        .tests
        .iter()
        .filter(|t| t.is_problem())
        .map(|t| t.node_id.clone())
        .collect();
    ids.extend(run.collection_errors.iter().map(|e| e.file.clone()));
    ids
}

/// The first line of each failure's message, as a reader sees it.
fn problem_messages(run: &Run) -> Vec<String> {
    run.tests
        .iter()
        .filter(|t| t.is_problem())
        .filter_map(|t| t.message())
        .filter_map(|m| m.lines().map(str::trim).find(|l| !l.is_empty()))
        .map(|l| l.chars().take(100).collect())
        .collect()
}

/// A report page, checked as every report page must be.
fn report_page(run: &Run, title: &str) -> String {
    let page = html::report(run, None, title);
    assert_one_document(&page, title);
    assert_safe_markup(&page);
    assert_strict_csp(&page);
    // Every test has its row, every problem its full id.
    let rows = page.split("<div id=files>").nth(1).unwrap_or_default();
    assert_eq!(rows.matches("<tr class=").count(), run.tests.len(), "rows");
    for id in problem_ids(run) {
        assert!(page.contains(&report_text(&id)), "{id} is not in the page");
    }
    page
}

#[test]
fn every_fixture_makes_a_safe_report_listing_every_test() {
    for entry in std::fs::read_dir(root().join("tests/fixtures/pytest")).expect("fixtures") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .to_string();
        let dir = root().join("tests/fixtures/pytest").join(&name);
        if !dir.join("report.json").exists() || !dir.join("junit-xunit1.xml").exists() {
            continue;
        }
        let run = fixture_run(&name);
        let page = report_page(&run, &format!("pytest-mcp report — {name}"));
        for t in &run.tests {
            let shown = t.node_id.split_once("::").map_or(&*t.node_id, |(_, n)| n);
            assert!(
                page.contains(&report_text(shown)),
                "{name}: {shown} not listed"
            );
        }
    }
}

#[test]
fn mixed_report() {
    let run = fixture_run("mixed");
    let page = report_page(&run, "mixed");
    assert!(page.contains("<header class=\"top bad\">"));
    assert!(page.contains(&format!(
        "<b class=word>{}</b> <span>30 tests in ",
        Verdict::Failure.word()
    )));
    // The bar: 20 passed, 5 failed, 2 errors, 3 skipped of 30, in 1000 units.
    for rect in [
        "<rect class=p x=\"0.0\" width=\"666.7\"",
        "<rect class=f x=\"666.7\" width=\"166.7\"",
        "<rect class=e x=\"833.3\" width=\"66.7\"",
        "<rect class=s x=\"900.0\" width=\"100.0\"",
    ] {
        assert!(page.contains(rect), "{rect} not in the bar");
    }
    // The same 7 groups as the agent Markdown, each with its detail.
    assert_eq!(page.matches("<article class=\"grp").count(), 7);
    assert!(page.contains("<h3><span class=tag>ERROR at teardown</span> <code>tests/test_catalog.py::test_loan_checked_at_teardown</code></h3>"));
    assert!(page.contains("<span class=at>  at tests/test_catalog.py:54</span>\n<span class=src>  &gt; assert due == dt.date(2024, 3, 6)</span>"), "{page}");
    // Quotes in a message are text, not markup.
    assert!(page.contains("Right contains one more item: &#39;The Hobbit&#39;"));
    // Ten slowest, slowest first.
    let slow = page
        .split("<section id=slowest>")
        .nth(1)
        .unwrap_or_default();
    let slow = slow.split("</table>").next().unwrap_or_default();
    let times: Vec<f64> = slow
        .lines()
        .filter(|l| l.starts_with("<tr"))
        .filter_map(|l| l.rsplit("<td>").next()?.trim_end_matches('s').parse().ok())
        .collect();
    assert_eq!(times.len(), 10);
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "{times:?}");
    // A failing row links to its group; a file with failures is open, its
    // passes folded below them.
    assert!(page.contains("<td><a href=\"#g4\">error at teardown</a>"));
    assert!(page.contains(
        "<details class=file data-o=pfes open><summary><code>tests/test_catalog.py</code>"
    ));
    assert!(page.contains("<details class=rest><summary>10 passed, 2 skipped</summary>"));
    assert!(page.contains("<small>ISBN-13 with 979 prefix not supported yet</small>"));
}

#[test]
fn passing_files_are_collapsed() {
    let run = fixture_run("all_pass");
    let page = report_page(&run, "all pass");
    assert!(page.contains("<header class=\"top ok\">"));
    assert!(!page.contains("<section id=failures>"));
    assert!(page.contains("<details class=file data-o=p><summary>"));
    assert!(!page.contains(" open>"), "a passing file is open");
}

#[test]
fn collection_errors_report() {
    let run = fixture_run("collection_errors");
    let page = report_page(&run, "collection errors");
    assert!(page.contains(
        "<h3><span class=tag>COLLECTION ERROR</span> <code>tests/test_syntax_error.py</code></h3>"
    ));
    // The caret stays under the colon's place.
    assert!(
        page.contains("<span class=m>L6 — SyntaxError: expected &#39;:&#39;</span>\n  for n in range(5)\n                   ^\n"),
        "{page}"
    );
}

#[test]
fn baseline_report_shows_new_fixed_and_still_failing() {
    let dir = root().join("tests/fixtures/baseline");
    let run = read_run(&[dir.join("after.xml")]);
    let base = read_run(&[dir.join("before.xml")]);
    let page = dispatch::output(
        dispatch::Subject::Run {
            run: &run,
            compared: Some(&Compared::of(&run, &base)),
        },
        OutputFormat::Html,
        &dispatch::Style::report(Budget::NONE),
    )
    .text;
    assert_one_document(&page, "pytest-mcp report");
    assert_safe_markup(&page);
    assert_strict_csp(&page);
    let c = pytest_mcp::model::baseline::compare(&run, &base);
    assert!(!c.new_failures.is_empty() && !c.fixed.is_empty() && !c.still_failing.is_empty());
    let section = page
        .split("<section id=baseline>")
        .nth(1)
        .expect("a baseline section");
    let section = section.split("</section>").next().unwrap_or_default();
    let new_at = section.find("New failures").expect("new failures");
    let fixed_at = section.find("Fixed").expect("fixed");
    let still_at = section.find("Still failing").expect("still failing");
    assert!(
        new_at < fixed_at && fixed_at < still_at,
        "new failures first"
    );
    for id in c
        .new_failures
        .iter()
        .chain(&c.fixed)
        .chain(&c.still_failing)
    {
        assert!(
            section.contains(&report_text(id)),
            "{id} not in the comparison"
        );
    }
    // New failures link to their group.
    assert!(section.contains("<li><a href=\"#g"), "{section}");
}

/// A JUnit file whose ids, messages, traces and skip reasons hold markup.
const HOSTILE_JUNIT: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="4" failures="2" errors="0" skipped="2">
<testcase classname="tests.test_xss" name="test_script" file="tests/test_xss.py" line="3" time="0.01"><failure message="AssertionError: &lt;script&gt;alert(1)&lt;/script&gt;">def test_script():
&gt;       assert False, "&lt;script&gt;alert(1)&lt;/script&gt;"
E       AssertionError: &lt;script&gt;alert(1)&lt;/script&gt;
E       &lt;/code&gt;&lt;/pre&gt;&lt;img src=x onerror=alert(5)&gt;

tests/test_xss.py:4: AssertionError</failure></testcase>
<testcase classname="tests.test_xss" name="test_img[&lt;img src=x onerror=alert(2)&gt;]" file="tests/test_xss.py" line="8" time="0.01"><failure message="&lt;img src=x onerror=alert(2)&gt;">```
&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;alert(6)&lt;/script&gt;
```</failure></testcase>
<testcase classname="tests.test_xss" name="test_skip_html" file="tests/test_xss.py" line="12" time="0"><skipped message="&lt;iframe src=&quot;https://evil.example/&quot;&gt;&lt;/iframe&gt;"/></testcase>
<testcase classname="tests.test_xss" name="test_skip_md" file="tests/test_xss.py" line="16" time="0"><skipped message="see [docs](https://evil.example/) ![i](https://evil.example/i.png) &lt;https://evil.example/a&gt;"/></testcase>
</testsuite></testsuites>
"#;

#[test]
fn markup_in_test_output_is_escaped() {
    let run = junit::parse(HOSTILE_JUNIT.as_bytes(), "hostile.xml").expect("the XML reads");
    let title = "<script>alert(0)</script>";
    let page = report_page(&run, title);
    for shown in [
        "&lt;script&gt;alert(1)&lt;/script&gt;",
        "&lt;img src=x onerror=alert(2)&gt;",
        "&lt;/code&gt;&lt;/pre&gt;&lt;img src=x onerror=alert(5)&gt;",
        "&lt;iframe src=&quot;https://evil.example/&quot;&gt;&lt;/iframe&gt;",
        "see [docs](https://evil.example/) ![i](https://evil.example/i.png) &lt;https://evil.example/a&gt;",
    ] {
        assert!(
            page.contains(shown),
            "{shown} is not shown as text in\n{page}"
        );
    }
    // One script, ours: no test text closes or opens one.
    assert_eq!(page.matches("</script>").count(), 1);
}

#[test]
fn a_title_cannot_fill_a_placeholder() {
    let run = fixture_run("one_failure");
    let title = "{{body}} {{script}} & {{title}}";
    let page = html::report(&run, None, title);
    assert_one_document(&page, title);
    assert_eq!(page.matches("<section id=tests>").count(), 1);
    assert_eq!(
        page.matches("{{body}} {{script}} &amp; {{title}}").count(),
        2
    );
}

// --- the Markdown page, for errors and discovery ------------------------

#[test]
fn markdown_page_keeps_failure_detail_literal() {
    let run = fixture_run("one_failure");
    let page = html::markdown_page(
        &markdown::render(&run),
        "one failure",
        Some(view::Tone::Bad),
    );
    assert_one_document(&page, "one failure");
    assert_safe_markup(&page);
    assert!(!page.contains("<script"), "the Markdown page runs nothing");
    assert!(page.contains(
        "FAILED: tests/test_calc.py::test_discount_fractional (line 17)</h3>\n<pre><code>assert 9.99 == 8.991\n  +  where 9.99 = discount(9.99, 10)\n  &gt; assert discount(9.99, 10) == 8.991\n</code></pre>"
    ), "{page}");
}

#[test]
fn markup_in_any_markdown_position_is_escaped() {
    let md = "Test FAILURE (0.0s) — 1 run, 1 failed\n\
              <script>alert(1)</script>\n\
              \n\
              <div onclick=\"alert(2)\">\n\
              \n\
              ### FAILED: t.py::test[<img src=x onerror=alert(3)>]\n\
              \\> <style>body{background:url(https://evil.example/)}</style>\n  \
              <iframe src=\"https://evil.example/\"></iframe>\n\
              \n\
              ### OUTPUT (last lines)\n  \
              <script src=\"https://evil.example/x.js\"></script>\n\
              \n\
              ### tests/test_x.py\n\
              - L1 <object data=\"https://evil.example/\">\n\
              - [x](javascript:alert(4)) ![y](https://evil.example/y.png)\n\
              \n\
              > <img src=https://evil.example/n.png>\n\
              > <https://evil.example/auto>\n";
    let page = html::markdown_page(md, "t", None);
    assert_one_document(&page, "t");
    assert_safe_markup(&page);
    assert!(page.contains("&lt;img src=x onerror=alert(3)&gt;"));
    assert!(page.contains(
        "<pre><code>&gt; &lt;style&gt;body{background:url(https://evil.example/)}&lt;/style&gt;\n"
    ));
    assert!(page.contains("&lt;div onclick=\"alert(2)\"&gt;"));
    assert!(page.contains("[x](javascript:alert(4))"));
}
#[test]
fn markdown_page_title_cannot_fill_the_body_placeholder() {
    let success = Counts {
        total: 1,
        ..Counts::default()
    };
    let page = html::markdown_page(
        &format!("{}\n", line(Verdict::Success, Some(0.0), success)),
        "{{body}} & {{title}}",
        Some(view::Tone::Ok),
    );
    assert_one_document(&page, "{{body}} & {{title}}");
    assert_eq!(page.matches(&start(Verdict::Success)).count(), 1);
    assert_eq!(
        page.matches("{{body}} &amp; {{title}}").count(),
        2,
        "title and heading"
    );
}

// --- headless Chromium ---------------------------------------------------

/// A page written where the browser can read it.
fn write_page(work: &Path, name: &str, page: &str) -> PathBuf {
    let path = work.join(name);
    std::fs::write(&path, page).expect("write the page");
    path
}

#[test]
fn page_renders_in_headless_chromium_and_loads_nothing() {
    let Some(chromium) = chromium() else { return };
    let work = tempfile::tempdir().expect("temp dir");

    // The net-log check must see a load when there is one, or its silence
    // below proves nothing.
    let control = write_page(
        work.path(),
        "control.html",
        "<!DOCTYPE html><title>control</title><p>x</p>\
         <img src=\"http://img.pytest-mcp.invalid/x.png\">",
    );
    let seen = browse(chromium, &control, work.path(), &["--dump-dom".into()]);
    assert!(seen.status.success(), "chromium failed: {}", seen.stderr);
    assert!(
        seen.page_requests
            .contains("http://img.pytest-mcp.invalid/x.png"),
        "the net log does not show the control page's image load: {:?}",
        seen.page_requests
    );

    let run = fixture_run("mixed");
    let page = write_page(
        work.path(),
        "report.html",
        &report_page(&run, "pytest-mcp report — mixed"),
    );
    let browsed = browse(chromium, &page, work.path(), &["--dump-dom".into()]);
    assert!(
        browsed.status.success(),
        "chromium exited with {}: {}",
        browsed.status,
        browsed.stderr
    );
    let dom = &browsed.stdout;
    assert!(
        dom.contains("<title>pytest-mcp report — mixed</title>"),
        "{dom}"
    );
    for id in problem_ids(&run) {
        assert!(dom.contains(&text(&id)), "{id} not in the DOM:\n{dom}");
    }
    assert!(
        dom.contains("<pre class=\"detail\">"),
        "no detail blocks in the DOM"
    );
    // The script ran (its hash is in the CSP): the controls are shown.
    assert!(
        dom.contains("<form id=\"controls\" class=\"controls\">"),
        "the script did not run"
    );
    assert!(
        browsed.page_requests.is_empty(),
        "the page loaded {:?}",
        browsed.page_requests
    );

    // A page of Markdown (an error's) loads nothing either.
    let error_page = write_page(
        work.path(),
        "error.html",
        &html::markdown_page(
            "Test TIMEOUT (3.0s) — 1 run\n\n### OUTPUT\n  <img src=\"http://img.pytest-mcp.invalid/y.png\">\n",
            "t",
            Some(view::Tone::Bad),
        ),
    );
    let browsed = browse(chromium, &error_page, work.path(), &["--dump-dom".into()]);
    assert!(browsed.status.success());
    assert!(
        browsed.page_requests.is_empty(),
        "{:?}",
        browsed.page_requests
    );
}

/// The mixed project's page driven in the browser: its filters, its
/// search for `isbn10[` (as many rows as the run has such tests) and its
/// sorting, with a screenshot at `shot`: the browser's answer, and how
/// many tests the search should find.
fn interact(
    driver: &Path,
    work: &Path,
    page: &Path,
    run: &Run,
    shot: &Path,
) -> (serde_json::Value, usize) {
    let search = "isbn10[";
    let matching = run
        .tests
        .iter()
        .filter(|t| t.node_id.contains(search))
        .count();
    let answer = drive(
        driver,
        work,
        &json!({"page": page, "script": true, "checks": ["interact"], "shot": shot,
                "ids": [], "texts": [], "search": search, "search_count": matching}),
    );
    (answer, matching)
}

#[test]
fn filter_search_and_sort_work_in_the_dom() {
    let Some(driver) = driver() else { return };
    let work = tempfile::tempdir().expect("temp dir");
    let run = fixture_run("mixed");
    let page = write_page(
        work.path(),
        "mixed.html",
        &report_page(&run, "pytest-mcp report — mixed"),
    );
    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("html-report-mixed.png");
    let _ = std::fs::remove_file(&shot);
    let (answer, matching) = interact(&driver, work.path(), &page, &run, &shot);
    assert_eq!(
        answer["controls_shown"], true,
        "the script did not run: {answer}"
    );
    let r = &answer["interact"];
    let c = run.counts();
    let shown = |state: &str, o: &str| r[state]["shown"][o].as_u64().unwrap_or(u64::MAX) as usize;
    for (o, n) in [
        ("p", c.passed),
        ("f", c.failed),
        ("e", c.errors),
        ("s", c.skipped),
    ] {
        assert_eq!(shown("initial", o), n, "{o} at first: {r}");
        // Unticking "passed" hides the passes only.
        assert_eq!(
            shown("no_passed", o),
            if o == "p" { 0 } else { n },
            "{o}: {r}"
        );
        // Unticking "failed" and "error" hides those only.
        let want = if o == "f" || o == "e" { 0 } else { n };
        assert_eq!(shown("no_failures", o), want, "{o}: {r}");
        assert_eq!(
            shown("cleared", o),
            n,
            "{o} after the search is cleared: {r}"
        );
    }
    assert_eq!(
        r["no_passed"]["status"],
        format!("{} of {} tests shown", c.total - c.passed, c.total)
    );
    // The search narrows to the matching rows, and opens their files.
    let found: usize = ["p", "f", "e", "s"]
        .iter()
        .map(|o| shown("search", o))
        .sum();
    assert_eq!(found, matching, "{r}");
    assert_eq!(r["search"]["wrong_shown"], 0, "{r}");
    assert_eq!(r["search"]["wrong_hidden"], 0, "{r}");
    assert_eq!(r["search_open"], true);
    for state in ["initial", "no_passed", "no_failures", "search", "cleared"] {
        assert_eq!(r[state]["style_disagrees"], 0, "{state}: {r}");
    }
    assert_sorted(r, run.tests.len());
    let png = std::fs::read(&shot).expect("the screenshot");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 20_000);
    eprintln!("screenshot: {}", shot.display());
}

/// Sorting by duration orders every table's rows and the files; by name,
/// every table's rows.
fn assert_sorted(r: &serde_json::Value, tests: usize) {
    assert!(
        r["before_sort"]["duration_inversions"].as_u64() > Some(0),
        "nothing to sort: {r}"
    );
    assert_eq!(r["by_duration"]["duration_inversions"], 0, "{r}");
    assert_eq!(r["by_duration"]["file_inversions"], 0, "{r}");
    assert_eq!(r["by_name"]["name_inversions"], 0, "{r}");
    assert_eq!(r["by_name"]["rows"], tests);
}

#[test]
fn without_scripts_every_failure_shows() {
    let Some(driver) = driver() else { return };
    let work = tempfile::tempdir().expect("temp dir");
    let hostile = junit::parse(HOSTILE_JUNIT.as_bytes(), "hostile.xml").expect("the XML reads");
    for (name, run) in [
        ("mixed", fixture_run("mixed")),
        ("hostile", hostile),
        ("collection_errors", fixture_run("collection_errors")),
    ] {
        let page = write_page(
            work.path(),
            &format!("{name}.html"),
            &report_page(&run, name),
        );
        let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("html-report-{name}-noscript.png"));
        let answer = drive(
            &driver,
            work.path(),
            &json!({"page": page, "script": false, "checks": ["visible", "print"], "shot": shot,
                    "ids": problem_ids(&run), "texts": problem_messages(&run)}),
        );
        assert_eq!(
            answer["controls_shown"], false,
            "{name}: controls without a script"
        );
        assert_eq!(
            answer["missing_ids"],
            json!([]),
            "{name}: failing ids not shown: {answer}"
        );
        assert_eq!(
            answer["missing_texts"],
            json!([]),
            "{name}: messages not shown: {answer}"
        );
        // Printed, every row is there (passes unfolded), every failure's
        // detail, and no controls.
        let print = &answer["print"];
        assert_eq!(
            print["rows_shown"], print["rows"],
            "{name}: printed rows: {print}"
        );
        assert_eq!(print["rows"], run.tests.len(), "{name}: {print}");
        assert_eq!(print["details_hidden"], 0, "{name}: {print}");
        assert_eq!(print["controls_shown"], false, "{name}: {print}");
    }
}

#[test]
fn a_hundred_thousand_cases_open_in_seconds() {
    let Some(driver) = driver() else { return };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("html-big");
    let (xml, _json) = inputs::big_reports(&dir, 100_000);
    let run = read_run(&[xml]);
    assert_eq!(run.tests.len(), 100_000);
    let started = Instant::now();
    let page = html::report(&run, None, "100,000 cases");
    let render = started.elapsed();
    let path = write_page(&dir, "report-100000.html", &page);
    let search = "test_case_4242";
    let matching = run
        .tests
        .iter()
        .filter(|t| t.node_id.contains(search))
        .count();
    let answer = drive(
        &driver,
        &dir,
        &json!({"page": path, "script": true, "checks": ["interact"], "shot": null,
                "ids": [], "texts": [], "search": search, "search_count": matching,
                "style_step": 997}),
    );
    let load = answer["load_ms"].as_u64().unwrap_or(u64::MAX);
    let r = &answer["interact"];
    eprintln!(
        "100,000 cases: page {:.1} MB, rendered in {:.2}s; Chromium: load {} ms \
         (DOMContentLoaded {} ms, load event {} ms, first frame {} ms); filter {} ms, \
         search {} ms, sort by duration {} ms",
        page.len() as f64 / 1e6,
        render.as_secs_f64(),
        load,
        answer["nav"]["dom_content_loaded_ms"],
        answer["nav"]["load_ms"],
        answer["first_frame_ms"],
        r["filter_ms"],
        r["search_ms"],
        r["sort_ms"],
    );
    assert!(load < 60_000, "the page took {load} ms to load");
    assert_eq!(answer["controls_shown"], true);
    assert_eq!(r["no_passed"]["shown"]["p"], 0, "{r}");
    assert_eq!(r["no_passed"]["shown"]["f"], 1000, "{r}");
    for state in ["initial", "no_passed", "no_failures", "search", "cleared"] {
        assert_eq!(r[state]["style_disagrees"], 0, "{state}: {r}");
    }
    let found: u64 = ["p", "f", "e", "s"]
        .iter()
        .filter_map(|o| r["search"]["shown"][o].as_u64())
        .sum();
    assert_eq!(found as usize, matching, "{r}");
    assert_eq!(r["by_duration"]["duration_inversions"], 0, "{r}");
    assert_eq!(r["by_duration"]["file_inversions"], 0, "{r}");
    assert!(page.len() < 12_000_000, "{} bytes", page.len());
}
