//! `report`: result files named on the command line (a file, a directory,
//! a glob) read, rendered and written, with `--fail-on`'s exit status.

use std::path::{Path, PathBuf};

use super::args::{FailOn, ReportArgs};
use super::github::{self, STEP_SUMMARY_BYTES};
use super::{finish, finish_with};
use crate::frontend::dispatch::{self, Style, Subject};
use crate::frontend::remember;
use crate::frontend::report::{
    self, Bytes, DEFAULT_MAX_CHARS, InputError, Load, Reading, RenderOnly,
};
use crate::frontend::respond::{self, EXIT_OK};
use crate::history::Keeping;
use crate::model::history;
use crate::model::{Counts, Run};
use crate::render::view::Compared;
use crate::request::OutputFormat;

/// Exit status of `report --fail-on` when the results call for it.
pub const EXIT_TESTS_FAILED: u8 = 1;

/// The exit status `--fail-on` gives what was read.
fn status(read: &Read, fail_on: FailOn) -> u8 {
    let c = read.counts();
    let fails = match fail_on {
        FailOn::Failures => c.failed + c.errors + c.collection_errors > 0,
        FailOn::Errors => c.errors + c.collection_errors > 0,
        FailOn::New => match read {
            Read::Alone(_) => c.failed + c.errors + c.collection_errors > 0,
            Read::Whole { run, compared } => {
                let baseline = compared.as_ref().map(|c| &c.comparison.new_failures[..]);
                !history::new_failures(run, baseline).is_empty()
            }
        },
        FailOn::Never => false,
    };
    if fails { EXIT_TESTS_FAILED } else { EXIT_OK }
}

/// Exit status 1 when planned tests were not run (`--plan`): a shard
/// lost on the way fails the build whatever `--fail-on` says.
fn not_run(read: &Read) -> u8 {
    match read {
        Read::Whole { run, .. } if run.shards.as_ref().is_some_and(|s| !s.not_run.is_empty()) => {
            EXIT_TESTS_FAILED
        }
        _ => EXIT_OK,
    }
}

/// The plan at `path` (`--plan`): each shard's node ids, shard K at
/// `K - 1`. An unreadable plan is an input error, answered as an
/// unreadable result file is.
fn plan_shards(path: &Path) -> Result<Vec<Vec<String>>, InputError> {
    let error = |detail: String| InputError {
        file: path.display().to_string(),
        line: 0,
        column: 0,
        detail,
    };
    let bytes = std::fs::read(path).map_err(|e| error(format!("cannot read the plan: {e}")))?;
    let plan = crate::frontend::plan::read(&bytes).map_err(|e| error(format!("{e} (--plan)")))?;
    Ok(plan.shards.into_iter().map(|s| s.tests).collect())
}

/// What `report` read: a run to render alone, or a run with every test
/// listed, compared with its baseline (the comparison made once, whatever
/// the format) or judged against the history of runs, or both.
// One per process: its size does not matter.
#[allow(clippy::large_enum_variant)]
enum Read {
    Alone(RenderOnly),
    Whole {
        run: Run,
        compared: Option<Compared>,
    },
}

impl Read {
    /// The counts `--fail-on` reads.
    fn counts(&self) -> Counts {
        match self {
            Read::Alone(alone) => alone.counts(),
            Read::Whole { run, .. } => run.counts(),
        }
    }
}

pub(super) fn run_report(args: &ReportArgs) -> u8 {
    let coverage = match super::coverage::judge(args) {
        Ok(coverage) => coverage,
        Err(errors) => {
            for e in &errors {
                eprintln!("pytest-mcp: error: {e}");
            }
            return respond::EXIT_INPUT_ERROR;
        }
    };
    let mut inputs: Vec<FileInput> = args.files.iter().flat_map(|arg| expand(arg)).collect();
    let baseline_inputs: Vec<FileInput> =
        args.baseline.iter().flat_map(|arg| expand(arg)).collect();
    let total_inputs = inputs.len() + baseline_inputs.len();
    let output = args.output.as_ref();
    let mut read = match read_report(args, &mut inputs, &baseline_inputs) {
        Ok(read) => read,
        Err(errors) => {
            for e in &errors {
                eprintln!("pytest-mcp: error: {e}");
            }
            let answer = respond::unreadable(&errors, total_inputs, args.format);
            let status = answer.exit();
            let done = finish(output, &answer.into_text(), status);
            if let Some(summary) = args.format.step_summary() {
                let page = respond::unreadable(&errors, total_inputs, summary);
                github::append_summary(|room| github::cut_to(page.into_text(), room));
            }
            return done;
        }
    };
    if let Some(coverage) = coverage {
        match &mut read {
            Read::Alone(alone) => alone.set_coverage(coverage),
            Read::Whole { run, .. } => run.coverage = Some(coverage),
        }
    }
    if let (Some(path), Read::Whole { run, .. }) = (&args.history, &mut read) {
        record(args, path, run);
    }
    let style = report_style(args);
    let status = status(&read, args.fail_on).max(not_run(&read));
    let done = write_report(args, &read, &style, status);
    if args.format.step_summary().is_some() {
        append_step_summary(args, &read, &style);
    }
    // The process ends right after this: freeing a run of 100,000 tests one
    // string at a time would only cost time.
    std::mem::forget(read);
    done
}

