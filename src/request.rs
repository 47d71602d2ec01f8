//! The MCP tools' requests: one type per tool, exactly as a client sends it.
//!
//! Each type is the whole contract of its tool. Its doc comment is the
//! tool's description and its fields, with their doc comments and range
//! attributes, are the tool's input schema ([`ToolRequest::input_schema`]):
//! nothing is written twice. [`ToolRequest::from_json`] reads raw arguments
//! into it, refusing unknown keys and wrong JSON types with our
//! field/rule/value error (ADR-007), not serde's; `params` then validates
//! the request into typed parameters. The command line builds the same
//! types from its flags and validates them the same way.

use std::sync::OnceLock;

use rmcp::schemars::generate::SchemaSettings;
use rmcp::schemars::transform::{RecursiveTransform, RestrictFormats};
use rmcp::schemars::{JsonSchema, Schema};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::budget::{MAX_TOKENS, MIN_TOKENS};

/// Longest time limit a request may ask for (a day).
pub const MAX_TIMEOUT_SECS: u64 = 86_400;
/// Most pytest-xdist workers a request may ask for by number.
pub const MAX_WORKERS: u64 = 256;
/// Most reruns of a failing test a request may ask for (pytest-rerunfailures).
pub const MAX_RETRIES: u64 = 5;

/// An output format a request can ask for. The tools take `markdown` and
/// `json` (`AnswerFormat` is their schema); the command line takes them all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum OutputFormat {
    /// Token-lean Markdown for agents, PR comments and job summaries.
    #[default]
    Markdown,
    /// The ADR-006 JSON object, every key always present.
    Json,
    /// A self-contained HTML report for people: every test, failures by root
    /// cause, filter, search and sort (no external resources).
    Html,
    /// Standard JUnit XML (results only; errors and discovery print Markdown).
    Junit,
    /// A CTRF JSON document (Common Test Report Format, ctrf.io), strictly
    /// valid against its schema, for CTRF dashboards and reporters (results
    /// only; errors and discovery print Markdown). Command line only.
    Ctrf,
    /// GitHub workflow commands: an `::error` annotation on the failing line
    /// per failure group (at most 10); the GitHub rendering (`gfm`) is
    /// appended to $GITHUB_STEP_SUMMARY when it is set (`report` and `run`; errors are
    /// one `::error`, discovery prints Markdown).
    Github,
    /// GitHub Flavored Markdown for people: a job summary or a PR comment
    /// (counts table, failure groups in `<details>` with code blocks,
    /// nothing from a test read as Markdown or HTML). Command line only.
    Gfm,
}

impl OutputFormat {
    /// Every output format, in the order `--help` lists them: the one list
    /// of them (derived by clap, so a new variant is in it without a word
    /// more). Tests that go over the formats take them from here.
    pub fn all() -> &'static [OutputFormat] {
        <OutputFormat as clap::ValueEnum>::value_variants()
    }

    /// The name `--format` takes for this format (`markdown`, `junit`, ...).
    pub fn cli_name(self) -> &'static str {
        match self {
            OutputFormat::Markdown => "markdown",
            OutputFormat::Json => "json",
            OutputFormat::Html => "html",
            OutputFormat::Junit => "junit",
            OutputFormat::Ctrf => "ctrf",
            OutputFormat::Github => "github",
            OutputFormat::Gfm => "gfm",
        }
    }

    /// The format a tool's `format` value names (`markdown` when absent);
    /// `None` for a value the tools do not take.
    pub fn of_tool(value: Option<&str>) -> Option<OutputFormat> {
        match value {
            None | Some("markdown") => Some(OutputFormat::Markdown),
            Some("json") => Some(OutputFormat::Json),
            Some(_) => None,
        }
    }

    /// Whether the answer carries pytest-json-report's whole document
    /// (`json_report`): the runner and the readers keep it only then.
    pub fn carries_json_report(self) -> bool {
        self == OutputFormat::Json
    }

    /// Whether a rendering of one file may count plain passes instead of
    /// listing them: only the agent Markdown names no passing test.
    pub fn counts_passes(self) -> bool {
        self == OutputFormat::Markdown
    }

    /// Whether the answer is the agent Markdown, which a tool's structured
    /// result then carries too.
    pub fn is_markdown(self) -> bool {
        self == OutputFormat::Markdown
    }

    /// Whether an error is answered as a JSON-RPC error object rather
    /// than a rendering.
    pub fn errors_as_objects(self) -> bool {
        self == OutputFormat::Json
    }

    /// Whether `--max-chars` (a GitHub comment's size by default) holds
    /// the command line's answer: JSON and CTRF are read whole by scripts.
    pub fn has_char_budget(self) -> bool {
        !matches!(self, OutputFormat::Json | OutputFormat::Ctrf)
    }

    /// Whether the whole answer, when no budget applies, is written as it
    /// is serialized rather than held (the JSON or CTRF of a large run).
    pub fn streams_whole(self) -> bool {
        matches!(self, OutputFormat::Json | OutputFormat::Ctrf)
    }

    /// The format of the job summary the command line also appends to
    /// `$GITHUB_STEP_SUMMARY`: the GitHub rendering, for the annotations.
    pub fn step_summary(self) -> Option<OutputFormat> {
        (self == OutputFormat::Github).then_some(OutputFormat::Gfm)
    }

    /// The name a tool's `format` takes for this format, for the formats
    /// the tools take (`markdown` for the others).
    pub fn tool_name(self) -> &'static str {
        match self {
            OutputFormat::Json => "json",
            _ => "markdown",
        }
    }
}

