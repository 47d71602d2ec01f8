//! A run a warm process forked (docs/warm.md): the one mark it leaves on
//! the model, which only the structured result shows.

/// A run a warm process forked.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Warm {
    /// What the warm process spent importing before the run, which a cold
    /// run would have spent again: the time the preload saved.
    pub saved_seconds: f64,
}
