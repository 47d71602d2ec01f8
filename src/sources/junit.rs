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
//!   status element is a skip (the rules: `sources/junit_case.rs`);
//! - a `<failure>`/`<error>` directly under a `<testsuite>` (a class that
//!   could not load) becomes a collection error instead of being dropped;
//! - DOCTYPEs and entities never expand: predefined and character references
//!   are resolved, any other `&name;` is kept as written.

use std::borrow::Cow;

use quick_xml::XmlVersion;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::attributes::Attribute;
use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::reader::Reader;

use super::junit_case::{fold_retry, is_rerun, retry_key, skip_word, unnamed_id};
use super::{ParseError, ReadOptions, Settle, SharedFile};
use crate::model::{
    Attempt, CollectionError, Details, Location, Outcome, Phase, Run, SourceInfo, SourceKind,
    TestResult, Xfail,
};
use crate::pytest_text;

/// Reads a JUnit XML document. `name` labels the source in the result.
pub fn parse(input: &[u8], name: &str) -> Result<Run, ParseError> {
    parse_with(input, name, ReadOptions::default())
}

/// [`parse`] with every reading option.
pub fn parse_with(input: &[u8], name: &str, options: ReadOptions) -> Result<Run, ParseError> {
    // quick-xml wants UTF-8; a report with stray bytes (pytest writes test ids
    // with raw binary in them) is still worth reading, so decode lossily.
    // Valid UTF-8 (the usual case) is checked fast and borrowed.
    let text: Cow<'_, str> = match std::str::from_utf8(input) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(input),
    };
    let mut parser = Parser::new(&text, options);
    if !options.passing_as_counts {
        // One result per `<testcase>` at most: sized once, the vector of a
        // large report is never copied while it grows. Capped by what the
        // file's size allows (`<testcase name="x"/>` and a line break), so
        // that the words `<testcase` in a comment or CDATA cannot reserve
        // more than a file of real cases would.
        let cases = memchr::memmem::find_iter(text.as_bytes(), b"<testcase").count();
        parser.run.tests.reserve_exact(cases.min(text.len() / 21));
    }
    parser.run()?;
    let pytest = parser.root_pytest || parser.any_pytest;
    let Parser {
        mut run,
        lossy_notes,
        cases,
        folded,
        ..
    } = parser;
    if matches!(text, Cow::Owned(_)) {
        run.notes.push(format!(
            "{name}: bytes that are not UTF-8 were replaced with U+FFFD"
        ));
    }
    run.notes.extend(lossy_notes);
    run.sources.push(SourceInfo {
        kind: if pytest {
            SourceKind::PytestJunit
        } else {
            SourceKind::Junit
        },
        name: name.to_string(),
        entries: cases,
        folded,
    });
    run.clean_text(crate::text::clean_xml_text);
    Ok(run)
}

/// The status elements a `<testcase>` may carry, in increasing precedence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Status {
    /// Surefire `flakyFailure` / `flakyError`: failed, then passed on rerun.
    Flaky,
    Skipped,
    Failure,
    Error,
}

impl Status {
    fn from_tag(tag: &str) -> Option<Status> {
        Some(match tag {
            "skipped" => Status::Skipped,
            "failure" | "rerunFailure" => Status::Failure,
            "error" | "rerunError" => Status::Error,
            "flakyFailure" | "flakyError" => Status::Flaky,
            _ => return None,
        })
    }
}

/// The outcome of an earlier attempt that a rerun element records
/// (`flakyFailure`, `rerunError`, ...), or `None` for other elements.
fn attempt_outcome(tag: &str) -> Option<Outcome> {
    match tag {
        "flakyFailure" | "rerunFailure" => Some(Outcome::Failed),
        "flakyError" | "rerunError" => Some(Outcome::Error),
        _ => None,
    }
}

/// What a status element said.
#[derive(Debug, Default)]
struct StatusData {
    /// Set for rerun elements: the outcome of the attempt they record.
    attempt: Option<Outcome>,
    message: Option<String>,
    kind: Option<String>,
    text: String,
    location: Option<Location>,
}

/// A `<testcase>` being read. Its attributes borrow from the element while
/// an empty `<testcase/>` (most of a large report) is turned into a result;
/// a case with children owns them until its end tag.
#[derive(Debug, Default)]
struct CaseBuilder<'c> {
    classname: Cow<'c, str>,
    name: Cow<'c, str>,
    file: Option<Cow<'c, str>>,
    line: Option<Cow<'c, str>>,
    time: Option<f64>,
    /// The strongest status seen so far and its data.
    status: Option<(Status, StatusData)>,
    stdout: String,
    stderr: String,
    /// Messages of weaker (or later, equally strong) failure/error elements
    /// on the same case: kept so that nothing a file says is dropped.
    extra: Vec<String>,
    /// Earlier attempts recorded by rerun elements.
    attempts: Vec<Attempt>,
    /// A `status` attribute saying the test did not run ([`skip_word`]).
    skip_word: Option<&'static str>,
    /// 1-based position among the cases of its innermost suite.
    position: usize,
}