/// A parameter that was refused: which, why, and what was received.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "Invalid params: {field} {detail} (received {})",
    shown(received_value)
)]
pub struct ValidationError {
    pub field: String,
    /// The rule broken, phrased to follow the field name: "must be ...".
    pub detail: String,
    pub received_value: Value,
}

fn shown(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s,
    }
}

pub fn invalid(
    field: &str,
    detail: impl Into<String>,
    received: impl Into<Value>,
) -> ValidationError {
    ValidationError {
        field: field.to_string(),
        detail: detail.into(),
        received_value: received.into(),
    }
}

/// Run pytest in the project. Failing tests are a result, not an error:
/// Markdown gives a status line, then one '### FAILED: <node_id>' section
/// per root cause (message, frames, failing line), marked '(new)',
/// '(failing for <n> runs)' or '(flaky ...)' against earlier runs; passes
/// are only counted. A timeout or crash is an error naming the running
/// test. Any node id in an answer can be passed back in node_ids.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(crate = "rmcp::schemars")]
pub struct ExecuteTestsRequest {
    /// pytest node ids or paths inside the project root
    /// ('tests/test_user.py::test_login', 'tests/unit'); default: all.
    pub node_ids: Vec<String>,
    /// Marker expression (pytest -m), e.g. 'not slow'.
    pub markers: Option<String>,
    /// Keyword expression (pytest -k), e.g. 'login and not admin'.
    pub keywords: Option<String>,
    /// pytest's verbosity; changes only its own output (JSON text_output).
    #[schemars(range(min = -2, max = 2))]
    pub verbosity: Option<i64>,
    /// Stop at the first failure (pytest -x); not with maxfail.
    pub failfast: Option<bool>,
    /// Stop after this many failures (pytest --maxfail).
    #[schemars(range(min = 1))]
    pub maxfail: Option<i64>,
    /// Only last run's failures (pytest --lf).
    pub last_failed: Option<bool>,
    /// Only tests whose code changed since they last ran, and last run's
    /// failures (pytest-testmon).
    pub affected: Option<bool>,
    // Described by `WorkersSchema`; `params` checks the value.
    #[schemars(with = "Option<WorkersSchema>")]
    pub workers: Option<Value>,
    /// Reruns of a failing test (pytest-rerunfailures); a pass on a rerun
    /// is flaky.
    #[schemars(range(min = 1, max = MAX_RETRIES))]
    pub retries: Option<i64>,
    /// Show failing tests' captured output (default true).
    pub show_capture: Option<bool>,
    /// Seconds before the run and its processes are killed (default: the
    /// server's, 300).
    #[schemars(range(min = 1, max = MAX_TIMEOUT_SECS))]
    pub timeout: Option<i64>,
    /// Answer size in tokens (default 8000); what is dropped to fit is said.
    #[schemars(range(min = MIN_TOKENS, max = MAX_TOKENS))]
    pub max_tokens: Option<i64>,
    // Described by `AnswerFormat`, the same for both tools.
    #[schemars(with = "Option<AnswerFormat>")]
    pub format: Option<String>,
    /// List changed lines no test ran (coverage.py).
    pub coverage: Option<bool>,
    /// With coverage: git revision to compare with (default HEAD).
    pub base: Option<String>,
    /// false: a fresh Python, not one forked from the warm process.
    pub warm: Option<bool>,
}

