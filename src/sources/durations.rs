//! Each test's durations from an earlier run's results file, for a shard
//! plan (docs/sharding.md).
//!
//! pytest-json-report keeps every test's setup, call and teardown, which
//! is what tells a module's fixture (paid in the first test's setup) from
//! the tests' own time, so its entries are read here for just that. JUnit
//! XML and CTRF keep one duration per test: they are read by their own
//! readers and give totals.

use serde::Deserialize;

use crate::plan::Timing;
use crate::sources::{InputFormat, ParseError, ReadOptions, json_error, sniff, without_bom};

/// Each test's node id and durations, in the file's order; a test the
/// file lists more than once (a rerun's attempts) keeps its last entry.
/// Tests without any duration are left out.
pub fn read(input: &[u8], name: &str) -> Result<Vec<(String, Timing)>, ParseError> {
    match sniff(input)? {
        InputFormat::JsonReport => phases(input),
        InputFormat::JunitXml | InputFormat::Ctrf => {
            let run = super::read(input, name, ReadOptions::default())?;
            Ok(run
                .tests
                .into_iter()
                .filter_map(|t| t.duration.map(|d| (t.node_id, Timing::total(d))))
                .collect())
        }
    }
}

/// The part of pytest-json-report's document a plan needs (serde skips
/// every other key, without keeping it).
#[derive(Deserialize)]
struct Document {
    #[serde(default)]
    tests: Option<Vec<Entry>>,
}

#[derive(Deserialize)]
struct Entry {
    nodeid: String,
    #[serde(default)]
    setup: Option<Stage>,
    #[serde(default)]
    call: Option<Stage>,
    #[serde(default)]
    teardown: Option<Stage>,
}

#[derive(Deserialize)]
struct Stage {
    #[serde(default)]
    duration: Option<f64>,
}

fn phases(input: &[u8]) -> Result<Vec<(String, Timing)>, ParseError> {
    let body = without_bom(input);
    let document: Document = serde_json::from_slice(body).map_err(|e| {
        json_error(
            &e,
            "a pytest-json-report document",
            &String::from_utf8_lossy(body),
        )
    })?;
    let mut out: Vec<(String, Timing)> = Vec::new();
    for entry in document.tests.unwrap_or_default() {
        let seconds = |stage: &Option<Stage>| stage.as_ref().and_then(|s| s.duration);
        let (setup, call, teardown) = (
            seconds(&entry.setup),
            seconds(&entry.call),
            seconds(&entry.teardown),
        );
        if setup.is_none() && call.is_none() && teardown.is_none() {
            continue;
        }
        let timing = Timing::phased(
            setup.unwrap_or(0.0),
            call.unwrap_or(0.0),
            teardown.unwrap_or(0.0),
        );
        // A rerun's attempts come before the test's own entry.
        match out.last_mut() {
            Some(last) if last.0 == entry.nodeid => last.1 = timing,
            _ => out.push((entry.nodeid, timing)),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
