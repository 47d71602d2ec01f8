//! Readers for the files a test run leaves behind.
//!
//! Each reader is a pure function from bytes to a [`Run`](crate::model::Run):
//! [`junit`] for JUnit XML of any framework, [`json_report`] for
//! pytest-json-report, [`ctrf`] for CTRF JSON. [`read`] sniffs which one a
//! file is. Errors say where
//! in the file (line and column) and what is wrong, so a user can open the
//! file and look.

pub mod console;
pub mod coverage_data;
pub mod coverage_judge;
pub mod ctrf;
pub mod durations;
mod entries;
pub mod events;
pub mod git_diff;
pub mod json_report;
pub mod junit;
pub mod merge;
mod phases;
pub mod python_source;
mod streamed;
mod timestamp;

use std::fmt;
use std::sync::Arc;

use crate::model::{CollectionError, DurationSum, Run, TestResult};
use crate::pytest_text;

/// Hands out one shared string for the file of consecutive tests: reports
/// list a module's tests together, so remembering the last file is enough
/// for 100,000 tests to share a few hundred strings instead of owning
/// 100,000 copies.
#[derive(Debug, Default)]
pub(crate) struct SharedFile(Option<Arc<str>>);

impl SharedFile {
    pub(crate) fn get(&mut self, file: &str) -> Arc<str> {
        match &self.0 {
            Some(last) if **last == *file => Arc::clone(last),
            _ => Arc::clone(self.0.insert(Arc::from(file))),
        }
    }
}

/// A collector pytest could not import, from its node id and its
/// traceback (a blank one is none): the error's type, message and line are
/// read off the traceback. Every reader of pytest's results makes its
/// collection errors here.
pub(crate) fn collection_error(file: String, traceback: Option<String>) -> CollectionError {
    let traceback = traceback.filter(|l| !l.trim().is_empty());
    let (error_type, message, line) =
        pytest_text::collection_error_summary(traceback.as_deref().unwrap_or_default(), &file);
    CollectionError {
        file,
        error_type,
        message,
        line,
        traceback,
    }
}

/// Why a file could not be read as test results.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct ParseError {
    /// 1-based line of the problem; 0 when it concerns the whole file.
    pub line: usize,
    /// 1-based column (in characters) of the problem; 0 when unknown.
    pub column: usize,
    pub message: String,
}

impl ParseError {
    /// An error at a byte offset into `input`; line and column are computed.
    pub fn at(input: &str, offset: usize, message: impl Into<String>) -> Self {
        let offset = offset.min(input.len());
        // Step back to a char boundary so slicing cannot panic.
        let mut cut = offset;
        while !input.is_char_boundary(cut) {
            cut -= 1;
        }
        let before = &input[..cut];
        let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() + 1;
        ParseError {
            line,
            column,
            message: message.into(),
        }
    }

    /// An error about the file as a whole.
    pub fn whole(message: impl Into<String>) -> Self {
        ParseError {
            line: 0,
            column: 0,
            message: message.into(),
        }
    }

    fn describe(&self) -> String {
        match (self.line, self.column) {
            (0, _) => self.message.clone(),
            (l, 0) => format!("line {l}: {}", self.message),
            (l, c) => format!("line {l}, column {c}: {}", self.message),
        }
    }
}

/// What kind of results file some bytes are. (clap's derive is only for
/// [`InputFormat::all`]: no flag takes it, the bytes say it.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InputFormat {
    JunitXml,
    JsonReport,
    Ctrf,
}

impl InputFormat {
    /// Every kind of file `report` reads (the help names each one): the
    /// one list of them, derived, so a new kind is in it without a word
    /// more.
    pub fn all() -> &'static [InputFormat] {
        <InputFormat as clap::ValueEnum>::value_variants()
    }
}

impl fmt::Display for InputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            InputFormat::JunitXml => "JUnit XML",
            InputFormat::JsonReport => "pytest-json-report JSON",
            InputFormat::Ctrf => "CTRF JSON",
        })
    }
}

/// The bytes after a UTF-8 byte-order mark (Windows tools write one), if
/// there is one.
pub(crate) fn without_bom(input: &[u8]) -> &[u8] {
    input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input)
}

/// A serde_json error as a [`ParseError`] at its line and column, in
/// JSON's words: what `document` the file is not, a number where serde
/// says `f64`, and, for a value of the wrong type, the key it was given
/// for (read back from `text` before the error's place).
pub(crate) fn json_error(e: &serde_json::Error, document: &str, text: &str) -> ParseError {
    use serde_json::error::Category;
    let message = match e.classify() {
        Category::Eof => format!("the JSON ends early: {e}"),
        Category::Syntax if e.to_string().starts_with("recursion limit") => {
            "the JSON nests too deeply (more than 128 levels)".to_string()
        }
        Category::Syntax => format!("malformed JSON: {e}"),
        Category::Data => {
            let said = json_words(&e.to_string());
            match key_before(text, e.line(), e.column()) {
                Some(key) if said.starts_with("invalid ") => {
                    format!("not {document}: \"{key}\": {said}")
                }
                _ => format!("not {document}: {said}"),
            }
        }
        Category::Io => format!("{e}"),
    };
    // serde_json appends " at line L column C"; we print our own prefix.
    let message = match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message,
    };
    ParseError {
        line: e.line(),
        column: e.column(),
        message,
    }
}

/// serde's names of Rust types in an error as JSON's.
fn json_words(said: &str) -> String {
    let mut said = said.replace("expected f64", "expected a number");
    for int in ["u8", "u16", "u32", "u64", "i32", "i64", "usize"] {
        said = said.replace(&format!("expected {int}"), "expected a whole number");
    }
    said
}

