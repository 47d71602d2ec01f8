//! The command line: flags (`args`), file I/O and exit codes. The only
//! module of the `report` path that touches the file system (`files`).

mod args;
mod coverage;
mod files;
mod github;
mod plan;
mod shard;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use tokio_util::sync::CancellationToken;

pub use args::{
    Cli, Command, DiscoverArgs, FailOn, PlanArgs, PlanFormat, ProjectArgs, ReportArgs, RunArgs,
    SelectShardArgs, ServeArgs,
};

use crate::budget::Budget;
use crate::frontend::dispatch::{self, Style, Subject};
use crate::frontend::remember;
use crate::frontend::report;
use crate::frontend::respond::{self, Answer, EXIT_INPUT_ERROR, EXIT_INVALID_PARAMS, EXIT_OK};
use crate::model::exec_error::ExecError;
use crate::model::rerun::RerunHint;
use crate::request::{
    DiscoverTestsRequest, ExecuteTestsRequest, MAX_TIMEOUT_SECS, OutputFormat, ValidationError,
};
use crate::runner::execute::{self, RunError, Settings};
use crate::runner::params::{DEFAULT_TIMEOUT_SECS, Root};
use crate::runner::warm::Warming;

/// Runs the command line and returns the process exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Report(args) => ExitCode::from(files::run_report(&args)),
        Command::Run(args) => ExitCode::from(run_pytest(&args)),
        Command::Discover(args) => ExitCode::from(run_discover(&args)),
        Command::Plan(args) => ExitCode::from(plan::run_plan(&args)),
        Command::Serve(args) => ExitCode::from(run_serve(&args)),
        Command::SelectShard(args) => ExitCode::from(shard::select_main(&args)),
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
    if !(1..=MAX_TIMEOUT_SECS).contains(&args.timeout) {
        eprintln!(
            "pytest-mcp: error: --timeout must be between 1 and {} seconds (received {})",
            MAX_TIMEOUT_SECS, args.timeout
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
        history: args.history.keeping(root.path()),
        root,
        python: args.python.clone(),
        default_timeout: std::time::Duration::from_secs(args.timeout),
        kill_grace: args.kill_grace,
        results: None,
        warm: (!args.no_warm).then(|| Warming::Serve(Default::default())),
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
    match Root::new(&project.pytest.root) {
        Ok(root) => Ok(Settings {
            root,
            python: project.pytest.python.clone(),
            default_timeout: std::time::Duration::from_secs(DEFAULT_TIMEOUT_SECS),
            kill_grace: project.pytest.kill_grace,
            history: None,
            results: None,
            warm: None,
        }),
        Err(e) => {
            eprintln!("pytest-mcp: error: {e}");
            Err(EXIT_INVALID_PARAMS)
        }
    }
}

/// Writes the answer of a `run` or `discover`; returns the exit status.
fn answer(project: &ProjectArgs, answer: Answer) -> u8 {
    let status = answer.exit();
    finish(project.output.as_ref(), &answer.into_text(), status)
}

/// An execution error's answer within `budget`; stderr gets its message.
fn failed(e: &ExecError, format: OutputFormat, budget: &Budget) -> Answer {
    eprintln!("pytest-mcp: {}", e.message);
    respond::exec_error(e, format, budget)
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

/// The settings and the validated parameters of a `run` or `discover`; an
/// unusable root or a refused parameter is answered here (exit status 4).
fn checked<P>(
    project: &ProjectArgs,
    validate: impl FnOnce(&Settings) -> Result<P, ValidationError>,
) -> Result<(Settings, P), u8> {
    let settings = settings(project)?;
    match validate(&settings) {
        Ok(params) => Ok((settings, params)),
        Err(e) => {
            eprintln!("pytest-mcp: {e}");
            Err(answer(project, respond::invalid(&e, project.format)))
        }
    }
}

/// A token cancelled when pytest-mcp gets SIGTERM, SIGINT or SIGHUP.
fn cancelled_on_signals() -> CancellationToken {
    let cancel = CancellationToken::new();
    crate::runner::process::cancel_on_signals(&cancel);
    cancel
}

/// The request a `run` makes, as a tool's client would send it.
fn run_request(args: &RunArgs) -> ExecuteTestsRequest {
    let project = &args.project;
    ExecuteTestsRequest {
        node_ids: args.selection.node_ids.clone(),
        markers: args.selection.markers.clone(),
        keywords: args.selection.keywords.clone(),
        verbosity: args.verbosity,
        failfast: args.failfast.then_some(true),
        maxfail: args.maxfail,
        last_failed: args.last_failed.then_some(true),
        affected: args.affected.then_some(true),
        show_capture: Some(!args.no_capture_output),
        // A number is a number, as a tool's client would send it; the
        // rules are `params`'.
        workers: args.workers.as_deref().map(|w| {
            w.parse::<i64>()
                .map_or_else(|_| serde_json::Value::from(w), serde_json::Value::from)
        }),
        retries: args.retries,
        timeout: project.pytest.timeout,
        max_tokens: project.max_tokens,
        format: Some(project.format.tool_name().to_string()),
        coverage: args.coverage.then_some(true),
        base: args.base.clone(),
        warm: Some(args.warm),
    }
}

fn run_pytest(args: &RunArgs) -> u8 {
    let project = &args.project;
    let request = run_request(args);
    let (mut settings, mut params) =
        match checked(project, |s| request.validate(&s.root, s.default_timeout)) {
            Ok(checked) => checked,
            Err(status) => return status,
        };
    settings.history = args.history.keeping(settings.root.path());
    settings.results.clone_from(&args.results);
    if args.warm {
        settings.warm = Some(Warming::Join);
    }
    let budget = report::cli_budget(project.format, params.max_tokens, project.max_chars);
    let shard = match one_shard(args, &settings, &mut params) {
        Ok(shard) => shard,
        Err(status) => return status,
    };
    let mut progress = ProgressLine::new();
    let cancel = cancelled_on_signals();
    let mut outcome = execute::run_tests(&settings, &params, &cancel, &mut |p| progress.show(p));
    progress.clear();
    let empty_shard = shard.is_some_and(|s| s.conclude(outcome.as_mut().ok()));
    let answered = match outcome {
        Ok(mut run) => {
            run.rerun_hint = Some(RerunHint::Cli);
            let keeping = settings.history.as_ref();
            let remember = match args.shard {
                Some(_) => remember::after_shard,
                None => remember::after_run,
            };
            // An empty shard ran nothing worth remembering.
            if !empty_shard && let Some(warning) = remember(&mut run, keeping, settings.root.path())
            {
                eprintln!("pytest-mcp: warning: {warning}");
            }
            let annotations = github::options_for_root(settings.root.path());
            let style = Style {
                links: github::gfm_options(&annotations, args.link_base.as_deref()),
                annotations,
                ..Style::within(budget)
            };
            if let Some(summary) = project.format.step_summary() {
                let subject = Subject::run(&run);
                let max_chars = github::STEP_SUMMARY_BYTES;
                github::append_summary(|room| {
                    report::step_summary(subject, summary, &style, max_chars, room)
                });
            }
            respond::run(&run, project.format, &style)
        }
        Err(RunError::Failed(e)) => {
            if let Some(summary) = project.format.step_summary() {
                let markdown = crate::render::markdown::error(&e);
                let tone = crate::render::view::error_verdict(e.kind).tone();
                let page = error_page(&markdown, tone, summary);
                github::append_summary(|room| github::cut_to(page, room));
            }
            failed(&e, project.format, &budget)
        }
        Err(RunError::Refused(e)) => {
            eprintln!("pytest-mcp: {e}");
            respond::invalid(&e, project.format)
        }
    };
    answer(project, answered)
}

/// `run --shard`: the program that chooses the shard's tests put into
/// `params` ([`shard::prepare`]). `Err`: the exit status of a refused
/// `--shard` or `--plan`, answered, or of an error already explained.
fn one_shard(
    args: &RunArgs,
    settings: &Settings,
    params: &mut crate::runner::params::RunParams,
) -> Result<Option<shard::Prepared>, u8> {
    let Some(spec) = &args.shard else {
        return Ok(None);
    };
    let project = &args.project;
    match shard::prepare(args, spec, settings, params) {
        Ok(prepared) => Ok(Some(prepared)),
        Err(shard::Refused::Param(e)) => {
            eprintln!("pytest-mcp: {e}");
            Err(answer(project, respond::invalid(&e, project.format)))
        }
        Err(shard::Refused::Status(status)) => Err(status),
    }
}

/// An error's Markdown as `format` shows a page of it (a job summary's).
fn error_page(markdown: &str, tone: crate::render::view::Tone, format: OutputFormat) -> String {
    let subject = Subject::Error {
        markdown,
        object: &serde_json::Value::Null,
        title: "",
        tone: Some(tone),
    };
    dispatch::output(subject, format, &Style::default()).text
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
    let request = DiscoverTestsRequest {
        path: args.path.clone(),
        pattern: args.pattern.clone(),
        timeout: project.pytest.timeout,
        max_tokens: project.max_tokens,
        format: None,
    };
    let (settings, params) =
        match checked(project, |s| request.validate(&s.root, s.default_timeout)) {
            Ok(checked) => checked,
            Err(status) => return status,
        };
    let cancel = cancelled_on_signals();
    let answered = match execute::discover(&settings, &params, &cancel) {
        Ok(d) => {
            let budget = report::cli_budget(project.format, params.max_tokens, project.max_chars);
            respond::discovery(&d, project.format, &Style::within(budget))
        }
        Err(e) => {
            let budget = report::cli_budget(project.format, params.max_tokens, project.max_chars);
            failed(&e, project.format, &budget)
        }
    };
    answer(project, answered)
}

/// Runs `write` on the output file (created or truncated, with its missing
/// directories: a shard's `-o results/shard-2.xml` must not lose the run it
/// just made) or on standard output, buffered, and flushes.
fn write_output(
    path: Option<&PathBuf>,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), String> {
    match path {
        Some(path) => {
            let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
            let made = parent.map_or(Ok(()), std::fs::create_dir_all);
            let written = made
                .and_then(|()| std::fs::File::create(path))
                .and_then(|file| {
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
