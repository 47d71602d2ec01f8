//! A CTRF document as serde reads it, one test at a time.
//!
//! `results.tests` is never held: each entry is handed to a [`TestSink`]
//! as soon as it is read and dropped after, so a document of 100,000
//! tests costs the memory of the run made from it, not of the document
//! as well (as the pytest-json-report reader does, issue 24). Strings that
//! only decide something or are shared (a name, a status, a file path, a
//! suite) are borrowed from the text when they hold no escape.
//!
//! Every other key is skipped unread; numbers are read as any JSON number
//! and checked where they are used, so a float duration is no error.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Unexpected, Visitor};
use serde::{Deserialize, Deserializer as _};

use crate::sources::entries::Entries;
use crate::sources::streamed::Document;

/// Everything of the document but its tests.
#[derive(Debug, Default)]
pub(super) struct Header {
    /// Whether there was a `results` object (not `null`, not missing).
    pub has_results: bool,
    /// Whether `results` had a `tests` list (not `null`, not missing).
    pub has_tests: bool,
    pub summary: Option<Summary>,
}

/// Takes each test entry as it is read.
pub(super) trait TestSink {
    fn test(&mut self, test: Test<'_>);
    /// `results.tool.name`, when it comes before the tests (as every
    /// reporter writes it).
    fn tool(&mut self, name: &str);
}

/// `results.tool`: only its name is used.
#[derive(Debug, Deserialize)]
struct Tool<'a> {
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
}

/// `results.summary`: only its times are used (the counts are the tests').
#[derive(Debug, Deserialize)]
pub(super) struct Summary {
    pub start: Option<f64>,
    pub stop: Option<f64>,
}

impl Summary {
    /// `stop - start`, milliseconds since the epoch, as seconds.
    pub fn duration_secs(&self) -> Option<f64> {
        let (start, stop) = (self.start?, self.stop?);
        let ms = stop - start;
        (ms.is_finite() && ms >= 0.0).then_some(ms / 1000.0)
    }
}

/// One entry of `results.tests`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Test<'a> {
    #[serde(borrow)]
    pub name: Cow<'a, str>,
    #[serde(borrow)]
    pub status: Cow<'a, str>,
    pub duration: Option<f64>,
    #[serde(default, borrow)]
    pub suite: Option<Suite<'a>>,
    pub message: Option<String>,
    pub trace: Option<String>,
    #[serde(default, borrow, deserialize_with = "borrowed")]
    pub raw_status: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "borrowed")]
    pub file_path: Option<Cow<'a, str>>,
    pub line: Option<f64>,
    pub retries: Option<f64>,
    #[serde(default, deserialize_with = "null_as_empty")]
    pub retry_attempts: Vec<RetryAttempt>,
    pub flaky: Option<bool>,
    pub stdout: Option<Lines>,
    pub stderr: Option<Lines>,
}

/// One entry of a test's `retryAttempts`.
#[derive(Debug, Deserialize)]
pub(super) struct RetryAttempt {
    pub attempt: Option<f64>,
    pub status: Option<String>,
    pub message: Option<String>,
    pub line: Option<f64>,
    /// Read for the line when `line` is missing (pytest-json-ctrf's).
    pub trace: Option<String>,
}

/// A test's `suite`: the path from the outermost suite (CTRF since 0.0.0
/// of the array form), or one string (`a > b`) as older reporters wrote.
#[derive(Debug)]
pub(super) enum Suite<'a> {
    Path(Vec<Cow<'a, str>>),
    One(Cow<'a, str>),
}

/// `stdout` / `stderr`: lines, or (from some reporters) one string.
#[derive(Debug)]
pub(super) enum Lines {
    Many(Vec<String>),
    One(String),
}

fn null_as_empty<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: de::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Ok(Option::<Vec<T>>::deserialize(d)?.unwrap_or_default())
}

/// A string borrowed from the text when it holds no escape. serde borrows
/// a `Cow` field only when it is the field's whole type: inside an
/// `Option` or a `Vec` it would always be copied.
struct Borrowed<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Borrowed<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(StrVisitor).map(Borrowed)
    }
}

struct StrVisitor;

