//! Shards merged at scale (issue 42, item 6), at a small size: ten
//! generated JUnit XML shards of a few hundred cases each. Read one file
//! at a time or on every core, `report` writes the same bytes in every
//! format, and the merge holds every shard's tests. A Markdown merge of
//! JUnit files counts plain passes instead of listing them: it renders as
//! the merge that lists them, with and without the files' recorded times.
//! Behaviour only; the timings are in BENCHMARKS.md.

use std::path::{Path, PathBuf};

use pytest_mcp::frontend::dispatch::{self, Style, Subject};
use pytest_mcp::frontend::report::{self, Input, Reading, RenderOnly};
use pytest_mcp::request::OutputFormat;

mod common;
use common::headline::{Counts, before_counts, counts};
use common::support::report_bytes;

const SHARDS: usize = 10;
const CASES: usize = 300;

/// Shard `k`'s JUnit XML: `CASES` cases in modules of its own, every
/// 37th failing, every 23rd skipped, parametrized passes among them; the
/// suite's time recorded when `timed`.
fn shard(k: usize, timed: bool) -> String {
    let (mut failures, mut skipped) = (0, 0);
    let mut cases = String::new();
    for i in 0..CASES {
        let class = format!("tests.shard{k}.test_mod{}", i / 50);
        let name = if i % 5 == 0 {
            format!("test_param[{i}]")
        } else {
            format!("test_{i}")
        };
        let time = format!("{:.3}", 0.001 * ((i * 7 + k) % 13) as f64 + 0.0004);
        let open = format!(r#"<testcase classname="{class}" name="{name}" time="{time}""#);
        if i % 37 == 36 {
            failures += 1;
            cases.push_str(&format!(
                r#"{open}><failure message="assert {i} == {k}">tests/shard{k}/test_mod.py:{i}: AssertionError</failure></testcase>"#
            ));
        } else if i % 23 == 22 {
            skipped += 1;
            cases.push_str(&format!(
                r#"{open}><skipped type="pytest.skip" message="not here">tests/shard{k}/test_mod.py:{i}: not here</skipped></testcase>"#
            ));
        } else {
            cases.push_str(&format!("{open} />"));
        }
    }
    let time = if timed {
        format!(r#" time="{}.25""#, k + 1)
    } else {
        String::new()
    };
    format!(
        r#"<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" failures="{failures}" skipped="{skipped}" tests="{CASES}"{time}>{cases}</testsuite></testsuites>"#
    )
}

/// The ten shards written under `dir`.
fn write_shards(dir: &Path, timed: bool) -> Vec<PathBuf> {
    (0..SHARDS)
        .map(|k| {
            let path = dir.join(format!("shard-{k}.xml"));
            std::fs::write(&path, shard(k, timed)).expect("write a shard");
            path
        })
        .collect()
}

#[test]
fn ten_shards_read_on_every_core_write_what_one_at_a_time_writes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let files = write_shards(dir.path(), true);
    for format in OutputFormat::all().iter().map(|f| f.cli_name()) {
        let serial = report_bytes(format, &["--threads", "1"], &files);
        for threads in [&["--threads", "2"][..], &["-j", "4"], &[]] {
            let parallel = report_bytes(format, threads, &files);
            assert!(
                serial == parallel,
                "{format} {threads:?}: {} bytes read serially, {} in parallel",
                serial.len(),
                parallel.len()
            );
        }
    }
}

#[test]
fn ten_shards_merged_hold_every_shards_tests() {
    let dir = tempfile::tempdir().expect("temp dir");
    let files = write_shards(dir.path(), true);
    let json = report_bytes("json", &[], &files);
    let value: serde_json::Value = serde_json::from_slice(&json).expect("JSON");
    let tests = value["tests"].as_array().expect("tests");
    assert_eq!(tests.len(), SHARDS * CASES);
    let summary = &value["summary"];
    assert_eq!(summary["total"], SHARDS * CASES, "{summary}");
    let failed = (0..CASES).filter(|i| i % 37 == 36).count();
    let skipped = (0..CASES).filter(|i| i % 37 != 36 && i % 23 == 22).count();
    assert_eq!(summary["failed"], SHARDS * failed, "{summary}");
    assert_eq!(summary["skipped"], SHARDS * skipped, "{summary}");
    assert_eq!(
        summary["passed"],
        SHARDS * (CASES - failed - skipped),
        "{summary}"
    );
    // Every shard's every test, once.
    let mut ids: Vec<&str> = tests.iter().filter_map(|t| t["node_id"].as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), SHARDS * CASES);
    // The Markdown's headline counts them all too.
    let markdown = String::from_utf8(report_bytes("markdown", &[], &files)).expect("UTF-8");
    let headline = format!(
        "{}{}",
        before_counts().trim_start(),
        counts(Counts {
            total: SHARDS * CASES,
            failed: SHARDS * failed,
            skipped: SHARDS * skipped,
            ..Counts::default()
        })
    );
    assert!(markdown.contains(&headline), "{markdown}");
}

/// The shards as the library takes them.
fn inputs(timed: bool) -> Vec<Input> {
    (0..SHARDS)
        .map(|k| Input {
            name: format!("shard-{k}.xml"),
            contents: Ok(shard(k, timed).into_bytes()),
        })
        .collect()
}

#[test]
fn a_markdown_merge_counting_passes_renders_as_the_merge_listing_them() {
    let style = Style::report(report::cli_budget(
        OutputFormat::Markdown,
        None,
        report::DEFAULT_MAX_CHARS,
    ));
    // Passes counted, timed or not: untimed, the duration is the tests'
    // sum, exact, so the same taken file by file as over the full list.
    for timed in [true, false] {
        let inputs = inputs(timed);
        let counted = RenderOnly::read(&inputs, OutputFormat::Markdown).expect("read");
        let reading = Reading::for_format(OutputFormat::Markdown);
        let listed = report::read_run(&inputs, reading).expect("read");
        assert_eq!(counted.counts(), listed.counts(), "timed: {timed}");
        assert!(counted.unlisted().passed > 0, "timed: {timed}");
        let expected = dispatch::output(Subject::run(&listed), OutputFormat::Markdown, &style);
        assert_eq!(counted.render(&style).text, expected.text, "timed: {timed}");
        // One at a time or on every core: the same run.
        let serial = RenderOnly::read_on(&inputs, OutputFormat::Markdown, 1).expect("read");
        assert_eq!(serial.render(&style).text, expected.text, "timed: {timed}");
    }
}
