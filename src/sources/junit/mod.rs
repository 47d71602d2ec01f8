//! JUnit XML reader: any dialect in, one [`Run`] out.
//!
//! The file is read as a stream of quick-xml events and only what the model
//! needs is allocated: a report with 100,000 test cases must read in tens of
//! milliseconds, which a document tree cannot do. Dialects handled:
//! pytest (`xunit1` with `file`/`line`, `xunit2`), Surefire (with flaky
//! reruns), Jest, Mocha, Go, nextest, Catch2, PHPUnit, Swift, nested suites,
//! a bare `<testsuite>` root and Eclipse's `<testrun>` root.
//!
//! Rules that matter to users:
//! - every `<testcase>` is one test (or, for pytest's "collection failure"
//!   cases, one collection error); `tests=` attributes are never trusted;
//! - several status elements on one case: error beats failure beats skipped;
//!   Surefire's `flakyFailure`/`flakyError` alone leave the test passed;
//! - a case that repeats the suite and id of a failed or erroring case
//!   right before it is a rerun of that test (flaky if it passed); after a
//!   pass or a skip it is a test of its own, reported beside the other;
//! - a case without a name is a test of its own, `suite > #3` by its
//!   position; `status="disabled"` (`notrun`, `ignored`, `skipped`) with no
//!   status element is a skip (the rules: `foreign.rs`);
//! - a `<failure>`/`<error>` directly under a `<testsuite>` (a class that
//!   could not load) becomes a collection error instead of being dropped;
//! - DOCTYPEs and entities never expand: predefined and character references
//!   are resolved, any other `&name;` is kept as written.
//!
//! Here: the event loop and the state of the document being read. The
//! attribute scan and `time` values are in `attrs.rs`, one case and its
//! status elements in `case.rs`, pytest's dialect in `pytest.rs`, every
//! other framework's (ids, status words, reruns) in `foreign.rs`, a passing
//! test's empty `<testcase/>` read without quick-xml's event in `empty.rs`.

use std::borrow::Cow;

use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::reader::Reader;

use self::attrs::{CaseAttrs, attr, case_attrs, parse_time};
use self::case::{CaseBuilder, Status, StatusData};
use super::{ParseError, ReadOptions, Settle, SharedFile};
use crate::model::{CollectionError, Run, SourceInfo, SourceKind, TestResult};

mod attrs;
mod case;
mod empty;
mod foreign;
mod pytest;
mod split;
#[cfg(test)]
mod tests;

/// Reads a JUnit XML document. `name` labels the source in the result.
pub fn parse(input: &[u8], name: &str) -> Result<Run, ParseError> {
    parse_with(input, name, ReadOptions::default())
}

/// [`parse`] with every reading option. With `options.threads` above 1, a
/// file of some megabytes is read on that many threads ([`split`]), with
/// the same result.
pub fn parse_with(input: &[u8], name: &str, options: ReadOptions) -> Result<Run, ParseError> {
    let text = decode(input);
    let parser = match split::read(&text, options) {
        Some(read) => read?,
        None => read_serial(&text, options)?,
    };
    Ok(into_run(parser, matches!(text, Cow::Owned(_)), name))
}

/// [`parse_with`] read in parts starting at the first `<testcase` at or
/// after each of `cuts`, however small the file, and how many of the parts
/// after the first were taken (none when the read fell back to one
/// thread). For tests and fuzzing of [`split`]: the run must be
/// [`parse_with`]'s.
#[doc(hidden)]
pub fn parse_cut(
    input: &[u8],
    name: &str,
    options: ReadOptions,
    cuts: &[usize],
) -> (Result<Run, ParseError>, usize) {
    let text = decode(input);
    let Some(first) = memchr::memmem::find(text.as_bytes(), b"<testcase") else {
        return (parse_with(input, name, options), 0);
    };
    let cuts = split::cuts(&text, cuts.iter().map(|&c| c.max(first + 1)));
    match split::read_at(&text, options, first, &cuts) {
        Ok((parser, taken)) => (
            Ok(into_run(parser, matches!(text, Cow::Owned(_)), name)),
            taken,
        ),
        Err(e) => (Err(e), 0),
    }
}

