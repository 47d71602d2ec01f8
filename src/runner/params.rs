//! Request parameters: a tool's request (`request`) in, validated and typed
//! values out.
//!
//! The same rules serve the command line and the MCP tools (SECURITY.md,
//! "Parameters are validated before anything runs"): every value is checked
//! before anything runs, and a rejection names the field, the rule and the
//! value received. `request` reads raw MCP arguments with the same error,
//! so wrong types and unknown keys get it too instead of a generic
//! deserialization failure.

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::budget::{MAX_TOKENS, MIN_TOKENS};

use crate::request::{
    DiscoverTestsRequest, ExecuteTestsRequest, MAX_RETRIES, MAX_TIMEOUT_SECS, MAX_WORKERS,
    OutputFormat, ValidationError, invalid,
};

/// Default time limit of one pytest run.
pub const DEFAULT_TIMEOUT_SECS: u64 = 300;
const MAX_NODE_IDS: usize = 10_000;
/// Bytes all node ids may take together: they become pytest's command line,
/// which the kernel limits (ARG_MAX, commonly 2 MiB with the environment).
const MAX_NODE_IDS_BYTES: usize = 1024 * 1024;
const MAX_TEXT_CHARS: usize = 4_096;

/// The project directory every path must stay inside, resolved once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root(PathBuf);

impl Root {
    /// Resolves `dir` (symlinks followed). Fails when it is not a directory.
    pub fn new(dir: &Path) -> Result<Root, String> {
        let resolved = dir
            .canonicalize()
            .map_err(|e| format!("project root {}: {e}", dir.display()))?;
        if !resolved.is_dir() {
            return Err(format!("project root {} is not a directory", dir.display()));
        }
        Ok(Root(resolved))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Checks that a relative or absolute path names an existing file or
    /// directory inside the root once symlinks are followed.
    fn check_path(&self, field: &str, value: &str, path: &str) -> Result<PathBuf, ValidationError> {
        let p = Path::new(path);
        if p.components().any(|c| c == Component::ParentDir) {
            return Err(invalid(
                field,
                "must not contain '..' path components",
                value,
            ));
        }
        let joined = if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.0.join(p)
        };
        let resolved = joined.canonicalize().map_err(|_| {
            invalid(
                field,
                format!(
                    "must name an existing file or directory under the project root {}",
                    self.0.display()
                ),
                value,
            )
        })?;
        if !resolved.starts_with(&self.0) {
            return Err(invalid(
                field,
                format!(
                    "must stay inside the project root {} (symlinks are followed)",
                    self.0.display()
                ),
                value,
            ));
        }
        Ok(resolved)
    }
}

/// How a run stops early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Run everything.
    Never,
    /// `-x`: stop at the first failure.
    FirstFailure,
    /// `--maxfail=N`.
    After(u32),
}

/// How many pytest-xdist workers run the tests (`--numprocesses`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workers {
    Count(u32),
    /// One per CPU, as pytest-xdist counts them.
    Auto,
}

impl Workers {
    /// The value as the request gave it, for error reports.
    pub fn received(self) -> Value {
        match self {
            Workers::Count(n) => Value::from(n),
            Workers::Auto => Value::from("auto"),
        }
    }
}

/// Validated parameters of one test run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunParams {
    pub node_ids: Vec<String>,
    pub markers: Option<String>,
    pub keywords: Option<String>,
    /// -2 (quietest) to 2.
    pub verbosity: i8,
    pub stop: Stop,
    /// Only the failures pytest's cache recorded (`--lf`).
    pub last_failed: bool,
    /// Only the tests pytest-testmon selects (`--testmon-forceselect`).
    pub affected: bool,
    /// Whether captured output is shown for failures.
    pub show_capture: bool,
    /// Run under pytest-xdist; `None`: as the project's configuration says.
    pub workers: Option<Workers>,
    /// Reruns of a failing test under pytest-rerunfailures (`--reruns`);
    /// `None`: as the project's configuration says.
    pub retries: Option<u32>,
    pub timeout: Duration,
    pub format: OutputFormat,
    /// The answer's token budget, when the request set one.
    pub max_tokens: Option<usize>,
    /// One shard of the suite (`run --shard`): the tests are chosen inside
    /// pytest's own collection, by the program this names (see
    /// [`ShardChoice`]).
    pub shard: Option<ShardChoice>,
    /// Run under coverage.py and judge the change against this git
    /// revision (docs/coverage.md).
    pub coverage: Option<String>,
    /// Fork the run from a warm process where the frontend keeps one
    /// (docs/warm.md); false: always a fresh interpreter.
    pub warm: bool,
}

/// How a shard run chooses its tests: after pytest collects (and `-m`,
/// `-k` deselect), pytest-mcp's plugin hands the collected node ids, one a
/// line, to `argv` on its standard input and runs those it prints back;
/// the others are deselected. So one pytest process collects and runs the
/// shard, new tests are placed and gone ones named from the run's own
/// collection, and no number of ids meets the command line's limit. The
/// program is pytest-mcp itself (`select-shard`), which holds the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardChoice {
    /// The program and its arguments.
    pub argv: Vec<std::ffi::OsString>,
}

