//! The command line: flags, file I/O and exit codes. The only module of the
//! `report` path that touches the file system.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use tokio_util::sync::CancellationToken;

use crate::frontend::report::{self, Input};
use crate::render::{self, Format};
use crate::request::{DiscoverTestsRequest, ExecuteTestsRequest};
use crate::runner::execute::{self, ErrorKind, ExecError, Settings};
use crate::runner::params::{DEFAULT_TIMEOUT_SECS, Root};

/// Exit status when the report was written.
pub const EXIT_OK: u8 = 0;
/// Exit status when an input could not be read or the output not written.
pub const EXIT_INPUT_ERROR: u8 = 2;
/// `run`/`discover`: a parameter was refused before anything ran.
pub const EXIT_INVALID_PARAMS: u8 = 4;
/// `run`/`discover`: the time limit ran out (as `timeout(1)`).
pub const EXIT_TIMEOUT: u8 = 124;
/// `run`/`discover`: pytest could not be started.
pub const EXIT_SPAWN: u8 = 127;

#[derive(Debug, Parser)]
#[command(
    name = "pytest-mcp",
    version,
    about = "Turn test results into token-lean Markdown or ADR-006 JSON.",
    long_about = "Turn test results into what an AI agent or a reviewer can act on at the \
lowest token cost.\n\n\
`report` reads JUnit XML from any framework (pytest, Surefire, Jest, Go, PHPUnit, \
nextest, Catch2, Mocha, ...) and pytest-json-report JSON, merges them into one run \
and prints Markdown, the ADR-006 JSON structure, an HTML page or clean JUnit XML. \
`run` and `discover` run pytest in a project (safely: checked parameters, its own \
process group, a time limit) and answer the same way; `serve` offers them to an AI \
agent as the MCP tools execute_tests and discover_tests.\n\n\
`pytest-mcp help <COMMAND>` (or `<COMMAND> --help`) describes each command."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Render result files (JUnit XML, pytest-json-report JSON) as one report.
    #[command(
        long_about = "Render result files as one report.\n\n\
Each FILE may be JUnit XML (any framework) or a pytest-json-report JSON file; the \
format is detected from the content. Files are merged by test id: the JSON report \
and the JUnit file of the same pytest run give one result per test (the JSON report \
wins, JUnit fills what it lacks), and shards of one run give their union.\n\n\
Exit status: 0 when the report was written (whatever the test outcomes, unless \
--fail-on says otherwise: then 1 when the results fail), 2 when a file could not be read (every bad file is listed, with line and column for broken \
XML or JSON) or the output could not be written.",
        after_help = "Examples:\n  \
pytest-mcp report junit.xml\n  \
pytest-mcp report report.json junit.xml --format json -o result.json\n  \
pytest-mcp report shard-*.xml >> \"$GITHUB_STEP_SUMMARY\"\n  \
pytest-mcp report --baseline main.xml --baseline main.json pr.xml pr.json"
    )]
    Report(ReportArgs),
    /// Run pytest in a project and report the result.
    #[command(
        long_about = "Run pytest in a project and report the result.\n\n\
pytest runs with the project's own interpreter (--python, else PYTEST_MCP_PYTHON, else \
<root>/.venv/bin/python, <root>/venv/bin/python, $VIRTUAL_ENV/bin/python, python3), \
in its own process group, with a time limit that ends the whole group. Results come \
from pytest-json-report when the project has it, and from JUnit XML always; after a \
timeout or a crash the answer still says which tests finished and which was running.\n\n\
Exit status: pytest's own (0 passed, 1 tests failed, 2 interrupted, 3 internal \
error, 4 usage error, 5 no tests); 124 on timeout; 128+N when pytest died of signal N \
or pytest-mcp got SIGTERM/SIGINT/SIGHUP (the whole run is ended first); 4 when a parameter \
is refused; 127 when pytest cannot be started.",
        after_help = "Examples:\n  \
pytest-mcp run\n  \
pytest-mcp run tests/test_api.py::test_login -x\n  \
pytest-mcp run --root ~/src/app -m 'not slow' --timeout 600 --format json"
    )]
    Run(RunArgs),
    /// List the tests pytest would run, without running them.
    #[command(
        long_about = "List the tests pytest would run (pytest --collect-only), \
grouped by file, with collection errors as data.\n\n\
Exit status: 0 tests found, 2 collection errors, 5 no tests, 4 refused parameter, \
124 timeout, 127 pytest cannot be started.",
        after_help = "Examples:\n  \
pytest-mcp discover\n  \
pytest-mcp discover --path tests/api --pattern 'check_*.py' --format json"
    )]
    Discover(DiscoverArgs),
    /// Serve execute_tests and discover_tests over MCP on stdin/stdout.
    #[command(
        long_about = "Serve the MCP tools execute_tests and discover_tests over \
stdin/stdout for an AI agent's client (Claude Code, Claude Desktop, Cursor, VS Code; see the \
README for their configuration). The project root is fixed at start; every test id and path \
a request names must stay inside it. stdout carries only the protocol; logs go to stderr \
(RUST_LOG sets their level). Runs in flight end when the client cancels them, closes \
stdin, or the server gets SIGTERM/SIGINT."
    )]
    Serve(ServeArgs),
}

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The project directory; every test id and path a request names must
    /// stay inside it.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
    /// The Python interpreter that has the project's pytest.
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,
    /// Time limit in seconds for a call that sets none (1 to 86400).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_TIMEOUT_SECS)]
    pub timeout: u64,
    /// Seconds pytest's process group gets between SIGTERM and SIGKILL when
    /// a run is ended (time limit, cancellation, a signal to pytest-mcp).
    #[arg(long, value_name = "SECS", default_value = "2", value_parser = parse_grace)]
    pub kill_grace: Duration,
}