/// The text of a file: quick-xml wants UTF-8, and a report with stray
/// bytes (pytest writes test ids with raw binary in them) is still worth
/// reading, so it is decoded lossily. Valid UTF-8 (the usual case) is
/// checked fast and borrowed.
fn decode(input: &[u8]) -> Cow<'_, str> {
    // simdutf8 checks a large file several times faster than the standard
    // library, on the thread every part waits for.
    match simdutf8::basic::from_utf8(input) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(input),
    }
}

/// The run a parser read, with its source described; `lossy` when the
/// file was not UTF-8.
fn into_run(parser: Parser<'_>, lossy: bool, name: &str) -> Run {
    let pytest = parser.document.root_pytest || parser.document.any_pytest;
    let Parser { mut run, tests, .. } = parser;
    if lossy {
        run.notes.push(format!(
            "{name}: bytes that are not UTF-8 were replaced with U+FFFD"
        ));
    }
    run.sources.push(SourceInfo {
        kind: if pytest {
            SourceKind::PytestJunit
        } else {
            SourceKind::Junit
        },
        name: name.to_string(),
        entries: tests.cases,
        folded: tests.folded,
    });
    run.clean_text(crate::text::clean_xml_text);
    run
}

/// How far [`Parser::read_to`] read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reached {
    Eof,
    /// Exactly the offset asked for: the next event starts there.
    Stop,
    /// An event went over the offset asked for (it was no event's start).
    Past,
}

/// The local part of a qualified element name, as quick-xml takes it.
fn local_name(qualified: &str) -> &str {
    qualified
        .split_once(':')
        .map_or(qualified, |(_, local)| local)
}

/// Reads the whole text on this thread.
fn read_serial(text: &str, options: ReadOptions) -> Result<Parser<'_>, ParseError> {
    let mut parser = Parser::new(text, options);
    if !options.passing_as_counts {
        parser.run.tests.reserve_exact(case_capacity(text));
    }
    parser.finish()?;
    Ok(parser)
}

/// One result per `<testcase>` at most: sized once, the vector of a large
/// report is never copied while it grows. Capped by what the file's size
/// allows (`<testcase name="x"/>` and a line break), so that the words
/// `<testcase` in a comment or CDATA cannot reserve more than a file of
/// real cases would.
fn case_capacity(text: &str) -> usize {
    let cases = memchr::memmem::find_iter(text.as_bytes(), b"<testcase").count();
    cases.min(text.len() / 21)
}

/// Where text content is being collected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sink {
    None,
    /// Inside a status element of the open test case (or its `stackTrace`).
    Status,
    Stdout,
    Stderr,
    /// A status element directly under a suite.
    SuiteStatus,
}

/// The reader of one document: the events come from `reader`, the results
/// go to `run`, and the rest is what it has to remember between events.
struct Parser<'a> {
    reader: Reader<&'a [u8]>,
    /// The whole text, for the line and column of an error.
    input: &'a str,
    /// Where in `input` the reader started: 0, or the start of the part
    /// that a thread of [`split`] reads; moved on by the elements read
    /// without quick-xml ([`empty`]), which its position does not count.
    base: u64,
    /// The reader is between elements: after a start, empty or end tag.
    between_tags: bool,
    /// Set when the reader started inside the document ([`split`]): end
    /// tags are checked against `nesting.open` here, as quick-xml cannot
    /// know the elements opened before it started.
    mid: bool,
    /// What the first test this parser met needs from the test before it
    /// (see [`split::First`]); recorded only when `mid`.
    first: Option<split::First>,
    run: Run,
    document: Document,
    nesting: Nesting,
    reading: Reading,
    tests: Tests,
    reuse: Reuse,
}

