//! The headline (`Test FAILURE (0.2s) — 3 run, 1 failed`) as the library
//! words it, for tests that check a headline outside the golden files.
//!
//! A test asserts the substance (the verdict, the counts) and takes the
//! words from here, which takes them from the library's own functions
//! (`render::view::headline`, `counts_phrase_of`): a change of wording is
//! one edit in `src/render/view/` and one `UPDATE_GOLDEN=1` run for the
//! goldens, never an edit of the tests that check a headline.

pub use pytest_mcp::model::Counts;
pub use pytest_mcp::render::view::Verdict;
use pytest_mcp::render::view::{counts_phrase_of, headline, headline_start};

/// Every verdict: the one list of them in the tests. The match below does
/// nothing at run time; it is there so that a new verdict stops the build
/// here, beside the list it must join.
pub fn every_verdict() -> Vec<Verdict> {
    let all = [
        Verdict::Success,
        Verdict::Failure,
        Verdict::NoTests,
        Verdict::Interrupted,
        Verdict::Error,
        Verdict::Timeout,
        Verdict::Crash,
        Verdict::Cancelled,
    ];
    for v in all {
        match v {
            Verdict::Success
            | Verdict::Failure
            | Verdict::NoTests
            | Verdict::Interrupted
            | Verdict::Error
            | Verdict::Timeout
            | Verdict::Crash
            | Verdict::Cancelled => {}
        }
    }
    all.to_vec()
}

/// How every headline starts (`Test FAILURE`, `Discover SUCCESS`, `Report
/// ERROR`, ...): what a page may open a heading with.
pub fn every_start() -> Vec<String> {
    let mut out = Vec::new();
    for v in every_verdict() {
        out.push(start(v));
        out.push(discover_start(v));
    }
    out.push(headline_start("Report", Verdict::Error));
    out
}

/// How a run's headline starts for `verdict`, up to its seconds:
/// `Test FAILURE`.
pub fn start(verdict: Verdict) -> String {
    headline_start("Test", verdict)
}

/// How a discovery's headline starts for `verdict`: `Discover SUCCESS`.
pub fn discover_start(verdict: Verdict) -> String {
    headline_start("Discover", verdict)
}

/// Whether `text` starts with a run's headline for `verdict`.
pub fn says(text: &str, verdict: Verdict) -> bool {
    text.starts_with(&start(verdict))
}

/// The counts phrase: `3 run, 1 failed, 1 skipped`.
pub fn counts(c: Counts) -> String {
    counts_phrase_of(&c)
}

/// The counts phrase of a run with `total` tests of which `failed` failed
/// and nothing else to say: `3 run, 1 failed`. The start of any longer
/// phrase of such a run.
pub fn run_failed(total: usize, failed: usize) -> String {
    counts(Counts {
        total,
        failed,
        ..Counts::default()
    })
}

/// The whole headline: `Test FAILURE (0.1s) — 4 run, 1 failed, 1 flaky`,
/// or without seconds where `secs` is `None` (the GitHub rendering's, after
/// its `## `).
pub fn line(verdict: Verdict, secs: Option<f64>, c: Counts) -> String {
    headline("Test", verdict, secs, &counts(c))
}

/// Where the counts start in a headline: the headline of `verdict` with
/// no counts (`Test FAILURE — `) after its start: ` — `. `text.contains(&before_counts() +
/// &counts(..))` checks the counts in their place.
pub fn before_counts() -> String {
    let empty = headline("Test", Verdict::Failure, None, "");
    let start = start(Verdict::Failure);
    empty[start.len()..].to_string()
}

/// The headline of `report`'s refusal of unreadable files: `Report ERROR
/// — <tail>`.
pub fn report_error(tail: &str) -> String {
    headline("Report", Verdict::Error, None, tail)
}
