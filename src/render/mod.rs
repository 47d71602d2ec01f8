//! Renderers: pure functions from a [`Run`](crate::model::Run) to text.
//!
//! [`json`] is the ADR-006 structure, [`markdown`] the token-lean rendering,
//! [`html`] a self-contained page of the Markdown, [`junit`] standard JUnit XML,
//! [`outcome`] execution errors and discovery.
//! Which one a request gets is chosen per request with [`Format`].

pub mod html;
pub mod json;
pub mod junit;
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
    /// A self-contained HTML page of the Markdown (no external resources).
    Html,
    /// Standard JUnit XML (results only; errors and discovery print Markdown).
    Junit,
}

impl Format {
    /// A Markdown text in this format's clothing: an HTML page for `html`,
    /// the text itself otherwise. For answers that have no JSON-free
    /// structured form (errors, discovery) in HTML or JUnit.
    pub fn markdown_page(self, markdown: String, title: &str) -> String {
        match self {
            Format::Html => html::render(&markdown, title),
            _ => markdown,
        }
    }
}