/// What the root element and the suites say about the whole file.
#[derive(Debug, Default, Clone, PartialEq)]
struct Document {
    seen_root: bool,
    /// The root is pytest's (`<testsuites name="pytest tests">`).
    root_pytest: bool,
    /// Some suite is pytest's (`<testsuite name="pytest">`).
    any_pytest: bool,
    /// jest-junit: ids join describe blocks and the test with ` › ` as Jest does.
    jest: bool,
    /// Set when a `time` attribute of the root / top-level suites was seen.
    root_time: Option<f64>,
    top_suite_time: Option<f64>,
    /// The earliest `timestamp` of the root or a top-level suite, as
    /// seconds since the epoch.
    started: Option<f64>,
}

/// Where in the document the reader is.
#[derive(Debug, Clone, PartialEq)]
struct Nesting {
    /// Names of the open `<testsuite>` elements.
    suites: Vec<String>,
    /// `<testcase>` elements seen so far at each level: outside any suite,
    /// then in each open suite.
    positions: Vec<usize>,
    /// Open elements (their qualified names), with the byte offset where
    /// each started.
    open: Vec<(String, u64)>,
}

/// The case being read and where the text being read goes.
struct Reading {
    case: Option<CaseBuilder<'static>>,
    /// The status element being read inside the case.
    pending: Option<(Status, StatusData)>,
    /// A status element directly under a suite.
    suite_status: Option<StatusData>,
    sink: Sink,
    /// Depth (in `open`) of the element that set `sink`.
    sink_depth: usize,
}

/// The tests read so far.
struct Tests {
    /// `<testcase>` elements seen.
    cases: usize,
    /// Cases folded into an earlier case of the same test.
    folded: usize,
    /// Suite and id of the last test read (other frameworks): a retry
    /// repeats both, right after the first attempt.
    last_key: Option<String>,
    /// The test read last: the next case may still fold into it (a retry,
    /// pytest's second report of one test), so it joins the run only when
    /// another test comes or the file ends ([`Parser::settle_latest`]).
    latest: Option<TestResult>,
    /// Lists or counts each test once it is settled.
    settle: Settle,
}

/// What one case leaves for the next to reuse, so that a large report
/// allocates little per case.
#[derive(Default)]
struct Reuse {
    /// The node id prefix (`path::Class`) of the last pytest case, with the
    /// `classname` and `file` it was computed from.
    last_prefix: Option<(String, Option<String>, String)>,
    /// The file of the last case, shared with the next one of the same file.
    files: SharedFile,
    /// The node id string of the last test counted, to build the next in.
    spare_id: Option<String>,
}

impl<'a> Parser<'a> {
    fn new(input: &'a str, options: ReadOptions) -> Self {
        let mut reader = Reader::from_str(input);
        let config = reader.config_mut();
        config.check_end_names = true;
        config.expand_empty_elements = false;
        config.allow_dangling_amp = true;
        Parser {
            reader,
            input,
            base: 0,
            between_tags: false,
            mid: false,
            first: None,
            run: Run::default(),
            document: Document::default(),
            nesting: Nesting {
                suites: Vec::new(),
                positions: vec![0],
                open: Vec::new(),
            },
            reading: Reading {
                case: None,
                pending: None,
                suite_status: None,
                sink: Sink::None,
                sink_depth: 0,
            },
            tests: Tests {
                cases: 0,
                folded: 0,
                last_key: None,
                latest: None,
                settle: Settle::new(options),
            },
            reuse: Reuse::default(),
        }
    }

    fn error_at(&self, offset: u64, message: impl Into<String>) -> ParseError {
        ParseError::at(self.input, offset as usize, message)
    }

