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

/// The title of an HTML page of results.
pub const TITLE: &str = "pytest-mcp report";

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
    pub links: render::gfm::Options,
    /// Where the annotations' paths are relative to.
    pub annotations: render::github::Options,
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

/// What the output of `format` offers for `subject`.
fn offer<'a>(subject: Subject<'a>, format: OutputFormat, style: &'a Style) -> Offer<'a, Fitted> {
    match format {
        OutputFormat::Markdown => markdown(subject, style),
        OutputFormat::Json => json(subject, style),
        OutputFormat::Html => for_people(
            subject,
            style,
            |page| render::html::markdown_page(page.markdown, page.title, page.tone),
            |run, compared| {
                let comparison = compared.map(|c| &c.comparison);
                uncut(render::html::report(run, comparison, TITLE))
            },
        ),
        OutputFormat::Junit => for_people(
            subject,
            style,
            |page| page.markdown.to_string(),
            |run, _| uncut(render::junit::render(run)),
        ),
        OutputFormat::Ctrf => for_people(
            subject,
            style,
            |page| page.markdown.to_string(),
            |run, _| uncut(render::ctrf::render(run)),
        ),
        OutputFormat::Github => for_people(
            subject,
            style,
            |page| render::github::error(page.title, page.markdown),
            |run, _| uncut(render::github::render(run, &style.annotations)),
        ),
        OutputFormat::Gfm => for_people(
            subject,
            style,
            |page| render::gfm::text_page(page.markdown),
            |run, compared| gfm(run, compared, style),
        ),
    }
}

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
    run: impl FnOnce(&'a Run, Option<&'a Compared>) -> Offer<'a, Fitted>,
) -> Offer<'a, Fitted> {
    let (markdown, title, tone) = match subject {
        Subject::Run {
            run: tests,
            compared,
        } => return run(tests, compared),
        Subject::Discovery(d) => {
            let tone = view::discovery_status(d).0.tone();
            (render::markdown::discovery(d), DISCOVERY_TITLE, Some(tone))
        }
        Subject::Ended { error, .. } => {
            let fitted = render::markdown::error_offer(error, style.budget);
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

/// The agent Markdown; a comparison with a baseline opens it.
fn markdown<'a>(subject: Subject<'a>, style: &'a Style) -> Offer<'a, Fitted> {
    let budget = style.budget;
    match subject {
        Subject::Run { run, compared } => {
            let preface = compared
                .map(|c| render::markdown::comparison_block(&c.comparison))
                .unwrap_or_default();
            render::markdown::offer(run, budget, &preface, style.collapse)
        }
        Subject::Discovery(d) => render::markdown::discovery_offer(d, budget),
        Subject::Ended { error, .. } => render::markdown::error_offer(error, budget),
        Subject::Error { markdown, .. } => uncut(markdown.to_string()),
    }
}

/// The JSON report (docs/json-report.md); with a baseline, its
/// `baseline` key; a discovery's JSON; an error's JSON-RPC object. Within
/// a token budget only.
fn json<'a>(subject: Subject<'a>, style: &'a Style) -> Offer<'a, Fitted> {
    // Held to tokens alone: a script reads JSON whole, and a cut in
    // characters would only cost it data (`--max-chars` is for people).
    let budget = Budget {
        chars: None,
        ..style.budget
    };
    let pretty = style.pretty;
    match subject {
        Subject::Run { run, compared } => {
            render::json::offer(run, compared_value(compared, &budget), budget, pretty)
        }
        Subject::Discovery(d) => render::json::discovery_offer(d, budget, pretty),
        Subject::Ended { object, .. } | Subject::Error { object, .. } => {
            uncut(render::json::text(object, pretty))
        }
    }
}

/// GitHub Flavored Markdown of a run, for people.
fn gfm<'a>(run: &'a Run, compared: Option<&'a Compared>, style: &'a Style) -> Offer<'a, Fitted> {
    let baseline = compared.map(|c| render::gfm::Baseline {
        comparison: &c.comparison,
        counts: c.counts,
    });
    render::gfm::offer(run, baseline, &style.links, style.budget)
}

/// The comparison with a baseline as the JSON report's `baseline` value:
/// within a token budget it gets at most half of it, its lists cut, saying
/// how many ids each left out (the run is then fitted to the whole, the
/// comparison included).
fn compared_value(compared: Option<&Compared>, budget: &Budget) -> Option<Value> {
    let mut baseline = compared?.comparison.to_value();
    if let Some(max) = budget.tokens {
        halve_lists_to_fit(&mut baseline, max / 2);
    }
    Some(baseline)
}

/// Cuts the id lists of a comparison object in half until its indented
/// text has at most `max` tokens; `<list>_omitted` says how many went.
fn halve_lists_to_fit(value: &mut Value, max: usize) {
    let Value::Object(map) = value else { return };
    while crate::budget::count_tokens(&render::json::text(&Value::Object(map.clone()), true)) > max
    {
        let mut cut = false;
        let keys: Vec<String> = map.keys().cloned().collect();
        for key in keys {
            let Some(Value::Array(list)) = map.get_mut(&key) else {
                continue;
            };
            if list.is_empty() {
                continue;
            }
            let keep = list.len() / 2;
            let gone = list.len() - keep;
            list.truncate(keep);
            cut = true;
            let omitted = format!("{key}_omitted");
            let before = map.get(&omitted).and_then(Value::as_u64).unwrap_or(0);
            map.insert(omitted, Value::from(before + gone as u64));
        }
        if !cut {
            return;
        }
    }
}

#[cfg(test)]
mod tests;
