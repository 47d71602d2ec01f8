//! The `report` pipeline: result files in, one rendering out.
//!
//! Pure: callers hand in file contents already read (or the I/O error met
//! reading them), so golden tests and the CLI run exactly the same code.
//! Every file that cannot be read is reported, not just the first.

use serde_json::json;

use crate::model::Run;
use crate::render::{self, Format};
use crate::sources::merge::merge;
use crate::sources::{self, ReadOptions};

/// One input file: its name as the user gave it and its bytes, or why they
/// could not be read.
#[derive(Debug)]
pub struct Input {
    pub name: String,
    pub contents: Result<Vec<u8>, String>,
}

/// A file that could not be used, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    pub file: String,
    /// 1-based; 0 when the problem is not at a place in the file.
    pub line: usize,
    pub column: usize,
    pub detail: String,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.line, self.column) {
            (0, _) => write!(f, "{}: {}", self.file, self.detail),
            (l, 0) => write!(f, "{}: line {l}: {}", self.file, self.detail),
            (l, c) => write!(f, "{}: line {l}, column {c}: {}", self.file, self.detail),
        }
    }
}

/// Reads and merges every input into one run, every test listed.
pub fn build_run(inputs: &[Input], format: Format) -> Result<Run, Vec<InputError>> {
    build_run_with(
        inputs,
        ReadOptions {
            keep_json_report: format == Format::Json,
            passing_as_counts: false,
        },
    )
}

/// [`build_run`] for a run that will only be rendered in `format`, compared
/// with nothing: Markdown of one file names no passing test, so its plain
/// passes are counted instead of listed ([`Run::unlisted`]), which makes
/// `report` on a large file faster and smaller. The rendering is the same.
pub fn build_run_to_render(inputs: &[Input], format: Format) -> Result<Run, Vec<InputError>> {
    build_run_with(
        inputs,
        ReadOptions {
            keep_json_report: format == Format::Json,
            passing_as_counts: format == Format::Markdown && inputs.len() == 1,
        },
    )
}

fn build_run_with(inputs: &[Input], options: ReadOptions) -> Result<Run, Vec<InputError>> {
    let mut runs = Vec::with_capacity(inputs.len());
    let mut errors = Vec::new();
    for input in inputs {
        let bytes = match &input.contents {
            Ok(bytes) => bytes,
            Err(e) => {
                errors.push(InputError {
                    file: input.name.clone(),
                    line: 0,
                    column: 0,
                    detail: e.clone(),
                });
                continue;
            }
        };
        match sources::read(bytes, &input.name, options) {
            Ok(run) => runs.push(run),
            Err(e) => errors.push(InputError {
                file: input.name.clone(),
                line: e.line,
                column: e.column,
                detail: e.message,
            }),
        }
    }
    if errors.is_empty() {
        Ok(merge(runs))
    } else {
        Err(errors)
    }
}

/// Renders a run in the requested format (JSON indented for people).
pub fn render(run: &Run, format: Format) -> String {
    match format {
        Format::Markdown => render::markdown::render(run),
        Format::Json => render::json::render(run, true),
        Format::Html => render::html::render(&render::markdown::render(run), TITLE),
        Format::Junit => render::junit::render(run),
    }
}

/// The HTML page's title.
const TITLE: &str = "pytest-mcp report";

/// The default `--max-chars`: what a GitHub comment holds.
pub const DEFAULT_MAX_CHARS: usize = 65_536;

/// What `report` prints: [`render`], with Markdown held to `max_chars`
/// characters and long failure detail folded into `<details>` (the report
/// goes to PR comments and job summaries, where GitHub renders them).
pub fn render_within(run: &Run, format: Format, max_chars: usize) -> String {
    match format {
        Format::Markdown => render::markdown::render_within_after(run, max_chars, "", true),
        _ => render(run, format),
    }
}

/// [`render_within`] for a run compared with a baseline: Markdown and HTML
/// open with the comparison (new failures first); JSON gets a `baseline`
/// key beside ADR-006's; JUnit has no place for it.
pub fn render_compared(run: &Run, baseline: &Run, format: Format, max_chars: usize) -> String {
    let comparison = crate::model::baseline::compare(run, baseline);
    match format {
        Format::Markdown => render::markdown::render_within_after(
            run,
            max_chars,
            &render::markdown::comparison_block(&comparison),
            true,
        ),
        Format::Html => render::html::render(
            &render::markdown::render_within_after(
                run,
                usize::MAX,
                &render::markdown::comparison_block(&comparison),
                false,
            ),
            TITLE,
        ),
        Format::Json => {
            let mut value = render::json::to_value(run);
            if let serde_json::Value::Object(map) = &mut value {
                map.insert("baseline".into(), comparison.to_value());
            }
            render::json::text(&value, true)
        }
        Format::Junit => render::junit::render(run),
    }
}

/// Renders unreadable inputs: a Markdown `Report ERROR` block, or the
/// ADR-007 invalid-params error object (`-32602`, naming the field, the
/// rule and the value received).
pub fn render_errors(errors: &[InputError], total_inputs: usize, format: Format) -> String {
    let headline = if errors.len() == 1 && total_inputs == 1 {
        "the input file could not be read as test results".to_string()
    } else {
        format!(
            "{} of {} input files could not be read as test results",
            errors.len(),
            total_inputs
        )
    };
    match format {
        Format::Markdown | Format::Html | Format::Junit => {
            let mut out = format!("Report ERROR — {headline}\n");
            for e in errors {
                out.push_str(&format!("- {e}\n"));
            }
            format.markdown_page(out, TITLE)
        }
        Format::Json => {
            let first = &errors[0];
            let value = json!({
                "error": {
                    "code": -32602,
                    "message": format!("Invalid params: files: {first}"),
                    "data": {
                        "field": "files",
                        "detail": format!("{headline}: {}", first.detail),
                        "received_value": first.file,
                        "errors": errors.iter().map(|e| json!({
                            "file": e.file,
                            "line": (e.line > 0).then_some(e.line),
                            "column": (e.column > 0).then_some(e.column),
                            "detail": e.detail,
                        })).collect::<Vec<_>>(),
                    }
                }
            });
            render::json::text(&value, true)
        }
    }
}