/// Validated parameters of a discovery (`--collect-only`).
#[derive(Debug, Clone, PartialEq)]
pub struct DiscoverParams {
    /// Where to look, relative to the root; `None` for the root itself.
    pub path: Option<String>,
    /// A file name glob replacing `python_files`.
    pub pattern: Option<String>,
    /// The selection `run` takes, for `plan` (ids or paths, `-m`, `-k`):
    /// a plan holds exactly the tests such a run would run.
    pub selection: Selection,
    pub timeout: Duration,
    pub format: OutputFormat,
    /// The answer's token budget, when the request set one.
    pub max_tokens: Option<usize>,
}

/// Which tests a run takes, checked as `run`'s are.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selection {
    pub node_ids: Vec<String>,
    pub markers: Option<String>,
    pub keywords: Option<String>,
}

impl DiscoverParams {
    /// A discovery of the tests `run` would run with these parameters (its
    /// ids or paths, markers and keywords; the rest of a run's parameters
    /// do not change what is collected).
    pub fn of_run(run: RunParams) -> DiscoverParams {
        DiscoverParams {
            path: None,
            pattern: None,
            selection: Selection {
                node_ids: run.node_ids,
                markers: run.markers,
                keywords: run.keywords,
            },
            timeout: run.timeout,
            format: run.format,
            max_tokens: run.max_tokens,
        }
    }
}

impl ExecuteTestsRequest {
    /// Applies every rule. `default_timeout` is the server's or CLI's.
    pub fn validate(
        self,
        root: &Root,
        default_timeout: Duration,
    ) -> Result<RunParams, ValidationError> {
        if self.node_ids.len() > MAX_NODE_IDS {
            return Err(invalid(
                "node_ids",
                format!("must hold at most {MAX_NODE_IDS} ids"),
                self.node_ids.len(),
            ));
        }
        let total: usize = self.node_ids.iter().map(|id| id.len() + 1).sum();
        if total > MAX_NODE_IDS_BYTES {
            return Err(invalid(
                "node_ids",
                format!(
                    "must total at most {MAX_NODE_IDS_BYTES} bytes, more than a command line can carry (select files or directories instead of many ids)"
                ),
                total,
            ));
        }
        for id in &self.node_ids {
            check_text("node_ids", id)?;
            let file = id.split("::").next().unwrap_or_default();
            if file.is_empty() {
                return Err(invalid(
                    "node_ids",
                    "must start with a file or directory path",
                    id.as_str(),
                ));
            }
            root.check_path("node_ids", id, file)?;
        }
        let markers = self
            .markers
            .map(|m| check_expression("markers", m))
            .transpose()?;
        let keywords = self
            .keywords
            .map(|k| check_expression("keywords", k))
            .transpose()?;
        let verbosity = match self.verbosity {
            None => 0,
            Some(v @ -2..=2) => v as i8,
            Some(v) => return Err(invalid("verbosity", "must be between -2 and 2", v)),
        };
        let stop = match (self.failfast, self.maxfail) {
            (Some(true), Some(n)) => {
                return Err(invalid(
                    "failfast",
                    format!(
                        "cannot be combined with maxfail (failfast means maxfail=1; maxfail was {n})"
                    ),
                    true,
                ));
            }
            (Some(true), None) => Stop::FirstFailure,
            (_, Some(n)) if (1..=i64::from(u32::MAX)).contains(&n) => Stop::After(n as u32),
            (_, Some(n)) => return Err(invalid("maxfail", "must be a positive integer", n)),
            (_, None) => Stop::Never,
        };
        Ok(RunParams {
            node_ids: self.node_ids,
            markers,
            keywords,
            verbosity,
            stop,
            last_failed: self.last_failed.unwrap_or(false),
            affected: self.affected.unwrap_or(false),
            show_capture: self.show_capture.unwrap_or(true),
            workers: workers(self.workers)?,
            retries: retries(self.retries)?,
            timeout: timeout(self.timeout, default_timeout)?,
            format: format(self.format)?,
            max_tokens: max_tokens(self.max_tokens)?,
            shard: None,
            coverage: coverage(self.coverage, self.base)?,
            warm: self.warm.unwrap_or(true),
        })
    }
}

impl DiscoverTestsRequest {
    /// Applies every rule. `default_timeout` is the server's or CLI's.
    pub fn validate(
        self,
        root: &Root,
        default_timeout: Duration,
    ) -> Result<DiscoverParams, ValidationError> {
        let path = match self.path {
            Some(p) => {
                check_text("path", &p)?;
                root.check_path("path", &p, &p)?;
                Some(p)
            }
            None => None,
        };
        let pattern = match self.pattern {
            Some(p) => {
                check_text("pattern", &p)?;
                if p.trim().is_empty() {
                    return Err(invalid("pattern", "must not be empty", p));
                }
                if p.contains('/') || p.contains('\\') {
                    return Err(invalid(
                        "pattern",
                        "must be a file name glob such as 'test_*.py', without directories (use path for those)",
                        p,
                    ));
                }
                Some(p)
            }
            None => None,
        };
        Ok(DiscoverParams {
            path,
            pattern,
            selection: Selection::default(),
            timeout: timeout(self.timeout, default_timeout)?,
            format: format(self.format)?,
            max_tokens: max_tokens(self.max_tokens)?,
        })
    }
}