/// `--kill-grace`: seconds (a decimal fraction allowed) from 0 to
/// [`crate::runner::process::MAX_GRACE`].
fn parse_grace(value: &str) -> Result<Duration, String> {
    let max = crate::runner::process::MAX_GRACE;
    value
        .parse::<f64>()
        .ok()
        .and_then(|secs| Duration::try_from_secs_f64(secs).ok())
        .filter(|grace| *grace <= max)
        .ok_or_else(|| format!("expected seconds from 0 to {}", max.as_secs()))
}

/// Options shared by `run` and `discover`.
#[derive(Debug, clap::Args)]
pub struct ProjectArgs {
    /// The project directory; every path and test id must stay inside it.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
    /// The Python interpreter that has the project's pytest.
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,
    /// Time limit in seconds for the pytest process and everything it
    /// starts, 1 to 86400 (default: 300).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<i64>,
    /// Seconds pytest's process group gets between SIGTERM and SIGKILL when
    /// a run is ended (time limit, cancellation, a signal to pytest-mcp).
    #[arg(long, value_name = "SECS", default_value = "2", value_parser = parse_grace)]
    pub kill_grace: Duration,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = Format::Markdown)]
    pub format: Format,
    /// Write the answer to this file instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Test ids or paths to run (e.g. tests/test_x.py::test_y); all tests when none.
    #[arg(value_name = "NODE_ID")]
    pub node_ids: Vec<String>,
    /// Only tests matching this keyword expression (pytest -k).
    #[arg(short = 'k', value_name = "EXPR")]
    pub keywords: Option<String>,
    /// Only tests matching this marker expression (pytest -m).
    #[arg(short = 'm', value_name = "EXPR")]
    pub markers: Option<String>,
    /// Stop at the first failure.
    #[arg(short = 'x', long = "exitfirst", conflicts_with = "maxfail")]
    pub failfast: bool,
    /// Stop after N failures.
    #[arg(long, value_name = "N")]
    pub maxfail: Option<i64>,
    /// pytest's verbosity, -2 (quietest) to 2.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub verbosity: Option<i64>,
    /// Leave captured stdout/stderr/log out of failure reports.
    #[arg(long)]
    pub no_capture_output: bool,
    #[command(flatten)]
    pub project: ProjectArgs,
}

