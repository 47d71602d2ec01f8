//! From validated parameters to the exact pytest command: which Python,
//! which arguments, which environment, where the result files go.
//!
//! The command is an argv list, never a shell string. Every value from a
//! request lands in its own argument after validation made sure it cannot
//! read as an option; test ids come after `--`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::runner::params::{DiscoverParams, Root, RunParams, Stop, Workers};
use crate::runner::process::{self, Ending, Spec};

/// The event-log plugin, written into each run's private directory.
const EVENTS_PLUGIN: &str = include_str!("pytest_mcp_events.py");
const EVENTS_MODULE: &str = "pytest_mcp_events";

/// The events plugin's companions, which it imports: the attempts of tests
/// run again and the failures a plugin rewrote; coverage.py for `run
/// --coverage`.
const COMPANIONS: [(&str, &str); 2] = [
    (
        "pytest_mcp_attempts",
        include_str!("pytest_mcp_attempts.py"),
    ),
    ("pytest_mcp_measure", include_str!("pytest_mcp_measure.py")),
];
/// The plugin that chooses a shard's tests from the run's collection
/// ([`crate::runner::params::ShardChoice`]), written beside the event
/// log's for such a run only.
const SHARD_PLUGIN: &str = include_str!("pytest_mcp_shard.py");
const SHARD_MODULE: &str = "pytest_mcp_shard";
/// The plugin that records what a run imported, for `serve`'s warm
/// process (docs/warm.md), written beside the event log's when asked.
const IMPORTED_PLUGIN: &str = include_str!("pytest_mcp_imported.py");
const IMPORTED_MODULE: &str = "pytest_mcp_imported";

/// Where the interpreter came from, for error messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Python {
    pub path: PathBuf,
    pub origin: &'static str,
}

/// Picks the project's Python: `--python` / `PYTEST_MCP_PYTHON`, else
/// `<root>/.venv/bin/python`, `<root>/venv/bin/python`,
/// `$VIRTUAL_ENV/bin/python`, then `python3` on the PATH.
pub fn find_python(explicit: Option<&Path>, root: &Root) -> Python {
    if let Some(path) = explicit {
        return Python {
            path: absolute(path),
            origin: "--python",
        };
    }
    if let Some(path) = std::env::var_os("PYTEST_MCP_PYTHON").filter(|p| !p.is_empty()) {
        return Python {
            path: absolute(Path::new(&path)),
            origin: "PYTEST_MCP_PYTHON",
        };
    }
    for (dir, origin) in [
        (".venv", "the project's .venv"),
        ("venv", "the project's venv"),
    ] {
        let candidate = root.path().join(dir).join("bin/python");
        if candidate.exists() {
            return Python {
                path: candidate,
                origin,
            };
        }
    }
    if let Some(venv) = std::env::var_os("VIRTUAL_ENV").filter(|p| !p.is_empty()) {
        let candidate = PathBuf::from(venv).join("bin/python");
        if candidate.exists() {
            return Python {
                path: candidate,
                origin: "$VIRTUAL_ENV",
            };
        }
    }
    Python {
        path: PathBuf::from("python3"),
        origin: "python3 on the PATH",
    }
}

/// A relative path with a directory part is taken from our working
/// directory (pytest runs in the root, where it would mean something else);
/// a bare name (`python3`) is left for the PATH lookup.
fn absolute(path: &Path) -> PathBuf {
    if path.is_relative() && path.components().count() > 1 {
        std::env::current_dir().map_or_else(|_| path.to_path_buf(), |cwd| cwd.join(path))
    } else {
        path.to_path_buf()
    }
}

/// What the interpreter has installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    pub json_report: bool,
}

