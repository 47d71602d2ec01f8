//! Answers: the one place where what a request produced — a run, a
//! discovery, an execution error, a refused parameter, unreadable input
//! files — becomes the answer in the requested format.
//!
//! ADR-007 (docs/errors.md): a result is the format's rendering; an error follows
//! the request's format too. In `json` it is a JSON-RPC error object (code,
//! message, data), which the server returns as the call's error and the
//! command line prints; in the other formats it is Markdown (an HTML page
//! for `html`), which the server returns as a tool result with `isError`.
//! Every answer also carries the command line's exit status, so the
//! command line and the server can only differ in how they deliver it.

use serde_json::{Value, json};

use crate::budget::{Budget, Fitted, Offer, Truncation};
use crate::frontend::dispatch::{self, Style, Subject};
use crate::frontend::report::InputError;
use crate::model::Run;
use crate::model::discovery::Discovery;
use crate::model::exec_error::{ErrorKind, ExecError};
use crate::render;
use crate::render::structured::Structured;
use crate::render::view::{self, Tone};
use crate::request::{OutputFormat, ValidationError};

/// Exit status when the answer is a result (`report`; `discover` found tests).
pub const EXIT_OK: u8 = 0;
/// Exit status when an input could not be read or the output not written.
pub const EXIT_INPUT_ERROR: u8 = 2;
/// `run`/`discover`: a parameter was refused before anything ran.
pub const EXIT_INVALID_PARAMS: u8 = 4;
/// `run`/`discover`: the time limit ran out (as `timeout(1)`).
pub const EXIT_TIMEOUT: u8 = 124;
/// `run`/`discover`: pytest could not be started.
pub const EXIT_SPAWN: u8 = 127;

/// A JSON-RPC error object (ADR-007).
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorObject {
    pub code: i64,
    pub message: String,
    pub data: Value,
}

impl ErrorObject {
    /// ADR-007's invalid params (-32602): the field, the rule it breaks and
    /// the value received.
    pub fn invalid_params(message: String, field: &str, detail: String, received: Value) -> Self {
        ErrorObject {
            code: -32602,
            message,
            data: json!({
                "field": field,
                "detail": detail,
                "received_value": received,
            }),
        }
    }

    /// `{"error": {"code", "message", "data"}}`, as the command line prints it.
    pub fn to_value(&self) -> Value {
        json!({
            "error": {
                "code": self.code,
                "message": self.message,
                "data": self.data,
            }
        })
    }
}

impl From<&ValidationError> for ErrorObject {
    fn from(e: &ValidationError) -> Self {
        ErrorObject::invalid_params(
            e.to_string(),
            &e.field,
            e.detail.clone(),
            e.received_value.clone(),
        )
    }
}

/// What a request gets back.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// A rendering: a result, or (`is_error`) an error in Markdown or HTML.
    Text {
        text: String,
        is_error: bool,
        exit: u8,
        /// What the text left out to fit its budget (results only).
        truncation: Option<Truncation>,
    },
    /// An error of a `json` request.
    Error { error: ErrorObject, exit: u8 },
}

impl Answer {
    /// The command line's exit status.
    pub fn exit(&self) -> u8 {
        match self {
            Answer::Text { exit, .. } | Answer::Error { exit, .. } => *exit,
        }
    }

    /// The text the command line prints: the rendering, or the error
    /// object indented.
    pub fn into_text(self) -> String {
        match self {
            Answer::Text { text, .. } => text,
            Answer::Error { error, .. } => render::json::text(&error.to_value(), true),
        }
    }

    /// An error: the object when the format answers errors with one
    /// (`json`), else `markdown` in the format's clothing
    /// ([`dispatch::render`]: a page, a `::error` titled `title`, ...).
    fn error(format: OutputFormat, error: ErrorObject, page: ErrorPage<'_>, exit: u8) -> Self {
        if format.errors_as_objects() {
            return Answer::Error { error, exit };
        }
        let object = error.to_value();
        let subject = Subject::Error {
            markdown: &page.markdown,
            object: &object,
            title: page.title,
            tone: page.tone,
        };
        Answer::Text {
            text: dispatch::output(subject, format, &Style::default()).text,
            is_error: true,
            exit,
            truncation: None,
        }
    }
}