/// List the tests pytest would run (pytest --collect-only), by file: '-
/// L<line> <name>' per test. Files that fail to import are collection
/// errors, not a failure of the tool.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(crate = "rmcp::schemars")]
pub struct DiscoverTestsRequest {
    /// Directory or file inside the project root; default: all.
    pub path: Option<String>,
    /// Test file glob replacing pytest's python_files, e.g. '*_spec.py'.
    pub pattern: Option<String>,
    /// Time limit in seconds, from the command line (`--timeout`) only: the
    /// tool takes the server's.
    #[serde(skip)]
    pub timeout: Option<i64>,
    /// Answer size in tokens (default 8000); what is dropped to fit is said.
    #[schemars(range(min = MIN_TOKENS, max = MAX_TOKENS))]
    pub max_tokens: Option<i64>,
    // Described by `AnswerFormat`, the same for both tools.
    #[schemars(with = "Option<AnswerFormat>")]
    pub format: Option<String>,
}

/// 'markdown' (default), or 'json': the full object, errors as JSON-RPC
/// errors.
//
// Only the schema of a tool's `format` (this doc comment is its
// description): the field is read as a string and `params` checks its
// value, so that a refusal keeps its rule's order and wording.
#[derive(JsonSchema)]
#[schemars(crate = "rmcp::schemars", inline, rename_all = "lowercase")]
#[allow(dead_code)]
enum AnswerFormat {
    Markdown,
    Json,
}

/// pytest-xdist processes (pytest -n), or 'auto' for one per CPU.
//
// Only the schema of `workers` (this doc comment is its description): the
// field is read as a JSON value and `params` checks it, so that 0, -1 or
// "many" are refused naming `workers`, as the other fields' values are.
#[derive(JsonSchema)]
#[schemars(crate = "rmcp::schemars", inline, untagged)]
#[allow(dead_code)]
enum WorkersSchema {
    Count(#[schemars(range(min = 1, max = MAX_WORKERS))] u64),
    Auto(AutoWord),
}

#[derive(JsonSchema)]
#[schemars(crate = "rmcp::schemars", inline, rename_all = "lowercase")]
#[allow(dead_code)]
enum AutoWord {
    Auto,
}

/// A tool's request type: its name, its schema and how raw arguments are read.
pub trait ToolRequest: DeserializeOwned + JsonSchema {
    /// The tool's name in `tools/list` and `tools/call`.
    const TOOL: &'static str;

    /// The tool's description (the type's doc comment) and its input
    /// schema (see [`derive_schema`]), derived once.
    fn input_schema() -> &'static (String, Map<String, Value>);

    /// Reads raw JSON arguments (`null` is no arguments; a `null` value is
    /// an absent one). Unknown keys and wrong types are refused, in the
    /// schema's field order, before serde sees the value.
    fn from_json(args: &Value) -> Result<Self, ValidationError> {
        let empty = Map::new();
        let map = match args {
            Value::Object(map) => map,
            Value::Null => &empty,
            other => return Err(invalid("arguments", "must be a JSON object", other.clone())),
        };
        let (_, schema) = Self::input_schema();
        let properties = match schema.get("properties") {
            Some(Value::Object(properties)) => properties,
            _ => &empty,
        };
        if let Some(unknown) = map.keys().find(|k| !properties.contains_key(*k)) {
            let known: Vec<&str> = properties.keys().map(String::as_str).collect();
            return Err(invalid(
                unknown,
                format!("is not a known parameter (known: {})", known.join(", ")),
                map[unknown].clone(),
            ));
        }
        for (field, property) in properties {
            if let Some(value) = map.get(field).filter(|v| !v.is_null())
                && let Some((detail, received)) = wrong_type(property, value)
            {
                return Err(invalid(field, detail, received.clone()));
            }
        }
        let given: Map<String, Value> = map
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        // The checks above leave serde nothing to refuse; should the two
        // ever disagree, its message still names the rule.
        serde_json::from_value(Value::Object(given))
            .map_err(|e| invalid("arguments", e.to_string(), args.clone()))
    }
}

impl ToolRequest for ExecuteTestsRequest {
    const TOOL: &'static str = "execute_tests";

