//! Renderers: pure functions from a [`Run`](crate::model::Run) to text.
//!
//! [`json`] is the ADR-006 structure, [`markdown`] the token-lean rendering.
//! Which one a request gets is chosen per request with [`Format`].

pub mod json;
pub mod markdown;
pub mod outcome;

/// An output format a request can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// Token-lean Markdown for agents, PR comments and job summaries.
    #[default]
    Markdown,
    /// The ADR-006 JSON object, every key always present.
    Json,
}
