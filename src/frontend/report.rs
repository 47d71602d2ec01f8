//! The `report` pipeline: result files in, one rendering out.
//!
//! Pure: callers hand in file contents already read (or the I/O error met
//! reading them), so golden tests and the CLI run exactly the same code.
//! Every file that cannot be read is reported, not just the first
//! ([`InputError`]s, answered by `respond::unreadable`).

use std::io::Write;

use crate::budget::{Budget, Fitted, Truncation};
use crate::model::{Counts, Run, Unlisted};
use crate::render;
use crate::request::Format;
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

/// Reads and merges every input into one run, every test listed.
pub fn build_run(inputs: &[Input], format: Format) -> Result<Run, Vec<InputError>> {
    build_run_on(inputs, format, all_cores())
}

/// [`build_run`], reading up to `threads` files at once.
pub fn build_run_on(
    inputs: &[impl Load],
    format: Format,
    threads: usize,
) -> Result<Run, Vec<InputError>> {
    let options = ReadOptions {
        keep_json_report: format == Format::Json,
        passing_as_counts: false,
        threads: 1,
    };
    build_run_with(inputs, options, threads)
}

/// How many files are read at once by default: one per core.
pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A run read to be rendered once, in one format, and for nothing else.
///
/// Markdown of a single file names no passing test, so for it the readers
/// count plain passes instead of listing them ([`Run::unlisted`]): `report`
/// on a file of 100,000 tests is faster and smaller, and the rendering is
/// the same. Every other consumer needs every test — JSON, JUnit and HTML
/// list them, the GitHub rendering (`gfm`, and the job summary of
/// `github`) lists the slowest, a baseline comparison and a merge match
/// them by id — and would be silently wrong on such a run.
///
/// So the reader's option and the renderer are decided together, here: the
/// run is private, [`read`](Self::read) chooses whether passes may be
/// counted from the format it will render in, and the only ways out are
/// that rendering and the counts. No other path asks a reader for counted
/// passes ([`build_run`] lists every test), so an `unlisted` run cannot
/// reach a renderer, a comparison or a merge that needs every test.
#[derive(Debug)]
pub struct RenderOnly {
    run: Run,
    format: Format,
}

impl RenderOnly {
    /// Reads and merges `inputs` for a rendering in `format`.
    pub fn read(inputs: &[Input], format: Format) -> Result<RenderOnly, Vec<InputError>> {
        Self::read_on(inputs, format, all_cores())
    }

