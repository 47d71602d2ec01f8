//! Our `--format json` against a project's expectations: `exit_code`, the
//! summary against pytest's closing line, each failure, `exit_reason`,
//! the duration; a crash is an error object.

use serde_json::Value;

use crate::closing::{self, Closing};
use crate::{Crash, Expect, Failure, Ran};

/// The JSON answer: exit status, `exit_code`, the summary against the
/// closing line, each failure's outcome and message, `exit_reason`, the
/// flaky count, the duration, each failure's entry at most three times
/// pytest's whole console output; a crash is an error object.
pub fn check_json(
    expect: &Expect,
    closing: Option<&Closing>,
    run: &Ran,
    pytest: &Ran,
) -> Vec<String> {
    let mut problems = Vec::new();
    if run.status != Some(expect.exit) {
        problems.push(format!(
            "JSON: pytest-mcp exited {:?} where pytest exited {}",
            run.status, expect.exit
        ));
    }
    let json: Value = match serde_json::from_str(&run.stdout) {
        Ok(json) => json,
        Err(e) => {
            problems.push(format!("JSON: the answer is not JSON ({e})"));
            return problems;
        }
    };
    if let Some(crash) = &expect.crash {
        problems.extend(check_crash_json(&json, expect.exit, crash));
        return problems;
    }
    if json["exit_code"] != expect.exit {
        problems.push(format!(
            "JSON: exit_code is {} where pytest exited {}",
            json["exit_code"], expect.exit
        ));
    }
    if let Some(c) = closing {
        problems.extend(check_summary(&json["summary"], c, expect));
        if expect.duration {
            problems.extend(check_duration(&json, c));
        }
    }
    for failure in &expect.failures {
        problems.extend(check_json_failure(&json, failure, pytest.stdout.len()));
    }
    if let Some(reason) = &expect.reason {
        match json["exit_reason"].as_str() {
            Some(said) if !said.is_empty() && said.contains(reason.as_str()) => {}
            other => problems.push(format!(
                "JSON: exit_reason is {other:?}, not a string containing `{reason}`"
            )),
        }
    }
    problems
}

fn check_summary(summary: &Value, c: &Closing, expect: &Expect) -> Vec<String> {
    let mut problems = Vec::new();
    let want = [
        ("total", c.total()),
        ("passed", c.get("passed") + c.get("xpassed")),
        ("failed", c.get("failed")),
        ("errors", c.get("error")),
        ("skipped", c.get("skipped") + c.get("xfailed")),
        ("xfailed", c.get("xfailed")),
        ("xpassed", c.get("xpassed")),
        ("flaky", expect.flaky.len() as u64),
    ];
    for (key, n) in want {
        if summary[key].as_u64() != Some(n) {
            problems.push(format!(
                "JSON: summary.{key} is {} where pytest's closing line ({}) makes {n}",
                summary[key], c.line
            ));
        }
    }
    problems
}

/// Our duration is pytest's: the closing line of the same run (in
/// `text_output`; plain pytest's, run beside it, when there is none),
/// within 5% and the line's rounding.
fn check_duration(json: &Value, plain: &Closing) -> Option<String> {
    let same_run = json["text_output"].as_str().and_then(closing::last_closing);
    let c = same_run.as_ref().unwrap_or(plain);
    let ours = json["summary"]["duration"].as_f64().unwrap_or(f64::NAN);
    let allowed = 0.05 * c.seconds + 0.01;
    let off = (ours - c.seconds).abs() > allowed || ours.is_nan();
    off.then(|| {
        format!(
            "JSON: summary.duration is {ours} s, pytest's closing line ({}) says {} s (allowed: \
             {allowed:.3} s either way)",
            c.line, c.seconds
        )
    })
}

fn check_json_failure(json: &Value, failure: &Failure, console: usize) -> Vec<String> {
    let tests = json["tests"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let Some(test) = tests.iter().find(|t| t["node_id"] == failure.id.as_str()) else {
        return vec![format!("JSON: no test {}", failure.id)];
    };
    let mut problems = Vec::new();
    if !matches!(test["outcome"].as_str(), Some("failed" | "error")) {
        problems.push(format!(
            "JSON: {} has the outcome {}",
            failure.id, test["outcome"]
        ));
    }
    let message = test["message"].as_str().unwrap_or_default();
    if !message.contains(&failure.message) {
        problems.push(format!(
            "JSON: {}'s message {message:?} lacks `{}`",
            failure.id, failure.message
        ));
    }
    // The test's entry holds its failure as pytest printed it, not
    // pytest's and pluggy's frames around a plugin's (pytest-ruff's
    // traceback was 35 KB, for a console output of 2.6 KB).
    let size = test.to_string().len();
    if size > 3 * console {
        problems.push(format!(
            "JSON: {}'s entry is {size} bytes, where pytest's whole console output is {console}",
            failure.id
        ));
    }
    problems
}

/// A crash in JSON: the error object, the running test, the tests never run.
fn check_crash_json(json: &Value, exit: i32, crash: &Crash) -> Vec<String> {
    let mut problems = Vec::new();
    let error = &json["error"];
    let data = &error["data"];
    let mut not_run: Vec<&str> = data["not_run"]
        .as_array()
        .map(|ids| ids.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    not_run.sort_unstable();
    let mut want: Vec<&str> = crash.not_run.iter().map(String::as_str).collect();
    want.sort_unstable();
    for (what, ok) in [
        ("error.code -32000", error["code"] == -32000),
        ("data.error_type \"crash\"", data["error_type"] == "crash"),
        ("data.exit_code pytest's", data["exit_code"] == exit),
        (
            "data.running_test the hung test",
            data["running_test"] == crash.running.as_str(),
        ),
        ("data.not_run the tests never run", not_run == want),
    ] {
        if !ok {
            problems.push(format!("JSON: the crash's error object lacks {what}"));
        }
    }
    problems
}
