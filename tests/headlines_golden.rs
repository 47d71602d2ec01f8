//! The headline's words, pinned once: each verdict's headline and the
//! counts phrase of runs of every kind (`golden/headlines/expected.txt`).
//! Every other test takes these words from the library
//! (`tests/common/headline.rs`), the Python and TypeScript MCP clients
//! from the structured result: a change of wording is one edit in
//! `src/render/view/` and one `UPDATE_GOLDEN=1 bash scripts/check.sh`.

use std::path::PathBuf;

use pytest_mcp::model::Counts;
use pytest_mcp::render::view::{self, Verdict};

mod common;
use common::golden::check;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every verdict (the tests' one list) with a tail its headline may have:
/// a new verdict does not compile here until it has its tail.
fn every_verdict() -> Vec<(Verdict, &'static str)> {
    common::headline::every_verdict()
        .into_iter()
        .map(|v| {
            let tail = match v {
                Verdict::Success => "3 run, 0 failed",
                Verdict::Failure => "3 run, 1 failed",
                Verdict::NoTests => "0 run, 0 failed",
                Verdict::Interrupted => "2 run, 0 failed",
                Verdict::Error => "pytest's usage error",
                Verdict::Timeout => "pytest execution exceeded the timeout of 3 seconds",
                Verdict::Crash => "pytest was killed by SIGSEGV",
                Verdict::Cancelled => "the request was cancelled",
            };
            (v, tail)
        })
        .collect()
}

/// The headline's words, pinned once (`golden/headlines/expected.txt`):
/// each verdict's headline, and the counts phrase of runs with failed
/// subtests, planned tests not run and every kind of count. The other tests
/// take these words from the library (`tests/common/headline.rs`), so a
/// change of wording is one edit and one `UPDATE_GOLDEN=1` run.
#[test]
fn headlines_golden() {
    let counts = |total, failed| Counts {
        total,
        failed,
        ..Counts::default()
    };
    let samples = [
        counts(5, 4),
        Counts {
            subtests_failed: 1,
            ..counts(5, 4)
        },
        Counts {
            subtests_failed: 4,
            ..counts(5, 4)
        },
        Counts {
            errors: 9,
            not_run: 9,
            ..counts(28, 0)
        },
        Counts {
            passed: 30,
            errors: 1,
            skipped: 3,
            xfailed: 1,
            xpassed: 1,
            flaky: 1,
            flaky_failures: 1,
            collection_errors: 1,
            warnings: 2,
            ..counts(42, 2)
        },
        counts(0, 0),
    ];
    let mut text = String::new();
    for (verdict, tail) in every_verdict() {
        text.push_str(&view::headline("Test", verdict, Some(0.2), tail));
        text.push('\n');
    }
    text.push_str(&view::headline(
        "Discover",
        Verdict::Success,
        None,
        "5 tests in 1 file",
    ));
    text.push('\n');
    for c in &samples {
        text.push_str(&view::counts_phrase_of(c));
        text.push('\n');
    }
    let path = root().join("golden/headlines/expected.txt");
    std::fs::create_dir_all(root().join("golden/headlines")).expect("golden/headlines");
    if let Some(diff) = check(&path, &text) {
        panic!("{diff}");
    }
}