impl CaseBuilder<'_> {
    /// The case with its attributes copied out of the element, to be kept
    /// until its end tag (only attributes are set when this is called).
    fn into_owned(self) -> CaseBuilder<'static> {
        let owned = |c: Cow<'_, str>| Cow::Owned(c.into_owned());
        CaseBuilder {
            classname: owned(self.classname),
            name: owned(self.name),
            file: self.file.map(owned),
            line: self.line.map(owned),
            time: self.time,
            skip_word: self.skip_word,
            position: self.position,
            ..CaseBuilder::default()
        }
    }
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

struct Parser<'a> {
    reader: Reader<&'a [u8]>,
    input: &'a str,
    run: Run,
    /// Names of the open `<testsuite>` elements.
    suites: Vec<String>,
    /// `<testcase>` elements seen so far at each level: outside any suite,
    /// then in each open suite.
    positions: Vec<usize>,
    /// Open elements, with the byte offset where each started.
    open: Vec<(String, u64)>,
    case: Option<CaseBuilder<'static>>,
    /// The status element being read inside the case.
    pending: Option<(Status, StatusData)>,
    /// A status element directly under a suite.
    suite_status: Option<StatusData>,
    sink: Sink,
    /// Depth (in `open`) of the element that set `sink`.
    sink_depth: usize,
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
    lossy_notes: Vec<String>,
    /// `<testcase>` elements seen.
    cases: usize,
    /// Cases folded into an earlier case of the same test.
    folded: usize,
    /// Suite and id of the last test read (other frameworks): a retry
    /// repeats both, right after the first attempt.
    last_key: Option<String>,
    /// The node id prefix (`path::Class`) of the last pytest case, with the
    /// `classname` and `file` it was computed from.
    last_prefix: Option<(String, Option<String>, String)>,
    /// The file of the last case, shared with the next one of the same file.
    files: SharedFile,
    /// The test read last: the next case may still fold into it (a retry,
    /// pytest's second report of one test), so it joins the run only when
    /// another test comes or the file ends ([`Parser::settle_latest`]).
    latest: Option<TestResult>,
    /// Lists or counts each test once it is settled.
    settle: Settle,
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
            run: Run::default(),
            suites: Vec::new(),
            positions: vec![0],
            open: Vec::new(),
            case: None,
            pending: None,
            suite_status: None,
            sink: Sink::None,
            sink_depth: 0,
            seen_root: false,
            root_pytest: false,
            any_pytest: false,
            jest: false,
            root_time: None,
            top_suite_time: None,
            lossy_notes: Vec::new(),
            cases: 0,
            folded: 0,
            last_key: None,
            last_prefix: None,
            files: SharedFile::default(),
            latest: None,
            settle: Settle::new(options),
            spare_id: None,
        }
    }

    fn error_at(&self, offset: u64, message: impl Into<String>) -> ParseError {
        ParseError::at(self.input, offset as usize, message)
    }

    fn run(&mut self) -> Result<(), ParseError> {
        loop {
            let event = match self.reader.read_event() {
                Ok(event) => event,
                Err(e) => {
                    let pos = self.reader.error_position();
                    return Err(self.error_at(pos, format!("malformed XML: {e}")));
                }
            };
            match event {
                Event::Start(e) => {
                    let start = self.reader.buffer_position();
                    self.start(&e, start, false)?;
                }
                Event::Empty(e) => {
                    let start = self.reader.buffer_position();
                    self.start(&e, start, true)?;
                }
                Event::End(_) => self.end(),
                // Text outside the elements we collect (the line breaks
                // between test cases) is not even decoded.
                Event::Text(_) | Event::CData(_) if self.sink == Sink::None => {}
                Event::Text(t) => self.text(&t.xml10_content()),
                Event::CData(t) => self.text(&t.xml10_content()),
                Event::GeneralRef(r) => self.reference(&r),
                Event::Eof => return self.eof(),
                // Declarations, comments, processing instructions and
                // DOCTYPEs carry nothing for us; a DOCTYPE's entities are
                // never expanded.
                Event::Decl(_) | Event::Comment(_) | Event::PI(_) | Event::DocType(_) => {}
            }
        }
    }

    fn eof(&mut self) -> Result<(), ParseError> {
        if let Some((tag, start)) = self.open.last() {
            let at = ParseError::at(self.input, *start as usize, "");
            return Err(self.error_at(
                self.input.len() as u64,
                format!(
                    "the file ends inside <{tag}> opened at line {}, column {}: it looks truncated",
                    at.line, at.column
                ),
            ));
        }
        if !self.seen_root {
            return Err(self.error_at(
                0,
                "no XML element found: the file is empty or not XML".to_string(),
            ));
        }
        self.settle_latest();
        self.settle.finish(&mut self.run);
        self.run.duration = self.root_time.or(self.top_suite_time);
        Ok(())
    }

    fn start(&mut self, e: &BytesStart<'_>, end_pos: u64, empty: bool) -> Result<(), ParseError> {
        let name = e.local_name();
        let tag: &str = name.as_ref();
        if !self.seen_root {
            self.seen_root = true;
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
                self.root_pytest = name.starts_with("pytest");
                self.jest = name.starts_with("jest");
            }
            if tag != "testsuite" {
                self.root_time = attr(e, "time").and_then(|t| parse_time(&t));
            }
        }
        let start_pos = end_pos.saturating_sub(1);
        match tag {
            "testsuite" => {
                let name = attr(e, "name").map(Cow::into_owned).unwrap_or_default();
                if name == "pytest" {
                    self.any_pytest = true;
                }
                if self.suites.is_empty()
                    && let Some(t) = attr(e, "time").and_then(|t| parse_time(&t))
                {
                    *self.top_suite_time.get_or_insert(0.0) += t;
                }
                if !empty {
                    self.suites.push(name);
                    self.positions.push(0);
                }
            }
            "testcase" => {
                let a = case_attrs(e);
                let position = self.positions.last_mut().map_or(0, |n| {
                    *n += 1;
                    *n
                });
                let case = CaseBuilder {
                    classname: a.classname.unwrap_or_default(),
                    name: a.name.unwrap_or_default(),
                    file: a.file,
                    line: a.line,
                    time: a.time.and_then(|t| parse_time(&t)),
                    skip_word: a.status.as_deref().and_then(skip_word),
                    position,
                    ..CaseBuilder::default()
                };
                if let Some(open) = self.case.take() {
                    // A test case nested in a test case: keep both.
                    self.finish_case(open);
                }
                if empty {
                    self.finish_case(case);
                } else {
                    self.case = Some(case.into_owned());
                }
            }
            _ if self.sink == Sink::None => {
                let status = Status::from_tag(tag);
                if let (Some(status), true) = (status, self.case.is_some()) {
                    let data = status_data(e, tag);
                    if empty {
                        self.add_status(status, data);
                    } else {
                        self.pending = Some((status, data));
                        self.set_sink(Sink::Status);
                    }
                } else if matches!(status, Some(Status::Failure | Status::Error))
                    && !self.suites.is_empty()
                {
                    let data = status_data(e, tag);
                    if empty {
                        self.add_suite_error(data);
                    } else {
                        self.suite_status = Some(data);
                        self.set_sink(Sink::SuiteStatus);
                    }
                } else if self.case.is_some() && !empty {
                    match tag {
                        "system-out" => self.set_sink(Sink::Stdout),
                        "system-err" => self.set_sink(Sink::Stderr),
                        _ => {}
                    }
                }
            }
            // Inside a flaky rerun element Surefire nests the trace and the
            // output of that attempt; all of it belongs to the status text.
            _ => {}
        }
        if !empty {
            self.open.push((tag.to_string(), start_pos));
        }
        Ok(())
    }

    /// Whether the case being read was written by pytest: the root says so,
    /// or an enclosing suite is pytest's. Per suite, so that a pytest suite
    /// among other frameworks' suites does not turn their ids into paths.
    fn in_pytest(&self) -> bool {
        self.root_pytest || self.suites.iter().any(|s| s == "pytest")
    }

    fn set_sink(&mut self, sink: Sink) {
        self.sink = sink;
        // The element is pushed on `open` right after this call.
        self.sink_depth = self.open.len() + 1;
    }

    fn end(&mut self) {
        let Some((tag, _)) = self.open.pop() else {
            return;
        };
        if self.sink != Sink::None && self.open.len() + 1 == self.sink_depth {
            match std::mem::replace(&mut self.sink, Sink::None) {
                Sink::Status => {
                    if let Some((status, data)) = self.pending.take() {
                        self.add_status(status, data);
                    }
                }
                Sink::SuiteStatus => {
                    if let Some(data) = self.suite_status.take() {
                        self.add_suite_error(data);
                    }
                }
                Sink::Stdout | Sink::Stderr | Sink::None => {}
            }
            return;
        }
        match tag.as_str() {
            "testsuite" => {
                self.suites.pop();
                if self.positions.len() > 1 {
                    self.positions.pop();
                }
            }
            "testcase" => {
                if let Some(case) = self.case.take() {
                    self.finish_case(case);
                }
            }
            _ => {}
        }
    }

    fn sink_buffer(&mut self) -> Option<&mut String> {
        match self.sink {
            Sink::None => None,
            Sink::Status => self.pending.as_mut().map(|(_, d)| &mut d.text),
            Sink::SuiteStatus => self.suite_status.as_mut().map(|d| &mut d.text),
            Sink::Stdout => self.case.as_mut().map(|c| &mut c.stdout),
            Sink::Stderr => self.case.as_mut().map(|c| &mut c.stderr),
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
        let Some(case) = self.case.as_mut() else {
            return;
        };
        // Surefire's flakyFailure/flakyError: a failed attempt before the
        // pass this case records.
        if status == Status::Flaky {
            case.attempts.push(attempt_of(data));
            return;
        }
        // At equal rank a plain element beats a rerun element: `<failure>`
        // is the final attempt, `<rerunFailure>`s the earlier ones.
        let rank = |s: Status, d: &StatusData| (s, d.attempt.is_none());
        let weaker = match case.status.take() {
            Some((old, old_data)) if rank(old, &old_data) >= rank(status, &data) => {
                case.status = Some((old, old_data));
                (status, data)
            }
            Some(old) => {
                case.status = Some((status, data));
                old
            }
            None => {
                case.status = Some((status, data));
                return;
            }
        };
        match weaker {
            (_, data) if data.attempt.is_some() => case.attempts.push(attempt_of(data)),
            (kind @ (Status::Failure | Status::Error), data) => {
                let text = trim_block(&data.text);
                let message = data
                    .message
                    .filter(|m| !m.trim().is_empty())
                    .or_else(|| first_line(&text))
                    .unwrap_or_else(|| "(no message)".to_string());
                let word = if kind == Status::Error {
                    "error"
                } else {
                    "failure"
                };
                case.extra.push(format!("also {word}: {message}"));
            }
            _ => {}
        }
    }

    fn add_suite_error(&mut self, data: StatusData) {
        let suite = self.suites.last().cloned().unwrap_or_default();
        let text = trim_block(&data.text);
        let message = data
            .message
            .filter(|m| !m.trim().is_empty())
            .or_else(|| first_line(&text))
            .unwrap_or_else(|| "error outside any test case".to_string());
        self.run.collection_errors.push(CollectionError {
            file: data.location.as_ref().map_or(suite, |l| l.file.to_string()),
            error_type: data.kind,
            message,
            line: data.location.and_then(|l| l.line),
            traceback: (!text.is_empty()).then_some(text),
        });
    }

    fn finish_case(&mut self, case: CaseBuilder<'_>) {
        self.cases += 1;
        let (status, data) = match (case.status, case.skip_word) {
            (Some((s, d)), _) => (Some(s), d),
            // `status="disabled"` and the like: skipped, the word saying why.
            // A status element, even a `<failure>`, says more and wins.
            (None, Some(word)) => (
                Some(Status::Skipped),
                StatusData {
                    message: Some(word.to_string()),
                    ..StatusData::default()
                },
            ),
            (None, None) => (None, StatusData::default()),
        };
        let traceback = trim_block(&data.text);
        let traceback = (!traceback.is_empty()).then_some(traceback);
        let mut message = data.message.filter(|m| !m.trim().is_empty());
        let pytest = self.in_pytest();

        if pytest
            && status == Some(Status::Error)
            && message.as_deref() == Some("collection failure")
        {
            // The collector's node id: a module (empty classname) or a class
            // below it, as the JSON report names it.
            let file = if case.classname.is_empty() {
                case.file
                    .as_deref()
                    .map_or_else(|| pytest_text::module_to_path(&case.name), str::to_string)
            } else {
                pytest_text::node_id(&case.classname, &case.name, case.file.as_deref())
            };
            let (error_type, message, line) = pytest_text::collection_error_summary(
                traceback.as_deref().unwrap_or_default(),
                &file,
            );
            self.run.collection_errors.push(CollectionError {
                file,
                error_type,
                message,
                line,
                traceback,
            });
            return;
        }
        if pytest && case.classname == "pytest" && case.name == "internal" {
            // pytest's INTERNALERROR: not a test; kept as an error of the
            // session so the reader sees it.
            let (_, message, _) =
                pytest_text::collection_error_summary(traceback.as_deref().unwrap_or_default(), "");
            self.run.collection_errors.push(CollectionError {
                file: "(pytest session)".to_string(),
                error_type: Some("INTERNALERROR".to_string()),
                message,
                line: None,
                traceback,
            });
            return;
        }
        if pytest && case.classname.is_empty() && case.name.is_empty() && status.is_none() {
            // An interrupted run leaves an empty `<testcase/>` for the test
            // that was running: it did not finish, so it is no result.
            self.run.notes.push(
                "an empty <testcase> (a test interrupted before it finished) was left out"
                    .to_string(),
            );
            return;
        }

        let outcome = match status {
            None | Some(Status::Flaky) => Outcome::Passed,
            Some(Status::Skipped) => Outcome::Skipped,
            Some(Status::Failure) => Outcome::Failed,
            Some(Status::Error) => Outcome::Error,
        };
        let mut xfail = None;
        let mut phase = match outcome {
            Outcome::Failed => Some(Phase::Call),
            _ => None,
        };
        let node_id;
        let location;
        if pytest {
            node_id = if case.classname.is_empty() {
                // A collector's entry (a module skipped at import).
                case.file
                    .as_deref()
                    .map_or_else(|| pytest_text::module_to_path(&case.name), str::to_string)
            } else {
                self.pytest_node_id(&case.classname, &case.name, case.file.as_deref())
            };
            // pytest's `line` attribute is 0-based.
            location = case.file.as_deref().map(|file| Location {
                file: self.files.get(file),
                line: case
                    .line
                    .as_deref()
                    .and_then(|l| l.trim().parse::<u32>().ok())
                    .map(|l| l.saturating_add(1)),
            });
            if status == Some(Status::Skipped) && data.kind.as_deref() == Some("pytest.xfail") {
                xfail = Some(Xfail::XFailed);
            }
            if status == Some(Status::Skipped)
                && message.as_deref() == Some("collection skipped")
                && let Some(tb) = traceback.as_deref()
            {
                message = Some(pytest_text::skip_reason(tb));
            }
            if outcome == Outcome::Error
                && let Some(m) = message.as_deref()
                && let Some((p, inner)) = pytest_text::error_phase(m)
            {
                phase = Some(p);
                message = Some(inner);
            }
            if outcome == Outcome::Error && phase.is_none() {
                phase = Some(Phase::Call);
            }
        } else {
            let suite = self.suites.last().map(String::as_str).unwrap_or_default();
            node_id = if case.name.trim().is_empty() {
                unnamed_id(suite, &case.classname, case.position, self.jest)
            } else {
                foreign_id(suite, &case.classname, &case.name, self.jest)
            };
            location = case
                .file
                .as_deref()
                .map(|file| Location {
                    file: self.files.get(file),
                    line: case.line.as_deref().and_then(|l| l.trim().parse().ok()),
                })
                .or(data.location);
        }
        if message.is_none() && matches!(outcome, Outcome::Failed | Outcome::Error) {
            message = traceback.as_deref().and_then(first_line);
        }
        if !case.extra.is_empty() {
            let mut m = message.unwrap_or_else(|| "(no message)".to_string());
            for extra in &case.extra {
                m.push('\n');
                m.push_str(extra);
            }
            message = Some(m);
        }
        if outcome == Outcome::Passed {
            // A flaky test's message describes an earlier attempt, not this one.
            message = None;
        }
        let mut test = TestResult::new(node_id, outcome);
        test.xfail = xfail;
        test.duration = case.time;
        test.location = location;
        test.phase = phase;
        let details = Details {
            message,
            traceback: traceback.filter(|_| matches!(outcome, Outcome::Failed | Outcome::Error)),
            stdout: nonempty(case.stdout),
            stderr: nonempty(case.stderr),
            log: None,
            reruns: case.attempts,
            phase_failures: Vec::new(),
        };
        if !details.is_empty() {
            test.set_details(Some(Box::new(details)));
        }
        if pytest {
            if let Some(previous) = self.latest.as_mut()
                && previous.node_id == test.node_id
            {
                // pytest writes a test that failed and then errored in
                // teardown as two `<testcase>` elements with one id: one test.
                fold_pytest_reports(previous, test);
                self.folded += 1;
                return;
            }
        } else {
            let key = retry_key(&self.suites, &test.node_id);
            if self.last_key.as_deref() == Some(key.as_str())
                && let Some(previous) = self.latest.as_mut()
                && is_rerun(previous, &test)
            {
                // The same case again, right after it failed: a rerun.
                // Two tests that merely share a name (further apart, or
                // after a pass or a skip) stay two tests.
                fold_retry(previous, test);
                self.folded += 1;
                return;
            }
            self.last_key = Some(key);
        }
        self.settle_latest();
        self.latest = Some(test);
    }

    /// The latest test can no longer be folded into: it joins the run, or
    /// is counted when it is a plain pass and passing tests are counted.
    fn settle_latest(&mut self) {
        let Some(test) = self.latest.take() else {
            return;
        };
        if let Some(counted) = self.settle.add(&mut self.run, test) {
            self.spare_id = Some(counted.node_id);
        }
    }
}