    /// Reads events until the end of the file, or, given `stop`, until the
    /// reader is at or past that byte offset.
    fn read_to(&mut self, stop: Option<u64>) -> Result<Reached, ParseError> {
        loop {
            if self.between_tags && self.empty_case() {
                if let Some(reached) = self.reached(stop) {
                    return Ok(reached);
                }
                continue;
            }
            let event = match self.reader.read_event() {
                Ok(event) => event,
                Err(e) => {
                    let pos = self.base + self.reader.error_position();
                    return Err(self.error_at(pos, format!("malformed XML: {e}")));
                }
            };
            self.between_tags = matches!(event, Event::Start(_) | Event::Empty(_) | Event::End(_));
            match event {
                Event::Start(e) => {
                    let start = self.base + self.reader.buffer_position();
                    self.start(&e, start, false)?;
                }
                Event::Empty(e) => {
                    let start = self.base + self.reader.buffer_position();
                    self.start(&e, start, true)?;
                }
                Event::End(e) => {
                    if self.mid {
                        self.check_end(e.name().as_ref())?;
                    }
                    self.end()
                }
                // Text outside the elements we collect (the line breaks
                // between test cases) is not even decoded.
                Event::Text(_) | Event::CData(_) if self.reading.sink == Sink::None => {}
                Event::Text(t) => self.text(&t.xml10_content()),
                Event::CData(t) => self.text(&t.xml10_content()),
                Event::GeneralRef(r) => self.reference(&r),
                Event::Eof => return Ok(Reached::Eof),
                // Declarations, comments, processing instructions and
                // DOCTYPEs carry nothing for us; a DOCTYPE's entities are
                // never expanded.
                Event::Decl(_) | Event::Comment(_) | Event::PI(_) | Event::DocType(_) => {}
            }
            if let Some(reached) = self.reached(stop) {
                return Ok(reached);
            }
        }
    }

    /// Whether the reader is at or past `stop`.
    fn reached(&self, stop: Option<u64>) -> Option<Reached> {
        let at = self.base + self.reader.buffer_position();
        match stop? {
            stop if at == stop => Some(Reached::Stop),
            stop if at > stop => Some(Reached::Past),
            _ => None,
        }
    }

    /// The check quick-xml makes of an end tag, for a reader that started
    /// inside the document: it must close the element opened last.
    fn check_end(&self, name: &str) -> Result<(), ParseError> {
        match self.nesting.open.last() {
            Some((open, _)) if open == name => Ok(()),
            _ => Err(self.error_at(
                self.base + self.reader.buffer_position(),
                "an end tag that closes no open element",
            )),
        }
    }

    /// Reads on to the end of the file and settles what is left there.
    fn finish(&mut self) -> Result<(), ParseError> {
        self.read_to(None)?;
        self.eof()
    }

    fn eof(&mut self) -> Result<(), ParseError> {
        if let Some((tag, start)) = self.nesting.open.last() {
            let tag = local_name(tag);
            let at = ParseError::at(self.input, *start as usize, "");
            return Err(self.error_at(
                self.input.len() as u64,
                format!(
                    "the file ends inside <{tag}> opened at line {}, column {}: it looks truncated",
                    at.line, at.column
                ),
            ));
        }
        if !self.document.seen_root {
            return Err(self.error_at(
                0,
                "no XML element found: the file is empty or not XML".to_string(),
            ));
        }
        self.settle_latest();
        self.tests.settle.finish(&mut self.run);
        self.run.duration = self.document.root_time.or(self.document.top_suite_time);
        self.run.started = self.document.started;
        Ok(())
    }

    fn start(&mut self, e: &BytesStart<'_>, end_pos: u64, empty: bool) -> Result<(), ParseError> {
        let name = e.local_name();
        let tag: &str = name.as_ref();
        if !self.document.seen_root {
            self.read_root(e, tag)?;
        }
        match tag {
            "testsuite" => self.start_suite(e, empty),
            "testcase" => self.start_case(case_attrs(e), empty),
            _ if self.reading.sink == Sink::None => self.start_other(e, tag, empty),
            // Inside a flaky rerun element Surefire nests the trace and the
            // output of that attempt; all of it belongs to the status text.
            _ => {}
        }
        if !empty {
            let start_pos = end_pos.saturating_sub(1);
            let qualified = e.name();
            let qualified: &str = qualified.as_ref();
            self.nesting.open.push((qualified.to_string(), start_pos));
        }
        Ok(())
    }

