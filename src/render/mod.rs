//! Renderers: pure functions from a [`Run`](crate::model::Run) to text.
//!
//! [`json`] is the ADR-006 structure, [`markdown`] the token-lean rendering,
//! [`html`] a self-contained report page for people, [`junit`] standard JUnit XML,
//! [`github`] GitHub workflow commands (annotations), [`gfm`] GitHub
//! Flavored Markdown for people (job summaries, PR comments),
//! [`outcome`] execution errors, [`discovery`] what discovery found,
//! [`structured`] the MCP tools' structured results.
//! Which one a request gets is the frontends' choice (`crate::request::Format`).

pub mod discovery;
pub mod gfm;
pub mod github;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod outcome;
pub mod structured;
pub mod view;