impl Parser<'_> {
    /// pytest's node id for a case, reusing the `path::Class` prefix of the
    /// previous case when it has the same `classname` and `file`.
    fn pytest_node_id(&mut self, classname: &str, name: &str, file: Option<&str>) -> String {
        let cached = self
            .last_prefix
            .as_ref()
            .filter(|(c, f, _)| c == classname && f.as_deref() == file);
        let prefix = match cached {
            Some((_, _, prefix)) => prefix,
            None => {
                let prefix = pytest_text::node_id_prefix(classname, file);
                let entry = self.last_prefix.insert((
                    classname.to_string(),
                    file.map(str::to_string),
                    prefix,
                ));
                &entry.2
            }
        };
        // The id of a counted test is reused: no allocation per case.
        let mut id = self.spare_id.take().unwrap_or_default();
        id.clear();
        id.reserve(prefix.len() + name.len() + 2);
        id.push_str(prefix);
        pytest_text::push_test_name(&mut id, name);
        id
    }
}

/// An attempt from a rerun element's data.
fn attempt_of(data: StatusData) -> Attempt {
    let text = trim_block(&data.text);
    Attempt {
        outcome: data.attempt.unwrap_or(Outcome::Failed),
        message: data
            .message
            .filter(|m| !m.trim().is_empty())
            .or_else(|| first_line(&text)),
    }
}

