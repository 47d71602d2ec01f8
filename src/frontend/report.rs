//! The `report` pipeline: result files in, one rendering out.
//!
//! Pure: callers hand in file contents already read (or the I/O error met
//! reading them), so golden tests and the CLI run exactly the same code.
//! Every file that cannot be read is reported, not just the first
//! ([`InputError`]s, answered by `respond::unreadable`).

use std::io::Write;

use crate::budget::{Budget, Fitted, Truncation};
use crate::frontend::dispatch::{self, Style, Subject};
use crate::model::shards::Checker;
use crate::model::{Counts, Run, Unlisted};
use crate::request::OutputFormat;
use crate::sources::merge::merge;
use crate::sources::{self, ReadOptions};

/// One input file: its name as the user gave it and its bytes, or why they
/// could not be read.
#[derive(Debug)]
pub struct Input {
    pub name: String,
    pub contents: Result<Vec<u8>, String>,
}

/// A result file as the readers take it: a name, and its bytes when a
/// reader asks for them. The CLI's files are read on the threads that parse
/// them ([`read_all`]), each freed once parsed: the shards of a large suite
/// are never all in memory at once, and reading them is parallel too.
pub trait Load: Sync {
    /// The file's name as the user gave it.
    fn name(&self) -> &str;
    /// Its bytes, or why they could not be had.
    fn load(&self) -> Result<Bytes<'_>, String>;
    /// Whether the file is JUnit XML, judged from its first bytes without
    /// reading it whole; `false` when unsure. Only a hint: what is read
    /// decides.
    fn is_junit(&self) -> bool {
        false
    }
}

/// Whether `start`, a file's first bytes, is JUnit XML.
pub fn starts_junit(start: &[u8]) -> bool {
    matches!(sources::sniff(start), Ok(sources::InputFormat::JunitXml))
}

/// A file's bytes as a reader takes them.
pub enum Bytes<'a> {
    Borrowed(&'a [u8]),
    Owned(Vec<u8>),
    /// A large file mapped into memory: read in place, not copied first
    /// (copying 15 MB took as long as parsing half of it).
    Mapped(memmap2::Mmap),
}

impl std::ops::Deref for Bytes<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Borrowed(bytes) => bytes,
            Bytes::Owned(bytes) => bytes,
            Bytes::Mapped(map) => map,
        }
    }
}

impl Load for Input {
    fn name(&self) -> &str {
        &self.name
    }

    fn load(&self) -> Result<Bytes<'_>, String> {
        match &self.contents {
            Ok(bytes) => Ok(Bytes::Borrowed(bytes)),
            Err(e) => Err(e.clone()),
        }
    }

    fn is_junit(&self) -> bool {
        self.contents.as_deref().is_ok_and(starts_junit)
    }
}

/// A file that could not be used, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    pub file: String,
    /// 1-based; 0 when the problem is not at a place in the file.
    pub line: usize,
    pub column: usize,
    pub detail: String,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.line, self.column) {
            (0, _) => write!(f, "{}: {}", self.file, self.detail),
            (l, 0) => write!(f, "{}: line {l}: {}", self.file, self.detail),
            (l, c) => write!(f, "{}: line {l}, column {c}: {}", self.file, self.detail),
        }
    }
}

/// What a run is read for: whether its answer carries pytest-json-report's
/// document (`json_report`, kept as text only then), and how many files are
/// read at once (a large file alone may be split over the threads).
#[derive(Debug, Clone, Copy)]
pub struct Reading {
    pub keep_json_report: bool,
    pub threads: usize,
}

impl Reading {
    /// For an answer in `format`, on every core.
    pub fn for_format(format: OutputFormat) -> Reading {
        Reading {
            keep_json_report: format.carries_json_report(),
            threads: all_cores(),
        }
    }

    /// The same, on `threads` threads.
    pub fn on(self, threads: usize) -> Reading {
        Reading { threads, ..self }
    }
}

/// Reads and merges every input into one run, every test listed.
pub fn read_run(inputs: &[impl Load], reading: Reading) -> Result<Run, Vec<InputError>> {
    read_merged(inputs, listed(reading), reading.threads, None)
}

/// [`read_run`] of the shards of a plan (`report --plan`): each shard's
/// tests (shard K holds `plan[K - 1]`). The run says which shards came
/// back and which tests two shards ran (`Run::shards`), and holds every
/// planned test no file holds as an error
/// ([`crate::model::shards::ShardCheck::apply`]).
pub fn read_planned(
    inputs: &[impl Load],
    reading: Reading,
    plan: &[Vec<String>],
) -> Result<Run, Vec<InputError>> {
    read_merged(inputs, listed(reading), reading.threads, Some(plan))
}

/// The readers' options for a run with every test listed.
fn listed(reading: Reading) -> ReadOptions {
    ReadOptions {
        keep_json_report: reading.keep_json_report,
        passing_as_counts: false,
        threads: 1,
    }
}

