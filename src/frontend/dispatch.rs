//! The one dispatch: what is rendered (a run, compared with a baseline or
//! not; a discovery; an error) × the requested format × its budget → the
//! answer's text. `report`, `run`, `discover` and the MCP tools all come
//! here; nothing else matches on a [`OutputFormat`].
//!
//! Adding a format means a variant of [`OutputFormat`], an arm in [`output`] and
//! the output itself (a module of `render`), nothing else. Each output
//! reads the run's view (`render::view`) and offers its plans to fit the
//! budget ([`budget::Offer`]); [`output`] hands the offer to the one
//! fitting loop, [`budget::fit`], which chooses.

use std::io::Write;

use serde_json::Value;

use crate::budget::{self, Budget, Fitted, Offer, Truncation};
use crate::model::Run;
use crate::model::discovery::Discovery;
use crate::model::exec_error::ExecError;
use crate::render;
use crate::render::view::{self, Compared, Tone};
use crate::request::OutputFormat;

pub use crate::render::{Style, TITLE};

/// The title of an HTML page, or an annotation, of what discovery found.
const DISCOVERY_TITLE: &str = "pytest-mcp: tests";

/// The title of a page, or an annotation, of a run that gave no result.
const ENDED_TITLE: &str = "pytest-mcp: run failed";

/// What is rendered.
#[derive(Debug, Clone, Copy)]
pub enum Subject<'a> {
    /// A test run, compared with a baseline run when `compared` is given.
    Run {
        run: &'a Run,
        compared: Option<&'a Compared>,
    },
    /// What discovery found.
    Discovery(&'a Discovery),
    /// A run or a discovery that gave no result (a timeout, a crash): its
    /// Markdown fitted to the budget, its JSON-RPC error object.
    Ended {
        error: &'a ExecError,
        object: &'a Value,
    },
    /// An answer that is not a result: its Markdown (short: a refused
    /// parameter, unreadable files), its JSON-RPC error object, and a title
    /// for the formats that show one (an HTML page, a `::error`
    /// annotation).
    Error {
        markdown: &'a str,
        object: &'a Value,
        title: &'a str,
        /// Its status's tone, when its first line is a status (`Report
        /// ERROR`); none for a refused parameter.
        tone: Option<Tone>,
    },
}

impl<'a> Subject<'a> {
    /// A run on its own.
    pub fn run(run: &'a Run) -> Subject<'a> {
        Subject::Run {
            run,
            compared: None,
        }
    }
}

/// A run's whole rendering in `format`, with no budget, as `run` prints it.
pub fn whole(run: &Run, format: OutputFormat) -> String {
    output(Subject::run(run), format, &Style::within(Budget::NONE)).text
}

/// `subject` in `format`, within the style's budget where the format has
/// one to keep (HTML, JUnit, CTRF and the annotations are documents for people
/// and tools: never cut), with what was left out to fit it. Each output
/// offers its plans; the one fitting loop ([`budget::fit`]) chooses.
pub fn output(subject: Subject<'_>, format: OutputFormat, style: &Style) -> Fitted {
    budget::fit(offer(subject, format, style))
}

/// [`output`] written to `out`; returns what was left out. A run's whole
/// JSON or CTRF, when no budget applies, is written as it is serialized,
/// never held whole (several times the size of its Markdown on a large
/// run).
pub fn write(
    subject: Subject<'_>,
    format: OutputFormat,
    style: &Style,
    out: &mut dyn Write,
) -> std::io::Result<Option<Truncation>> {
    if let Subject::Run {
        run,
        compared: None,
    } = subject
        && format.streams_whole()
        && style.pretty
        && style.budget.tokens.is_none()
    {
        match format {
            OutputFormat::Ctrf => render::ctrf::write(run, out)?,
            _ => render::json::write_pretty(run, out)?,
        }
        return Ok(None);
    }
    let fitted = output(subject, format, style);
    out.write_all(fitted.text.as_bytes())?;
    Ok(fitted.truncation)
}

/// What the output of `format` offers for `subject`: every output offers
/// a run with the same signature (the run, its comparison, the style).
fn offer<'a>(subject: Subject<'a>, format: OutputFormat, style: &'a Style) -> Offer<'a, Fitted> {
    match format {
        OutputFormat::Markdown => markdown(subject, style),
        OutputFormat::Json => json(subject, style),
        OutputFormat::Html => for_people(
            subject,
            style,
            |page| render::html::markdown_page(page.markdown, page.title, page.tone),
            render::html::offer,
        ),
        OutputFormat::Junit => for_people(
            subject,
            style,
            |page| page.markdown.to_string(),
            render::junit::offer,
        ),
        OutputFormat::Ctrf => for_people(
            subject,
            style,
            |page| page.markdown.to_string(),
            render::ctrf::offer,
        ),
        OutputFormat::Github => for_people(
            subject,
            style,
            |page| render::github::error(page.title, page.markdown),
            render::github::offer,
        ),
        OutputFormat::Gfm => for_people(
            subject,
            style,
            |page| render::gfm::text_page(page.markdown),
            render::gfm::offer,
        ),
    }
}

/// How every output offers a run: the run, its comparison with a baseline
/// when there is one, the style.
type RunOffer = for<'a> fn(&'a Run, Option<&'a Compared>, &'a Style) -> Offer<'a, Fitted>;