#[derive(Debug, clap::Args)]
pub struct DiscoverArgs {
    /// Directory or file to look in, relative to the root (default: the root).
    #[arg(long, value_name = "P")]
    pub path: Option<String>,
    /// Test file name glob (default: pytest's python_files, test_*.py and *_test.py).
    #[arg(long, value_name = "GLOB")]
    pub pattern: Option<String>,
    #[command(flatten)]
    pub project: ProjectArgs,
}

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// Result files: JUnit XML or pytest-json-report JSON (detected by
    /// content); a directory means every .xml and .json file under it; a
    /// quoted glob ('shards/*/junit.xml') is expanded.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = Format::Markdown)]
    pub format: Format,
    /// Write the report to this file instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Result file of an earlier run to compare with (a directory or a
    /// quoted glob as for FILE): new failures first, then fixed, still
    /// failing, added and removed tests, and the change in duration. One
    /// file per flag; repeat the flag for several:
    /// `--baseline a.xml --baseline b.json`.
    #[arg(long, value_name = "FILE")]
    pub baseline: Vec<PathBuf>,
    /// Longest Markdown report in characters: the summary line and failing ids
    /// are kept, detail is shortened first, and the report says what was cut.
    /// 65536 fits a GitHub comment; a job summary takes 1048576.
    #[arg(long, value_name = "N", default_value_t = report::DEFAULT_MAX_CHARS)]
    pub max_chars: usize,
    /// Exit with status 1 when the results contain failures (or errors, or
    /// only errors), to gate a CI step; `never` (the default) exits 0
    /// whatever the tests did.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = FailOn::Never)]
    pub fail_on: FailOn,
}

/// When `report` exits non-zero because of the results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// Failed or erroring tests, or collection errors.
    Failures,
    /// Only erroring tests and collection errors.
    Errors,
    /// Never: the exit status says only whether the report was written.
    Never,
}

/// Exit status of `report --fail-on` when the results call for it.
pub const EXIT_TESTS_FAILED: u8 = 1;

fn fails(run: &crate::model::Run, fail_on: FailOn) -> bool {
    let c = run.counts();
    match fail_on {
        FailOn::Failures => c.failed + c.errors + c.collection_errors > 0,
        FailOn::Errors => c.errors + c.collection_errors > 0,
        FailOn::Never => false,
    }
}

/// Runs the command line and returns the process exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Report(args) => ExitCode::from(run_report(&args)),
        Command::Run(args) => ExitCode::from(run_pytest(&args)),
        Command::Discover(args) => ExitCode::from(run_discover(&args)),
        Command::Serve(args) => ExitCode::from(run_serve(&args)),
    }
}

fn run_serve(args: &ServeArgs) -> u8 {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,rmcp=error".into()),
        )
        .init();
    if !(1..=crate::runner::params::MAX_TIMEOUT_SECS).contains(&args.timeout) {
        eprintln!(
            "pytest-mcp: error: --timeout must be between 1 and {} seconds (received {})",
            crate::runner::params::MAX_TIMEOUT_SECS,
            args.timeout
        );
        return EXIT_INVALID_PARAMS;
    }
    let root = match Root::new(&args.root) {
        Ok(root) => root,
        Err(e) => {
            eprintln!("pytest-mcp: error: {e}");
            return EXIT_INVALID_PARAMS;
        }
    };
    let settings = Settings {
        root,
        python: args.python.clone(),
        default_timeout: std::time::Duration::from_secs(args.timeout),
        kill_grace: args.kill_grace,
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("pytest-mcp: error: cannot start the async runtime: {e}");
            return 1;
        }
    };
    let result = runtime.block_on(crate::frontend::server::serve(settings));
    // Runs still finishing end quickly: their tokens were cancelled.
    runtime.shutdown_timeout(std::time::Duration::from_secs(10));
    match result {
        Ok(()) => EXIT_OK,
        Err(e) => {
            eprintln!("pytest-mcp: error: {e}");
            1
        }
    }
}