    /// [`read`](Self::read), reading up to `threads` files at once.
    pub fn read_on(
        inputs: &[impl Load],
        format: Format,
        threads: usize,
    ) -> Result<RenderOnly, Vec<InputError>> {
        let options = ReadOptions {
            keep_json_report: format == Format::Json,
            passing_as_counts: format == Format::Markdown && inputs.len() == 1,
            threads: 1,
        };
        let run = build_run_with(inputs, options, threads)?;
        Ok(RenderOnly { run, format })
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

    /// The rendering, as [`render_within`] gives it.
    pub fn render_within(&self, budget: &Budget) -> Fitted {
        render_within(&self.run, self.format, budget)
    }

    /// The GitHub annotations, as [`render::github::render`] gives them.
    pub fn github(&self, options: &render::github::Options) -> String {
        render::github::render(&self.run, options)
    }

    /// The GitHub rendering within `budget`, its links made by `options`.
    pub fn gfm_within(&self, options: &render::gfm::Options, budget: &Budget) -> Fitted {
        render_gfm(&self.run, None, options, budget)
    }

    /// The GitHub rendering for a job summary: at most `max_chars`
    /// characters and `max_bytes` bytes ([`fit_bytes`]).
    pub fn gfm_summary(
        &self,
        options: &render::gfm::Options,
        max_chars: usize,
        max_bytes: usize,
    ) -> String {
        gfm_summary(&self.run, None, options, max_chars, max_bytes)
    }

    /// Writes the rendering to `out`; returns what it left out. The
    /// ADR-006 JSON of a large run is several times the size of the
    /// Markdown: with no token budget it is written as it is serialized,
    /// never held whole.
    pub fn write_within(
        &self,
        budget: &Budget,
        out: &mut dyn Write,
    ) -> std::io::Result<Option<Truncation>> {
        if self.format == Format::Json && budget.tokens.is_none() {
            render::json::write_pretty(&self.run, out)?;
            return Ok(None);
        }
        let fitted = self.render_within(budget);
        out.write_all(fitted.text.as_bytes())?;
        Ok(fitted.truncation)
    }
}

fn build_run_with(
    inputs: &[impl Load],
    options: ReadOptions,
    threads: usize,
) -> Result<Run, Vec<InputError>> {
    let mut runs = Vec::with_capacity(inputs.len());
    let mut errors = Vec::new();
    for read in read_all(inputs, options, threads) {
        match read {
            Ok(run) => runs.push(run),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(merge(runs))
    } else {
        Err(errors)
    }
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
        let workers: Vec<_> = (0..threads)
            .filter_map(|_| std::thread::Builder::new().spawn_scoped(scope, work).ok())
            .collect();
        // No thread could start: the files are read on this one.
        let here = if workers.is_empty() {
            work()
        } else {
            Vec::new()
        };
        // A reader that panicked leaves its files' slots empty.
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

/// Renders a run in the requested format (JSON indented for people).
pub fn render(run: &Run, format: Format) -> String {
    match format {
        Format::Markdown => render::markdown::render(run),
        Format::Json => render::json::render(run, true),
        Format::Html => render::html::report(run, None, TITLE),
        Format::Junit => render::junit::render(run),
        Format::Github => render::github::render(run, &render::github::Options::default()),
        Format::Gfm => render::gfm::render(run, None, &render::gfm::Options::default()),
    }
}

/// The GitHub rendering (`--format gfm`) of `run`, compared with
/// `baseline` when there is one, within `budget`; `options` says where
/// `path:line` links lead.
pub fn render_gfm(
    run: &Run,
    baseline: Option<&Run>,
    options: &render::gfm::Options,
    budget: &Budget,
) -> Fitted {
    match baseline {
        None => render::gfm::render_fitted(run, None, options, budget),
        Some(base) => {
            let comparison = crate::model::baseline::compare(run, base);
            let baseline = render::gfm::Baseline {
                comparison: &comparison,
                counts: base.counts(),
            };
            render::gfm::render_fitted(run, Some(&baseline), options, budget)
        }
    }
}

/// [`render_gfm`] for a job summary: at most `max_chars` characters and
/// `max_bytes` bytes ([`fit_bytes`]).
pub fn gfm_summary(
    run: &Run,
    baseline: Option<&Run>,
    options: &render::gfm::Options,
    max_chars: usize,
    max_bytes: usize,
) -> String {
    // Compared once, not on each of fit_bytes' tries.
    let comparison = baseline.map(|base| crate::model::baseline::compare(run, base));
    let compared =
        comparison
            .as_ref()
            .zip(baseline)
            .map(|(comparison, base)| render::gfm::Baseline {
                comparison,
                counts: base.counts(),
            });
    fit_bytes(max_chars, max_bytes, |chars| {
        render::gfm::render_fitted(run, compared.as_ref(), options, &Budget::chars(chars)).text
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

/// The HTML page's title.
pub const TITLE: &str = "pytest-mcp report";

/// The default `--max-chars`: what a GitHub comment holds.
pub const DEFAULT_MAX_CHARS: usize = 65_536;

/// The budget of a command-line answer: `max_tokens` when given, and for
/// Markdown also `max_chars` (a GitHub comment by default). JSON has no
/// default limit: scripts read it whole.
pub fn cli_budget(format: Format, max_tokens: Option<usize>, max_chars: usize) -> Budget {
    Budget {
        tokens: max_tokens,
        chars: (format != Format::Json).then_some(max_chars),
        within: None,
    }
}

/// What `report` prints: [`render`], with Markdown and JSON held to
/// `budget` (Markdown's long failure detail folded into `<details>`: the
/// report goes to PR comments and job summaries, where GitHub renders
/// them). HTML and JUnit are documents for people and tools: never cut.
pub fn render_within(run: &Run, format: Format, budget: &Budget) -> Fitted {
    match format {
        Format::Markdown => render::markdown::render_fitted(run, budget, "", true),
        Format::Json if budget.tokens.is_some() => render::json::render_fitted(run, budget, true),
        Format::Gfm => render_gfm(run, None, &render::gfm::Options::default(), budget),
        _ => Fitted::whole(render(run, format)),
    }
}

/// [`render_within`] for a run compared with a baseline: Markdown and HTML
/// open with the comparison (new failures first); JSON gets a `baseline`
/// key beside ADR-006's (and is not cut); JUnit has no place for it.
pub fn render_compared(run: &Run, baseline: &Run, format: Format, budget: &Budget) -> Fitted {
    let comparison = crate::model::baseline::compare(run, baseline);
    let block = || render::markdown::comparison_block(&comparison);
    match format {
        Format::Markdown => render::markdown::render_fitted(run, budget, &block(), true),
        Format::Html => Fitted::whole(render::html::report(run, Some(&comparison), TITLE)),
        Format::Json => {
            let mut baseline = comparison.to_value();
            // The comparison gets at most half the budget (its lists cut,
            // saying how many ids each left out); the run, what it leaves.
            let fitted = match budget.tokens {
                Some(max) => {
                    halve_lists_to_fit(&mut baseline, max / 2);
                    let used = crate::budget::count_tokens(&render::json::text(&baseline, true));
                    let rest =
                        Budget::tokens(max.saturating_sub(used).max(crate::budget::MIN_TOKENS));
                    render::json::render_fitted(run, &rest, true)
                }
                None => Fitted::whole(render::json::render(run, true)),
            };
            let mut value: serde_json::Value =
                serde_json::from_str(&fitted.text).unwrap_or(serde_json::Value::Null);
            if let serde_json::Value::Object(map) = &mut value {
                map.insert("baseline".into(), baseline);
            }
            Fitted {
                text: render::json::text(&value, true),
                truncation: fitted.truncation,
            }
        }
        Format::Junit => Fitted::whole(render::junit::render(run)),
        Format::Github => Fitted::whole(render::github::render(
            run,
            &render::github::Options::default(),
        )),
        Format::Gfm => render_gfm(
            run,
            Some(baseline),
            &render::gfm::Options::default(),
            budget,
        ),
    }
}

/// Cuts the id lists of a comparison object in half until its indented
/// text has at most `max` tokens; `<list>_omitted` says how many went.
fn halve_lists_to_fit(value: &mut serde_json::Value, max: usize) {
    use serde_json::Value;
    let Value::Object(map) = value else { return };
    while crate::budget::count_tokens(&render::json::text(&Value::Object(map.clone()), true)) > max
    {
        let mut cut = false;
        let keys: Vec<String> = map.keys().cloned().collect();
        for key in keys {
            let Some(Value::Array(list)) = map.get_mut(&key) else {
                continue;
            };
            if list.is_empty() {
                continue;
            }
            let keep = list.len() / 2;
            let gone = list.len() - keep;
            list.truncate(keep);
            cut = true;
            let omitted = format!("{key}_omitted");
            let before = map.get(&omitted).and_then(Value::as_u64).unwrap_or(0);
            map.insert(omitted, Value::from(before + gone as u64));
        }
        if !cut {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pytest fixture's result files as shards of one run, and a
    /// broken file: read on 1 thread and on 4, the merged run renders the
    /// same in every format, and the errors come in the same order.
    #[test]
    fn shards_read_in_parallel_merge_as_read_one_by_one() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pytest");
        let mut dirs: Vec<_> = std::fs::read_dir(&root)
            .expect("tests/fixtures/pytest")
            .map(|e| e.expect("entry").path())
            .collect();
        dirs.sort();
        let mut inputs = Vec::new();
        for dir in &dirs {
            for file in ["report.json", "junit-xunit1.xml"] {
                let path = dir.join(file);
                if let Ok(bytes) = std::fs::read(&path) {
                    inputs.push(Input {
                        name: path.display().to_string(),
                        contents: Ok(bytes),
                    });
                }
            }
        }
        assert!(inputs.len() > 10, "{} files", inputs.len());
        let options = ReadOptions::default();
        let merged = |threads| {
            let runs: Vec<Run> = read_all(&inputs, options, threads)
                .into_iter()
                .map(|r| r.expect("readable"))
                .collect();
            merge(runs)
        };
        let (serial, parallel) = (merged(1), merged(4));
        for format in [
            Format::Markdown,
            Format::Json,
            Format::Html,
            Format::Junit,
            Format::Github,
            Format::Gfm,
        ] {
            assert!(
                render(&serial, format) == render(&parallel, format),
                "{format:?} differs"
            );
        }
        let mut broken = vec![input("a.xml")];
        broken.push(Input {
            name: "bad.xml".into(),
            contents: Ok(b"<testsuite><oops".to_vec()),
        });
        broken.push(Input {
            name: "gone.xml".into(),
            contents: Err("cannot read the file".into()),
        });
        let errors = |threads| -> Vec<String> {
            read_all(&broken, options, threads)
                .into_iter()
                .filter_map(|r| r.err().map(|e| e.to_string()))
                .collect()
        };
        assert_eq!(errors(1), errors(3));
        assert_eq!(errors(3).len(), 2);
    }

    const PASSING: &str = r#"<testsuite name="s" tests="2"><testcase classname="t" name="a" time="0.1"/><testcase classname="t" name="b" time="0.2"/></testsuite>"#;

    fn input(name: &str) -> Input {
        Input {
            name: name.into(),
            contents: Ok(PASSING.as_bytes().to_vec()),
        }
    }

    /// Passes are counted, not listed, only for Markdown of one file:
    /// every other rendering, and two files, get every test.
    #[test]
    fn only_markdown_of_one_file_counts_passes() {
        let one = [input("a.xml")];
        let two = [input("a.xml"), input("b.xml")];
        let counted = |inputs: &[Input], format| {
            RenderOnly::read(inputs, format)
                .map(|r| r.unlisted().passed)
                .unwrap()
        };
        assert_eq!(counted(&one, Format::Markdown), 2);
        for format in [
            Format::Json,
            Format::Html,
            Format::Junit,
            Format::Github,
            Format::Gfm,
        ] {
            assert_eq!(counted(&one, format), 0, "{format:?}");
        }
        assert_eq!(counted(&two, Format::Markdown), 0);
        assert_eq!(
            build_run(&one, Format::Markdown).unwrap().unlisted.passed,
            0
        );
        let alone = RenderOnly::read(&one, Format::Markdown).unwrap();
        assert_eq!(alone.counts().passed, 2);
        assert_eq!(
            alone.render_within(&Budget::NONE).text,
            render(
                &build_run(&one, Format::Markdown).unwrap(),
                Format::Markdown
            )
        );
    }

    /// Held to a number of bytes: the longest rendering that fits, found in
    /// a few tries; nothing when even the shortest does not fit.
    #[test]
    fn fit_bytes_counts_bytes_not_characters() {
        let wide = |chars: usize| "é".repeat(chars);
        assert_eq!(fit_bytes(100, 50, wide), "é".repeat(25));
        assert_eq!(fit_bytes(10, 50, wide), "é".repeat(10));
        // A rendering that never gets shorter than 60 bytes.
        assert_eq!(fit_bytes(100, 50, |c| "x".repeat(c.max(60))), "");
    }

    /// `report --baseline --format json --max-tokens`: the comparison's
    /// lists are cut too, and the whole answer stays within the budget.
    #[test]
    fn a_compared_json_report_keeps_its_budget() {
        let cases: String = (0..300)
            .map(|i| format!(r#"<testcase classname="t" name="test_{i}"><failure message="no {i}">at t.py:{i}</failure></testcase>"#))
            .collect();
        let head = Input {
            name: "head.xml".into(),
            contents: Ok(format!(r#"<testsuite name="s">{cases}</testsuite>"#).into_bytes()),
        };
        let run = build_run(&[head], Format::Json).unwrap();
        let base = build_run(&[input("base.xml")], Format::Json).unwrap();
        let fitted = render_compared(&run, &base, Format::Json, &Budget::tokens(600));
        let tokens = crate::budget::count_tokens(&fitted.text);
        assert!(tokens <= 660, "{tokens}");
        let v: serde_json::Value = serde_json::from_str(&fitted.text).unwrap();
        assert!(v["baseline"]["new_failures_omitted"].as_u64().unwrap() > 0);
        assert!(fitted.truncation.is_some());
    }
}
