//! pytest-json-report's documents as they arrived, for the JSON report's
//! `json_report` key (docs/json-report.md).
//!
//! Kept as text, not as a `serde_json::Value`: a tree of a 41.5 MB report
//! took 13 times the file in memory (issue 24), and nothing in pytest-mcp
//! reads it, it is only written back out. It is written by transcoding
//! (`serde_transcode`): the text is read token by token straight into the
//! serializer writing the answer, so the answer is what serializing the
//! parsed document gave (the answer's indentation, serde_json's number
//! formatting and escapes) without ever building the tree.

use std::fmt;

use serde::Serialize;
use serde::ser::{Error as _, SerializeSeq, Serializer};

/// One or more pytest-json-report documents (several when shards were
/// merged: written as an array of them), each the JSON text the reader
/// parsed.
#[derive(Clone, PartialEq, Eq)]
pub struct RawReports {
    /// Each is a whole JSON value: the readers put only text they parsed.
    docs: Vec<String>,
}

impl RawReports {
    /// A document the caller has parsed as JSON. Text that is not JSON is
    /// not a panic later: serializing it fails with serde_json's error.
    pub fn parsed(text: String) -> RawReports {
        RawReports { docs: vec![text] }
    }

    /// Several sources' documents in order, as one (an array of them when
    /// there are several).
    pub fn join(all: impl IntoIterator<Item = RawReports>) -> Option<RawReports> {
        let docs: Vec<String> = all.into_iter().flat_map(|r| r.docs).collect();
        (!docs.is_empty()).then_some(RawReports { docs })
    }

    /// The documents as a JSON value (what the answer holds under
    /// `json_report`): for callers that change it, and tests.
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }

    /// An upper bound on the length in bytes of the longest string in the
    /// documents: the longest string literal as written (an escape is
    /// longer than the character it stands for). Finds, without a parse,
    /// whether any string can be too long.
    pub fn longest_string_bound(&self) -> usize {
        self.docs
            .iter()
            .map(|d| scan(d).longest_literal)
            .max()
            .unwrap_or(0)
    }
}

impl fmt::Debug for RawReports {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sizes: Vec<usize> = self.docs.iter().map(String::len).collect();
        write!(f, "RawReports(bytes {sizes:?})")
    }
}

impl Serialize for RawReports {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.docs[..] {
            [one] => Transcoded(one).serialize(serializer),
            docs => {
                let mut seq = serializer.serialize_seq(Some(docs.len()))?;
                for doc in docs {
                    seq.serialize_element(&Transcoded(doc))?;
                }
                seq.end()
            }
        }
    }
}

/// How deep arrays and objects nest in JSON text.
pub fn nesting_depth(text: &str) -> usize {
    scan(text).depth
}

/// Whether JSON text may not be written back as it was read, which only
/// a parse into a value can tell: it nests near serde_json's limit of 128
/// levels, or holds a number that may be past `f64`'s range (an exponent
/// of three digits or more, or 300 digits and more). A reader skips such
/// values unread; the writer would refuse them half way through.
pub fn needs_checking(text: &str) -> bool {
    let found = scan(text);
    found.depth >= 127 || found.risky_number
}

/// What one pass over JSON text finds without parsing it.
struct Scan {
    /// The longest string literal, between its quotes, as written.
    longest_literal: usize,
    /// The deepest nesting of arrays and objects.
    depth: usize,
    /// A number literal that may be out of `f64`'s range.
    risky_number: bool,
}

/// Whether a number literal may be past `f64`'s range: 300 characters
/// or more, or an exponent of three digits or more.
fn risky(number: &[u8]) -> bool {
    let exponent = number
        .iter()
        .position(|b| matches!(b, b'e' | b'E'))
        .map(|e| &number[e + 1..]);
    let digits = exponent.map_or(0, |x| x.iter().filter(|b| b.is_ascii_digit()).count());
    number.len() >= 300 || digits >= 3
}

/// One pass over the bytes of JSON text, strings (and their escapes)
/// told apart from the brackets and the numbers. A string's body is
/// skipped to its next quote or backslash at once (memchr): most of a
/// report's bytes are in strings.
fn scan(text: &str) -> Scan {
    let bytes = text.as_bytes();
    let mut found = Scan {
        longest_literal: 0,
        depth: 0,
        risky_number: false,
    };
    let (mut depth, mut i) = (0usize, 0usize);
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => {
                let start = i;
                i = string_end(bytes, i + 1);
                if i < bytes.len() {
                    found.longest_literal = found.longest_literal.max(i - start - 1);
                }
            }
            b'[' | b'{' => {
                depth += 1;
                found.depth = found.depth.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'-' | b'0'..=b'9' => {
                let rest = &bytes[i..];
                let len = rest
                    .iter()
                    .position(|b| !matches!(b, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-'))
                    .unwrap_or(rest.len());
                found.risky_number |= risky(&rest[..len]);
                i += len;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// The index of the quote that closes the string whose body starts at
/// `from` (escapes skipped); the text's length when none does.
fn string_end(bytes: &[u8], mut from: usize) -> usize {
    while let Some(rest) = bytes.get(from..) {
        match memchr::memchr2(b'"', b'\\', rest) {
            Some(k) if rest[k] == b'\\' => from += k + 2,
            Some(k) => return from + k,
            None => break,
        }
    }
    bytes.len()
}

/// One document, serialized as the value its text holds.
struct Transcoded<'a>(&'a str);

impl Serialize for Transcoded<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut reader = serde_json::Deserializer::from_str(self.0);
        let value = serde_transcode::transcode(&mut reader, serializer)?;
        reader.end().map_err(S::Error::custom)?;
        Ok(value)
    }
}

#[cfg(test)]
mod tests;
