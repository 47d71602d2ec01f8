//! Running pytest for real: validated parameters in, a result or an
//! execution error out (ADR-007, docs/errors.md; exit code 2 as
//! ARCHITECTURE.md, "Exit code 2", says).
//!
//! The flow is ARCHITECTURE.md's data flow: `command` builds the argv,
//! `process` runs it, `sources` read what pytest left behind (JSON report,
//! else JUnit, else our event log, which survives a timeout or a crash),
//! `merge` makes one run. After a timeout or a crash the error still
//! carries the tests that finished and the test that was running.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::model::Run;
use crate::model::discovery::Discovery;
use crate::model::exec_error::{ErrorKind, ExecError, Running, Signal};
use crate::model::raw_report::RawReports;
use crate::model::{changes, paths};
use crate::request::{ValidationError, invalid};
use crate::runner::command::{self, Capabilities, Mode, Python, Workspace};
use crate::runner::params::{DiscoverParams, Root, RunParams};
use crate::runner::process::{self, Ending, Finished};
use crate::sources::events::{EventLog, EventTail, Progress};
use crate::sources::merge::merge;
use crate::sources::{json_report, junit};

/// Running tests an error's message names; the error's data lists all.
const NAMED_RUNNING: usize = 4;

/// Longest string kept inside the `json_report` value: a test that prints
/// megabytes must not turn into a megabytes-long answer.
const MAX_REPORT_STRING: usize = 64 * 1024;

/// Fixed for the life of a server or a CLI invocation.
#[derive(Debug, Clone)]
pub struct Settings {
    pub root: Root,
    /// `--python`, if given.
    pub python: Option<PathBuf>,
    pub default_timeout: Duration,
    /// Time pytest's process group gets between SIGTERM and SIGKILL when a
    /// run is ended (`--kill-grace`).
    pub kill_grace: Duration,
    /// Where the history of runs is kept (docs/flaky.md); `None` with
    /// `--no-history`. The frontends record each run there.
    pub history: Option<crate::history::Keeping>,
}

/// Why a test run gave no result.
#[derive(Debug)]
pub enum RunError {
    /// A parameter this project cannot honour (`workers` without
    /// pytest-xdist), answered as the request's own refusals are.
    Refused(ValidationError),
    /// pytest gave no result: a timeout, a crash, ... (ADR-007).
    Failed(Box<ExecError>),
}