/// How many files are read at once by default: one per core.
pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A run read to be rendered once, in one format, and for nothing else.
///
/// Markdown names no passing test, so for a single file, or several that
/// are all JUnit XML (shards, none matched with another by id), the
/// readers count plain passes instead of listing them ([`Run::unlisted`]):
/// `report` on 100,000 tests is faster and smaller, and the rendering is
/// the same. Every other consumer needs every test — JSON, JUnit and HTML
/// list them, the GitHub rendering (`gfm`, and the job summary of
/// `github`) lists the slowest, a baseline comparison and a merge with a
/// JSON report or CTRF file match them by id — and would be silently wrong
/// on such a run.
///
/// So the reader's option and the renderer are decided together, here: the
/// run is private, [`read`](Self::read) chooses whether passes may be
/// counted from the format it will render in, and the only ways out are
/// that rendering (and its job summary) and the counts. No other path asks
/// a reader for counted passes ([`read_run`] lists every test), so an
/// `unlisted` run cannot reach a renderer, a comparison or a merge that
/// needs every test.
#[derive(Debug)]
pub struct RenderOnly {
    run: Run,
    format: OutputFormat,
}

impl RenderOnly {
    /// Reads and merges `inputs` for a rendering in `format`.
    pub fn read(inputs: &[impl Load], format: OutputFormat) -> Result<RenderOnly, Vec<InputError>> {
        Self::read_on(inputs, format, all_cores())
    }

    /// [`read`](Self::read), up to `threads` files at once.
    pub fn read_on(
        inputs: &[impl Load],
        format: OutputFormat,
        threads: usize,
    ) -> Result<RenderOnly, Vec<InputError>> {
        // Several files count their passes only when all are JUnit XML:
        // their merge matches no test by id (a JSON report or CTRF file
        // would match its tests against a JUnit file's). Each is read
        // once, unless one turns out not to be JUnit after all.
        let merge_counts =
            format.counts_passes() && inputs.len() > 1 && inputs.iter().all(Load::is_junit);
        let options = ReadOptions {
            keep_json_report: format.carries_json_report(),
            passing_as_counts: merge_counts || (format.counts_passes() && inputs.len() == 1),
            threads: 1,
        };
        let mut run = read_merged(inputs, options, threads, None)?;
        if merge_counts && !counted_merge_exact(&run) {
            let listed = ReadOptions {
                passing_as_counts: false,
                ..options
            };
            run = read_merged(inputs, listed, threads, None)?;
        }
        Ok(RenderOnly { run, format })
    }

    /// The change's coverage, told beside the results (`report --coverage`).
    pub fn set_coverage(&mut self, coverage: crate::model::coverage::ChangeCoverage) {
        self.run.coverage = Some(coverage);
    }

    /// The run's counts (unlisted passes included).
    pub fn counts(&self) -> Counts {
        self.run.counts()
    }

    /// The run's exit status, as [`Run::exit_code`].
    pub fn exit_code(&self) -> i32 {
        self.run.exit_code()
    }

    /// The passing tests counted instead of listed.
    pub fn unlisted(&self) -> &Unlisted {
        &self.run.unlisted
    }

    /// The rendering ([`dispatch::render`]).
    pub fn render(&self, style: &Style) -> Fitted {
        dispatch::output(Subject::run(&self.run), self.format, style)
    }

    /// The rendering written to `out` ([`dispatch::write`]); returns what
    /// it left out.
    pub fn write(&self, style: &Style, out: &mut dyn Write) -> std::io::Result<Option<Truncation>> {
        dispatch::write(Subject::run(&self.run), self.format, style, out)
    }

    /// The job summary the format's command line appends (`github`: the
    /// GitHub rendering), within `max_chars` characters and `max_bytes`
    /// bytes; `None` for a format that appends none.
    pub fn step_summary(
        &self,
        style: &Style,
        max_chars: usize,
        max_bytes: usize,
    ) -> Option<String> {
        let summary = self.format.step_summary()?;
        Some(step_summary(
            Subject::run(&self.run),
            summary,
            style,
            max_chars,
            max_bytes,
        ))
    }
}

/// `subject` in `format` for a job summary: at most `max_chars` characters
/// and `max_bytes` bytes ([`fit_bytes`]).
pub fn step_summary(
    subject: Subject<'_>,
    format: OutputFormat,
    style: &Style,
    max_chars: usize,
    max_bytes: usize,
) -> String {
    fit_bytes(max_chars, max_bytes, |chars| {
        let style = Style {
            budget: Budget::chars(chars),
            ..style.clone()
        };
        dispatch::output(subject, format, &style).text
    })
}

