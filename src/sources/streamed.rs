//! A JSON document read as it streams, its tests handed on as they come
//! (the pytest-json-report and CTRF readers): the visitor of its top-level
//! object, and the read again through a value when the streaming read
//! refuses what a JSON value keeps.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserializer, MapAccess, Visitor};

use super::{ParseError, json_error};

/// A kind of document: what the keys of its top-level object do, their
/// tests going to a sink of type `S`.
pub(crate) trait Document<S> {
    /// What the document says besides its tests.
    type Header;
    /// What the object is, for the error of a value of another type.
    const EXPECTING: &'static str;
    /// Reads the object's keys, handing each test to `sink`.
    fn visit<'de, A: MapAccess<'de>>(sink: &mut S, map: A) -> Result<Self::Header, A::Error>;
}

/// Reads a document of kind `K` from `d`, each test going to `sink`.
pub(crate) fn read<'de, K, S, D>(d: D, sink: &mut S) -> Result<K::Header, D::Error>
where
    K: Document<S>,
    D: Deserializer<'de>,
{
    d.deserialize_map(Object::<K, S> {
        sink,
        kind: PhantomData,
    })
}

/// The top-level object's visitor.
struct Object<'s, K, S> {
    sink: &'s mut S,
    kind: PhantomData<K>,
}

impl<'de, K: Document<S>, S> Visitor<'de> for Object<'_, K, S> {
    type Value = K::Header;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(K::EXPECTING)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<K::Header, A::Error> {
        K::visit(self.sink, map)
    }
}

/// Reads `text`, a document of kind `K` (`what`, for its errors), its
/// tests into a sink `new` makes. serde's derive refuses a key given twice
/// in one object (and the streaming read a second list of tests, whose
/// first one's tests are already handed on); a JSON value (and Python's
/// json, JavaScript's `JSON.parse`) keeps the last one: such a file is
/// read again, from the start, through a value, only on this error path.
pub(crate) fn read_text<K: Document<S>, S>(
    text: &str,
    what: &str,
    new: impl Fn() -> S,
) -> Result<(K::Header, S), ParseError> {
    let mut tests = new();
    let mut reader = serde_json::Deserializer::from_str(text);
    let streamed = read::<K, S, _>(&mut reader, &mut tests).and_then(|header| {
        reader.end()?;
        Ok(header)
    });
    match streamed {
        Ok(header) => Ok((header, tests)),
        Err(e) => {
            // The tests read before the error go before the value comes.
            drop(tests);
            let value = serde_json::from_str::<serde_json::Value>(text)
                .map_err(|_| json_error(&e, what, text))?;
            let mut tests = new();
            let header =
                read::<K, S, _>(&value, &mut tests).map_err(|_| json_error(&e, what, text))?;
            Ok((header, tests))
        }
    }
}