/// Runs the tests `params` select. `on_progress` hears, while pytest runs,
/// how many tests finished of how many collected.
pub fn run_tests(
    settings: &Settings,
    params: &RunParams,
    cancel: &CancellationToken,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<Run, RunError> {
    let done = execute(
        settings,
        &Mode::Run(params),
        params.format.carries_json_report(),
        cancel,
        on_progress,
    )
    .map_err(|e| match refused(settings, params, &e) {
        Some(refusal) => RunError::Refused(refusal),
        None => RunError::Failed(e),
    })?;
    let mut run = done.run;
    run.failure_cache = done.events.failure_cache;
    if !params.show_capture {
        for t in &mut run.tests {
            t.clear_capture();
        }
    }
    run.changes = done
        .events
        .last_run
        .as_ref()
        .map(|last| changes::since(&run, last));
    run.affected = done.events.affected;
    paths::relativize(&mut run, &settings.root.path().to_string_lossy());
    Ok(run)
}

/// A parameter pytest could not honour for want of a plugin: `workers`
/// (pytest-xdist), `retries` (pytest-rerunfailures) or `affected`
/// (pytest-testmon), refused naming it.
fn refused(settings: &Settings, params: &RunParams, e: &ExecError) -> Option<ValidationError> {
    if e.kind != ErrorKind::UsageError {
        return None;
    }
    let unrecognized = |flag: &str| {
        e.stderr
            .lines()
            .any(|l| l.contains("unrecognized arguments") && l.contains(flag))
    };
    if let Some(workers) = params.workers
        && unrecognized(command::NUMPROCESSES)
    {
        let detail = missing_plugin(settings, &XDIST);
        return Some(invalid("workers", detail, workers.received()));
    }
    if let Some(retries) = params.retries
        && unrecognized(command::RERUNS)
    {
        let detail = missing_plugin(settings, &RERUNFAILURES);
        return Some(invalid("retries", detail, retries));
    }
    if !params.affected {
        return None;
    }
    if unrecognized(command::TESTMON_FORCESELECT) {
        return Some(invalid(
            "affected",
            missing_plugin(settings, &TESTMON),
            true,
        ));
    }
    // pytest-testmon loaded with its selection off: our plugin stopped the
    // run saying why (`pytest_mcp_events._affected`).
    let reason = e.stderr.lines().find_map(|l| {
        l.split_once(AFFECTED_OFF)
            .map(|(_, reason)| reason.trim().to_string())
    })?;
    Some(invalid(
        "affected",
        format!(
            "needs pytest-testmon's selection, which is off in this project ({reason}): remove `--no-testmon` from its pytest configuration or PYTEST_ADDOPTS, or leave affected out"
        ),
        true,
    ))
}

/// What our plugin's message says before the reason pytest-testmon's
/// selection is off.
const AFFECTED_OFF: &str = "pytest-mcp: affected needs pytest-testmon's selection:";

/// A pytest plugin a parameter needs.
struct Plugin {
    field: &'static str,
    /// Its name on the package index.
    package: &'static str,
    /// The module that says it is installed.
    module: &'static str,
    /// Its name after `-p no:` (its entry point's).
    entry_point: &'static str,
}

const XDIST: Plugin = Plugin {
    field: "workers",
    package: "pytest-xdist",
    module: "xdist",
    entry_point: "xdist",
};

const RERUNFAILURES: Plugin = Plugin {
    field: "retries",
    package: "pytest-rerunfailures",
    module: "pytest_rerunfailures",
    entry_point: "rerunfailures",
};

const TESTMON: Plugin = Plugin {
    field: "affected",
    package: "pytest-testmon",
    module: "testmon",
    entry_point: "pytest-testmon",
};

/// Why pytest did not know the plugin's option: it is not installed, or
/// installed and not loaded. Which of the two is asked of the interpreter
/// then, on this path only (a run with the plugin costs no extra Python
/// start).
fn missing_plugin(settings: &Settings, plugin: &Plugin) -> String {
    let python = command::find_python(settings.python.as_deref(), &settings.root);
    let shown = python.path.display();
    let Plugin {
        field,
        package,
        module,
        entry_point,
    } = plugin;
    match command::importable(&python, &settings.root, module) {
        Some(true) => format!(
            "needs {package}, which is installed for {shown} but not loaded: the project turns it off (`-p no:{entry_point}` in its pytest configuration or PYTEST_ADDOPTS) or PYTEST_DISABLE_PLUGIN_AUTOLOAD is set; remove that, or leave {field} out"
        ),
        _ => format!(
            "needs {package}, which is not installed for {shown}: install it (`{shown} -m pip install {package}`), or leave {field} out"
        ),
    }
}

/// Collects the tests under `params.path` without running them.
pub fn discover(
    settings: &Settings,
    params: &DiscoverParams,
    cancel: &CancellationToken,
) -> Result<Discovery, Box<ExecError>> {
    let done = execute(
        settings,
        &Mode::Discover(params),
        false,
        cancel,
        &mut |_| {},
    )?;
    Ok(Discovery {
        items: done.events.items,
        collection_errors: done.run.collection_errors,
        duration: done.finished.duration.as_secs_f64(),
        notes: done.run.notes,
    })
}

struct Done {
    run: Run,
    events: EventLog,
    finished: Finished,
}

fn spawn_error(message: String, command: Vec<String>) -> Box<ExecError> {
    Box::new(ExecError::spawn(message, command))
}

fn execute(
    settings: &Settings,
    mode: &Mode<'_>,
    keep_json_report: bool,
    cancel: &CancellationToken,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<Done, Box<ExecError>> {
    let python = command::find_python(settings.python.as_deref(), &settings.root);
    let shown = vec![
        python.path.display().to_string(),
        "-m".into(),
        "pytest".into(),
    ];
    let caps = command::probe_cached(&python, &settings.root)
        .map_err(|e| spawn_error(e.to_string(), shown.clone()))?;
    let ws = Workspace::new().map_err(|e| {
        spawn_error(
            format!("Failed to spawn pytest subprocess: cannot create a private temporary directory ({e}); check TMPDIR"),
            shown.clone(),
        )
    })?;
    let spec = command::build(&python, &settings.root, caps, &ws, mode);
    let mut tail = EventTail::new(ws.events());
    let finished = process::run_watched(&spec, settings.kill_grace, cancel, &mut || {
        if let Some(progress) = tail.poll() {
            on_progress(progress);
        }
    })
    .map_err(|e| {
        spawn_error(
            format!("Failed to spawn pytest subprocess: {e}"),
            spec.argv(),
        )
    })?;
    let (run, events) = gather(&ws, caps, &python, keep_json_report, &finished);
    let done = result_or_error(run, events, finished, spec.argv(), spec.timeout);
    if let Err(e) = &done
        && matches!(e.kind, ErrorKind::UsageError | ErrorKind::Spawn)
    {
        // pytest refusing its arguments may mean the plugin went away.
        command::forget_probe(&python);
    }
    done
}

/// Reads the sources in their order of trust (ARCHITECTURE.md, "Both
/// sources, merged").
fn gather(
    ws: &Workspace,
    caps: Capabilities,
    python: &Python,
    keep_json_report: bool,
    finished: &Finished,
) -> (Run, EventLog) {
    let mut notes = Vec::new();
    let mut runs = Vec::new();
    if caps.json_report {
        match std::fs::read(ws.json_report()) {
            Ok(bytes) => match json_report::parse(&bytes, "report.json", keep_json_report) {
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
            Err(_) => notes.push("pytest-json-report wrote no report".to_string()),
        }
    } else {
        notes.push(format!(
            "pytest-json-report is not installed for {}: results come from JUnit XML (install it for phases, xpass and captured output)",
            python.path.display()
        ));
    }
    if let Ok(bytes) = std::fs::read(ws.junit()) {
        match junit::parse(&bytes, "junit.xml") {
            Ok(run) => runs.push(run),
            Err(e) => notes.push(format!("pytest's JUnit XML could not be read: {e}")),
        }
    }
    let events = EventLog::parse(&std::fs::read_to_string(ws.events()).unwrap_or_default());
    let mut run = if !runs.is_empty() {
        merge(runs)
    } else {
        let logged = events.to_run();
        match crate::sources::console::parse(&finished.stdout.text()) {
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
    let mut text = finished.stdout.text();
    let stderr = finished.stderr.text();
    if !stderr.trim().is_empty() {
        text.push_str("\n--- stderr ---\n");
        text.push_str(&stderr);
    }
    run.text_output = Some(text);
    // The readers' runs are clean; the notes above may quote a file.
    run.clean_text(crate::text::clean);
    if run.duration.is_none() {
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
        None => failure(&finished, &run, &running, timeout),
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
        running,
        collected: events.collected,
    }))
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
