//! An earlier attempt of a rerun test (`Details::reruns`).

use super::{Location, Outcome};

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