/// The settings of a `run` or `discover`; an unusable root is reported
/// here and becomes exit status 4.
fn settings(project: &ProjectArgs) -> Result<Settings, u8> {
    match Root::new(&project.root) {
        Ok(root) => Ok(Settings {
            root,
            python: project.python.clone(),
            default_timeout: std::time::Duration::from_secs(DEFAULT_TIMEOUT_SECS),
            kill_grace: project.kill_grace,
        }),
        Err(e) => {
            eprintln!("pytest-mcp: error: {e}");
            Err(EXIT_INVALID_PARAMS)
        }
    }
}

/// Prints a refused parameter in the requested format; exit status 4.
fn refuse(project: &ProjectArgs, e: &crate::runner::params::ValidationError) -> u8 {
    let text = match project.format {
        Format::Json => render::json::text(&render::outcome::validation_value(e), true),
        other => other.markdown_page(
            render::outcome::validation_markdown(e),
            "pytest-mcp: invalid parameters",
        ),
    };
    eprintln!("pytest-mcp: {e}");
    finish(project.output.as_ref(), &text, EXIT_INVALID_PARAMS)
}

fn finish(output: Option<&PathBuf>, text: &str, status: u8) -> u8 {
    finish_with(output, |out| out.write_all(text.as_bytes()), status)
}

/// [`finish`] for an answer written piece by piece by `write`.
fn finish_with(
    output: Option<&PathBuf>,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    status: u8,
) -> u8 {
    match write_output(output, write) {
        Ok(()) => status,
        Err(e) => {
            eprintln!("pytest-mcp: error: {e}");
            EXIT_INPUT_ERROR
        }
    }
}

/// The exit status for an execution error (ARCHITECTURE.md, Interfaces).
fn error_status(e: &ExecError) -> u8 {
    match e.kind {
        ErrorKind::Timeout => EXIT_TIMEOUT,
        ErrorKind::Crash => {
            let number = e
                .signal
                .as_deref()
                .and_then(|name| name.parse::<nix::sys::signal::Signal>().ok())
                .map_or(0, |s| s as i32);
            (128 + number).clamp(0, 255) as u8
        }
        ErrorKind::Spawn => EXIT_SPAWN,
        // Cancelled by a signal to us: the shell's 128+N.
        ErrorKind::Cancelled => {
            (128 + crate::runner::process::stop_signal().unwrap_or(15)).clamp(0, 255) as u8
        }
        _ => e.exit_code.map_or(1, |c| c.clamp(0, 255) as u8),
    }
}

fn error_text(e: &ExecError, format: Format) -> String {
    match format {
        Format::Json => render::json::text(&render::outcome::error_value(e), true),
        other => other.markdown_page(render::outcome::error_markdown(e), "pytest-mcp: run failed"),
    }
}

fn run_pytest(args: &RunArgs) -> u8 {
    let project = &args.project;
    let settings = match settings(project) {
        Ok(s) => s,
        Err(status) => return status,
    };
    let request = ExecuteTestsRequest {
        node_ids: args.node_ids.clone(),
        markers: args.markers.clone(),
        keywords: args.keywords.clone(),
        verbosity: args.verbosity,
        failfast: args.failfast.then_some(true),
        maxfail: args.maxfail,
        show_capture: Some(!args.no_capture_output),
        timeout: project.timeout,
        format: Some(
            if project.format == Format::Json {
                "json"
            } else {
                "markdown"
            }
            .to_string(),
        ),
    };
    let params = match request.validate(&settings.root, settings.default_timeout) {
        Ok(p) => p,
        Err(e) => return refuse(project, &e),
    };
    let mut progress = ProgressLine::new();
    let cancel = CancellationToken::new();
    crate::runner::process::cancel_on_signals(&cancel);
    let outcome = execute::run_tests(&settings, &params, &cancel, &mut |p| progress.show(p));
    progress.clear();
    match outcome {
        Ok(run) => {
            let status = run.exit_code().clamp(0, 255) as u8;
            finish(
                project.output.as_ref(),
                &report::render(&run, project.format),
                status,
            )
        }
        Err(e) => {
            eprintln!("pytest-mcp: {}", e.message);
            finish(
                project.output.as_ref(),
                &error_text(&e, project.format),
                error_status(&e),
            )
        }
    }
}

