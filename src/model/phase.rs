//! A test's phases: which one failed ([`Phase`]), and how long each took
//! ([`PhaseSplit`]).

/// The test phase in which a test failed or errored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    Setup,
    Call,
    Teardown,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Setup => "setup",
            Phase::Call => "call",
            Phase::Teardown => "teardown",
        }
    }

    /// `[teardown]`: the line before a phase's traceback in a joined one
    /// ([`crate::model::TestResult::joined_traceback`]).
    pub fn marker(self) -> &'static str {
        match self {
            Phase::Setup => "[setup]",
            Phase::Call => "[call]",
            Phase::Teardown => "[teardown]",
        }
    }
}

/// Shares of a test's duration, in units of 1/`SCALE`.
const SCALE: u16 = u16::MAX - 1;

/// How a test's duration splits into setup, call and teardown, as shares
/// of it: what the history keeps per test so that a plan of shards can
/// count a module's shared setup once (issue 42). pytest-json-report and
/// the event log time each phase; JUnit has only the total.
///
/// Four bytes, not three `f64`s: a report of 100,000 tests holds one
/// [`crate::model::TestResult`] per test, and the split keeps it at 80
/// bytes. Each share is within 1/131,068 of the duration: under a
/// millisecond for a test shorter than two minutes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PhaseSplit {
    /// Setup's share, plus one (so that `Option<PhaseSplit>` costs
    /// nothing more).
    setup: std::num::NonZeroU16,
    /// Teardown's share; the call has the rest.
    teardown: u16,
}

/// A test's phases in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PhaseTimes {
    pub setup: f64,
    pub call: f64,
    pub teardown: f64,
}

impl PhaseSplit {
    /// The split of phases that took these seconds (a phase that did not
    /// run: 0). `None` when they add up to no time, or one is not a time
    /// (negative, not finite).
    pub fn of(setup: f64, call: f64, teardown: f64) -> Option<PhaseSplit> {
        let times = [setup, call, teardown];
        if times.iter().any(|t| !t.is_finite() || *t < 0.0) {
            return None;
        }
        let total: f64 = times.iter().sum();
        if total <= 0.0 || !total.is_finite() {
            return None;
        }
        let share = |t: f64| (t / total * f64::from(SCALE)).round().min(f64::from(SCALE)) as u16;
        let setup = share(setup);
        let teardown = share(teardown).min(SCALE - setup);
        Some(PhaseSplit {
            setup: std::num::NonZeroU16::new(setup + 1)?,
            teardown,
        })
    }

    /// The phases' seconds of a test that took `total`.
    pub fn times(self, total: f64) -> PhaseTimes {
        let part = |share: u16| total * f64::from(share) / f64::from(SCALE);
        let setup = part(self.setup.get() - 1);
        let teardown = part(self.teardown);
        PhaseTimes {
            setup,
            call: (total - setup - teardown).max(0.0),
            teardown,
        }
    }
}

#[cfg(test)]
mod tests;
