//! `report`: result files named on the command line (a file, a directory,
//! a glob) read, rendered and written, with `--fail-on`'s exit status.

use std::path::{Path, PathBuf};

use super::args::{FailOn, ReportArgs};
use super::github::{self, STEP_SUMMARY_BYTES};
use super::{finish, finish_with};
use crate::budget::Budget;
use crate::frontend::report::{self, Bytes, DEFAULT_MAX_CHARS, InputError, Load, RenderOnly};
use crate::frontend::respond::{self, EXIT_OK};
use crate::model::{Counts, Run};
use crate::request::Format;

/// Exit status of `report --fail-on` when the results call for it.
pub const EXIT_TESTS_FAILED: u8 = 1;

/// The exit status `--fail-on` gives results with these counts.
fn status(c: &Counts, fail_on: FailOn) -> u8 {
    let fails = match fail_on {
        FailOn::Failures => c.failed + c.errors + c.collection_errors > 0,
        FailOn::Errors => c.errors + c.collection_errors > 0,
        FailOn::Never => false,
    };
    if fails { EXIT_TESTS_FAILED } else { EXIT_OK }
}

/// What `report` read: a run to render alone, or a run and its baseline.
// One per process: its size does not matter.
#[allow(clippy::large_enum_variant)]
enum Read {
    Alone(RenderOnly),
    Compared { run: Run, baseline: Run },
}

pub(super) fn run_report(args: &ReportArgs) -> u8 {
    let inputs: Vec<FileInput> = args.files.iter().flat_map(|arg| expand(arg)).collect();
    let baseline_inputs: Vec<FileInput> =
        args.baseline.iter().flat_map(|arg| expand(arg)).collect();
    let total_inputs = inputs.len() + baseline_inputs.len();
    let threads = args.threads.map_or_else(report::all_cores, usize::from);
    let read = read(&inputs, &baseline_inputs, args.format, threads);
    let output = args.output.as_ref();
    let read = match read {
        Ok(read) => read,
        Err(errors) => {
            for e in &errors {
                eprintln!("pytest-mcp: error: {e}");
            }
            let answer = respond::unreadable(&errors, total_inputs, args.format);
            let status = answer.exit();
            let done = finish(output, &answer.into_text(), status);
            if args.format == Format::Github {
                let page = respond::unreadable(&errors, total_inputs, Format::Gfm);
                github::append_summary(|room| github::cut_to(page.into_text(), room));
            }
            return done;
        }
    };
    let max_chars = args.max_chars.unwrap_or(DEFAULT_MAX_CHARS);
    let budget = report::cli_budget(args.format, args.max_tokens, max_chars);
    let done = match &read {
        _ if args.format == Format::Github => report_github(args, &read),
        _ if args.format == Format::Gfm => report_gfm(args, &read, &budget),
        Read::Alone(alone) => finish_with(
            output,
            |out| alone.write_within(&budget, out).map(|_| ()),
            status(&alone.counts(), args.fail_on),
        ),
        Read::Compared { run, baseline } => finish(
            output,
            &report::render_compared(run, baseline, args.format, &budget).text,
            status(&run.counts(), args.fail_on),
        ),
    };
    // The process ends right after this: freeing a run of 100,000 tests one
    // string at a time would only cost time.
    std::mem::forget(read);
    done
}

/// `report --format gfm`: the GitHub rendering within `budget`, links
/// from `--link-base` or the workflow's variables (see [`github`]).
fn report_gfm(args: &ReportArgs, read: &Read, budget: &Budget) -> u8 {
    let annotations = github::options_for_files(args.path_prefix.as_deref());
    let options = github::gfm_options(&annotations, args.link_base.as_deref());
    let (text, counts) = match read {
        Read::Alone(alone) => (alone.gfm_within(&options, budget).text, alone.counts()),
        Read::Compared { run, baseline } => (
            report::render_gfm(run, Some(baseline), &options, budget).text,
            run.counts(),
        ),
    };
    finish(args.output.as_ref(), &text, status(&counts, args.fail_on))
}

/// `report --format github`: the annotations to the output, the GitHub
/// rendering (within `--max-chars`, default what a job summary holds) to
/// `GITHUB_STEP_SUMMARY` when it is set (see [`github`]).
fn report_github(args: &ReportArgs, read: &Read) -> u8 {
    let options = github::options_for_files(args.path_prefix.as_deref());
    let gfm = github::gfm_options(&options, args.link_base.as_deref());
    let max_chars = args.max_chars.unwrap_or(STEP_SUMMARY_BYTES);
    match read {
        Read::Alone(alone) => {
            let status = status(&alone.counts(), args.fail_on);
            let done = finish(args.output.as_ref(), &alone.github(&options), status);
            github::append_summary(|room| alone.gfm_summary(&gfm, max_chars, room));
            done
        }
        Read::Compared { run, baseline } => {
            let annotations = crate::render::github::render(run, &options);
            let done = finish(
                args.output.as_ref(),
                &annotations,
                status(&run.counts(), args.fail_on),
            );
            github::append_summary(|room| {
                report::gfm_summary(run, Some(baseline), &gfm, max_chars, room)
            });
            done
        }
    }
}

/// Reads the inputs, and the baseline's when there are any; every file
/// that cannot be read is reported (the inputs' first).
fn read(
    inputs: &[FileInput],
    baseline: &[FileInput],
    format: Format,
    threads: usize,
) -> Result<Read, Vec<InputError>> {
    if baseline.is_empty() {
        return RenderOnly::read_on(inputs, format, threads).map(Read::Alone);
    }
    match (
        report::build_run_on(inputs, format, threads),
        report::build_run_on(baseline, Format::Markdown, threads),
    ) {
        (Ok(run), Ok(baseline)) => Ok(Read::Compared { run, baseline }),
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
}

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
