//! An earlier attempt of a rerun test (`Details::reruns`).

use super::{Location, Outcome, TestResult};

/// One earlier attempt of a rerun test.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    pub outcome: Outcome,
    pub message: Option<String>,
    /// Where it failed, when the source says: a flaky test's line shows
    /// where its first attempt failed, as a failure's section does.
    pub location: Option<Location>,
}

impl Attempt {
    /// A failed attempt saying `message`, with no location.
    pub fn failed(message: Option<String>) -> Attempt {
        Attempt {
            outcome: Outcome::Failed,
            message,
            location: None,
        }
    }
}

impl TestResult {
    /// The first line that says something of a flaky test's first failed
    /// attempt that has a message, and where that attempt failed when the
    /// source says: what every output shows of how a flaky test got there.
    pub fn first_failed_attempt(&self) -> Option<(&str, Option<&Location>)> {
        self.reruns().iter().find_map(|a| {
            let m = a.message.as_deref()?;
            let line = m.lines().map(str::trim).find(|l| !l.is_empty())?;
            Some((line, a.location.as_ref()))
        })
    }
}
