//! How a pytest run ended, from what it left behind (ADR-007,
//! docs/errors.md): the report files, the event log and how the process
//! ended become one run, or an execution error that still carries the
//! tests that finished, the test that was running and the ones that never
//! ran. [`LeftBehind::read`] reads the files; the rest is pure, so the
//! golden tests give [`conclude`] the files of real runs.

use std::time::Duration;

use serde_json::Value;

use crate::model::Run;
use crate::model::exec_error::{ErrorKind, ExecError, Running, Signal};
use crate::model::raw_report::RawReports;
use crate::runner::command::{Capabilities, Python, Workspace};
use crate::runner::process::{Ending, Finished};
use crate::sources::events::EventLog;
use crate::sources::merge::merge;
use crate::sources::{json_report, junit};

/// Longest string kept inside the `json_report` value: a test that prints
/// megabytes must not turn into a megabytes-long answer.
const MAX_REPORT_STRING: usize = 64 * 1024;

/// Running tests an error's message names; the error's data lists all.
const NAMED_RUNNING: usize = 4;

/// A run that gave a result: the run, what the event log says of it, and
/// how its process ended.
pub struct Done {
    pub run: Run,
    pub events: EventLog,
    pub finished: Finished,
}

/// What pytest left behind in its workspace: the bytes of its files, read
/// once it ended. The only I/O after the process; the rest is
/// [`conclude`]'s, pure.
#[derive(Debug, Clone, Default)]
pub struct LeftBehind {
    pub json_report: JsonReport,
    /// pytest's JUnit XML, when written.
    pub junit: Option<Vec<u8>>,
    /// pytest-mcp's event log (empty when never written).
    pub events: String,
}

/// pytest-json-report's file.
#[derive(Debug, Clone, Default)]
pub enum JsonReport {
    /// The plugin is not installed for this interpreter (its path).
    NotInstalled(String),
    /// Installed, and it wrote nothing (the run ended before its end).
    #[default]
    Missing,
    Written(Vec<u8>),
}

impl LeftBehind {
    pub fn read(ws: &Workspace, caps: Capabilities, python: &Python) -> LeftBehind {
        let json_report = if !caps.json_report {
            JsonReport::NotInstalled(python.path.display().to_string())
        } else {
            std::fs::read(ws.json_report()).map_or(JsonReport::Missing, JsonReport::Written)
        };
        LeftBehind {
            json_report,
            junit: std::fs::read(ws.junit()).ok(),
            events: std::fs::read_to_string(ws.events()).unwrap_or_default(),
        }
    }
}

/// How a run ended, from what pytest left behind and how its process
/// ended: a result, or an execution error (ADR-007). Pure: the golden
/// tests give it the files of real runs.
pub fn conclude(
    left: LeftBehind,
    keep_json_report: bool,
    finished: Finished,
    command: Vec<String>,
    timeout: Duration,
) -> Result<Done, Box<ExecError>> {
    let (run, events) = assemble(left, keep_json_report, &finished);
    result_or_error(run, events, finished, command, timeout)
}

/// Reads the sources in their order of trust (ARCHITECTURE.md, "Both
/// sources, merged").
fn assemble(left: LeftBehind, keep_json_report: bool, finished: &Finished) -> (Run, EventLog) {
    let mut notes = Vec::new();
    let mut runs = Vec::new();
    match left.json_report {
        JsonReport::Written(bytes) => match json_report::parse(&bytes, "report.json", keep_json_report) {
            Ok(mut run) => {
                if let Some(raw) = run.json_report.as_mut() {
                    let dropped = bound_report(raw, MAX_REPORT_STRING);
                    if dropped > 0 {
                        notes.push(format!(
                            "json_report: {dropped} bytes of long strings (captured output) were cut to the first and last {} KiB each",
                            MAX_REPORT_STRING / 2048
                        ));
                    }
                }
                runs.push(run);
            }
            Err(e) => notes.push(format!("pytest-json-report's file could not be read: {e}")),
        },
        JsonReport::Missing => notes.push("pytest-json-report wrote no report".to_string()),
        JsonReport::NotInstalled(python) => notes.push(format!(
            "pytest-json-report is not installed for {python}: results come from JUnit XML and the event log (install it for xpass and captured output)"
        )),
    }
    if let Some(bytes) = left.junit {
        match junit::parse(&bytes, "junit.xml") {
            Ok(run) => runs.push(run),
            Err(e) => notes.push(format!("pytest's JUnit XML could not be read: {e}")),
        }
    }
    let events = EventLog::parse(&left.events);
    let stdout = finished.stdout.text();
    let mut run = if !runs.is_empty() {
        let mut run = merge(runs);
        // Without pytest-json-report, JUnit times each test as a whole:
        // the event log says how its phases split it, which a plan of
        // shards needs to count a module's shared setup once (issue 49).
        events.split_phases(&mut run.tests);
        run
    } else {
        let logged = events.to_run();
        match crate::sources::console::parse(&stdout) {
            Some(text_run) if logged.tests.is_empty() && logged.collection_errors.is_empty() => {
                notes.push(
                    "neither report file nor the event log was written: results come from pytest's console output"
                        .to_string(),
                );
                text_run
            }
            _ => {
                notes.push(
                    "neither report file was written: results come from pytest-mcp's event log"
                        .to_string(),
                );
                logged
            }
        }
    };
    events.sort_in_collection_order(&mut run.tests);
    run.notes.extend(notes);
    run.closing_lines = crate::sources::console::closing_lines(&stdout);
    let mut text = stdout;
    let stderr = finished.stderr.text();
    if !stderr.trim().is_empty() {
        text.push_str("\n--- stderr ---\n");
        text.push_str(&stderr);
    }
    run.text_output = Some(text);
    // The readers' runs are clean; the notes above may quote a file.
    run.clean_text(crate::text::clean);
    // The session's duration as pytest's closing line says it: the
    // report files measure less (pytest-json-report stops its clock
    // before the other plugins' sessionfinish and the terminal summary).
    let session = events.end.as_ref().and_then(|end| end.duration);
    if let Some(seconds) = session.filter(|s| s.is_finite() && *s >= 0.0) {
        run.duration = Some(seconds);
    } else if run.duration.is_none() {
        run.duration = Some(finished.duration.as_secs_f64());
    }
    (run, events)
}