/// A one-line progress display on stderr, only when stderr is a terminal
/// (logs and pipes get no carriage returns).
struct ProgressLine {
    enabled: bool,
    shown: bool,
}

impl ProgressLine {
    fn new() -> Self {
        use std::io::IsTerminal;
        ProgressLine {
            enabled: std::io::stderr().is_terminal(),
            shown: false,
        }
    }

    fn show(&mut self, p: &crate::sources::events::Progress) {
        if !self.enabled {
            return;
        }
        let total = p.total.map_or_else(|| "?".to_string(), |t| t.to_string());
        let current = p.current.as_deref().unwrap_or("");
        let line: String = format!("[{}/{total}] {current}", p.done)
            .chars()
            .take(100)
            .collect();
        eprint!("\r\x1b[K{line}");
        self.shown = true;
    }

    fn clear(&mut self) {
        if self.shown {
            eprint!("\r\x1b[K");
            self.shown = false;
        }
    }
}

fn run_discover(args: &DiscoverArgs) -> u8 {
    let project = &args.project;
    let settings = match settings(project) {
        Ok(s) => s,
        Err(status) => return status,
    };
    let request = DiscoverTestsRequest {
        path: args.path.clone(),
        pattern: args.pattern.clone(),
        timeout: project.timeout,
        format: None,
    };
    let params = match request.validate(&settings.root, settings.default_timeout) {
        Ok(p) => p,
        Err(e) => return refuse(project, &e),
    };
    let cancel = CancellationToken::new();
    crate::runner::process::cancel_on_signals(&cancel);
    match execute::discover(&settings, &params, &cancel) {
        Ok(d) => {
            let text = match project.format {
                Format::Json => render::json::text(&render::outcome::discovery_value(&d), true),
                other => other
                    .markdown_page(render::outcome::discovery_markdown(&d), "pytest-mcp: tests"),
            };
            let status = if !d.collection_errors.is_empty() {
                2
            } else if d.items.is_empty() {
                5
            } else {
                0
            };
            finish(project.output.as_ref(), &text, status)
        }
        Err(e) => {
            eprintln!("pytest-mcp: {}", e.message);
            finish(
                project.output.as_ref(),
                &error_text(&e, project.format),
                error_status(&e),
            )
        }
    }
}

fn run_report(args: &ReportArgs) -> u8 {
    let inputs: Vec<Input> = args.files.iter().flat_map(|arg| expand(arg)).collect();
    let baseline_inputs: Vec<Input> = args.baseline.iter().flat_map(|arg| expand(arg)).collect();
    let baseline = if baseline_inputs.is_empty() {
        Ok(None)
    } else {
        report::build_run(&baseline_inputs, crate::render::Format::Markdown).map(Some)
    };
    let current = if baseline_inputs.is_empty() {
        report::build_run_to_render(&inputs, args.format)
    } else {
        report::build_run(&inputs, args.format)
    };
    let built = match (current, baseline) {
        (Ok(run), Ok(baseline)) => Ok((run, baseline)),
        (Err(mut a), Err(b)) => {
            a.extend(b);
            Err(a)
        }
        (Err(e), _) | (_, Err(e)) => Err(e),
    };
    let total_inputs = inputs.len() + baseline_inputs.len();
    // The files' bytes are not needed once read: free them before rendering.
    drop(inputs);
    drop(baseline_inputs);
    let output = args.output.as_ref();
    let (run, baseline) = match built {
        Ok(built) => built,
        Err(errors) => {
            for e in &errors {
                eprintln!("pytest-mcp: error: {e}");
            }
            let text = report::render_errors(&errors, total_inputs, args.format);
            return finish(output, &text, EXIT_INPUT_ERROR);
        }
    };
    let status = if fails(&run, args.fail_on) {
        EXIT_TESTS_FAILED
    } else {
        EXIT_OK
    };
    let done = match &baseline {
        // The ADR-006 JSON of a large run is several times the size of the
        // Markdown: it is written as it is serialized, never held whole.
        None if args.format == crate::render::Format::Json => finish_with(
            output,
            |out| crate::render::json::write_pretty(&run, out),
            status,
        ),
        None => finish(
            output,
            &report::render_within(&run, args.format, args.max_chars),
            status,
        ),
        Some(b) => finish(
            output,
            &report::render_compared(&run, b, args.format, args.max_chars),
            status,
        ),
    };
    // The process ends right after this: freeing a run of 100,000 tests one
    // string at a time would only cost time.
    std::mem::forget(run);
    std::mem::forget(baseline);
    done
}

