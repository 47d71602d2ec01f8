//! What pytest-testmon selected for a run with `affected`: the agent's
//! loop runs only the tests whose code changed since they last ran.
//!
//! pytest-testmon records, per test, the code it ran (its database,
//! `.testmondata`, beside the project). A later run selects the tests whose
//! recorded code changed, and the ones that failed last time; the others
//! are left out, most of them without even collecting their files. Our
//! event-log plugin counts those within the run's paths
//! ([`Affected::left_out`]). Its first run, or one after the installed
//! packages changed, runs everything.

/// Why a run with `affected` ran every test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllRan {
    /// pytest-testmon had no record yet: this run made it.
    FirstRun,
    /// The installed packages changed, which any test may depend on.
    PackagesChanged,
}

impl AllRan {
    /// The JSON answer's word for it.
    pub fn as_str(self) -> &'static str {
        match self {
            AllRan::FirstRun => "first_run",
            AllRan::PackagesChanged => "packages_changed",
        }
    }
}

/// pytest-testmon's selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Affected {
    /// Tests within this run's paths that pytest-testmon left out as
    /// untouched by the changes (before `-k`/`-m`, which cannot be matched
    /// against tests whose files were not collected).
    pub left_out: usize,
    /// Set when every test ran, and why.
    pub all_ran: Option<AllRan>,
}

impl Affected {
    /// The Markdown's line, for a run of `ran` tests: short, it is in
    /// every answer of the loop (what ran is the tests that ran changed
    /// code and the ones failing before, as the tool's description says).
    pub fn phrase(&self, ran: usize) -> String {
        match self.all_ran {
            Some(AllRan::FirstRun) => format!(
                "Affected only (pytest-testmon): first run, so all {ran} ran while it records the code each test runs."
            ),
            Some(AllRan::PackagesChanged) => format!(
                "Affected only (pytest-testmon): the installed packages changed, so all {ran} ran."
            ),
            None => format!(
                "Affected only (pytest-testmon): {ran} ran, {} unaffected left out.",
                self.left_out
            ),
        }
    }
}

#[cfg(test)]
mod tests;
