//! Renderers: pure functions from the model (a [`Run`](crate::model::Run),
//! a discovery, an execution error) to text.
//!
//! One shared core and thin outputs over it:
//!
//! - [`view`] works out once what every output shows: the failure groups
//!   as shown (first test, count, the others' ids, new or not, label),
//!   skip reasons, flaky tests, the slowest tests, the comparison with a
//!   baseline. No output builds any of these itself.
//! - Every output that has a budget makes an offer
//!   ([`crate::budget::Offer`]): its whole answer when it fits, else its
//!   plans, richest first ([`crate::budget::Plans`]), and how one is
//!   rendered with its note on what it left out. The one fitting loop,
//!   [`crate::budget::fit`], chooses; it is called from the dispatch
//!   (`frontend::dispatch::output`) and for the tools' structured results
//!   (`frontend::respond`) only.
//! - The outputs: [`markdown`] the token-lean rendering for agents,
//!   [`json`] the JSON report (docs/json-report.md), [`structured`] the
//!   MCP tools' structured results, [`gfm`] GitHub Flavored Markdown for
//!   people (job summaries, PR comments), [`html`] a self-contained page,
//!   [`junit`] standard JUnit XML, [`ctrf`] a CTRF document, [`github`] workflow commands
//!   (annotations). Each renders every subject it has a form for: a run;
//!   what discovery found and a run that gave no result (docs/errors.md)
//!   in [`markdown`] and [`json`] (and [`structured`]); the formats for
//!   people show those two as their Markdown.
//!
//! Which output a request gets is decided in one place,
//! `frontend::dispatch` (ARCHITECTURE.md, "One view, thin outputs").

pub mod ctrf;
pub mod gfm;
pub mod github;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod structured;
pub mod view;