/// One FILE argument as inputs: a file; every `.xml` and `.json` file
/// under a directory (sorted, recursively); or the files a glob matches
/// (`'reports/**/*.xml'`, quoted so the shell leaves it to us). A directory
/// or glob that yields nothing is an input error, not silently nothing.
fn expand(arg: &std::path::Path) -> Vec<Input> {
    let name = arg.display().to_string();
    let error = |detail: String| {
        vec![Input {
            name: name.clone(),
            contents: Err(detail),
        }]
    };
    if arg.is_dir() {
        let mut files = Vec::new();
        collect_results(arg, &mut files);
        if files.is_empty() {
            return error("is a directory that holds no .xml or .json result files".to_string());
        }
        return files.iter().map(|p| read_input(p)).collect();
    }
    let pattern = name.contains(['*', '?', '[']) && !arg.exists();
    if pattern {
        let matched: Vec<PathBuf> = match glob::glob(&name) {
            Ok(paths) => paths.flatten().filter(|p| p.is_file()).collect(),
            Err(e) => return error(format!("is not a valid glob pattern: {e}")),
        };
        if matched.is_empty() {
            return error("matches no files".to_string());
        }
        return matched.iter().map(|p| read_input(p)).collect();
    }
    vec![read_input(arg)]
}

/// Result files under `dir`, sorted; hidden directories are skipped.
fn collect_results(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        let hidden = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if path.is_dir() {
            if !hidden {
                collect_results(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "xml" || e == "json") {
            out.push(path);
        }
    }
}

fn read_input(path: &std::path::Path) -> Input {
    Input {
        name: path.display().to_string(),
        contents: std::fs::read(path).map_err(|e| format!("cannot read the file: {e}")),
    }
}

/// Runs `write` on the output file (created or truncated) or on standard
/// output, buffered, and flushes.
fn write_output(
    path: Option<&PathBuf>,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), String> {
    match path {
        Some(path) => {
            let written = std::fs::File::create(path).and_then(|file| {
                let mut out = std::io::BufWriter::new(file);
                write(&mut out)?;
                out.flush()
            });
            written.map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
        None => {
            let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
            match write(&mut stdout).and_then(|()| stdout.flush()) {
                Ok(()) => Ok(()),
                // A closed pipe (`| head`) is the reader's choice, not an error.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                Err(e) => Err(format!("cannot write to standard output: {e}")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grace_of(args: &[&str]) -> Result<Duration, clap::Error> {
        let cli = Cli::try_parse_from(std::iter::once("pytest-mcp").chain(args.iter().copied()))?;
        Ok(match cli.command {
            Command::Run(a) => a.project.kill_grace,
            Command::Discover(a) => a.project.kill_grace,
            Command::Serve(a) => a.kill_grace,
            Command::Report(_) => unreachable!("no --kill-grace on report"),
        })
    }

    #[test]
    fn kill_grace_defaults_to_the_process_default_and_takes_fractions() {
        for sub in ["run", "discover", "serve"] {
            assert_eq!(
                grace_of(&[sub]).unwrap(),
                crate::runner::process::DEFAULT_GRACE,
                "{sub}"
            );
            assert_eq!(
                grace_of(&[sub, "--kill-grace", "0.2"]).unwrap(),
                Duration::from_millis(200),
                "{sub}"
            );
            assert_eq!(
                grace_of(&[sub, "--kill-grace", "0"]).unwrap(),
                Duration::ZERO
            );
        }
    }

    #[test]
    fn kill_grace_out_of_range_is_refused() {
        for bad in ["-1", "61", "nan", "inf", "2s", ""] {
            assert!(grace_of(&["run", "--kill-grace", bad]).is_err(), "{bad}");
        }
    }
}