/// Folds a second JUnit report of the same pytest test into the first: the
/// stronger outcome wins (error beats failure), the other's message is kept.
fn fold_pytest_reports(kept: &mut TestResult, mut other: TestResult) {
    // Keep the stronger report in `kept`, the other in `other`.
    if other.outcome > kept.outcome {
        std::mem::swap(kept, &mut other);
    }
    let (strong, weak) = (kept, other);
    if weak.is_problem() {
        strong.add_phase_failure(
            weak.phase.unwrap_or(Phase::Call),
            weak.message(),
            weak.traceback(),
        );
    }
    strong.duration = match (strong.duration, weak.duration) {
        (Some(a), Some(b)) => Some(a + b),
        (a, b) => a.or(b),
    };
    if strong.location.is_none() {
        strong.location = weak.location;
    }
}

/// The id a user of a non-pytest framework recognises: `Class#method` for
/// class-based frameworks (Surefire, PHPUnit, Go, nextest), `describe ›
/// test` for Jest, the full title for Mocha, `suite > name` otherwise.
fn foreign_id(suite: &str, classname: &str, name: &str, jest: bool) -> String {
    let classname = classname.trim();
    let name = name.trim();
    let sep = if jest { " › " } else { " > " };
    if classname.is_empty() {
        if suite.is_empty() || suite == name {
            return name.to_string();
        }
        return format!("{suite}{sep}{name}");
    }
    if name.is_empty() {
        return classname.to_string();
    }
    if classname == name || name.starts_with(classname) || name.ends_with(classname) {
        return name.to_string();
    }
    if jest || classname.contains('›') {
        return format!("{classname} › {name}");
    }
    if classname.contains(char::is_whitespace) {
        return format!("{classname} > {name}");
    }
    format!("{classname}#{name}")
}

