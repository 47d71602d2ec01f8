//! The one dispatch: what is rendered (a run, compared with a baseline or
//! not; a discovery; an error) × the requested format × its budget → the
//! answer's text. `report`, `run`, `discover` and the MCP tools all come
//! here; nothing else matches on a [`Format`].
//!
//! Adding a format means a variant of [`Format`], an arm in [`output`] and
//! the output itself (a module of `render`), nothing else. Each output
//! reads the run's view (`render::view`) and fits itself to the budget
//! through `budget::first_fitting`; this file only chooses.

use std::io::Write;

use serde_json::Value;

use crate::budget::{Budget, Fitted, Truncation};
use crate::model::Run;
use crate::model::discovery::Discovery;
use crate::render;
use crate::render::view::Compared;
use crate::request::Format;

/// The title of an HTML page of results.
pub const TITLE: &str = "pytest-mcp report";

/// The title of an HTML page, or an annotation, of what discovery found.
const DISCOVERY_TITLE: &str = "pytest-mcp: tests";

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
    /// An answer that is not a result: its Markdown (already within the
    /// budget), its JSON-RPC error object, and a title for the formats that
    /// show one (an HTML page, a `::error` annotation).
    Error {
        markdown: &'a str,
        object: &'a Value,
        title: &'a str,
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
pub fn whole(run: &Run, format: Format) -> String {
    output(Subject::run(run), format, &Style::within(Budget::NONE)).text
}

/// `subject` in `format`, within the style's budget where the format has
/// one to keep (HTML, JUnit and the annotations are documents for people
/// and tools: never cut), with what was left out to fit it.
pub fn output(subject: Subject<'_>, format: Format, style: &Style) -> Fitted {
    match format {
        Format::Markdown => markdown(subject, style),
        Format::Json => json(subject, style),
        Format::Html => Fitted::whole(html(subject)),
        Format::Junit => Fitted::whole(junit(subject)),
        Format::Github => Fitted::whole(github(subject, style)),
        Format::Gfm => gfm(subject, style),
    }
}

/// [`output`] written to `out`; returns what was left out. A run's whole
/// JSON, when no budget applies, is written as it is serialized, never
/// held whole (several times the size of its Markdown on a large run).
pub fn write(
    subject: Subject<'_>,
    format: Format,
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
        render::json::write_pretty(run, out)?;
        return Ok(None);
    }
    let fitted = output(subject, format, style);
    out.write_all(fitted.text.as_bytes())?;
    Ok(fitted.truncation)
}

/// The agent Markdown; a comparison with a baseline opens it.
fn markdown(subject: Subject<'_>, style: &Style) -> Fitted {
    let budget = &style.budget;
    match subject {
        Subject::Run { run, compared } => {
            let preface = compared
                .map(|c| render::markdown::comparison_block(&c.comparison))
                .unwrap_or_default();
            render::markdown::render_fitted(run, budget, &preface, style.collapse)
        }
        Subject::Discovery(d) => render::discovery::discovery_markdown_fitted(d, budget),
        Subject::Error { markdown, .. } => Fitted::whole(markdown.to_string()),
    }
}

/// The JSON report (docs/json-report.md); with a baseline, its
/// `baseline` key; a discovery's JSON; an error's JSON-RPC object. Within
/// a token budget only.
fn json(subject: Subject<'_>, style: &Style) -> Fitted {
    // Held to tokens alone: a script reads JSON whole, and a cut in
    // characters would only cost it data (`--max-chars` is for people).
    let budget = &Budget {
        chars: None,
        ..style.budget
    };
    let pretty = style.pretty;
    match subject {
        Subject::Run {
            run,
            compared: None,
        } => render::json::render_fitted(run, budget, pretty),
        Subject::Run {
            run,
            compared: Some(compared),
        } => compared_json(run, compared, budget, pretty),
        Subject::Discovery(d) => render::discovery::discovery_fitted(d, budget, pretty),
        Subject::Error { object, .. } => Fitted::whole(render::json::text(object, pretty)),
    }
}

/// A self-contained HTML page: the report, or the Markdown of a discovery
/// or an error as a page.
fn html(subject: Subject<'_>) -> String {
    match subject {
        Subject::Run { run, compared } => {
            render::html::report(run, compared.map(|c| &c.comparison), TITLE)
        }
        Subject::Discovery(d) => {
            render::html::markdown_page(&render::discovery::discovery_markdown(d), DISCOVERY_TITLE)
        }
        Subject::Error {
            markdown, title, ..
        } => render::html::markdown_page(markdown, title),
    }
}

/// JUnit XML of a run (it has no place for a comparison); discovery and
/// errors have no JUnit form and print their Markdown.
fn junit(subject: Subject<'_>) -> String {
    match subject {
        Subject::Run { run, .. } => render::junit::render(run),
        Subject::Discovery(d) => render::discovery::discovery_markdown(d),
        Subject::Error { markdown, .. } => markdown.to_string(),
    }
}

/// GitHub annotations of a run; an error as one `::error`; discovery
/// prints its Markdown.
fn github(subject: Subject<'_>, style: &Style) -> String {
    match subject {
        Subject::Run { run, .. } => render::github::render(run, &style.annotations),
        Subject::Discovery(d) => render::discovery::discovery_markdown(d),
        Subject::Error {
            markdown, title, ..
        } => render::github::error(title, markdown),
    }
}

/// GitHub Flavored Markdown for people; a discovery's or an error's
/// Markdown as a heading and a code block.
fn gfm(subject: Subject<'_>, style: &Style) -> Fitted {
    match subject {
        Subject::Run { run, compared } => {
            let baseline = compared.map(|c| render::gfm::Baseline {
                comparison: &c.comparison,
                counts: c.counts,
            });
            render::gfm::render_fitted(run, baseline.as_ref(), &style.links, &style.budget)
        }
        Subject::Discovery(d) => Fitted::whole(render::gfm::text_page(
            &render::discovery::discovery_markdown(d),
        )),
        Subject::Error { markdown, .. } => Fitted::whole(render::gfm::text_page(markdown)),
    }
}

/// The JSON report of a run compared with a baseline, the comparison its
/// last key, `baseline`: within a token budget, the comparison gets at
/// most half of it (its lists cut, saying how many ids each left out) and
/// the run is fitted to the whole, the comparison included.
fn compared_json(run: &Run, compared: &Compared, budget: &Budget, pretty: bool) -> Fitted {
    let mut baseline = compared.comparison.to_value();
    if let Some(max) = budget.tokens {
        halve_lists_to_fit(&mut baseline, max / 2);
    }
    render::json::render_fitted_compared(run, Some(&baseline), budget, pretty)
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
