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
    DiscoverTestsRequest, ExecuteTestsRequest, Format, MAX_TIMEOUT_SECS, MAX_WORKERS,
    ValidationError, invalid,
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
    pub timeout: Duration,
    pub format: Format,
    /// The answer's token budget, when the request set one.
    pub max_tokens: Option<usize>,
}

/// Validated parameters of a discovery (`--collect-only`).
#[derive(Debug, Clone, PartialEq)]
pub struct DiscoverParams {
    /// Where to look, relative to the root; `None` for the root itself.
    pub path: Option<String>,
    /// A file name glob replacing `python_files`.
    pub pattern: Option<String>,
    pub timeout: Duration,
    pub format: Format,
    /// The answer's token budget, when the request set one.
    pub max_tokens: Option<usize>,
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
            timeout: timeout(self.timeout, default_timeout)?,
            format: format(self.format)?,
            max_tokens: max_tokens(self.max_tokens)?,
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

fn format(value: Option<String>) -> Result<Format, ValidationError> {
    match value.as_deref() {
        None | Some("markdown") => Ok(Format::Markdown),
        Some("json") => Ok(Format::Json),
        Some(other) => Err(invalid("format", "must be \"markdown\" or \"json\"", other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::ToolRequest;
    use serde_json::json;

    fn project() -> (tempfile::TempDir, Root) {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("tests")).expect("mkdir");
        std::fs::write(dir.path().join("tests/test_a.py"), "def test_a(): pass\n").expect("write");
        let root = Root::new(dir.path()).expect("root");
        (dir, root)
    }

    fn run(args: Value) -> Result<RunParams, ValidationError> {
        let (_dir, root) = project();
        ExecuteTestsRequest::from_json(&args)?.validate(&root, Duration::from_secs(300))
    }

    fn refused(args: Value, field: &str, detail_part: &str) {
        let err = run(args.clone()).expect_err(&format!("{args} must be refused"));
        assert_eq!(err.field, field, "{err}");
        assert!(err.detail.contains(detail_part), "{err}");
        assert!(err.to_string().starts_with("Invalid params: "), "{err}");
    }

    /// A budget no answer can meet, or absurd, is refused naming max_tokens.
    #[test]
    fn budgets_out_of_range_are_refused() {
        let (_dir, root) = project();
        for bad in [0i64, -1, 199, 1_000_001, i64::MIN] {
            for err in [
                ExecuteTestsRequest {
                    max_tokens: Some(bad),
                    ..Default::default()
                }
                .validate(&root, Duration::from_secs(5))
                .err(),
                DiscoverTestsRequest {
                    max_tokens: Some(bad),
                    ..Default::default()
                }
                .validate(&root, Duration::from_secs(5))
                .err(),
            ] {
                let err = err.expect("refused");
                assert_eq!(err.field, "max_tokens");
                assert_eq!(err.received_value, json!(bad));
            }
        }
        for good in [200i64, 400, 8_000, 1_000_000] {
            let p = ExecuteTestsRequest {
                max_tokens: Some(good),
                ..Default::default()
            }
            .validate(&root, Duration::from_secs(5))
            .expect("accepted");
            assert_eq!(p.max_tokens, Some(good as usize));
        }
    }

    #[test]
    fn a_good_request_is_typed() {
        let p = run(json!({
            "node_ids": ["tests/test_a.py::test_a", "tests"],
            "markers": "not slow",
            "keywords": "a or b",
            "verbosity": -1,
            "maxfail": 3,
            "timeout": 10,
            "format": "json"
        }))
        .expect("valid");
        assert_eq!(p.stop, Stop::After(3));
        assert_eq!(p.verbosity, -1);
        assert_eq!(p.timeout, Duration::from_secs(10));
        assert_eq!(p.format, Format::Json);
        assert!(run(json!({})).is_ok());
        assert!(run(Value::Null).is_ok());
        // last_failed narrows a selection (pytest's --lf with node ids).
        let p = run(json!({"last_failed": true, "node_ids": ["tests"], "keywords": "a"}))
            .expect("valid");
        assert!(p.last_failed);
        assert!(!run(json!({})).expect("valid").last_failed);
        // affected combines with them.
        let p =
            run(json!({"affected": true, "last_failed": true, "keywords": "a"})).expect("valid");
        assert!(p.affected && p.last_failed);
        assert!(!run(json!({})).expect("valid").affected);
    }

    #[test]
    fn every_rule_is_enforced_with_field_rule_and_value() {
        refused(json!({"verbosity": 10}), "verbosity", "between -2 and 2");
        refused(json!({"verbosity": "2"}), "verbosity", "integer");
        refused(json!({"verbosity": 1.5}), "verbosity", "integer");
        refused(json!({"maxfail": 0}), "maxfail", "positive");
        refused(
            json!({"failfast": true, "maxfail": 2}),
            "failfast",
            "maxfail",
        );
        refused(json!({"failfast": "yes"}), "failfast", "true or false");
        refused(json!({"timeout": 0}), "timeout", "between 1 and");
        refused(json!({"timeout": 100000}), "timeout", "between 1 and");
        refused(json!({"format": "xml"}), "format", "markdown");
        refused(
            json!({"extra_args": ["-p", "evil"]}),
            "extra_args",
            "not a known parameter",
        );
        refused(json!({"node_ids": "tests"}), "node_ids", "array of strings");
        refused(json!({"node_ids": [1]}), "node_ids", "array of strings");
        refused(json!({"node_ids": ["../outside.py"]}), "node_ids", "'..'");
        refused(
            json!({"node_ids": ["/etc/passwd"]}),
            "node_ids",
            "inside the project root",
        );
        refused(json!({"node_ids": ["--pdb"]}), "node_ids", "start with '-'");
        refused(
            json!({"node_ids": ["tests/test_a.py\u{0}x"]}),
            "node_ids",
            "control",
        );
        refused(
            json!({"node_ids": ["tests/nope.py"]}),
            "node_ids",
            "existing file",
        );
        refused(json!({"node_ids": [""]}), "node_ids", "empty");
        refused(
            json!({"node_ids": vec!["tests/test_a.py"; 10_001]}),
            "node_ids",
            "at most 10000 ids",
        );
        refused(
            json!({"node_ids": vec!["tests/test_a.py::".to_string() + &"a".repeat(4000); 300]}),
            "node_ids",
            "must total at most",
        );
        refused(
            json!({"node_ids": ["tests/test_a.py::".to_string() + &"a".repeat(5000)]}),
            "node_ids",
            "at most 4096 characters",
        );
        refused(json!({"markers": "-p evil"}), "markers", "start with '-'");
        refused(json!({"markers": "  --co"}), "markers", "start with '-'");
        refused(json!({"keywords": "a\nb"}), "keywords", "control");
        refused(json!({"keywords": " "}), "keywords", "empty");
        refused(json!(["tests"]), "arguments", "JSON object");
        for bad in [
            json!(0),
            json!(-1),
            json!(257),
            json!(1.5),
            json!("many"),
            json!("2"),
            json!("AUTO"),
            json!(true),
            json!([2]),
        ] {
            let err = run(json!({"workers": bad.clone()})).expect_err("refused");
            assert_eq!(
                err.to_string(),
                format!(
                    "Invalid params: workers must be an integer from 1 to 256, or \"auto\" (one per CPU) (received {bad})"
                )
            );
        }
    }

    #[test]
    fn workers_are_a_count_or_auto() {
        let workers = |v: Value| run(json!({ "workers": v })).expect("valid").workers;
        assert_eq!(workers(json!(1)), Some(Workers::Count(1)));
        assert_eq!(workers(json!(256)), Some(Workers::Count(256)));
        assert_eq!(workers(json!("auto")), Some(Workers::Auto));
        assert_eq!(run(json!({})).expect("valid").workers, None);
        assert_eq!(Workers::Count(2).received(), json!(2));
        assert_eq!(Workers::Auto.received(), json!("auto"));
    }

    #[test]
    fn symlinks_out_of_the_root_are_refused() {
        let (dir, root) = project();
        let outside = tempfile::tempdir().expect("tempdir");
        std::fs::write(outside.path().join("x.py"), "").expect("write");
        std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).expect("symlink");
        let err = ExecuteTestsRequest {
            node_ids: vec!["link/x.py".into()],
            ..ExecuteTestsRequest::default()
        }
        .validate(&root, Duration::from_secs(1))
        .expect_err("escapes");
        assert!(err.detail.contains("inside the project root"), "{err}");
    }

    #[test]
    fn discovery_rules() {
        let (_dir, root) = project();
        let ok = DiscoverTestsRequest::from_json(&json!({"path": "tests", "pattern": "test_*.py"}))
            .and_then(|r| r.validate(&root, Duration::from_secs(5)))
            .expect("valid");
        assert_eq!(ok.pattern.as_deref(), Some("test_*.py"));
        for (args, field) in [
            (json!({"path": "../x"}), "path"),
            (json!({"path": "-x"}), "path"),
            (json!({"pattern": "a/b*.py"}), "pattern"),
            (json!({"pattern": "--co"}), "pattern"),
            (json!({"timeout": 5}), "timeout"),
        ] {
            let err = DiscoverTestsRequest::from_json(&args)
                .and_then(|r| r.validate(&root, Duration::from_secs(5)))
                .expect_err("refused");
            assert_eq!(err.field, field, "{err}");
        }
    }

    #[test]
    fn message_names_field_rule_and_value() {
        let err = run(json!({"verbosity": 10})).expect_err("refused");
        assert_eq!(
            err.to_string(),
            "Invalid params: verbosity must be between -2 and 2 (received 10)"
        );
    }
}
