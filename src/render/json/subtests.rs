//! A test's failed subtests in its JSON entry (docs/json-report.md,
//! `tests[].subtests`): what each was called (`label`, pytest's own
//! words; `msg` and `params`, the arguments it was given), its message,
//! its place and its traceback.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use crate::model::{Subtest, TestResult};

/// One failed subtest.
#[derive(Serialize)]
pub(super) struct SubtestEntry<'a> {
    /// `[msg] (i=2)`, as pytest names it; `null` when the source does not
    /// say (pytest's JUnit XML).
    label: Option<String>,
    msg: Option<&'a str>,
    /// The keyword arguments in the order given, each value its repr;
    /// `null` when the source does not say.
    params: Option<Params<'a>>,
    message: Option<&'a str>,
    file: Option<&'a str>,
    line: Option<u32>,
    traceback: Option<&'a str>,
}

/// Keyword arguments as an object, in the order given.
pub(super) struct Params<'a>(&'a [(String, String)]);

impl Serialize for Params<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'a> SubtestEntry<'a> {
    fn of(s: &'a Subtest) -> Self {
        SubtestEntry {
            label: s.label.as_ref().map(ToString::to_string),
            msg: s.label.as_ref().and_then(|l| l.msg.as_deref()),
            params: s.label.as_ref().map(|l| Params(&l.params)),
            message: s.message.as_deref(),
            file: s.location.as_ref().map(|l| &*l.file),
            line: s.location.as_ref().and_then(|l| l.line),
            traceback: s.traceback.as_deref(),
        }
    }
}

/// The failed subtests of `t`, when it has any.
pub(super) fn entries(t: &TestResult) -> Option<Vec<SubtestEntry<'_>>> {
    Some(t.subtests()?.failed.iter().map(SubtestEntry::of).collect())
}