    /// Checks that the root element is one of JUnit's, and reads what it
    /// says about the file.
    fn read_root(&mut self, e: &BytesStart<'_>, tag: &str) -> Result<(), ParseError> {
        self.document.seen_root = true;
        if !matches!(tag, "testsuites" | "testsuite" | "testrun") {
            let hint = match tag {
                "test-run" | "test-results" => " (this looks like NUnit XML)",
                "assemblies" => " (this looks like xUnit.net XML)",
                "html" => " (this is an HTML page)",
                _ => "",
            };
            return Err(self.error_at(
                self.reader.buffer_position(),
                format!(
                    "not a JUnit XML report: the root element is <{tag}>{hint}, expected <testsuites> or <testsuite>"
                ),
            ));
        }
        if tag == "testsuites" {
            let name = attr(e, "name").unwrap_or_default();
            self.document.root_pytest = name.starts_with("pytest");
            self.document.jest = name.starts_with("jest");
        }
        if tag != "testsuite" {
            self.document.root_time = attr(e, "time").and_then(|t| parse_time(&t));
            self.note_start(e);
        }
        Ok(())
    }

    fn start_suite(&mut self, e: &BytesStart<'_>, empty: bool) {
        let name = attr(e, "name").map(Cow::into_owned).unwrap_or_default();
        if name == "pytest" {
            self.document.any_pytest = true;
        }
        if self.nesting.suites.is_empty() {
            if let Some(t) = attr(e, "time").and_then(|t| parse_time(&t)) {
                *self.document.top_suite_time.get_or_insert(0.0) += t;
            }
            self.note_start(e);
        }
        if !empty {
            self.nesting.suites.push(name);
            self.nesting.positions.push(0);
        }
    }

    /// Keeps the element's `timestamp` when it is the earliest yet.
    fn note_start(&mut self, e: &BytesStart<'_>) {
        let Some(at) = attr(e, "timestamp").and_then(|t| super::timestamp::epoch_seconds(&t))
        else {
            return;
        };
        let started = self.document.started.get_or_insert(at);
        *started = started.min(at);
    }

    fn start_case(&mut self, attrs: CaseAttrs<'_>, empty: bool) {
        let position = self.nesting.positions.last_mut().map_or(0, |n| {
            *n += 1;
            *n
        });
        let case = CaseBuilder::new(attrs, position);
        if let Some(open) = self.reading.case.take() {
            // A test case nested in a test case: keep both.
            self.finish_case(open);
        }
        if empty {
            self.finish_case(case);
        } else {
            self.reading.case = Some(case.into_owned());
        }
    }

    /// Any other element, outside the text being collected: a status
    /// element of the case or of a suite, or the case's captured output.
    fn start_other(&mut self, e: &BytesStart<'_>, tag: &str, empty: bool) {
        let status = Status::from_tag(tag);
        if let (Some(status), true) = (status, self.reading.case.is_some()) {
            let data = StatusData::of(e, tag);
            if empty {
                self.add_status(status, data);
            } else {
                self.reading.pending = Some((status, data));
                self.set_sink(Sink::Status);
            }
        } else if matches!(status, Some(Status::Failure | Status::Error))
            && !self.nesting.suites.is_empty()
        {
            let data = StatusData::of(e, tag);
            if empty {
                self.add_suite_error(data);
            } else {
                self.reading.suite_status = Some(data);
                self.set_sink(Sink::SuiteStatus);
            }
        } else if self.reading.case.is_some() && !empty {
            match tag {
                "system-out" => self.set_sink(Sink::Stdout),
                "system-err" => self.set_sink(Sink::Stderr),
                _ => {}
            }
        }
    }

    fn set_sink(&mut self, sink: Sink) {
        self.reading.sink = sink;
        // The element is pushed on `open` right after this call.
        self.reading.sink_depth = self.nesting.open.len() + 1;
    }