/// The key whose value ends at 1-based `line` and `column` of `text`
/// (serde_json's place of a value of the wrong type): the last `"key":`
/// before it on the way back, when nothing but the value lies between.
fn key_before(text: &str, line: usize, column: usize) -> Option<&str> {
    let start = text
        .split_inclusive('\n')
        .take(line.checked_sub(1)?)
        .map(str::len)
        .sum::<usize>();
    // serde_json's column counts bytes, the last one read included.
    let mut at = start.saturating_add(column).min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let colon = before.rfind(':')?;
    let key = before[..colon].trim_end().strip_suffix('"')?;
    let open = key.rfind('"')?;
    let name = &key[open + 1..];
    let value = before[colon + 1..].trim();
    // Between the colon and the place: the value alone (no other key).
    let plain = !value.contains(['{', '[', ',', ':']);
    (plain && !name.is_empty() && !name.contains('\\')).then_some(name)
}
/// Tells JUnit XML from JSON by the first meaningful byte, and a CTRF
/// document from a pytest-json-report one by its top-level keys
/// ([`ctrf::is_ctrf`]).
pub fn sniff(input: &[u8]) -> Result<InputFormat, ParseError> {
    let body = without_bom(input);
    match body.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'<') => Ok(InputFormat::JunitXml),
        Some(b'{') if ctrf::is_ctrf(body) => Ok(InputFormat::Ctrf),
        Some(b'{') | Some(b'[') => Ok(InputFormat::JsonReport),
        Some(_) => Err(ParseError::whole(
            "neither JUnit XML nor JSON (pytest-json-report, CTRF): the file starts with neither '<' nor '{'",
        )),
        None => Err(ParseError::whole("the file is empty")),
    }
}

/// Options that change what a reader keeps.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOptions {
    /// Keep the whole pytest-json-report document for the JSON report's
    /// `json_report` (docs/json-report.md).
    pub keep_json_report: bool,
    /// Count passing tests that have nothing to say instead of listing them
    /// ([`Run::unlisted`]). Only for a caller that renders Markdown of this
    /// file, alone or merged with other JUnit XML files (which a merge
    /// never matches by id): every other rendering, a merge with a JSON
    /// report or CTRF file and a baseline comparison need each test by id.
    pub passing_as_counts: bool,
    /// Threads one large file may be read on (JUnit XML; 0 or 1: one).
    pub threads: usize,
}

/// What a streaming reader fills as its tests come (the JSON report's and
/// CTRF's): the run, how its tests are settled, the file names they share,
/// how many entries were read.
pub(crate) struct Filling {
    pub(crate) run: Run,
    pub(crate) settle: Settle,
    pub(crate) files: SharedFile,
    pub(crate) entries: usize,
}

impl Filling {
    pub(crate) fn new(options: ReadOptions) -> Filling {
        Filling {
            run: Run::default(),
            settle: Settle::new(options),
            files: SharedFile::default(),
            entries: 0,
        }
    }

    /// The run, its tests settled, and how many entries were read.
    pub(crate) fn finish(self) -> (Run, usize) {
        let mut run = self.run;
        self.settle.finish(&mut run);
        (run, self.entries)
    }
}

/// Where a reader puts each test once nothing can fold into it any more: the
/// run's list, or, with [`ReadOptions::passing_as_counts`], the count of
/// plain passes. Both readers go through it. It sums every test's duration
/// exactly ([`DurationSum`]), so the sum [`Run::duration_secs`] uses for a
/// counted run is bit for bit that over a full list, whatever the parts
/// and files it was summed in.
#[derive(Debug)]
pub(crate) struct Settle {
    passing_as_counts: bool,
    /// Every settled test's duration (a part of a file read on a thread of
    /// its own: that part's, added to the sum of the parts before it by
    /// [`Settle::append`]).
    tests_duration: DurationSum,
}

impl Settle {
    pub(crate) fn new(options: ReadOptions) -> Self {
        Settle {
            passing_as_counts: options.passing_as_counts,
            tests_duration: DurationSum::default(),
        }
    }

    /// Adds the durations of a later part of the file.
    pub(crate) fn append(&mut self, later: Settle) {
        self.tests_duration.join(later.tests_duration);
    }

    /// Lists or counts `test`. A counted test is handed back, so that its
    /// strings can be reused for the next one.
    pub(crate) fn add(&mut self, run: &mut Run, test: TestResult) -> Option<TestResult> {
        if let Some(d) = test.duration {
            self.tests_duration.add(d);
        }
        if self.passing_as_counts && test.is_plain_pass() {
            run.unlisted.passed += 1;
            // Parametrizations of one function come one after another:
            // comparing with the last one recorded is enough, mostly.
            if let Some(f) = crate::pytest_text::parametrized_function(&test.node_id) {
                run.unlisted.add_parametrized(f);
            }
            Some(test)
        } else {
            run.tests.push(test);
            None
        }
    }

    /// Records the duration sum when some test was counted.
    pub(crate) fn finish(&self, run: &mut Run) {
        if run.unlisted.passed > 0 {
            run.unlisted.tests_duration = self.tests_duration;
        }
    }
}

/// Reads a results file of either format. `name` labels it in notes.
pub fn read(input: &[u8], name: &str, options: ReadOptions) -> Result<Run, ParseError> {
    match sniff(input)? {
        InputFormat::JunitXml => junit::parse_with(input, name, options),
        InputFormat::JsonReport => json_report::parse_with(input, name, options),
        InputFormat::Ctrf => ctrf::parse_with(input, name, options),
    }
}

#[cfg(test)]
mod tests;