/// Why pytest cannot be run with this interpreter. Every message starts
/// "Failed to spawn pytest subprocess:" and says what to do.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The interpreter could not be started at all.
    #[error(
        "Failed to spawn pytest subprocess: cannot start the Python interpreter {} (from {}): {source}. Point --python or PYTEST_MCP_PYTHON at the project's interpreter.",
        .python.path.display(), .python.origin
    )]
    NoInterpreter {
        python: Python,
        source: std::io::Error,
    },
    /// It started but did not answer the probe.
    #[error(
        "Failed to spawn pytest subprocess: the Python interpreter {} (from {}) did not answer a simple query ({ending:?}): {stderr}",
        .python.path.display(), .python.origin
    )]
    NoAnswer {
        python: Python,
        ending: Ending,
        /// Its stderr, trimmed.
        stderr: String,
    },
    /// It has no pytest.
    #[error(
        "Failed to spawn pytest subprocess: pytest is not installed for {shown} (from {}). Install it into the project's environment with `{shown} -m pip install pytest`, or point --python / PYTEST_MCP_PYTHON at an interpreter that has it.",
        .python.origin, shown = .python.path.display()
    )]
    NoPytest { python: Python },
}

/// The probe's Python: whether pytest and pytest-json-report are
/// importable, without importing them (fast, no side effects).
pub const PROBE_SCRIPT: &str = "import importlib.util as u; print('pytest', bool(u.find_spec('pytest')), 'json', bool(u.find_spec('pytest_jsonreport')))";

/// Asks the interpreter whether pytest and pytest-json-report are
/// importable ([`PROBE_SCRIPT`]).
pub fn probe(python: &Python, root: &Root) -> Result<Capabilities, SetupError> {
    let spec = Spec {
        program: python.path.clone(),
        args: vec!["-c".into(), PROBE_SCRIPT.into()],
        cwd: root.path().to_path_buf(),
        env: Vec::new(),
        timeout: Duration::from_secs(60),
    };
    let finished =
        process::run(&spec, process::DEFAULT_GRACE, &CancellationToken::new()).map_err(|e| {
            SetupError::NoInterpreter {
                python: python.clone(),
                source: e.source,
            }
        })?;
    let out = finished.stdout.text();
    if finished.ending != Ending::Exited(0) || !out.starts_with("pytest ") {
        return Err(SetupError::NoAnswer {
            python: python.clone(),
            ending: finished.ending,
            stderr: finished.stderr.text().trim().to_string(),
        });
    }
    if out.contains("pytest False") {
        return Err(SetupError::NoPytest {
            python: python.clone(),
        });
    }
    Ok(Capabilities {
        json_report: out.contains("json True"),
    })
}

/// Whether `python` can import `module` (found, not imported); `None` when
/// it did not answer.
pub fn importable(python: &Python, root: &Root, module: &str) -> Option<bool> {
    let spec = Spec {
        program: python.path.clone(),
        args: vec![
            "-c".into(),
            "import importlib.util as u, sys; print(bool(u.find_spec(sys.argv[1])))".into(),
            module.into(),
        ],
        cwd: root.path().to_path_buf(),
        env: Vec::new(),
        timeout: Duration::from_secs(60),
    };
    let finished = process::run(&spec, process::DEFAULT_GRACE, &CancellationToken::new()).ok()?;
    match finished.stdout.text().trim() {
        "True" => Some(true),
        "False" => Some(false),
        _ => None,
    }
}

/// Interpreters known to have pytest and pytest-json-report, so that a
/// long-lived server probes each once (an extra Python start, ~20-30 ms,
/// per call otherwise). Only that answer is kept: an interpreter without
/// the plugin is asked again each time, so installing it takes effect at
/// once; [`forget_probe`] drops an answer a failed run casts doubt on.
static PROBED: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// [`probe`], remembering interpreters that have everything.
pub fn probe_cached(python: &Python, root: &Root) -> Result<Capabilities, SetupError> {
    let known = |list: &Vec<PathBuf>| list.contains(&python.path);
    if PROBED.lock().map(|l| known(&l)).unwrap_or(false) {
        return Ok(Capabilities { json_report: true });
    }
    let caps = probe(python, root)?;
    if caps.json_report
        && let Ok(mut list) = PROBED.lock()
        && !known(&list)
    {
        list.push(python.path.clone());
    }
    Ok(caps)
}