/// ADR-007's mapping from how pytest ended to a result or an error
/// (docs/errors.md, the first table).
fn result_or_error(
    mut run: Run,
    events: EventLog,
    finished: Finished,
    command: Vec<String>,
    timeout: Duration,
) -> Result<Done, Box<ExecError>> {
    let running = events.running();
    // pytest-xdist ends a run that -x or --maxfail stopped as interrupted
    // (exit status 2): a result with pytest's own status, 1.
    let maxfail_stop = events
        .stopped_at_maxfail
        .filter(|_| finished.ending == Ending::Exited(2));
    let failure = match maxfail_stop {
        Some(_) => None,
        None => failure(&finished, &run, &running, timeout)
            .or_else(|| ended_early(&finished, &events, &running)),
    };
    let Some(failure) = failure else {
        if let Ending::Exited(code) = finished.ending {
            run.recorded_exit = Some(code);
        }
        if let Some(failures) = maxfail_stop {
            run.recorded_exit = Some(1);
            run.notes.push(format!(
                "stopped at the failfast/maxfail limit, after {} (tests already running on other workers finish): exit status 1 as without workers (pytest-xdist exits 2)",
                crate::text::plural(failures, "failure", "failures")
            ));
        }
        return Ok(Done {
            run,
            events,
            finished,
        });
    };
    // Report files of an interrupted run may list the test that was cut off
    // (pytest-json-report gives it a setup phase and "passed"): what
    // finished is what the event log saw finish.
    if events.saw_tests() {
        run.tests.retain(|t| events.finished(&t.node_id));
    }
    Err(Box::new(ExecError {
        kind: failure.kind,
        message: failure.message,
        exit_code: failure.exit_code,
        signal: failure.signal,
        stdout: finished.stdout.text(),
        stderr: finished.stderr.text(),
        command,
        duration: finished.duration.as_secs_f64(),
        partial: run,
        not_run: events.never_ran(&running),
        running,
        collected: events.collected,
    }))
}

/// A run whose exit status would make it a result, ended before its
/// session did: the process ended (os._exit, pytest-timeout's thread
/// method, a plugin) before our plugin's last line, or pytest.exit() or
/// Ctrl-C stopped the session with a status of 0, 1 or 5.
fn ended_early(finished: &Finished, events: &EventLog, running: &[Running]) -> Option<Failure> {
    let Ending::Exited(code) = finished.ending else {
        return None;
    };
    let while_running = while_running(running);
    if events.ended_early() {
        let cause = early_cause(&finished.stdout.text(), &finished.stderr.text(), events);
        return Some(Failure {
            kind: ErrorKind::Crash,
            message: format!(
                "pytest exited with status {code} before the end of its session ({cause}){while_running}"
            ),
            exit_code: Some(code),
            signal: None,
        });
    }
    // pytest.exit() with a status that reads as a result (pytest's own
    // interruptions exit 2: Ctrl-C, collection errors).
    if !matches!(code, 0 | 1 | 5) {
        return None;
    }
    let interrupt = events.end.as_ref()?.interrupt.as_deref()?;
    Some(Failure {
        kind: ErrorKind::Interrupted,
        message: format!(
            "pytest execution was stopped before the end ({}){while_running}",
            crate::text::one_line(interrupt)
        ),
        exit_code: Some(code),
        signal: None,
    })
}

/// What ended a process before its session did, as far as its output and
/// the event log tell: pytest-timeout's thread method (its banner, on
/// stdout), an exception before any test was collected (a plugin's or a
/// conftest.py's, at start-up), or else `os._exit` or a plugin.
fn early_cause(stdout: &str, stderr: &str, events: &EventLog) -> String {
    if stdout.contains(" Timeout +") || stderr.contains(" Timeout +") {
        return "pytest-timeout ended it when a test ran past its time limit".into();
    }
    let raised = stderr
        .contains("Traceback (most recent call last):")
        .then(|| crate::text::last_line(stderr))
        .flatten();
    match raised {
        Some(error) if events.collected.is_none() => {
            format!(
                "an error before any test ran: {}",
                crate::text::one_line(error)
            )
        }
        _ => "os._exit, or a plugin ended the process".into(),
    }
}

