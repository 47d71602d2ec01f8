//! The parts of a CTRF document the reader uses, as serde reads them.
//! Every other key is skipped; numbers are read as any JSON number and
//! checked where they are used, so a float duration is no error.

use serde::Deserialize;
use serde::de::IgnoredAny;

/// The whole document.
#[derive(Debug, Deserialize)]
pub(super) struct Document {
    pub results: Option<Results>,
}

/// `results`.
#[derive(Debug, Deserialize)]
pub(super) struct Results {
    pub summary: Option<Summary>,
    pub tests: Option<Vec<Test>>,
}

/// `results.summary`: only its times are used (the counts are the tests').
#[derive(Debug, Deserialize)]
pub(super) struct Summary {
    pub start: Option<f64>,
    pub stop: Option<f64>,
}

impl Summary {
    /// `stop - start`, milliseconds since the epoch, as seconds.
    pub fn duration_secs(&self) -> Option<f64> {
        let (start, stop) = (self.start?, self.stop?);
        let ms = stop - start;
        (ms.is_finite() && ms >= 0.0).then_some(ms / 1000.0)
    }
}

/// One entry of `results.tests`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Test {
    pub name: String,
    pub status: String,
    pub duration: Option<f64>,
    pub suite: Option<Suite>,
    pub message: Option<String>,
    pub trace: Option<String>,
    pub raw_status: Option<String>,
    pub file_path: Option<String>,
    pub line: Option<f64>,
    pub retries: Option<f64>,
    #[serde(default, deserialize_with = "null_as_empty")]
    pub retry_attempts: Vec<RetryAttempt>,
    pub flaky: Option<bool>,
    pub stdout: Option<Lines>,
    pub stderr: Option<Lines>,
}

/// One entry of a test's `retryAttempts`.
#[derive(Debug, Deserialize)]
pub(super) struct RetryAttempt {
    pub attempt: Option<f64>,
    pub status: Option<String>,
    pub message: Option<String>,
    pub line: Option<f64>,
}

/// A test's `suite`: the path from the outermost suite (CTRF since 0.0.0
/// of the array form), or one string (`a > b`) as older reporters wrote.
#[derive(Debug, Deserialize)]
#[serde(untagged, expecting = "a list of suite names or a string")]
pub(super) enum Suite {
    Path(Vec<String>),
    One(String),
}

/// `stdout` / `stderr`: lines, or (from some reporters) one string.
#[derive(Debug, Deserialize)]
#[serde(untagged, expecting = "a list of strings or a string")]
pub(super) enum Lines {
    Many(Vec<String>),
    One(String),
}

fn null_as_empty<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Ok(Option::<Vec<T>>::deserialize(d)?.unwrap_or_default())
}

/// The top-level keys that tell a CTRF document from a pytest-json-report
/// one; every value but `reportFormat`'s is skipped unread.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Top {
    report_format: Option<serde_json::Value>,
    results: Option<IgnoredAny>,
    tests: Option<IgnoredAny>,
}

impl Top {
    /// `"reportFormat": "CTRF"`, or `results` without `tests`.
    pub fn is_ctrf(&self) -> bool {
        match &self.report_format {
            Some(format) => format == "CTRF",
            None => self.results.is_some() && self.tests.is_none(),
        }
    }
}

/// The top-level keys of JSON text that starts with `{`; none when it is
/// not a JSON object serde_json reads.
pub(super) fn probe(body: &[u8]) -> Option<Top> {
    let first = body.iter().find(|b| !b.is_ascii_whitespace())?;
    if *first != b'{' {
        return None;
    }
    serde_json::from_slice(body).ok()
}