    fn end(&mut self) {
        let Some((tag, _)) = self.nesting.open.pop() else {
            return;
        };
        if self.reading.sink != Sink::None && self.nesting.open.len() + 1 == self.reading.sink_depth
        {
            match std::mem::replace(&mut self.reading.sink, Sink::None) {
                Sink::Status => {
                    if let Some((status, data)) = self.reading.pending.take() {
                        self.add_status(status, data);
                    }
                }
                Sink::SuiteStatus => {
                    if let Some(data) = self.reading.suite_status.take() {
                        self.add_suite_error(data);
                    }
                }
                Sink::Stdout | Sink::Stderr | Sink::None => {}
            }
            return;
        }
        match local_name(&tag) {
            "testsuite" => {
                self.nesting.suites.pop();
                if self.nesting.positions.len() > 1 {
                    self.nesting.positions.pop();
                }
            }
            "testcase" => {
                if let Some(case) = self.reading.case.take() {
                    self.finish_case(case);
                }
            }
            _ => {}
        }
    }

    fn sink_buffer(&mut self) -> Option<&mut String> {
        let r = &mut self.reading;
        match r.sink {
            Sink::None => None,
            Sink::Status => r.pending.as_mut().map(|(_, d)| &mut d.text),
            Sink::SuiteStatus => r.suite_status.as_mut().map(|d| &mut d.text),
            Sink::Stdout => r.case.as_mut().map(|c| &mut c.stdout),
            Sink::Stderr => r.case.as_mut().map(|c| &mut c.stderr),
        }
    }

    fn text(&mut self, t: &str) {
        if let Some(buf) = self.sink_buffer() {
            buf.push_str(t);
        }
    }

    fn reference(&mut self, r: &BytesRef<'_>) {
        let Some(buf) = self.sink_buffer() else {
            return;
        };
        match r.resolve_char_ref() {
            Ok(Some(c)) => buf.push(c),
            _ => match resolve_predefined_entity(r) {
                Some(s) => buf.push_str(s),
                None => {
                    // An entity we do not know (or an invalid char ref) is
                    // kept as written: nothing is ever expanded.
                    buf.push('&');
                    buf.push_str(r);
                    buf.push(';');
                }
            },
        }
    }

    fn add_status(&mut self, status: Status, data: StatusData) {
        if let Some(case) = self.reading.case.as_mut() {
            case.add_status(status, data);
        }
    }

    fn add_suite_error(&mut self, mut data: StatusData) {
        let suite = self.nesting.suites.last().cloned().unwrap_or_default();
        let (message, text) = data.take_message();
        let message = message.unwrap_or_else(|| "error outside any test case".to_string());
        self.run.collection_errors.push(CollectionError {
            file: data.location.as_ref().map_or(suite, |l| l.file.to_string()),
            error_type: data.kind,
            message,
            line: data.location.and_then(|l| l.line),
            traceback: (!text.is_empty()).then_some(text),
        });
    }

    /// The case's end: it becomes a test (or a collection error, for
    /// pytest's cases that are none) by the rules of its dialect.
    fn finish_case(&mut self, mut case: CaseBuilder<'_>) {
        self.tests.cases += 1;
        let mut verdict = case.verdict();
        let pytest = self.in_pytest();
        if pytest && self.pytest_non_test(&case, &mut verdict) {
            return;
        }
        let (node_id, location) = if pytest {
            self.pytest_test(&case, &mut verdict)
        } else {
            self.foreign_test(&case, &mut verdict)
        };
        let subtests = pytest.then(|| pytest::subtests(&mut case, &mut verdict));
        let mut test = case.into_test(verdict, node_id, location);
        if let Some(s) = subtests.flatten() {
            test.set_subtests(s);
        }
        if pytest {
            self.add_pytest_test(test);
        } else {
            self.add_foreign_test(test);
        }
    }

    /// Makes `test` the latest, settling the one before.
    fn replace_latest(&mut self, test: TestResult) {
        self.settle_latest();
        self.tests.latest = Some(test);
    }

    /// The latest test can no longer be folded into: it joins the run, or
    /// is counted when it is a plain pass and passing tests are counted.
    fn settle_latest(&mut self) {
        let Some(test) = self.tests.latest.take() else {
            return;
        };
        if let Some(counted) = self.tests.settle.add(&mut self.run, test) {
            self.reuse.spare_id = Some(counted.node_id);
        }
    }
}