/// Forgets what [`probe_cached`] remembered about `python`.
pub fn forget_probe(python: &Python) {
    if let Ok(mut list) = PROBED.lock() {
        list.retain(|p| p != &python.path);
    }
}

/// Writes every plugin of ours into `dir`: a warm process's directory,
/// which its runs put first on PYTHONPATH (docs/warm.md).
pub fn write_plugins(dir: &Path) -> std::io::Result<()> {
    let all = [
        (EVENTS_MODULE, EVENTS_PLUGIN),
        (SHARD_MODULE, SHARD_PLUGIN),
        (IMPORTED_MODULE, IMPORTED_PLUGIN),
    ];
    for (name, text) in all.into_iter().chain(COMPANIONS) {
        std::fs::write(dir.join(format!("{name}.py")), text)?;
    }
    Ok(())
}

/// `spec` with `dir` in place of the run's private directory on
/// PYTHONPATH: a warm run's, whose `sys.path` must be the warm process's.
pub fn with_plugins_from(spec: &Spec, dir: &Path) -> Spec {
    let mut spec = spec.clone();
    for (key, value) in &mut spec.env {
        if key == "PYTHONPATH" {
            *value = python_path(dir);
        }
    }
    spec
}

/// The files one run writes, inside its private temporary directory.
#[derive(Debug)]
pub struct Workspace {
    dir: tempfile::TempDir,
    /// Where the run records the modules it imported, when it does.
    imported: Option<PathBuf>,
}

