//! Running pytest for real: validated parameters in, a result or an
//! execution error out (ADR-007, docs/errors.md; exit code 2 as
//! ARCHITECTURE.md, "Exit code 2", says).
//!
//! The flow is ARCHITECTURE.md's data flow: `command` builds the argv,
//! `process` runs it, `sources` read what pytest left behind (JSON report,
//! else JUnit, else our event log, which survives a timeout or a crash),
//! `merge` makes one run. After a timeout or a crash the error still
//! carries the tests that finished and the test that was running.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::model::discovery::Discovery;
use crate::model::exec_error::{ErrorKind, ExecError};
use crate::model::{Run, Warm};
use crate::model::{changes, paths};
use crate::request::{ValidationError, invalid};
use crate::runner::command::{self, Mode, Workspace};
use crate::runner::conclude::{Done, JsonReport, LeftBehind, conclude};
use crate::runner::coverage;
use crate::runner::params::{DiscoverParams, Root, RunParams};
use crate::runner::process::{self, forked};
use crate::runner::warm::Warming;
use crate::sources::events::{EventTail, Progress};

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
    /// `run --results FILE`: where to keep the run's own result file, for
    /// `report` and `plan` to read later (a CI shard's results).
    pub results: Option<PathBuf>,
    /// Whether runs are forked from a warm process (docs/warm.md): `serve`
    /// keeps them, `run --warm` joins the server's; `None`: always cold.
    pub warm: Option<Warming>,
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
    if params.coverage.is_some() {
        let python = command::find_python(settings.python.as_deref(), &settings.root);
        if let Some(why) = coverage::missing(&python, settings.root.path()) {
            return Err(RunError::Refused(invalid("coverage", why, true)));
        }
    }
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
    let mut ws = Workspace::new().map_err(|e| {
        spawn_error(
            format!("Failed to spawn pytest subprocess: cannot create a private temporary directory ({e}); check TMPDIR"),
            shown.clone(),
        )
    })?;
    if let Mode::Run(RunParams {
        shard: Some(choice),
        ..
    }) = mode
    {
        ws.write_shard(&choice.argv).map_err(|e| {
            spawn_error(
                format!("Failed to spawn pytest subprocess: cannot write the shard's choice into the private temporary directory ({e}); check TMPDIR"),
                shown.clone(),
            )
        })?;
    }
    let warming = match (mode, &settings.warm) {
        (Mode::Run(p), Some(warming)) => Some((warming, *p)),
        _ => None,
    };
    if let Some(list) = warming.and_then(|(w, _)| w.record(&python, &settings.root)) {
        // Not recorded is not warmed: the run itself goes on.
        let _ = ws.record_imports(&list);
    }
    let spec = command::build(&python, &settings.root, caps, &ws, mode);
    let launched = launch(settings, &python, warming, &ws, &spec, cancel, on_progress);
    let (finished, warm) = launched.map_err(|e| {
        spawn_error(
            format!("Failed to spawn pytest subprocess: {e}"),
            spec.argv(),
        )
    })?;
    let left = LeftBehind::read(&ws, caps, &python);
    let kept = match (&settings.results, mode) {
        (Some(path), Mode::Run(_)) => keep_results(path, &left),
        _ => None,
    };
    let mut done = conclude(left, keep_json_report, finished, spec.argv(), spec.timeout);
    match &mut done {
        Ok(done) => done.run.warm = warm,
        // A run that crashed or timed out says it was warm too.
        Err(e) => e.partial.warm = warm,
    }
    if let (Some(note), Ok(done)) = (kept, &mut done) {
        done.run.notes.push(note);
    }
    if let (
        Mode::Run(RunParams {
            coverage: Some(base),
            ..
        }),
        Ok(done),
    ) = (mode, &mut done)
    {
        let data = ws.coverage_data();
        done.run.coverage = Some(coverage::judge(&python, settings.root.path(), &data, base));
    }
    if let Err(e) = &done
        && matches!(e.kind, ErrorKind::UsageError | ErrorKind::Spawn)
    {
        // pytest refusing its arguments may mean the plugin went away.
        command::forget_probe(&python);
    }
    done
}

/// Longest a run waits for a warm process that is still importing: as
/// long as a cold run would import, so waiting costs nothing then; beyond,
/// the run goes cold.
const WARM_WAIT: Duration = Duration::from_secs(120);

/// Starts pytest and supervises it: forked from a warm process when the
/// settings keep one and the run allows it, else cold. A warm process that
/// cannot take the run (busy, stale, gone) leaves it cold, never failed.
fn launch(
    settings: &Settings,
    python: &command::Python,
    warming: Option<(&Warming, &RunParams)>,
    ws: &Workspace,
    spec: &process::Spec,
    cancel: &CancellationToken,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<(process::Finished, Option<Warm>), process::SpawnError> {
    let mut tail = EventTail::new(ws.events());
    let mut tick = || {
        if let Some(progress) = tail.poll() {
            on_progress(progress);
        }
    };
    let root = &settings.root;
    // Under coverage a run goes cold: coverage.py measures from the start
    // of a fresh interpreter, as the change's judgement assumes.
    let place = warming
        .filter(|(_, p)| p.warm && p.coverage.is_none())
        .and_then(|(w, p)| Some((w, w.place(python, root, p.timeout.min(WARM_WAIT))?)));
    let tried = place.is_some();
    if let Some((warming, place)) = place {
        let warm_spec = command::with_plugins_from(spec, place.dir());
        let socket = place.socket();
        match forked::run_forked(&socket, &warm_spec, settings.kill_grace, cancel, &mut tick) {
            Ok(forked) => {
                warming.after(python, root, None);
                let warm = Warm {
                    saved_seconds: forked.saved,
                };
                return Ok((forked.finished, Some(warm)));
            }
            Err(refusal) => {
                tracing::info!("run goes cold: {refusal}");
                warming.after(python, root, Some(&refusal));
                if matches!(refusal, forked::Refusal::Died) {
                    ws.clear_outputs();
                }
            }
        }
    }
    let mut tail = EventTail::new(ws.events());
    let finished = process::run_watched(spec, settings.kill_grace, cancel, &mut || {
        if let Some(progress) = tail.poll() {
            on_progress(progress);
        }
    });
    if !tried && let Some((warming, _)) = warming {
        // After the run, so that a warm process started for what it
        // imported does not take the cores from it.
        warming.after(python, root, None);
    }
    finished.map(|finished| (finished, None))
}

/// Writes the run's result file to `path` (with its missing directories):
/// pytest-json-report's, which times every test's setup, call and teardown
/// (what `plan` balances fixtures by), else pytest's JUnit XML. `Some`: the
/// note saying why nothing was kept.
fn keep_results(path: &Path, left: &LeftBehind) -> Option<String> {
    let bytes = match (&left.json_report, &left.junit) {
        (JsonReport::Written(json), _) => json,
        (_, Some(junit)) => junit,
        (_, None) => {
            return Some(format!(
                "pytest wrote no result file, so none was kept in {}",
                path.display()
            ));
        }
    };
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
    let written = parent
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(path, bytes));
    written
        .err()
        .map(|e| format!("cannot keep the results in {}: {e}", path.display()))
}