fn status_data(e: &BytesStart<'_>, tag: &str) -> StatusData {
    let file = attr(e, "file").map(Cow::into_owned);
    let line = attr(e, "line").and_then(|l| l.trim().parse().ok());
    StatusData {
        attempt: attempt_outcome(tag),
        message: attr(e, "message").map(Cow::into_owned),
        kind: attr(e, "type")
            .map(Cow::into_owned)
            .filter(|t| !t.is_empty()),
        text: String::new(),
        location: file.map(|file| Location::new(file, line)),
    }
}

/// An attribute's value with references resolved; an attribute whose value
/// cannot be unescaped is returned as written rather than dropped.
fn attr<'b>(e: &'b BytesStart<'_>, key: &str) -> Option<Cow<'b, str>> {
    let mut found = None;
    for_each_attr(e, |k, value| {
        if k == key && found.is_none() {
            found = Some(value);
        }
    });
    found
}

/// Hands every attribute of `e` to `f` as (local name, value with
/// references resolved). Well-formed attributes go through
/// [`scan_attributes`]; when it gives up, quick-xml's iterator reads the
/// element again from the start, so `f` may see the first attributes twice
/// and must keep the first value of a name.
fn for_each_attr<'b>(e: &'b BytesStart<'_>, mut f: impl FnMut(&str, Cow<'b, str>)) {
    let scanned = scan_attributes(e.attributes_raw(), |key, value, plain| {
        f(
            key,
            if plain {
                Cow::Borrowed(value)
            } else {
                attr_text(key, value)
            },
        )
    });
    if !scanned {
        for a in e.attributes().with_checks(false).flatten() {
            let key = a.key.local_name();
            let key: &str = key.as_ref();
            f(key, attr_value(a));
        }
    }
}