/// `render(max_chars)`, a Markdown rendering held to `max_chars`
/// characters, held to `max_bytes` bytes too: GitHub counts a job
/// summary's size in bytes (1 MiB), the Markdown's budget counts
/// characters, and a character takes up to four bytes. The budget in
/// characters shrinks in proportion until the text fits, a quarter of
/// `max_bytes` being sure to. Empty when even that does not fit (a
/// `max_bytes` smaller than the header).
pub fn fit_bytes(max_chars: usize, max_bytes: usize, render: impl Fn(usize) -> String) -> String {
    let mut chars = max_chars.min(max_bytes);
    for _ in 0..4 {
        let text = render(chars);
        if text.len() <= max_bytes {
            return text;
        }
        // Strictly less: each try is shorter than the last.
        let scaled = (chars as u128 * max_bytes as u128 / text.len() as u128) as usize;
        chars = scaled.min(chars.saturating_sub(1));
    }
    let text = render(chars.min(max_bytes / 4));
    if text.len() <= max_bytes {
        text
    } else {
        String::new()
    }
}

/// The default `--max-chars`: what a GitHub comment holds.
pub const DEFAULT_MAX_CHARS: usize = 65_536;

/// The budget of a command-line answer: `max_tokens` when given, and for
/// the formats read by people also `max_chars` (a GitHub comment by
/// default). JSON has no default limit: scripts read it whole.
pub fn cli_budget(format: OutputFormat, max_tokens: Option<usize>, max_chars: usize) -> Budget {
    Budget {
        tokens: max_tokens,
        chars: format.has_char_budget().then_some(max_chars),
        within: None,
    }
}

/// Whether a merge of files that counted their passes renders as the
/// merge of the same files listing them: when every file read was JUnit
/// XML, whose tests a merge matches by id with none. A file that
/// [`Load::is_junit`] took for JUnit but that read as a JSON report or CTRF
/// would have its tests matched by id with the others', which needs them
/// all listed. The duration needs no second read: recorded, or the sum of
/// the tests', which is exact ([`crate::model::DurationSum`]) and so the
/// full list's to the bit, however the files split it.
fn counted_merge_exact(run: &Run) -> bool {
    use crate::model::SourceKind::{Ctrf, JsonReport};
    !run.sources
        .iter()
        .any(|s| matches!(s.kind, JsonReport | Ctrf))
}

/// Every input read, then merged in the inputs' order; with a plan,
/// checked against it file by file first.
fn read_merged(
    inputs: &[impl Load],
    options: ReadOptions,
    threads: usize,
    plan: Option<&[Vec<String>]>,
) -> Result<Run, Vec<InputError>> {
    let mut runs = Vec::with_capacity(inputs.len());
    let mut errors = Vec::new();
    for read in read_all(inputs, options, threads) {
        match read {
            Ok(run) => runs.push(run),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let Some(plan) = plan else {
        return Ok(merge(runs));
    };
    let mut checker = Checker::new(plan);
    for run in &runs {
        checker.file(run.tests.iter().map(|t| t.node_id.as_str()));
    }
    let mut merged = merge(runs);
    checker.finish().apply(&mut merged);
    Ok(merged)
}

/// Reads every input on up to `threads` threads (shards of a large suite:
/// one file per CI job), each taking the next unread file; the results
/// come back in the inputs' order, so what is merged from them is the same,
/// byte for byte, as a read one file after the other.
fn read_all(
    inputs: &[impl Load],
    options: ReadOptions,
    threads: usize,
) -> Vec<Result<Run, InputError>> {
    // One file (or fewer files than threads) may be split: a large file is
    // read on the threads left over.
    let options = ReadOptions {
        threads: (threads / inputs.len().max(1)).max(1),
        ..options
    };
    let threads = threads.min(inputs.len());
    if threads <= 1 {
        return inputs
            .iter()
            .map(|input| read_one(input, options))
            .collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut slots: Vec<Option<Result<Run, InputError>>> = inputs.iter().map(|_| None).collect();
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(input) = inputs.get(i) else { break };
            done.push((i, read_one(input, options)));
        }
        done
    };
    std::thread::scope(|scope| {
        // This thread reads too, as a split read's does, rather than wait:
        // one thread fewer to start, and its files grow the main heap,
        // which grows in larger steps than a thread's (a system call per
        // page there: thousands for ten large shards).
        let workers: Vec<_> = (1..threads)
            .filter_map(|_| std::thread::Builder::new().spawn_scoped(scope, work).ok())
            .collect();
        // A reader that panicked, this one too, leaves its files' slots empty.
        let here = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or_default();
        let joined = workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default());
        for (i, read) in here.into_iter().chain(joined) {
            slots[i] = Some(read);
        }
    });
    slots
        .into_iter()
        .zip(inputs)
        .map(|(slot, input)| {
            slot.unwrap_or_else(|| {
                Err(InputError {
                    file: input.name().to_string(),
                    line: 0,
                    column: 0,
                    detail: "reading this file failed unexpectedly (a bug in pytest-mcp)".into(),
                })
            })
        })
        .collect()
}

/// One input read, or why it could not be.
fn read_one(input: &impl Load, options: ReadOptions) -> Result<Run, InputError> {
    let error = |line, column, detail| InputError {
        file: input.name().to_string(),
        line,
        column,
        detail,
    };
    let bytes = input.load().map_err(|e| error(0, 0, e))?;
    sources::read(&bytes, input.name(), options).map_err(|e| error(e.line, e.column, e.message))
}

#[cfg(test)]
mod tests;
