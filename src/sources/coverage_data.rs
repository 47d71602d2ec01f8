//! coverage.py's reports as projects keep them (`report --coverage`,
//! docs/coverage.md): `coverage.xml` (Cobertura, as `coverage xml` and
//! pytest-cov write it) and `coverage.json` (`coverage json`). Each says,
//! per measured file, its statements (coverage.py's: a multi-line statement
//! at its first line, excluded lines and docstrings left out) and those that
//! ran. Several reports (shards) are one union. `.coverage` data files hold
//! no statements and are judged by coverage.py itself
//! (`runner::coverage`). Pure: bytes in, lines out.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use quick_xml::XmlVersion;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;
use serde::Deserialize;

/// What one or more reports say of the files they measured.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Measured {
    /// By the path the report gives (Cobertura: the class's `filename`,
    /// relative to one of `sources`).
    pub files: BTreeMap<String, Lines>,
    /// Cobertura's `<source>` folders, the files' paths relative to them.
    pub sources: Vec<String>,
}

/// A measured file's statements and those of them that ran.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Lines {
    pub statements: BTreeSet<u32>,
    pub executed: BTreeSet<u32>,
}

/// What a coverage file is, from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataKind {
    Cobertura,
    Json,
    /// coverage.py's SQLite data file (`.coverage`, `.coverage.*`).
    DataFile,
}

/// The kind of `bytes`, or why it is none coverage.py writes.
pub fn sniff(bytes: &[u8]) -> Result<DataKind, String> {
    // A byte-order mark some tools write before the XML is no content.
    let start = bytes
        .strip_prefix(b"\xef\xbb\xbf")
        .unwrap_or(bytes)
        .trim_ascii_start();
    match start.first() {
        _ if bytes.starts_with(b"SQLite format 3\0") => Ok(DataKind::DataFile),
        Some(b'<') => Ok(DataKind::Cobertura),
        Some(b'{') => Ok(DataKind::Json),
        _ => Err(
            "not coverage.py's data: expected coverage.xml (Cobertura), coverage.json or a .coverage data file"
                .into(),
        ),
    }
}

impl Measured {
    /// `other`'s files added: statements and lines run are unions.
    pub fn add(&mut self, other: Measured) {
        for source in other.sources {
            if !self.sources.contains(&source) {
                self.sources.push(source);
            }
        }
        for (path, lines) in other.files {
            let mine = self.files.entry(path).or_default();
            if mine.statements.is_empty() {
                *mine = lines;
                continue;
            }
            mine.statements.extend(lines.statements);
            mine.executed.extend(lines.executed);
        }
    }

    /// Every name a file goes by: as written, and under each source.
    pub fn names<'a>(&'a self, name: &'a str) -> impl Iterator<Item = String> + 'a {
        let joined = self
            .sources
            .iter()
            .filter(move |s| !s.is_empty() && !name.starts_with('/'))
            .map(move |s| format!("{}/{name}", s.trim_end_matches(['/', '\\'])));
        std::iter::once(name.to_string()).chain(joined)
    }
}

