//! The view of a run: what every output shows, worked out once and in no
//! format. Failure groups as shown (first test, count, the others' ids,
//! new or not, label), skip reasons, flaky tests, the slowest tests and
//! the comparison with a baseline are decided here, and, with a history of
//! runs, each failure's strip of recent outcomes, the trend of the runs
//! and the tests slower than usual (`history.rs`); Markdown,
//! the GitHub rendering, JSON, the structured result, HTML and the
//! annotations only format them (ARCHITECTURE.md, "One view, thin
//! outputs").

mod coverage;
pub mod failure;
mod groups;
mod history;
mod lists;
mod phrases;
mod shards;
mod status;
mod summary;

pub use coverage::{
    CoverageSummary, LeftBehindLines, Uncovered, coverage_files, coverage_gaps,
    coverage_left_behind, coverage_phrase, coverage_ranges, coverage_summary, coverage_was,
};
pub use groups::{
    Group, New, error_phase, failure_groups, history_mark, label, new_words, rate, short_commit,
    standing_mark,
};
pub use history::{
    STRIP, Slower, Strip, Trend, TrendRun, slower, strip, strip_legend, symbol, trend,
};
pub use lists::{SkipReasons, Standings, flaky, skip_reasons, slowest, standings};
pub use phrases::{counts_phrase, counts_phrase_of, read_as_usual, sources_note};
pub use shards::{Line, Part, Shards, shards};
pub use status::{
    ExitReason, Status, Tone, Verdict, discovery_status, error_verdict, headline, headline_start,
    status, status_with,
};
pub use summary::summary;

use crate::model::baseline::{Comparison, compare};
use crate::model::{Counts, Run};

/// Ids of a parametrized function's first cases discovery's JSON keeps
/// (`case_ids`), so an agent sees their shape and can run one case; its
/// Markdown says so.
pub const CASE_IDS_SHOWN: usize = 3;

/// A run compared with a baseline run: made once per answer, whatever the
/// format.
#[derive(Debug, Clone)]
pub struct Compared {
    pub comparison: Comparison,
    /// The baseline's counts.
    pub counts: Counts,
}

impl Compared {
    pub fn of(run: &Run, baseline: &Run) -> Compared {
        Compared {
            comparison: compare(run, baseline),
            counts: baseline.counts(),
        }
    }
}

#[cfg(test)]
mod tests;