/// Text that becomes one argument of pytest: no NUL or control characters,
/// no leading dash (it must never read as an option), bounded length.
fn check_text(field: &str, value: &str) -> Result<(), ValidationError> {
    if value.is_empty() {
        return Err(invalid(field, "must not be empty", value));
    }
    if value.chars().count() > MAX_TEXT_CHARS {
        return Err(invalid(
            field,
            format!("must be at most {MAX_TEXT_CHARS} characters"),
            value,
        ));
    }
    if value.chars().any(char::is_control) {
        return Err(invalid(
            field,
            "must not contain NUL or control characters",
            value,
        ));
    }
    if value.starts_with('-') {
        return Err(invalid(
            field,
            "must not start with '-' (it would read as an option)",
            value,
        ));
    }
    Ok(())
}

fn check_expression(field: &str, value: String) -> Result<String, ValidationError> {
    if value.trim().is_empty() {
        return Err(invalid(field, "must not be empty", value));
    }
    // The rules apply to the expression without its leading blanks (pytest
    // would not see them either); the error reports the value as received.
    check_text(field, value.trim_start()).map_err(|e| ValidationError {
        received_value: Value::String(value.clone()),
        ..e
    })?;
    Ok(value)
}

fn timeout(value: Option<i64>, default: Duration) -> Result<Duration, ValidationError> {
    match value {
        None => Ok(default),
        Some(t) if (1..=MAX_TIMEOUT_SECS as i64).contains(&t) => Ok(Duration::from_secs(t as u64)),
        Some(t) => Err(invalid(
            "timeout",
            format!("must be between 1 and {MAX_TIMEOUT_SECS} seconds"),
            t,
        )),
    }
}

fn max_tokens(value: Option<i64>) -> Result<Option<usize>, ValidationError> {
    match value {
        None => Ok(None),
        Some(t) if (MIN_TOKENS as i64..=MAX_TOKENS as i64).contains(&t) => Ok(Some(t as usize)),
        Some(t) => Err(invalid(
            "max_tokens",
            format!(
                "must be between {MIN_TOKENS} and {MAX_TOKENS} tokens (the smallest answer, status, counts and one line per group, needs about {MIN_TOKENS})"
            ),
            t,
        )),
    }
}

fn workers(value: Option<Value>) -> Result<Option<Workers>, ValidationError> {
    let Some(value) = value else {
        return Ok(None);
    };
    if value == "auto" {
        return Ok(Some(Workers::Auto));
    }
    match value.as_u64() {
        Some(n @ 1..=MAX_WORKERS) => Ok(Some(Workers::Count(n as u32))),
        _ => Err(invalid(
            "workers",
            format!("must be an integer from 1 to {MAX_WORKERS}, or \"auto\" (one per CPU)"),
            value,
        )),
    }
}

/// The revision a run under coverage compares the change with: `base`
/// (default `HEAD`), which git must be able to name; only with coverage.
fn coverage(on: Option<bool>, base: Option<String>) -> Result<Option<String>, ValidationError> {
    match (on.unwrap_or(false), base) {
        (false, None) => Ok(None),
        (false, Some(base)) => Err(invalid(
            "base",
            "needs coverage: true (the change is judged by what ran)",
            base,
        )),
        (true, None) => Ok(Some("HEAD".to_string())),
        (true, Some(base)) => {
            let plausible = !base.is_empty()
                && !base.starts_with('-')
                && !base.chars().any(|c| c.is_control() || c.is_whitespace());
            match plausible {
                true => Ok(Some(base)),
                false => Err(invalid(
                    "base",
                    "must be a git revision: a branch, a tag or a commit",
                    base,
                )),
            }
        }
    }
}

fn retries(value: Option<i64>) -> Result<Option<u32>, ValidationError> {
    match value {
        None => Ok(None),
        Some(n) if (1..=MAX_RETRIES as i64).contains(&n) => Ok(Some(n as u32)),
        Some(n) => Err(invalid(
            "retries",
            format!("must be an integer from 1 to {MAX_RETRIES} (reruns of a failing test)"),
            n,
        )),
    }
}

fn format(value: Option<String>) -> Result<OutputFormat, ValidationError> {
    let value = value.as_deref();
    OutputFormat::of_tool(value).ok_or_else(|| {
        invalid(
            "format",
            "must be \"markdown\" or \"json\"",
            value.unwrap_or_default(),
        )
    })
}

#[cfg(test)]
mod tests;
