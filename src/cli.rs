//! The command line: flags, file I/O and exit codes. The only module of the
//! `report` path that touches the file system.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::render::Format;
use crate::report::{self, Input};

/// Exit status when the report was written.
pub const EXIT_OK: u8 = 0;
/// Exit status when an input could not be read or the output not written.
pub const EXIT_INPUT_ERROR: u8 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "pytest-mcp",
    version,
    about = "Turn test results into token-lean Markdown or ADR-006 JSON.",
    long_about = "Turn test results into what an AI agent or a reviewer can act on at the \
lowest token cost.\n\n\
`report` reads JUnit XML from any framework (pytest, Surefire, Jest, Go, PHPUnit, \
nextest, Catch2, Mocha, ...) and pytest-json-report JSON, merges them into one run \
and prints Markdown or the ADR-006 JSON structure."
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
Exit status: 0 when the report was written (whatever the test outcomes), 2 when a \
file could not be read (every bad file is listed, with line and column for broken \
XML or JSON) or the output could not be written.",
        after_help = "Examples:\n  \
pytest-mcp report junit.xml\n  \
pytest-mcp report report.json junit.xml --format json -o result.json\n  \
pytest-mcp report shard-*.xml >> \"$GITHUB_STEP_SUMMARY\""
    )]
    Report(ReportArgs),
}

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// Result files: JUnit XML or pytest-json-report JSON (detected by content).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = Format::Markdown)]
    pub format: Format,
    /// Write the report to this file instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Runs the command line and returns the process exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Report(args) => ExitCode::from(run_report(&args)),
    }
}

fn run_report(args: &ReportArgs) -> u8 {
    let inputs: Vec<Input> = args
        .files
        .iter()
        .map(|path| Input {
            name: path.display().to_string(),
            contents: read_input(path),
        })
        .collect();
    let (text, status) = match report::build_run(&inputs, args.format) {
        Ok(run) => (report::render(&run, args.format), EXIT_OK),
        Err(errors) => {
            for e in &errors {
                eprintln!("pytest-mcp: error: {e}");
            }
            (
                report::render_errors(&errors, inputs.len(), args.format),
                EXIT_INPUT_ERROR,
            )
        }
    };
    match write_output(args.output.as_ref(), &text) {
        Ok(()) => status,
        Err(e) => {
            eprintln!("pytest-mcp: error: {e}");
            EXIT_INPUT_ERROR
        }
    }
}

fn read_input(path: &PathBuf) -> Result<Vec<u8>, String> {
    if path.is_dir() {
        return Err("is a directory; pass the result files inside it".to_string());
    }
    std::fs::read(path).map_err(|e| format!("cannot read the file: {e}"))
}

fn write_output(path: Option<&PathBuf>, text: &str) -> Result<(), String> {
    match path {
        Some(path) => {
            std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
        None => {
            let mut stdout = std::io::stdout().lock();
            match stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush())
            {
                Ok(()) => Ok(()),
                // A closed pipe (`| head`) is the reader's choice, not an error.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                Err(e) => Err(format!("cannot write to standard output: {e}")),
            }
        }
    }
}
