//! A run's counts by outcome, as pytest counts them: each failed subtest
//! ([`super::subtests`]) is a failure of its own, and a test that failed
//! by its subtests alone (unittest's `subTest`) is among the passed.

use super::{Outcome, Run, Xfail, history};

/// Counts over a run. `total == passed + failed + skipped + errors` always;
/// `xfailed` is a subset of `skipped`, `xpassed` of `passed`. Collection
/// errors are not tests and are counted in `collection_errors`.
///
/// Failed subtests are counted as pytest's closing line counts them: each
/// one in `failed` (and so in `total`), `subtests_failed` saying how many
/// of them there are; the test holding them counts as pytest reports it
/// (failed, "contains 2 failed subtests", for pytest's `subtests` fixture;
/// passed for unittest's `subTest`, whose test's own phases passed).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub total: usize,
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    pub errors: usize,
    pub xfailed: usize,
    pub xpassed: usize,
    /// Passed after failing attempts (a subset of `passed`).
    pub flaky: usize,
    /// Failed or errored, and flaky by the history of runs ([`Run::history`],
    /// docs/flaky.md): a subset of `failed + errors`.
    pub flaky_failures: usize,
    /// Failed subtests (a subset of `failed`).
    pub subtests_failed: usize,
    pub collection_errors: usize,
    pub warnings: usize,
    /// Planned tests no shard ran (`report --plan`): a subset of `errors`.
    pub not_run: usize,
}

impl Run {
    /// Counts the tests by outcome, and failed subtests as pytest does.
    pub fn counts(&self) -> Counts {
        let mut c = Counts {
            total: self.tests.len() + self.unlisted.passed,
            passed: self.unlisted.passed,
            collection_errors: self.collection_errors.len(),
            warnings: self.warnings.len(),
            not_run: self.shards.as_ref().map_or(0, |s| s.not_run.len()),
            ..Counts::default()
        };
        for t in &self.tests {
            let mut counted = t.outcome;
            if let Some(s) = t.subtests() {
                c.subtests_failed += s.failed.len();
                if s.test_passed && counted == Outcome::Failed {
                    counted = Outcome::Passed;
                }
            }
            match counted {
                Outcome::Passed => c.passed += 1,
                Outcome::Failed => c.failed += 1,
                Outcome::Skipped => c.skipped += 1,
                Outcome::Error => c.errors += 1,
            }
            if t.is_flaky() {
                c.flaky += 1;
            }
            if let Some(h) = &self.history
                && h.standing(t) == Some(history::Standing::Flaky)
            {
                c.flaky_failures += 1;
            }
            match t.xfail {
                Some(Xfail::XFailed) => c.xfailed += 1,
                Some(Xfail::XPassed) => c.xpassed += 1,
                None => {}
            }
        }
        c.failed += c.subtests_failed;
        c.total += c.subtests_failed;
        c
    }
}