/// An answer that is never cut.
fn uncut<'a>(text: String) -> Offer<'a, Fitted> {
    Offer::Whole(Fitted::whole(text))
}

/// A subject in a format for people or tools: a run as `run` renders it
/// (compared with its baseline when there is one); a discovery or an
/// error as its Markdown (fitted, for a run that ended) shown by `page`
/// with a title. HTML, JUnit, CTRF and the annotations have no form of their
/// own for them.
fn for_people<'a>(
    subject: Subject<'a>,
    style: &'a Style,
    page: fn(&Page<'_>) -> String,
    run: RunOffer,
) -> Offer<'a, Fitted> {
    let (markdown, title, tone) = match subject {
        Subject::Run {
            run: tests,
            compared,
        } => return run(tests, compared, style),
        Subject::Discovery(d) => {
            let tone = view::discovery_status(d).0.tone();
            (render::markdown::discovery(d), DISCOVERY_TITLE, Some(tone))
        }
        Subject::Ended { error, .. } => {
            let fitted = render::markdown::error_offer(error, style);
            let tone = Some(view::error_verdict(error.kind).tone());
            return fitted.map(move |f| {
                Fitted::whole(page(&Page {
                    markdown: &f.text,
                    title: ENDED_TITLE,
                    tone,
                }))
            });
        }
        Subject::Error {
            markdown,
            title,
            tone,
            ..
        } => (markdown.to_string(), title, tone),
    };
    uncut(page(&Page {
        markdown: &markdown,
        title,
        tone,
    }))
}

/// What a format for people shows of an answer that is not a run: its
/// Markdown, a title, and the tone of its status.
struct Page<'a> {
    markdown: &'a str,
    title: &'a str,
    tone: Option<Tone>,
}

/// The agent Markdown of each subject.
fn markdown<'a>(subject: Subject<'a>, style: &'a Style) -> Offer<'a, Fitted> {
    match subject {
        Subject::Run { run, compared } => render::markdown::offer(run, compared, style),
        Subject::Discovery(d) => render::markdown::discovery_offer(d, style),
        Subject::Ended { error, .. } => render::markdown::error_offer(error, style),
        Subject::Error { markdown, .. } => uncut(markdown.to_string()),
    }
}

/// The JSON report (docs/json-report.md); with a baseline, its
/// `baseline` key; a discovery's JSON; an error's JSON-RPC object.
fn json<'a>(subject: Subject<'a>, style: &'a Style) -> Offer<'a, Fitted> {
    match subject {
        Subject::Run { run, compared } => render::json::offer(run, compared, style),
        Subject::Discovery(d) => render::json::discovery_offer(d, style),
        Subject::Ended { object, .. } | Subject::Error { object, .. } => {
            uncut(render::json::text(object, style.pretty))
        }
    }
}

#[cfg(test)]
mod tests;