impl Workspace {
    /// Creates the directory and writes the event-log plugin (and its
    /// companion module) into it.
    pub fn new() -> std::io::Result<Workspace> {
        let dir = tempfile::Builder::new().prefix("pytest-mcp-").tempdir()?;
        std::fs::write(
            dir.path().join(format!("{EVENTS_MODULE}.py")),
            EVENTS_PLUGIN,
        )?;
        for (name, text) in COMPANIONS {
            std::fs::write(dir.path().join(format!("{name}.py")), text)?;
        }
        Ok(Workspace {
            dir,
            imported: None,
        })
    }
    /// Makes the run record the modules it imported into `list`
    /// ([`IMPORTED_PLUGIN`]).
    pub fn record_imports(&mut self, list: &Path) -> std::io::Result<()> {
        std::fs::write(
            self.dir.path().join(format!("{IMPORTED_MODULE}.py")),
            IMPORTED_PLUGIN,
        )?;
        self.imported = Some(list.to_path_buf());
        Ok(())
    }
    /// Removes what a run wrote, before the same run starts again (a warm
    /// process that ended during it: the run is done cold).
    pub fn clear_outputs(&self) {
        for file in [self.junit(), self.json_report(), self.events()] {
            let _ = std::fs::remove_file(file);
        }
        let _ = std::fs::remove_dir_all(self.dir.path().join("coverage"));
    }
    pub fn junit(&self) -> PathBuf {
        self.dir.path().join("junit.xml")
    }
    pub fn json_report(&self) -> PathBuf {
        self.dir.path().join("report.json")
    }
    pub fn events(&self) -> PathBuf {
        self.dir.path().join("events.jsonl")
    }
    /// The base name of coverage.py's data files, one a process
    /// (`coverage.<host>.<pid>.<random>`), in their own directory.
    pub fn coverage_data(&self) -> PathBuf {
        self.dir.path().join("coverage").join("data")
    }
    /// The program that chooses a shard's tests, its arguments separated
    /// by NUL bytes (a path is any bytes but NUL).
    pub fn shard(&self) -> PathBuf {
        self.dir.path().join("shard.argv")
    }
    /// Writes the program that chooses a shard's tests and the plugin that
    /// runs it ([`SHARD_PLUGIN`]).
    pub fn write_shard(&self, argv: &[OsString]) -> std::io::Result<()> {
        use std::os::unix::ffi::OsStrExt as _;
        let mut bytes = Vec::new();
        for (i, arg) in argv.iter().enumerate() {
            if i > 0 {
                bytes.push(0);
            }
            bytes.extend_from_slice(arg.as_bytes());
        }
        std::fs::write(self.shard(), bytes)?;
        std::fs::write(
            self.dir.path().join(format!("{SHARD_MODULE}.py")),
            SHARD_PLUGIN,
        )
    }
    fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// What a command runs.
pub enum Mode<'a> {
    Run(&'a RunParams),
    Discover(&'a DiscoverParams),
}

/// Builds the pytest command for a run or a discovery.
pub fn build(
    python: &Python,
    root: &Root,
    caps: Capabilities,
    ws: &Workspace,
    mode: &Mode<'_>,
) -> Spec {
    let mut args: Vec<OsString> = vec![
        "-m".into(),
        "pytest".into(),
        "-p".into(),
        EVENTS_MODULE.into(),
    ];
    // pytest-json-report first: `--json-report-omit` takes every value up
    // to the next option, and the next one is always `--junitxml=`.
    if caps.json_report {
        args.extend(json_report_args());
    }
    args.extend(junit_args(ws));
    let (timeout, targets) = match mode {
        Mode::Run(p) => {
            if p.shard.is_some() {
                // The shard's tests are chosen in the run's own collection
                // (`pytest_mcp_shard.py`).
                args.extend(["-p".into(), SHARD_MODULE.into()]);
            }
            if ws.imported.is_some() {
                args.extend(["-p".into(), IMPORTED_MODULE.into()]);
            }
            args.extend(run_options(p));
            (p.timeout, p.node_ids.clone())
        }
        Mode::Discover(p) => {
            args.extend(discover_options(p));
            let targets = p.path.iter().chain(&p.selection.node_ids).cloned();
            (p.timeout, targets.collect())
        }
    };
    if !targets.is_empty() {
        args.push("--".into());
        args.extend(targets.into_iter().map(OsString::from));
    }
    Spec {
        program: python.path.clone(),
        args,
        cwd: root.path().to_path_buf(),
        env: environment(caps, ws, mode),
        timeout,
    }
}

/// pytest-xdist's option for its workers, spelled out: a pytest without
/// the plugin refuses it by this name (a usage error the runner turns into
/// a refusal of `workers`), and a bare `-n 2` would leave `2` to be read as
/// a path.
pub const NUMPROCESSES: &str = "--numprocesses";

/// pytest-testmon's option that selects the affected tests, whatever else
/// narrows the run; a pytest without the plugin refuses it by this name.
pub const TESTMON_FORCESELECT: &str = "--testmon-forceselect";

/// pytest-rerunfailures' option for reruns of a failing test, given as
/// `--reruns=N` (one argument, after the project's own options, so it wins
/// over a `--reruns` there); a pytest without the plugin refuses it by this
/// name.
pub const RERUNS: &str = "--reruns";

/// pytest's options for a run: verbosity, when to stop, capture, workers,
/// retries, `-m`, `-k`.
fn run_options(p: &RunParams) -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::new();
    let mut arg = |s: &str| args.push(s.into());
    match p.verbosity {
        -2 => arg("-qq"),
        -1 => arg("-q"),
        1 => arg("-v"),
        2 => arg("-vv"),
        _ => {}
    }
    match p.stop {
        Stop::Never => {}
        Stop::FirstFailure => arg("-x"),
        Stop::After(n) => {
            let flag = format!("--maxfail={n}");
            arg(&flag);
        }
    }
    if p.last_failed {
        // Nothing recorded: nothing runs (pytest's default reruns all).
        arg("--last-failed");
        arg("--last-failed-no-failures=none");
    }
    if p.affected {
        // Selects under -k, -m, --lf and test ids too, which plain
        // --testmon turns its selection off for.
        arg(TESTMON_FORCESELECT);
    }
    if !p.show_capture {
        arg("--show-capture=no");
    }
    match p.workers {
        None => {}
        Some(Workers::Count(n)) => arg(&format!("{NUMPROCESSES}={n}")),
        Some(Workers::Auto) => arg(&format!("{NUMPROCESSES}=auto")),
    }
    if let Some(n) = p.retries {
        arg(&format!("{RERUNS}={n}"));
    }
    if let Some(m) = &p.markers {
        arg("-m");
        arg(m);
    }
    if let Some(k) = &p.keywords {
        arg("-k");
        arg(k);
    }
    args
}

/// pytest's options for a discovery: collect only, with the file pattern,
/// and without pytest's cache, which would record the files that fail to
/// import as failures for a later `--last-failed` (with bytecode writing
/// off, [`environment`], a discovery writes nothing into the project).
fn discover_options(p: &DiscoverParams) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec![
        "--collect-only".into(),
        "-q".into(),
        "-p".into(),
        "no:cacheprovider".into(),
    ];
    if let Some(pattern) = &p.pattern {
        args.push("-o".into());
        args.push(format!("python_files={pattern}").into());
    }
    if let Some(m) = &p.selection.markers {
        args.extend(["-m".into(), m.into()]);
    }
    if let Some(k) = &p.selection.keywords {
        args.extend(["-k".into(), k.into()]);
    }
    args
}