/// An answer that is not a result, as the formats for people show it.
struct ErrorPage<'a> {
    markdown: String,
    title: &'a str,
    tone: Option<Tone>,
}

/// A test run's result in `format` and `style` (its budget, its links).
/// Exit status: pytest's.
pub fn run(run: &Run, format: OutputFormat, style: &Style) -> Answer {
    result(
        dispatch::output(Subject::run(run), format, style),
        run_exit(run),
    )
}

/// A result's answer: its text, and the command line's exit status.
fn result(fitted: Fitted, exit: u8) -> Answer {
    Answer::Text {
        text: fitted.text,
        is_error: false,
        exit,
        truncation: fitted.truncation,
    }
}

/// A run's exit status: pytest's.
fn run_exit(run: &Run) -> u8 {
    view::status(run).exit_code.clamp(0, 255) as u8
}

/// What discovery found, in `format` and `style`. Exit status as
/// pytest's: 2 collection errors, 5 no tests, else 0.
pub fn discovery(d: &Discovery, format: OutputFormat, style: &Style) -> Answer {
    result(
        dispatch::output(Subject::Discovery(d), format, style),
        discovery_exit(d),
    )
}

/// Discovery's exit status, as pytest's: 2 collection errors, 5 no tests,
/// else 0.
fn discovery_exit(d: &Discovery) -> u8 {
    view::discovery_status(d).1.clamp(0, 255) as u8
}

/// A run or a discovery that gave no result (ADR-007); its Markdown within
/// `budget`.
pub fn exec_error(e: &ExecError, format: OutputFormat, budget: &Budget) -> Answer {
    let error = error_object(e);
    let exit = error_status(e);
    if format.errors_as_objects() {
        return Answer::Error { error, exit };
    }
    let object = error.to_value();
    let subject = Subject::Ended {
        error: e,
        object: &object,
    };
    Answer::Text {
        text: dispatch::output(subject, format, &Style::within(*budget)).text,
        is_error: true,
        exit,
        truncation: None,
    }
}

/// An execution error's ADR-007 object.
fn error_object(e: &ExecError) -> ErrorObject {
    ErrorObject {
        code: e.kind.code(),
        message: e.message.clone(),
        data: render::json::error_data(e),
    }
}

/// The exit status for an execution error (ARCHITECTURE.md, Interfaces).
fn error_status(e: &ExecError) -> u8 {
    match e.kind {
        ErrorKind::Timeout => EXIT_TIMEOUT,
        // Killed by a signal: the shell's 128+N. A crash without one
        // (os._exit) falls to pytest's status below.
        ErrorKind::Crash if e.signal.is_some() => {
            let number = e.signal.as_ref().map_or(0, |s| s.number());
            (128 + number).clamp(0, 255) as u8
        }
        ErrorKind::Spawn => EXIT_SPAWN,
        // Cancelled by a signal to us: the shell's 128+N.
        ErrorKind::Cancelled => {
            (128 + crate::runner::process::stop_signal().unwrap_or(15)).clamp(0, 255) as u8
        }
        // pytest's own status; never 0, which says all went well.
        _ => e.exit_code.map_or(1, |c| c.clamp(1, 255) as u8),
    }
}

/// A refused parameter: its one line (`Invalid params: ...`, docs/errors.md), or the
/// invalid-params object.
pub fn invalid(e: &ValidationError, format: OutputFormat) -> Answer {
    let page = ErrorPage {
        markdown: format!("{e}\n"),
        title: "pytest-mcp: invalid parameters",
        tone: None,
    };
    Answer::error(format, e.into(), page, EXIT_INVALID_PARAMS)
}