/// An attribute's value with references resolved (no copy when it has
/// none); a value that cannot be unescaped is returned as written.
fn attr_value<'b>(a: Attribute<'b>) -> Cow<'b, str> {
    match a.normalized_value_with(XmlVersion::Implicit1_0, 1, resolve_predefined_entity) {
        Ok(value) => value,
        Err(_) => a.value,
    }
}

/// The attributes of a `<testcase>`, read in one pass over the element.
#[derive(Default)]
struct CaseAttrs<'b> {
    classname: Option<Cow<'b, str>>,
    name: Option<Cow<'b, str>>,
    file: Option<Cow<'b, str>>,
    line: Option<Cow<'b, str>>,
    time: Option<Cow<'b, str>>,
    status: Option<Cow<'b, str>>,
}

fn case_attrs<'b>(e: &'b BytesStart<'_>) -> CaseAttrs<'b> {
    let mut attrs = CaseAttrs::default();
    for_each_attr(e, |key, value| {
        let slot = match key {
            "classname" => &mut attrs.classname,
            "name" => &mut attrs.name,
            "file" => &mut attrs.file,
            "line" => &mut attrs.line,
            "time" => &mut attrs.time,
            "status" => &mut attrs.status,
            _ => return,
        };
        // The first value of a name stands.
        if slot.is_none() {
            *slot = Some(value);
        }
    });
    attrs
}