/// The environment our plugin reads: where to log events (and items, for a
/// discovery) and where pytest-json-report writes.
fn environment(caps: Capabilities, ws: &Workspace, mode: &Mode<'_>) -> Vec<(OsString, OsString)> {
    let mut env = vec![
        ("PYTEST_MCP_EVENTS".into(), ws.events().into_os_string()),
        ("PYTHONPATH".into(), python_path(ws.path())),
        // Output that reaches us even when pytest is killed.
        ("PYTHONUNBUFFERED".into(), "1".into()),
    ];
    match mode {
        Mode::Discover(_) => {
            env.push(("PYTEST_MCP_ITEMS".into(), "1".into()));
            env.push(("PYTHONDONTWRITEBYTECODE".into(), "1".into()));
        }
        Mode::Run(p) => {
            if p.last_failed {
                env.push(("PYTEST_MCP_LAST_FAILED".into(), "1".into()));
            }
            if p.affected {
                env.push(("PYTEST_MCP_AFFECTED".into(), "1".into()));
            }
            if p.coverage.is_some() {
                env.push((
                    "PYTEST_MCP_COVERAGE".into(),
                    ws.coverage_data().into_os_string(),
                ));
            }
            if p.shard.is_some() {
                env.push(("PYTEST_MCP_SHARD".into(), ws.shard().into_os_string()));
            }
            if let Some(list) = &ws.imported {
                env.push(("PYTEST_MCP_IMPORTED".into(), list.clone().into_os_string()));
            }
        }
    }
    if caps.json_report {
        env.push((
            "PYTEST_MCP_JSON_REPORT".into(),
            ws.json_report().into_os_string(),
        ));
    }
    env
}

/// The JUnit XML source: `xunit1` keeps `file` and `line`.
pub fn junit_args(ws: &Workspace) -> Vec<OsString> {
    vec![
        format!("--junitxml={}", ws.junit().display()).into(),
        "-o".into(),
        "junit_family=xunit1".into(),
    ]
}

/// The pytest-json-report source, at its cheapest (BENCHMARKS.md): the
/// event-log plugin writes the file (to [`Workspace::json_report`], named
/// by `PYTEST_MCP_JSON_REPORT`) with Python's C JSON encoder, and puts back
/// the collectors pytest-mcp reads (failed and skipped). Omitted: the
/// passing collectors, each test's keywords and the structured traceback
/// (nothing reads them; `longrepr` and `crash` stay). Captured output and
/// log records stay: failures show them.
pub fn json_report_args() -> Vec<OsString> {
    [
        "--json-report",
        "--json-report-file=none",
        "--json-report-omit",
        "collectors",
        "keywords",
        "traceback",
    ]
    .into_iter()
    .map(OsString::from)
    .collect()
}

/// Our directory first, then whatever PYTHONPATH the user has.
fn python_path(dir: &Path) -> OsString {
    let mut value = dir.as_os_str().to_os_string();
    if let Some(existing) = std::env::var_os("PYTHONPATH").filter(|p| !p.is_empty()) {
        value.push(":");
        value.push(existing);
    }
    value
}
