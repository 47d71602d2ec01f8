//! The phrases several outputs say alike, written once: the counts of a
//! run (`42 run, 2 failed, 1 error, ...`) and which sources it was read
//! from.

use std::fmt::Write as _;

use crate::model::{Counts, Run, SourceKind};
use crate::text::plural;

/// `42 run, 2 failed, 1 error, 3 skipped (1 xfailed), 1 xpassed, ...`;
/// planned tests no shard ran are errors, `9 errors (9 not run)`.
pub fn counts_phrase(run: &Run) -> String {
    counts_phrase_of(&run.counts())
}

/// [`counts_phrase`] with the run's counts already made.
pub fn counts_phrase_of(c: &Counts) -> String {
    let note = subtests_note(c);
    // Planned tests no shard ran are errors of the run but were never run:
    // the total is then what was planned, and "run" what came back.
    let mut s = match c.not_run {
        0 => format!("{} run, {} failed{note}", c.total, c.failed),
        n => format!(
            "{} planned, {} run, {} failed{note}",
            c.total,
            c.total.saturating_sub(n),
            c.failed
        ),
    };
    if c.errors > 0 {
        let _ = write!(s, ", {}", plural(c.errors, "error", "errors"));
    }
    if c.not_run > 0 {
        let _ = write!(s, " ({} not run)", c.not_run);
    }
    if c.flaky_failures > 0 {
        let _ = write!(s, " ({} flaky)", c.flaky_failures);
    }
    if c.skipped > 0 {
        let _ = write!(s, ", {} skipped", c.skipped);
        if c.xfailed > 0 {
            let _ = write!(s, " ({} xfailed)", c.xfailed);
        }
    }
    if c.xpassed > 0 {
        let _ = write!(s, ", {} xpassed", c.xpassed);
    }
    if c.flaky > 0 {
        let _ = write!(s, ", {} flaky", c.flaky);
    }
    if c.collection_errors > 0 {
        let _ = write!(
            s,
            ", {}",
            plural(c.collection_errors, "collection error", "collection errors")
        );
    }
    if c.warnings > 0 {
        let _ = write!(s, ", {}", plural(c.warnings, "warning", "warnings"));
    }
    s
}

/// ` (8 subtests)`: the header's word on how many of the failures are
/// subtests (pytest counts each failed subtest as a failure), or nothing.
fn subtests_note(c: &Counts) -> String {
    match c.subtests_failed {
        0 => String::new(),
        1 => " (1 subtest)".to_string(),
        n => format!(" ({n} subtests)"),
    }
}

/// The run was read from what a run of pytest writes when all is well:
/// one pytest-json-report file and one pytest JUnit XML file. The agent's
/// answer names its sources only otherwise (one missing, or another kind),
/// where they say how much to trust it; sources that disagree add notes
/// of their own.
pub fn read_as_usual(run: &Run) -> bool {
    let [a, b] = run.sources.as_slice() else {
        return false;
    };
    let pair = (a.kind, b.kind);
    pair == (SourceKind::JsonReport, SourceKind::PytestJunit)
        || pair == (SourceKind::PytestJunit, SourceKind::JsonReport)
}

/// Which kinds of source the run was read from, e.g. `Sources:
/// pytest-json-report, pytest JUnit XML` or `Sources: 3 JUnit XML files`.
pub fn sources_note(run: &Run) -> String {
    let mut kinds: Vec<(SourceKind, usize)> = Vec::new();
    for s in &run.sources {
        match kinds.iter_mut().find(|(k, _)| *k == s.kind) {
            Some((_, n)) => *n += 1,
            None => kinds.push((s.kind, 1)),
        }
    }
    let parts: Vec<String> = kinds
        .iter()
        .map(|(k, n)| match n {
            1 => k.describe().to_string(),
            n => format!("{n} {} files", k.describe()),
        })
        .collect();
    format!("Sources: {}", parts.join(", "))
}
