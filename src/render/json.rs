//! The ADR-006 JSON rendering.
//!
//! Every key is always present (`null` when there is no value), so a consumer
//! writes its parsing once. Keys and order follow ADR-006; SPEC.md adds
//! `summary.xfailed` and `summary.xpassed` (subsets of `skipped` and
//! `passed`). Collection errors use the style guide's object (`file`,
//! `error_type`, `message`, `line`, `traceback`) and are not tests: pytest's
//! "N errors" equals `summary.errors + collection_errors.length`.

use serde_json::{Map, Value, json};

use crate::model::{Run, TestResult, Xfail};

/// Builds the ADR-006 object for a run.
pub fn to_value(run: &Run) -> Value {
    let c = run.counts();
    let mut root = Map::new();
    root.insert("exit_code".into(), json!(run.exit_code()));
    root.insert(
        "summary".into(),
        json!({
            "total": c.total,
            "passed": c.passed,
            "failed": c.failed,
            "skipped": c.skipped,
            "errors": c.errors,
            "duration": round_secs(run.duration_secs()),
            "xfailed": c.xfailed,
            "xpassed": c.xpassed,
            "flaky": c.flaky,
        }),
    );
    root.insert(
        "tests".into(),
        Value::Array(run.tests.iter().map(test_value).collect()),
    );
    root.insert(
        "json_report".into(),
        run.json_report.clone().unwrap_or(Value::Null),
    );
    root.insert("text_output".into(), json!(run.text_output));
    root.insert(
        "collection_errors".into(),
        Value::Array(
            run.collection_errors
                .iter()
                .map(|e| {
                    json!({
                        "file": e.file,
                        "error_type": e.error_type,
                        "message": e.message,
                        "line": e.line,
                        "traceback": e.traceback,
                    })
                })
                .collect(),
        ),
    );
    Value::Object(root)
}

/// Renders the ADR-006 object as text: indented for people, compact for
/// agents (fewer tokens).
pub fn render(run: &Run, pretty: bool) -> String {
    text(&to_value(run), pretty)
}

/// Any JSON answer as text ending in a newline: indented for people,
/// compact for agents.
pub fn text(value: &Value, pretty: bool) -> String {
    let mut out = if pretty {
        serde_json::to_string_pretty(value)
    } else {
        serde_json::to_string(value)
    }
    // Serializing a `Value` cannot fail: its keys are strings.
    .unwrap_or_default();
    out.push('\n');
    out
}

fn test_value(t: &TestResult) -> Value {
    json!({
        "node_id": t.node_id,
        "outcome": t.outcome.as_str(),
        "duration": t.duration.map(round_secs),
        "message": message(t),
        "traceback": t.traceback,
    })
}

/// The test's message as ADR-006 and SPEC.md want it: `XFAIL: <reason>` for
/// an xfailed test, `XPASS: <reason>` for a non-strict xpass.
pub fn message(t: &TestResult) -> Option<String> {
    if t.is_flaky() {
        return Some(flaky_message(t));
    }
    let prefix = match t.xfail {
        Some(Xfail::XFailed) => "XFAIL",
        Some(Xfail::XPassed) => "XPASS",
        None => return t.message.clone(),
    };
    Some(match t.message.as_deref().filter(|m| !m.is_empty()) {
        Some(reason) => format!("{prefix}: {reason}"),
        None => prefix.to_string(),
    })
}

/// `FLAKY: passed after 2 failed attempts (first: AssertionError: ...)`.
pub fn flaky_message(t: &TestResult) -> String {
    let n = t.reruns.len();
    let attempts = if n == 1 { "attempt" } else { "attempts" };
    let first = t.reruns.iter().find_map(|a| {
        a.message
            .as_deref()?
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
    });
    match first {
        Some(m) => format!("FLAKY: passed after {n} failed {attempts} (first: {m})"),
        None => format!("FLAKY: passed after {n} failed {attempts}"),
    }
}

/// Durations to the millisecond: more digits cost tokens and say nothing.
fn round_secs(secs: f64) -> f64 {
    (secs * 1000.0).round() / 1000.0
}