/// A Cobertura report: every `<class filename>`'s `<line number hits>`,
/// the file named under each `<source>` (and as written when there is
/// none).
pub fn cobertura(bytes: &[u8]) -> Result<Measured, String> {
    let text = String::from_utf8_lossy(bytes);
    let mut reader = Reader::from_str(&text);
    reader.config_mut().check_end_names = true;
    let (mut sources, mut in_source) = (Vec::<String>::new(), false);
    // Each class's lines as read, (number, ran): sets are built once, in
    // bulk, at the end (50,000 inserts one by one cost more than the XML).
    let mut classes: Vec<(String, Vec<(u32, bool)>)> = Vec::new();
    let (mut saw_root, mut open) = (false, 0usize);
    loop {
        let event = reader.read_event().map_err(|e| {
            let at = reader.buffer_position();
            format!("not well-formed XML at byte {at}: {e}")
        })?;
        let (e, start) = match event {
            Event::Eof if open > 0 => {
                return Err("the XML ends before its elements are closed".into());
            }
            Event::Eof => break,
            Event::Start(e) => {
                open += 1;
                (e, true)
            }
            Event::Empty(e) => (e, false),
            Event::Text(t) if in_source => {
                let source = t.xml10_content();
                sources.push(source.trim().to_string());
                continue;
            }
            Event::End(e) => {
                open = open.saturating_sub(1);
                in_source &= e.local_name().as_ref() != "source";
                continue;
            }
            _ => continue,
        };
        match e.local_name().as_ref() {
            "coverage" => saw_root = true,
            "source" => in_source = start,
            "class" => classes.push((attr(&e, b"filename").unwrap_or_default(), Vec::new())),
            "line" => {
                if let (Some((number, ran)), Some(last)) = (line(&e), classes.last_mut()) {
                    last.1.push((number, ran));
                }
            }
            _ => {}
        }
    }
    if !saw_root {
        return Err("no <coverage> element: not a Cobertura report".into());
    }
    let mut measured = Measured {
        sources: sources.into_iter().filter(|s| !s.is_empty()).collect(),
        ..Measured::default()
    };
    for (filename, mut lines) in classes.into_iter().filter(|(f, _)| !f.is_empty()) {
        lines.sort_unstable();
        let read = Lines {
            statements: lines.iter().map(|(n, _)| *n).collect(),
            executed: lines
                .iter()
                .filter(|(_, ran)| *ran)
                .map(|(n, _)| *n)
                .collect(),
        };
        measured.add(Measured {
            files: BTreeMap::from([(filename, read)]),
            sources: Vec::new(),
        });
    }
    Ok(measured)
}

/// An attribute's value, references resolved.
fn attr(e: &BytesStart, key: &[u8]) -> Option<String> {
    let a = e
        .attributes()
        .with_checks(false)
        .flatten()
        .find(|a| a.key.local_name().as_ref().as_bytes() == key)?;
    let value: Cow<str> = a
        .normalized_value_with(XmlVersion::Implicit1_0, 1, resolve_predefined_entity)
        .unwrap_or_else(|_| a.value.clone());
    Some(value.into_owned())
}

/// A `<line>`'s number and whether it ran (`hits` above 0; some writers
/// give hits as a float, "1.0"), its attributes read in one pass, as
/// written (numbers hold no references).
fn line(e: &BytesStart) -> Option<(u32, bool)> {
    let (mut number, mut ran) = (None, false);
    for a in e.attributes().with_checks(false).flatten() {
        match a.key.local_name().as_ref() {
            "number" => number = a.value.trim().parse().ok(),
            "hits" => {
                let hits = a.value.trim();
                ran = match hits.parse::<u64>() {
                    Ok(h) => h > 0,
                    Err(_) => hits.parse::<f64>().is_ok_and(|h| h > 0.0),
                };
            }
            _ => {}
        }
    }
    Some((number?, ran))
}

/// `coverage json`'s document: the parts read.
#[derive(Deserialize)]
struct JsonReport {
    files: BTreeMap<String, JsonFile>,
}

#[derive(Deserialize)]
struct JsonFile {
    #[serde(default)]
    executed_lines: Vec<u32>,
    #[serde(default)]
    missing_lines: Vec<u32>,
}

/// A `coverage json` report: each file's executed and missing lines.
pub fn json(bytes: &[u8]) -> Result<Measured, String> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let report: JsonReport = serde_json::from_slice(bytes).map_err(|e| {
        format!(
            "line {}, column {}: not coverage.py's JSON report ({e})",
            e.line(),
            e.column()
        )
    })?;
    let files = report
        .files
        .into_iter()
        .map(|(path, f)| {
            let executed: BTreeSet<u32> = f.executed_lines.into_iter().collect();
            let mut statements = executed.clone();
            statements.extend(f.missing_lines);
            (
                path,
                Lines {
                    statements,
                    executed,
                },
            )
        })
        .collect();
    Ok(Measured {
        files,
        sources: Vec::new(),
    })
}

#[cfg(test)]
mod tests;