impl<'de> Visitor<'de> for StrVisitor {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

/// An optional string, borrowed when it can be ([`Borrowed`]).
fn borrowed<'de: 'a, 'a, D>(d: D) -> Result<Option<Cow<'a, str>>, D::Error>
where
    D: de::Deserializer<'de>,
{
    Ok(Option::<Borrowed<'a>>::deserialize(d)?.map(|b| b.0))
}

/// A string or a list of strings (`suite`, `stdout`, `stderr`), read
/// without serde's untagged buffering, which copies the value first.
enum OneOrMany<'a> {
    One(Cow<'a, str>),
    Many(Vec<Cow<'a, str>>),
}

impl<'de: 'a, 'a> Deserialize<'de> for Suite<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let expecting = OneOrManyVisitor("a list of suite names or a string");
        Ok(match d.deserialize_any(expecting)? {
            OneOrMany::One(text) => Suite::One(text),
            OneOrMany::Many(parts) => Suite::Path(parts),
        })
    }
}

impl<'de> Deserialize<'de> for Lines {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let expecting = OneOrManyVisitor("a list of strings or a string");
        Ok(match d.deserialize_any(expecting)? {
            OneOrMany::One(text) => Lines::One(text.into_owned()),
            OneOrMany::Many(lines) => Lines::Many(lines.into_iter().map(Cow::into_owned).collect()),
        })
    }
}

/// Reads a [`OneOrMany`]; says what it expected in its own words.
struct OneOrManyVisitor(&'static str);

impl<'de> Visitor<'de> for OneOrManyVisitor {
    type Value = OneOrMany<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.0)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(OneOrMany::One(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(OneOrMany::One(Cow::Owned(v.to_string())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(OneOrMany::One(Cow::Owned(v)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut parts = Vec::new();
        let mut wrong = false;
        while let Some(part) = seq.next_element::<Part<'de>>()? {
            match part {
                Part::Text(text) => parts.push(text),
                Part::Other => wrong = true,
            }
        }
        match wrong {
            true => Err(de::Error::invalid_type(Unexpected::Seq, &self)),
            false => Ok(OneOrMany::Many(parts)),
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_key::<IgnoredAny>()?.is_some() {
            map.next_value::<serde_json::Value>()?;
        }
        Err(de::Error::invalid_type(Unexpected::Map, &self))
    }
}

/// One entry of a [`OneOrMany`] list: a string, or any other value, read
/// whole and refused after the list. Read whole, as serde's untagged
/// buffering read it, so that nesting past serde_json's limit there is
/// refused in those words (`json_error`), not as a wrong type.
enum Part<'a> {
    Text(Cow<'a, str>),
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for Part<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(PartVisitor)
    }
}

struct PartVisitor;

impl<'de> Visitor<'de> for PartVisitor {
    type Value = Part<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Part::Text(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Part::Text(Cow::Owned(v.to_string())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Part::Text(Cow::Owned(v)))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Part::Other)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Part::Other)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Part::Other)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Part::Other)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Part::Other)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<serde_json::Value>()?.is_some() {}
        Ok(Part::Other)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_key::<IgnoredAny>()?.is_some() {
            map.next_value::<serde_json::Value>()?;
        }
        Ok(Part::Other)
    }
}

/// The keys read at the top and in `results`; every other one is skipped
/// unread.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Key {
    Results,
    Summary,
    Tests,
    Tool,
    #[serde(other)]
    Other,
}

/// A CTRF document, read as it streams.
pub(super) struct Ctrf;

impl<S: TestSink> Document<S> for Ctrf {
    type Header = Header;
    const EXPECTING: &'static str = "a CTRF object";

    fn visit<'de, A: MapAccess<'de>>(sink: &mut S, mut map: A) -> Result<Header, A::Error> {
        let mut header = Header::default();
        let mut results_seen = false;
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                // Tests already handed on cannot be taken back: a second
                // `results` is refused here, and the reader reads the
                // document again through a value, which keeps the last.
                Key::Results if results_seen => return Err(de::Error::duplicate_field("results")),
                Key::Results => {
                    results_seen = true;
                    map.next_value_seed(ResultsSeed {
                        sink: &mut *sink,
                        header: &mut header,
                    })?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(header)
    }
}

/// `results` (or `null`), read into the header, its tests into the sink.
struct ResultsSeed<'s, S> {
    sink: &'s mut S,
    header: &'s mut Header,
}