    fn input_schema() -> &'static (String, Map<String, Value>) {
        static SCHEMA: OnceLock<(String, Map<String, Value>)> = OnceLock::new();
        SCHEMA.get_or_init(derive_schema::<Self>)
    }
}

impl ToolRequest for DiscoverTestsRequest {
    const TOOL: &'static str = "discover_tests";

    fn input_schema() -> &'static (String, Map<String, Value>) {
        static SCHEMA: OnceLock<(String, Map<String, Value>)> = OnceLock::new();
        SCHEMA.get_or_init(derive_schema::<Self>)
    }
}

/// `T`'s schema as a JSON object, derived with `settings` and kept short
/// by `lean` (applied to every subschema). Integer widths (`int64`) are
/// not JSON Schema formats: they are dropped while `$schema` still says
/// which standard applies. The tools' input and output schemas are both
/// made here.
pub fn schema_object<T: JsonSchema>(
    mut settings: SchemaSettings,
    lean: fn(&mut Schema),
) -> Map<String, Value> {
    settings
        .transforms
        .push(Box::new(RestrictFormats::default()));
    settings.transforms.push(Box::new(RecursiveTransform(lean)));
    match settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
    {
        Value::Object(object) => object,
        _ => Map::new(),
    }
}

/// A request type's description (its doc comment) and input schema: an
/// object of the type's fields, none required, no others allowed.
fn derive_schema<T: JsonSchema>() -> (String, Map<String, Value>) {
    let mut object = schema_object::<T>(SchemaSettings::draft2020_12(), lean);
    for noise in ["$schema", "title"] {
        object.shift_remove(noise);
    }
    // Last, after the properties it is about.
    if let Some(closed) = object.shift_remove("additionalProperties") {
        object.insert("additionalProperties".into(), closed);
    }
    let description = match object.shift_remove("description") {
        Some(Value::String(text)) => text,
        _ => String::new(),
    };
    (description, object)
}

/// Keeps the schema as short as it can say the same (it is read on every
/// turn of an agent): an `Option` field is its value's type or
/// alternatives (a `null` reads as absent, which the missing `required`
/// already says), defaults are said
/// in the descriptions, and a doc comment wrapped over lines is one line,
/// last.
fn lean(schema: &mut Schema) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    // An `Option` of a type with alternatives: `anyOf` that type and null.
    if let Some(Value::Array(choices)) = object.get_mut("anyOf") {
        choices.retain(|c| c.get("type").and_then(Value::as_str) != Some("null"));
        if let [Value::Object(only)] = choices.as_slice() {
            let only = only.clone();
            object.shift_remove("anyOf");
            for (key, value) in only {
                object.entry(key).or_insert(value);
            }
        }
    }
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|t| t != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            object.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(choices)) = object.get_mut("enum") {
        choices.retain(|v| !v.is_null());
    }
    object.shift_remove("default");
    if let Some(Value::String(text)) = object.shift_remove("description") {
        object.insert("description".into(), text.replace('\n', " ").into());
    }
}

fn type_of(schema: &Value) -> Option<&str> {
    schema.get("type")?.as_str()
}

/// The rule a value breaks when its JSON type is not the property's, and
/// the value to report (for an array, its first item of the wrong type).
/// Types the tools do not use are left to serde.
fn wrong_type<'a>(property: &Value, value: &'a Value) -> Option<(&'static str, &'a Value)> {
    match type_of(property)? {
        "array" => {
            let item = property.get("items").and_then(type_of);
            let detail = match item? {
                "string" => "must be an array of strings",
                _ => return None,
            };
            match value {
                Value::Array(items) => items.iter().find(|v| !v.is_string()).map(|v| (detail, v)),
                other => Some((detail, other)),
            }
        }
        "string" => (!value.is_string()).then_some(("must be a string", value)),
        "integer" => value
            .as_i64()
            .is_none()
            .then_some(("must be an integer", value)),
        "boolean" => (!value.is_boolean()).then_some(("must be true or false", value)),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