/// The result files read (with `--plan`, checked against it; a plan kept
/// beside the shards' files is no result file), or every file's error.
fn read_report(
    args: &ReportArgs,
    inputs: &mut Vec<FileInput>,
    baseline_inputs: &[FileInput],
) -> Result<Read, Vec<InputError>> {
    let threads = args.threads.map_or_else(report::all_cores, usize::from);
    let whole = args.history.is_some() || args.fail_on == FailOn::New || args.plan.is_some();
    let plan = match args.plan.as_deref() {
        Some(path) => {
            inputs.retain(|input| !input.is(path));
            Some(plan_shards(path).map_err(|e| vec![e])?)
        }
        None => None,
    };
    read(
        inputs,
        baseline_inputs,
        args.format,
        threads,
        (whole, plan.as_deref()),
    )
}

/// `--history`: the run recorded, each failure told as new, failing
/// before or flaky; a store that cannot be used is one warning.
fn record(args: &ReportArgs, path: &std::path::Path, run: &mut crate::model::Run) {
    let keeping = Keeping {
        path: path.to_path_buf(),
        runs: args.history_runs,
        rules: args.flaky.rules(),
    };
    let commit = args
        .commit
        .clone()
        .or_else(|| std::env::var("GITHUB_SHA").ok());
    if let Some(warning) = remember::after_report(run, &keeping, commit.as_deref()) {
        eprintln!("pytest-mcp: warning: {warning}");
    }
}

/// The report written to `-o` or standard output; returns `status`, or
/// the status of a write that failed.
fn write_report(args: &ReportArgs, read: &Read, style: &Style, status: u8) -> u8 {
    let output = args.output.as_ref();
    match read {
        Read::Alone(alone) => {
            finish_with(output, |out| alone.write(style, out).map(|_| ()), status)
        }
        Read::Whole { run, compared } => {
            let subject = Subject::Run {
                run,
                compared: compared.as_ref(),
            };
            finish(
                output,
                &dispatch::output(subject, args.format, style).text,
                status,
            )
        }
    }
}

/// `--format github` in a workflow: the GitHub rendering appended to the
/// job summary.
fn append_step_summary(args: &ReportArgs, read: &Read, style: &Style) {
    let max_chars = args.max_chars.unwrap_or(STEP_SUMMARY_BYTES);
    github::append_summary(|room| match read {
        Read::Alone(alone) => alone
            .step_summary(style, max_chars, room)
            .unwrap_or_default(),
        Read::Whole { run, compared } => {
            let subject = Subject::Run {
                run,
                compared: compared.as_ref(),
            };
            let summary = args.format.step_summary().unwrap_or(args.format);
            report::step_summary(subject, summary, style, max_chars, room)
        }
    });
}

/// How `report` renders: within `--max-tokens` and `--max-chars` (a
/// GitHub comment by default), JSON indented, the Markdown's long failures
/// folded (it goes to PR comments and job summaries), links from
/// `--link-base` or the workflow's variables and paths from
/// `--path-prefix` (see [`github`]).
fn report_style(args: &ReportArgs) -> Style {
    let max_chars = args.max_chars.unwrap_or(DEFAULT_MAX_CHARS);
    let annotations = github::options_for_files(args.path_prefix.as_deref());
    Style {
        budget: report::cli_budget(args.format, args.max_tokens, max_chars),
        pretty: true,
        collapse: true,
        links: github::gfm_options(&annotations, args.link_base.as_deref()),
        annotations,
    }
}