/// Splits well-formed attributes (`key="value"`, `key = 'value'`) into
/// local names and raw values, borrowing both, and hands each to `found`
/// with whether the value is plain (no reference, no tab or line break, so
/// it needs no unescaping or normalising). This is most of the work of
/// reading a large report, so it is one pass over the bytes; anything it
/// does not recognise returns `false` and the caller falls back to
/// quick-xml's attribute iterator, which copes with every malformed shape.
fn scan_attributes<'b>(raw: &'b str, mut found: impl FnMut(&'b str, &'b str, bool)) -> bool {
    let b = raw.as_bytes();
    let n = b.len();
    let skip_space = |mut i: usize| {
        while i < n && b[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    // Usually no value has a reference or a tab or line break in it; one
    // vectorised look at the whole element tells.
    let all_plain =
        memchr::memchr3(b'&', b'\t', b'\n', b).is_none() && memchr::memchr(b'\r', b).is_none();
    let mut i = 0;
    loop {
        i = skip_space(i);
        if i >= n || (b[i] == b'/' && i + 1 == n) {
            return true;
        }
        let key_start = i;
        let mut colon = None;
        while i < n && !matches!(b[i], b'=' | b'"' | b'\'' | b'<' | b'>' | b'/') {
            if b[i].is_ascii_whitespace() {
                break;
            }
            if b[i] == b':' {
                colon = Some(i);
            }
            i += 1;
        }
        let key_end = i;
        i = skip_space(i);
        if key_end == key_start || i >= n || b[i] != b'=' {
            return false;
        }
        i = skip_space(i + 1);
        let quote = match b.get(i) {
            Some(&q @ (b'"' | b'\'')) => q,
            _ => return false,
        };
        let value_start = i + 1;
        let Some(len) = memchr::memchr(quote, &b[value_start..]) else {
            return false;
        };
        let value_end = value_start + len;
        let plain = all_plain
            || !b[value_start..value_end]
                .iter()
                .any(|&c| c == b'&' || c < 0x20);
        i = value_end + 1;
        // The next attribute must be separated by whitespace.
        if i < n && !b[i].is_ascii_whitespace() && b[i] != b'/' {
            return false;
        }
        let key = &raw[colon.map_or(key_start, |c| c + 1)..key_end];
        found(key, &raw[value_start..value_end], plain);
    }
}

/// A raw attribute value with references resolved and whitespace
/// normalised as XML says.
fn attr_text<'b>(key: &'b str, value: &'b str) -> Cow<'b, str> {
    attr_value(Attribute {
        key: quick_xml::name::QName(key),
        value: Cow::Borrowed(value),
    })
}

/// Parses a `time` attribute (seconds). Tolerates a decimal comma.
fn parse_time(t: &str) -> Option<f64> {
    if let Some(v) = plain_decimal(t.trim_ascii()) {
        return Some(v);
    }
    let t = t.trim();
    let v = t
        .parse::<f64>()
        .ok()
        .or_else(|| t.replace(',', ".").parse::<f64>().ok())?;
    (v.is_finite() && v >= 0.0).then_some(v)
}

/// `digits[.digits]` with at most 15 digits, the shape of nearly every
/// `time` attribute, read without the general float parser (a tenth of a
/// large report's reading time went there). Exact: the digits as an integer
/// and the power of ten are both exactly representable, and one IEEE
/// division rounds correctly, so the result equals `str::parse`'s.
fn plain_decimal(t: &str) -> Option<f64> {
    const POW10: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    let bytes = t.as_bytes();
    if bytes.is_empty() || bytes.len() > 16 {
        return None;
    }
    let mut mantissa: u64 = 0;
    let mut dot = None;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'0'..=b'9' => mantissa = mantissa * 10 + u64::from(b - b'0'),
            b'.' if dot.is_none() && i > 0 => dot = Some(i),
            _ => return None,
        }
    }
    // Digits after the dot; at most 15 digits in all.
    let frac = dot.map_or(0, |d| bytes.len() - d - 1);
    if bytes.len() - usize::from(dot.is_some()) > 15 {
        return None;
    }
    Some(mantissa as f64 / POW10[frac])
}

