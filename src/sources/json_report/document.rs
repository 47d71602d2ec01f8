//! pytest-json-report's document as serde reads it, one test at a time.
//!
//! The `tests` list is never held: each entry is handed to a [`TestSink`]
//! as soon as it is read and dropped after, so a report of 100,000 tests
//! costs the memory of the run made from it, not of the document as well
//! (issue 24). Strings that only decide something (a node id, an outcome
//! word) are borrowed from the text when they hold no escape.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::pytest_text;
use crate::sources::entries::Entries;
use crate::sources::streamed::Document;

/// Everything of the document but its tests.
#[derive(Debug, Default)]
pub(super) struct Header {
    pub duration: Option<f64>,
    /// `created`: seconds since the epoch when the session started.
    pub created: Option<f64>,
    pub exitcode: Option<i32>,
    pub root: Option<String>,
    /// Whether there was a `tests` list (not `null`, not missing).
    pub has_tests: bool,
    pub has_summary: bool,
    pub collectors: Vec<Collector>,
    pub warnings: Vec<JsonWarning>,
    /// pytest-mcp's plugin wrote the document (its `pytest_mcp` key): every
    /// failed attempt of a rerun test is in it.
    pub pytest_mcp: bool,
}

/// Takes each test entry as it is read.
pub(super) trait TestSink {
    fn test(&mut self, test: JsonTest<'_>);
}

#[derive(Debug, Deserialize)]
pub(super) struct JsonTest<'a> {
    #[serde(borrow)]
    pub nodeid: Cow<'a, str>,
    #[serde(default)]
    pub lineno: Option<u32>,
    #[serde(borrow)]
    pub outcome: Cow<'a, str>,
    #[serde(default, borrow)]
    pub setup: Option<Stage<'a>>,
    #[serde(default, borrow)]
    pub call: Option<Stage<'a>>,
    #[serde(default, borrow)]
    pub teardown: Option<Stage<'a>>,
    /// pytest-xdist's report for the test a crashed worker was running
    /// (`when` "???"): read as the call.
    #[serde(default, rename = "???", borrow)]
    pub crashed: Option<Stage<'a>>,
    /// The test's failed subtests, as pytest-mcp's plugin records them
    /// (`super::subtests`); a value, read leniently.
    /// Boxed: the entry is moved several times as it is read, and few
    /// tests have subtests.
    #[serde(default)]
    pub subtests: Option<Box<serde_json::Value>>,
}

#[derive(Debug, Deserialize)]
pub(super) struct Stage<'a> {
    #[serde(default)]
    pub duration: Option<f64>,
    #[serde(default, borrow)]
    pub outcome: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub crash: Option<Crash<'a>>,
    // Under pytest-xdist it starts with the worker's line: dropped.
    #[serde(default, deserialize_with = "longrepr_text")]
    pub longrepr: Option<String>,
    #[serde(default)]
    pub stdout: Option<String>,
    #[serde(default)]
    pub stderr: Option<String>,
    #[serde(default)]
    pub log: Option<Vec<LogRecord>>,
}

#[derive(Debug, Deserialize)]
pub(super) struct Crash<'a> {
    #[serde(default)]
    pub message: Option<String>,
    /// Absolute; read for a rerun attempt's location. Borrowed: every
    /// failure has one, and only a rerun's is used.
    #[serde(default, borrow)]
    pub path: Option<Cow<'a, str>>,
    /// 1-based (pytest's `ReprFileLocation`); none for an odd value (not a
    /// positive integer that fits), which costs the location, not the file.
    #[serde(default, deserialize_with = "line_number")]
    pub lineno: Option<u32>,
}

/// A 1-based line number from any JSON value; none for anything else.
fn line_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    let line = IgnoredOr::<u64>::deserialize(d)?;
    Ok(line
        .0
        .and_then(|l| u32::try_from(l).ok())
        .filter(|l| *l > 0))
}

/// A value of type `T`, or none for a JSON value of any other type (read
/// and dropped without allocating for a number or a string).
struct IgnoredOr<T>(Option<T>);

impl<'de> Deserialize<'de> for IgnoredOr<u64> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Line;
        impl<'de> Visitor<'de> for Line {
            type Value = IgnoredOr<u64>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a line number")
            }
            fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
                Ok(IgnoredOr(Some(v)))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(IgnoredOr(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(IgnoredOr(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(IgnoredOr(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(IgnoredOr(None))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(IgnoredOr(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(IgnoredOr(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(IgnoredOr(None))
            }
        }
        d.deserialize_any(Line)
    }
}

#[derive(Debug, Deserialize)]
pub(super) struct LogRecord {
    #[serde(default)]
    pub levelname: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub msg: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
pub(super) struct Collector {
    #[serde(default)]
    pub nodeid: String,
    #[serde(default)]
    pub outcome: Option<String>,
    #[serde(default)]
    pub longrepr: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct JsonWarning {
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub category: Option<String>,
    #[serde(default)]
    pub filename: Option<String>,
    #[serde(default)]
    pub lineno: Option<u32>,
}

/// A phase's `longrepr` without pytest-xdist's worker line
/// ([`pytest_text::without_worker_line`]).
fn longrepr_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let text = Option::<String>::deserialize(d)?;
    Ok(text.map(|t| match pytest_text::without_worker_line(&t) {
        kept if kept.len() == t.len() => t,
        kept => kept.to_string(),
    }))
}

/// The keys read; every other one is skipped unread.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Key {
    Duration,
    Created,
    Exitcode,
    Root,
    Tests,
    Collectors,
    Warnings,
    Summary,
    #[serde(rename = "pytest_mcp")]
    PytestMcp,
    #[serde(other)]
    Other,
}

/// pytest-json-report's document, read as it streams.
pub(super) struct Report;

impl<S: TestSink> Document<S> for Report {
    type Header = Header;
    const EXPECTING: &'static str = "a pytest-json-report object";

    fn visit<'de, A: MapAccess<'de>>(sink: &mut S, mut map: A) -> Result<Header, A::Error> {
        let mut header = Header::default();
        let mut tests_seen = false;
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Duration => header.duration = map.next_value()?,
                // Any value: an odd one costs the start time, not the file.
                Key::Created => {
                    header.created = map.next_value::<serde_json::Value>()?.as_f64();
                }
                Key::Exitcode => header.exitcode = map.next_value()?,
                Key::Root => header.root = map.next_value()?,
                // Tests already handed on cannot be taken back: a second
                // list is refused here, and the reader reads the document
                // again through a value, which keeps the last one.
                Key::Tests if tests_seen => return Err(de::Error::duplicate_field("tests")),
                Key::Tests => {
                    tests_seen = true;
                    let mut each = |t: JsonTest<'de>| sink.test(t);
                    let tests = Entries::new("a list of tests", &mut each);
                    header.has_tests = map.next_value_seed(tests)?;
                }
                Key::Collectors => {
                    header.collectors = map.next_value::<Option<_>>()?.unwrap_or_default()
                }
                Key::Warnings => {
                    header.warnings = map.next_value::<Option<_>>()?.unwrap_or_default()
                }
                Key::Summary => {
                    header.has_summary = map.next_value::<Option<IgnoredAny>>()?.is_some()
                }
                Key::PytestMcp => {
                    map.next_value::<IgnoredAny>()?;
                    header.pytest_mcp = true;
                }
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(header)
    }
}