/// `report`'s unreadable inputs (every one of them): a Markdown
/// `Report ERROR` block, or the invalid-params object naming the first and
/// listing all under `errors`.
pub fn unreadable(errors: &[InputError], total_inputs: usize, format: OutputFormat) -> Answer {
    let headline = if errors.len() == 1 && total_inputs == 1 {
        "the input file could not be read as test results".to_string()
    } else {
        format!(
            "{} of {} input files could not be read as test results",
            errors.len(),
            total_inputs
        )
    };
    let mut markdown = view::headline("Report", view::Verdict::Error, None, &headline) + "\n";
    for e in errors {
        markdown.push_str(&format!("- {e}\n"));
    }
    let (message, detail, received) = match errors.first() {
        Some(first) => (
            format!("Invalid params: files: {first}"),
            format!("{headline}: {}", first.detail),
            Value::from(first.file.clone()),
        ),
        None => (
            format!("Invalid params: files: {headline}"),
            headline,
            Value::Null,
        ),
    };
    let mut error = ErrorObject::invalid_params(message, "files", detail, received);
    if let Value::Object(data) = &mut error.data {
        let listed = errors.iter().map(|e| {
            json!({
                "file": e.file,
                "line": (e.line > 0).then_some(e.line),
                "column": (e.column > 0).then_some(e.column),
                "detail": e.detail,
            })
        });
        data.insert("errors".into(), listed.collect());
    }
    let page = ErrorPage {
        markdown,
        title: dispatch::TITLE,
        tone: Some(Tone::Bad),
    };
    Answer::error(format, error, page, EXIT_INPUT_ERROR)
}

/// What a tool call gets back: the answer, its structured result (MCP
/// `structuredContent`, bounded by the answer's budget), and, when the
/// answer left something out to fit that budget, the complete JSON result
/// for the server to keep and link to (`frontend::kept`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolAnswer {
    pub answer: Answer,
    /// The structured result: none for a JSON-RPC error, and for a refused
    /// request (nothing ran, so there is nothing to structure).
    pub structured: Option<Value>,
    /// The whole JSON result, when the answer was shortened.
    pub full: Option<String>,
    /// One line naming what the answer is about.
    pub headline: String,
}

impl ToolAnswer {
    fn bare(answer: Answer, headline: String) -> ToolAnswer {
        ToolAnswer {
            answer,
            structured: None,
            full: None,
            headline,
        }
    }
}

/// The share of a tool's budget a structured result's own fields may take
/// when the answer is Markdown: the structured result then carries the
/// Markdown too (`render::structured::with_markdown`), which gets the rest.
const STRUCTURED_SHARE: (usize, usize) = (1, 4);

/// Tries at fitting a structured result that says it left out the
/// Markdown (each takes off what the last was over by).
const MARKDOWN_TRIES: usize = 3;

/// What `,"full_result":"pytest-mcp://runs/<n>"` takes: 13 o200k tokens
/// for run 1, 15 for run 999,999 (a server keeps the last few), 16 to be
/// safe.
const FULL_RESULT_TOKENS: usize = 16;

/// A tool's answer: its text (made by `text` for a budget, then `answer`)
/// and its structured result (made by `structured`), each within `budget`
/// (a client shows a model one or the other), and the complete result
/// (made by `full`, only then) when either left something out. In
/// Markdown, the structured result's own fields take at most
/// [`STRUCTURED_SHARE`] of `budget` and it carries the Markdown, fitted to
/// the rest: the same as the text when that is whole, else shortened a
/// little more than the text. When neither its fields nor the Markdown it
/// carries then name every failure group the text names (a small budget),
/// its fields take the whole budget and it carries no Markdown.
fn tool_answer<R: Structured>(
    format: OutputFormat,
    budget: &Budget,
    structured: impl Fn(Budget) -> Offer<'static, R>,
    text: impl Fn(&Budget) -> Fitted,
    answer: impl FnOnce(Fitted) -> Answer,
    full: impl FnOnce() -> String,
    headline: String,
) -> ToolAnswer {
    // The structured result's plans, fitted by the one fitting loop.
    let structured = |b: &Budget| crate::budget::fit(structured(*b));
    // Room for the server to add `full_result` (the kept result's URI).
    let room = budget.beside("", FULL_RESULT_TOKENS);
    let (mut r, fitted, carried_shortened) = if format.is_markdown() {
        // The text has the whole budget to itself: a client that shows the
        // text shows only that.
        let whole_text = text(budget);
        let (n, d) = STRUCTURED_SHARE;
        let text_omits = R::omitted(whole_text.truncation.as_ref());
        let (mut r, carried) =
            render::structured::with_markdown(structured(&room.part(n, d)), &room, &text);
        let fields_omit = R::omitted(r.truncated().as_ref());
        let carried_omits = R::omitted(carried.truncation.as_ref());
        if fields_omit > text_omits && carried_omits > text_omits {
            // A budget too small for both to name what the text names: the
            // structured result's own fields do, with all the room, and
            // carry no Markdown (it would be a stub), which `truncated`
            // says; the complete result is kept.
            let without_markdown = |b: &Budget| {
                let mut r = structured(b);
                r.truncated()
                    .get_or_insert_with(|| Truncation::new(&room))
                    .dropped
                    .push("markdown".into());
                r
            };
            // Fitted to the room less what saying so took over it.
            let mut slack = 0;
            let mut r = without_markdown(&room);
            for _ in 0..MARKDOWN_TRIES {
                let json = serde_json::to_string(&r).unwrap_or_default();
                if room.fits(&json) {
                    break;
                }
                slack += room.excess(&json).max(1);
                r = without_markdown(&room.beside("", slack));
            }
            (r, whole_text, true)
        } else {
            // Whole, the carried Markdown and the text are the same.
            match carried.truncation {
                None => (r, carried, false),
                Some(_) => (r, whole_text, true),
            }
        }
    } else {
        (structured(&room), text(budget), false)
    };
    let shortened = r.truncated().is_some() || carried_shortened || fitted.truncation.is_some();
    ToolAnswer {
        answer: answer(fitted),
        structured: serde_json::to_value(r).ok(),
        full: shortened.then(full),
        headline,
    }
}