impl<'de, S: TestSink> DeserializeSeed<'de> for ResultsSeed<'_, S> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de, S: TestSink> Visitor<'de> for ResultsSeed<'_, S> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a results object")
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.header.has_results = true;
        let mut tests_seen = false;
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Tests if tests_seen => return Err(de::Error::duplicate_field("tests")),
                Key::Tests => {
                    tests_seen = true;
                    let sink = &mut *self.sink;
                    let mut each = |t: Test<'de>| sink.test(t);
                    let tests = Entries::new("a sequence of tests", &mut each);
                    self.header.has_tests = map.next_value_seed(tests)?;
                }
                // A summary given twice keeps the last, as a value would.
                Key::Summary => self.header.summary = map.next_value()?,
                // Any value: an odd one costs the name, not the file.
                Key::Tool => {
                    let tool = map.next_value::<serde_json::Value>()?;
                    if let Ok(Tool { name: Some(name) }) = Tool::deserialize(&tool) {
                        self.sink.tool(&name);
                    }
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// The top-level keys that tell a CTRF document from a pytest-json-report
/// one; each is `None` when missing, `Some(None)` when `null`.
#[derive(Debug, Default)]
pub(super) struct Top {
    report_format: Option<Option<serde_json::Value>>,
    results: Option<Option<IgnoredAny>>,
    tests: Option<Option<IgnoredAny>>,
}

impl Top {
    /// `"reportFormat": "CTRF"`, or `results` without `tests` (a `null`
    /// one counts as missing).
    pub fn is_ctrf(&self) -> bool {
        match self.report_format.as_ref().and_then(Option::as_ref) {
            Some(format) => format == "CTRF",
            None => self.results.flatten().is_some() && self.tests.flatten().is_none(),
        }
    }
}

/// The top-level keys of JSON text that starts with `{`; none when it is
/// not a JSON object serde_json reads. Every value but `reportFormat`'s is
/// skipped unread, and the reading stops at `"reportFormat": "CTRF"`: what
/// follows cannot change the answer (broken JSON after a key naming CTRF
/// is CTRF's to refuse), and the file is read again by the reader anyway.
pub(super) fn probe(body: &[u8]) -> Option<Top> {
    let first = body.iter().find(|b| !b.is_ascii_whitespace())?;
    if *first != b'{' {
        return None;
    }
    let mut found = false;
    let mut reader = serde_json::Deserializer::from_slice(body);
    let top = (&mut reader)
        .deserialize_map(TopVisitor { found: &mut found })
        .and_then(|top| reader.end().map(|()| top));
    match top {
        Ok(top) => Some(top),
        Err(_) if found => Some(Top {
            report_format: Some(Some(serde_json::Value::from("CTRF"))),
            ..Top::default()
        }),
        Err(_) => None,
    }
}

/// The top-level keys; a key given twice is an error, as serde's derive
/// makes it (the probe then says "not JSON this reader reads").
struct TopVisitor<'f> {
    found: &'f mut bool,
}

/// The words of the error that stops the probe at `"reportFormat":
/// "CTRF"` (never shown: [`probe`] answers from its flag).
const FOUND_CTRF: &str = "CTRF found";

impl<'de> Visitor<'de> for TopVisitor<'_> {
    type Value = Top;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top, A::Error> {
        let mut top = Top::default();
        while let Some(key) = map.next_key::<TopKey>()? {
            match key {
                TopKey::ReportFormat if top.report_format.is_some() => {
                    return Err(de::Error::duplicate_field("reportFormat"));
                }
                TopKey::ReportFormat => {
                    let format: Option<serde_json::Value> = map.next_value()?;
                    if format.as_ref().is_some_and(|f| f == "CTRF") {
                        *self.found = true;
                        return Err(de::Error::custom(FOUND_CTRF));
                    }
                    top.report_format = Some(format);
                }
                TopKey::Results if top.results.is_some() => {
                    return Err(de::Error::duplicate_field("results"));
                }
                TopKey::Tests if top.tests.is_some() => {
                    return Err(de::Error::duplicate_field("tests"));
                }
                TopKey::Results => top.results = Some(map.next_value()?),
                TopKey::Tests => top.tests = Some(map.next_value()?),
                TopKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(top)
    }
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
enum TopKey {
    ReportFormat,
    Results,
    Tests,
    #[serde(other)]
    Other,
}