/// Trims blank lines and trailing whitespace around a block of text while
/// keeping the indentation of its lines.
fn trim_block(text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let trimmed = text.trim_end();
    let start = trimmed
        .char_indices()
        .find(|(_, c)| !c.is_whitespace())
        .map_or(trimmed.len(), |(i, _)| i);
    // Back up to the start of the first non-blank line.
    let line_start = trimmed[..start].rfind('\n').map_or(0, |i| i + 1);
    let block = &trimmed[line_start..];
    // Remove an indentation shared by every non-blank line (XML writers
    // often indent the text of an element along with the markup).
    let indent = block
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    if indent == 0 {
        return block.to_string();
    }
    block
        .lines()
        .map(|l| l.get(indent..).unwrap_or_else(|| l.trim_start()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first non-blank line, when there is one.
fn first_line(text: &str) -> Option<String> {
    Some(crate::text::first_line(text))
        .filter(|l| !l.is_empty())
        .map(str::to_string)
}

fn nonempty(s: String) -> Option<String> {
    let t = trim_block(&s);
    (!t.is_empty()).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_decimals_read_exactly_as_the_float_parser_does() {
        let mut cases: Vec<String> = [
            "0",
            "0.001",
            "1",
            "12.5",
            "0.1",
            "0.3",
            "123456789.012345",
            "999999999999999",
            "00.000",
            "5.",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // A spread of millisecond and microsecond timings.
        let mut x: u64 = 12345;
        for _ in 0..20_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let digits = (x >> 33) % 10_000_000;
            let scale = ((x >> 20) % 8) as usize;
            let s = format!("{digits:0>width$}", width = scale + 1);
            let (a, b) = s.split_at(s.len() - scale);
            cases.push(format!("{a}.{b}"));
        }
        for case in &cases {
            assert_eq!(plain_decimal(case), case.parse::<f64>().ok(), "{case}");
        }
        for not_plain in [
            "",
            ".5",
            "1e3",
            "-1",
            "1,5",
            "1.2.3",
            "0.0000000000000001",
            " 1",
        ] {
            assert_eq!(plain_decimal(not_plain), None, "{not_plain:?}");
        }
        assert_eq!(parse_time("1,5"), Some(1.5));
        assert_eq!(parse_time(" 2.25 "), Some(2.25));
        assert_eq!(parse_time("-1"), None);
    }

    #[test]
    fn attribute_scan_reads_keys_and_raw_values_or_gives_up() {
        let mut seen = Vec::new();
        assert!(scan_attributes(
            r#" classname="a.b" ns:name = 'x "y"'	time="0.1"/"#,
            |k, v, _| seen.push((k, v))
        ));
        assert_eq!(
            seen,
            [("classname", "a.b"), ("name", r#"x "y""#), ("time", "0.1")]
        );
        let mut plain = Vec::new();
        assert!(scan_attributes(
            " a=\"x\" b=\"1 &amp; 2\" c=\"tab\there\"",
            |_, _, p| plain.push(p)
        ));
        assert_eq!(plain, [true, false, false]);
        for malformed in [
            r#" a="1"b="2""#,
            r#" a=1"#,
            r#" a="1"#,
            r#" ="1""#,
            r#" a b="1""#,
        ] {
            assert!(!scan_attributes(malformed, |_, _, _| {}), "{malformed}");
        }
    }
}