/// A test run's answer to a tool call (see [`run`]).
pub fn tool_run(run: &Run, format: OutputFormat, budget: &Budget) -> ToolAnswer {
    tool_answer(
        format,
        budget,
        |b| render::structured::offer(run, None, &Style::within(b)),
        |b| dispatch::output(Subject::run(run), format, &tool_style(b)),
        |fitted| result(fitted, run_exit(run)),
        || render::json::render(run, false),
        render::view::status(run).headline(None, &render::view::counts_phrase(run)),
    )
}

/// A discovery's answer to a tool call (see [`discovery`]).
pub fn tool_discovery(d: &Discovery, format: OutputFormat, budget: &Budget) -> ToolAnswer {
    tool_answer(
        format,
        budget,
        |b| render::structured::discovery_offer(d, &Style::within(b)),
        |b| dispatch::output(Subject::Discovery(d), format, &tool_style(b)),
        |fitted| result(fitted, discovery_exit(d)),
        || render::json::text(&render::json::discovery(d), false),
        view::headline(
            "Discover",
            view::discovery_status(d).0,
            None,
            &format!(
                "{} tests, {} collection errors",
                d.items.len(),
                d.collection_errors.len()
            ),
        ),
    )
}

/// A tool's answer is compact JSON and plain Markdown, within `budget`.
fn tool_style(budget: &Budget) -> Style {
    Style {
        budget: *budget,
        pretty: false,
        ..Style::default()
    }
}

/// A run's (`discovery: false`) or a discovery's execution error as a
/// tool's answer (see [`exec_error`]): its structured result is the tool's
/// kind, with what finished before the end.
pub fn tool_exec_error(
    e: &ExecError,
    format: OutputFormat,
    budget: &Budget,
    discovery: bool,
) -> ToolAnswer {
    let verdict = render::view::error_verdict(e.kind);
    let headline = render::view::headline("Test", verdict, None, &e.message);
    if format.errors_as_objects() {
        // The JSON-RPC error object: no text, no structured result.
        return ToolAnswer::bare(exec_error(e, format, budget), headline);
    }
    let object = error_object(e).to_value();
    let text = |b: &Budget| {
        let subject = Subject::Ended {
            error: e,
            object: &object,
        };
        dispatch::output(subject, format, &tool_style(b))
    };
    let answer = |fitted: Fitted| Answer::Text {
        text: fitted.text,
        is_error: true,
        exit: error_status(e),
        truncation: fitted.truncation,
    };
    let full = || render::json::text(&object, false);
    if discovery {
        let structured =
            |b: Budget| render::structured::discovery_error_offer(e, &Style::within(b));
        tool_answer(format, budget, structured, text, answer, full, headline)
    } else {
        let structured = |b: Budget| render::structured::error_offer(e, &Style::within(b));
        tool_answer(format, budget, structured, text, answer, full, headline)
    }
}

/// A refused request's answer to a tool call (see [`invalid`]).
pub fn tool_invalid(e: &ValidationError, format: OutputFormat) -> ToolAnswer {
    ToolAnswer::bare(invalid(e, format), e.to_string())
}

#[cfg(test)]
mod tests;
