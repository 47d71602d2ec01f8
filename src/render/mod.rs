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

use crate::budget::Budget;

pub mod ctrf;
pub mod gfm;
pub mod github;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod structured;
pub mod view;

/// The title of an HTML page of results.
pub const TITLE: &str = "pytest-mcp report";

/// How a subject is rendered, besides its format.
#[derive(Debug, Clone, Default)]
pub struct Style {
    pub budget: Budget,
    /// JSON indented for people (the command line) or compact (the server).
    pub pretty: bool,
    /// The agent Markdown folds long failure detail into `<details>`: for
    /// `report`, whose Markdown goes to PR comments and job summaries.
    /// Agents and terminals read it as text (`run`, the tools).
    pub collapse: bool,
    /// Where the GitHub rendering's `path:line` links lead.
    pub links: gfm::Options,
    /// Where the annotations' paths are relative to.
    pub annotations: github::Options,
}

impl Style {
    /// `budget`, JSON indented, nothing folded, no links: `run` and
    /// `discover` on the command line.
    pub fn within(budget: Budget) -> Style {
        Style {
            budget,
            pretty: true,
            ..Style::default()
        }
    }

    /// [`Style::within`] with the Markdown's long failures folded: `report`,
    /// whose Markdown goes to PR comments and job summaries.
    pub fn report(budget: Budget) -> Style {
        Style {
            collapse: true,
            ..Style::within(budget)
        }
    }
}