/// Why a run gave no result.
struct Failure {
    kind: ErrorKind,
    message: String,
    exit_code: Option<i32>,
    signal: Option<Signal>,
}

/// How pytest's end failed to give a result; `None` when it gave one:
/// exit status 0, 1 or 5, or 2 with collection errors (docs/errors.md).
fn failure(
    finished: &Finished,
    run: &Run,
    running: &[Running],
    timeout: Duration,
) -> Option<Failure> {
    let while_running = while_running(running);
    let exited = |kind, message, code| Failure {
        kind,
        message,
        exit_code: Some(code),
        signal: None,
    };
    let ended = |kind, message| Failure {
        kind,
        message,
        exit_code: None,
        signal: None,
    };
    Some(match &finished.ending {
        Ending::Exited(0 | 1 | 5) => return None,
        Ending::Exited(2) if !run.collection_errors.is_empty() => return None,
        Ending::Exited(2) => exited(
            ErrorKind::Interrupted,
            format!("pytest execution failed: test execution was interrupted{while_running}"),
            2,
        ),
        Ending::Exited(3) => exited(
            ErrorKind::PytestInternal,
            "pytest execution failed: pytest internal error occurred".to_string(),
            3,
        ),
        Ending::Exited(4) => exited(
            ErrorKind::UsageError,
            format!(
                "pytest execution failed: pytest usage error{}",
                first_error_line(finished)
                    .map(|l| format!(": {l}"))
                    .unwrap_or_default()
            ),
            4,
        ),
        Ending::Exited(code) => exited(
            ErrorKind::Unknown,
            format!("pytest execution failed: pytest exited with unexpected code {code}"),
            *code,
        ),
        Ending::Signaled { number, name } => Failure {
            signal: Some(Signal::new(*number, name.clone())),
            ..ended(
                ErrorKind::Crash,
                format!("pytest subprocess terminated with signal {name}{while_running}"),
            )
        },
        Ending::TimedOut => ended(
            ErrorKind::Timeout,
            format!(
                "pytest execution exceeded timeout of {} seconds{while_running}",
                timeout.as_secs()
            ),
        ),
        Ending::Cancelled => ended(
            ErrorKind::Cancelled,
            format!("pytest execution was cancelled{while_running}"),
        ),
    })
}

/// Tests named in an error's message: " while running <id>", or under
/// pytest-xdist " while running 2 tests: <id>, <id>" (the first
/// [`NAMED_RUNNING`]; the error lists all).
fn while_running(running: &[Running]) -> String {
    match running {
        [] => String::new(),
        [one] => format!(" while running {}", one.node_id),
        several => {
            let ids: Vec<&str> = several
                .iter()
                .take(NAMED_RUNNING)
                .map(|r| r.node_id.as_str())
                .collect();
            let more = several.len().saturating_sub(NAMED_RUNNING);
            let more = if more > 0 {
                format!(" +{more} more")
            } else {
                String::new()
            };
            format!(
                " while running {} tests: {}{more}",
                several.len(),
                ids.join(", ")
            )
        }
    }
}

/// The first line of stderr that says what pytest objected to.
fn first_error_line(finished: &Finished) -> Option<String> {
    let stderr = finished.stderr.text();
    stderr
        .lines()
        .map(str::trim)
        .find(|l| l.contains("error:"))
        .map(|l| l.to_string())
}

/// Cuts every string in `value` longer than `max` bytes to its first and
/// last `max / 2` bytes with a marker. Returns the bytes dropped.
/// [`bound_strings`] on a kept pytest-json-report document, parsed only
/// when one of its strings may be too long.
fn bound_report(raw: &mut RawReports, max: usize) -> u64 {
    if raw.longest_string_bound() <= max {
        return 0;
    }
    let mut value = raw.to_value();
    let dropped = bound_strings(&mut value, max);
    if dropped > 0 {
        // A value serializes to JSON (its keys are strings).
        if let Ok(text) = serde_json::to_string(&value) {
            *raw = RawReports::parsed(text);
        }
    }
    dropped
}

pub fn bound_strings(value: &mut Value, max: usize) -> u64 {
    match value {
        Value::String(s) if s.len() > max => {
            let half = max / 2;
            let mut head_end = half;
            while !s.is_char_boundary(head_end) {
                head_end -= 1;
            }
            let mut tail_start = s.len() - half;
            while !s.is_char_boundary(tail_start) {
                tail_start += 1;
            }
            let dropped = (tail_start - head_end) as u64;
            *s = format!(
                "{}\n[… {dropped} bytes dropped by pytest-mcp …]\n{}",
                &s[..head_end],
                &s[tail_start..]
            );
            dropped
        }
        Value::Array(items) => items.iter_mut().map(|v| bound_strings(v, max)).sum(),
        Value::Object(map) => map.values_mut().map(|v| bound_strings(v, max)).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests;