/// Reads the inputs, and the baseline's when there are any; every file
/// that cannot be read is reported (the inputs' first). `whole`: every
/// test listed even with no baseline (to be recorded in the history, or
/// checked against `plan`, each shard's node ids).
fn read(
    inputs: &[FileInput],
    baseline: &[FileInput],
    format: OutputFormat,
    threads: usize,
    (whole, plan): (bool, Option<&[Vec<String>]>),
) -> Result<Read, Vec<InputError>> {
    let reading = Reading::for_format(format).on(threads);
    let run = |inputs: &[FileInput], reading| match plan {
        Some(plan) => report::read_planned(inputs, reading, plan),
        None => report::read_run(inputs, reading),
    };
    if baseline.is_empty() {
        if whole {
            let run = run(inputs, reading)?;
            return Ok(Read::Whole {
                run,
                compared: None,
            });
        }
        return RenderOnly::read_on(inputs, format, threads).map(Read::Alone);
    }
    let plain = Reading {
        keep_json_report: false,
        threads,
    };
    match (run(inputs, reading), report::read_run(baseline, plain)) {
        (Ok(run), Ok(baseline)) => {
            let compared = Some(Compared::of(&run, &baseline));
            Ok(Read::Whole { run, compared })
        }
        (Err(mut a), Err(b)) => {
            a.extend(b);
            Err(a)
        }
        (Err(e), _) | (_, Err(e)) => Err(e),
    }
}

/// One FILE argument as inputs: a file; every `.xml` and `.json` file
/// under a directory (sorted, recursively); or the files a glob matches
/// (`'reports/**/*.xml'`, quoted so the shell leaves it to us). A directory
/// or glob that yields nothing is an input error, not silently nothing.
fn expand(arg: &Path) -> Vec<FileInput> {
    let name = arg.display().to_string();
    let error = |detail: String| {
        vec![FileInput {
            name: name.clone(),
            path: Err(detail),
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
fn collect_results(dir: &Path, out: &mut Vec<PathBuf>) {
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

/// A result file named on the command line: read when a reader takes it
/// ([`Load`]), on the thread that parses it.
pub(super) struct FileInput {
    name: String,
    /// The file, or why there is none to read.
    path: Result<PathBuf, String>,
}

impl FileInput {
    /// Whether this input is the file at `path`.
    fn is(&self, path: &Path) -> bool {
        let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => a == b,
        };
        self.path.as_deref().is_ok_and(|p| same(p, path))
    }
}

impl Load for FileInput {
    fn name(&self) -> &str {
        &self.name
    }

    fn load(&self) -> Result<Bytes<'_>, String> {
        let path = self.path.as_ref().map_err(Clone::clone)?;
        if let Some(map) = map_large(path) {
            return Ok(Bytes::Mapped(map));
        }
        match std::fs::read(path) {
            Ok(bytes) => Ok(Bytes::Owned(bytes)),
            Err(e) => Err(format!("cannot read the file: {e}")),
        }
    }

    fn is_junit(&self) -> bool {
        use std::io::Read;
        let Ok(path) = &self.path else { return false };
        let Ok(file) = std::fs::File::open(path) else {
            return false;
        };
        let mut start = Vec::with_capacity(SNIFF_BYTES as usize);
        file.take(SNIFF_BYTES).read_to_end(&mut start).is_ok() && report::starts_junit(&start)
    }
}

/// How much of a file [`Load::is_junit`] reads.
const SNIFF_BYTES: u64 = 4096;

/// Files from this size on are mapped rather than read: a 15 MB report is
/// parsed in place, without first copying it and faulting in a buffer for
/// the copy (most of the time before the parse, ripgrep's reason too).
const MAP_FROM: u64 = 1 << 20;

/// A large regular file mapped into memory; `None` for a small file or
/// anything that cannot be mapped, which is then read as usual (and any
/// error reported by that read).
fn map_large(path: &Path) -> Option<memmap2::Mmap> {
    let file = std::fs::File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() < MAP_FROM {
        return None;
    }
    // SAFETY: the map is only read, while the file's bytes are parsed and
    // before they are dropped. Memory-mapping is unsound only if another
    // process changes the file meanwhile; a result file is finished before
    // `report` reads it. If one were truncated under us, the process would
    // stop with SIGBUS, as any tool reading through a map (ripgrep) would.
    unsafe { memmap2::Mmap::map(&file) }.ok()
}

fn read_input(path: &Path) -> FileInput {
    FileInput {
        name: path.display().to_string(),
        path: Ok(path.to_path_buf()),
    }
}
