//! Inputs the fuzzers (`fuzz/`) found, replayed through the same pipeline
//! the fuzz targets run (`fuzz/src/pipeline.rs`, compiled into this test),
//! plus what each input must give.
//!
//! Every file under `tests/fixtures/fuzz/<target>/` goes through its target:
//! `junit_reader/` as JUnit XML, `json_report_reader/` as pytest-json-report
//! JSON, `params/` as raw tool arguments. The pipeline panics on any broken
//! promise (a panic in the crate, JSON output that is not JSON, JUnit output
//! our reader cannot read back, Markdown over its budget, an accepted
//! parameter that breaks a rule).

use std::path::{Path, PathBuf};

#[path = "../fuzz/src/pipeline.rs"]
#[allow(dead_code)]
mod pipeline;

fn fixtures(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz")
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

fn fixture(target: &str, name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz")
        .join(target)
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_saved_junit_input_goes_through() {
    for path in fixtures("junit_reader") {
        let bytes = std::fs::read(&path).expect("read fixture");
        let _ = pipeline::junit(&bytes);
    }
}

#[test]
fn every_saved_json_report_input_goes_through() {
    for path in fixtures("json_report_reader") {
        let bytes = std::fs::read(&path).expect("read fixture");
        let _ = pipeline::json_report(&bytes);
    }
}

#[test]
fn every_saved_params_input_goes_through() {
    for path in fixtures("params") {
        let bytes = std::fs::read(&path).expect("read fixture");
        let _ = pipeline::params(&bytes);
    }
}

/// json_report_reader, 2026-11-21: an object with a key given twice (here a
/// test's `call`) was refused for Markdown ("duplicate field `call`") but
/// read for JSON, which parses into a `serde_json::Value` first (last key
/// wins). Now both read it, the last key winning as in Python's json.
#[test]
fn a_duplicate_key_reads_the_same_for_every_format() {
    use pytest_mcp::model::Outcome;
    use pytest_mcp::render::Format;
    use pytest_mcp::report::{Input, build_run};

    for name in ["duplicate-key.json", "duplicate-key-fuzzed.json"] {
        let bytes = fixture("json_report_reader", name);
        let run = pipeline::json_report(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let inputs = [Input {
            name: name.to_string(),
            contents: Ok(bytes),
        }];
        let markdown = build_run(&inputs, Format::Markdown).expect("read for Markdown");
        let json = build_run(&inputs, Format::Json).expect("read for JSON");
        assert_eq!(markdown.tests, json.tests, "{name}");
        assert_eq!(run.tests, markdown.tests, "{name}");
    }
    let run =
        pipeline::json_report(&fixture("json_report_reader", "duplicate-key.json")).expect("reads");
    assert_eq!(run.tests.len(), 1);
    // The second `call` wins: the test failed with its message.
    assert_eq!(run.tests[0].outcome, Outcome::Failed);
    assert!(
        run.tests[0].message().is_some_and(|m| m.contains("boom")),
        "{:?}",
        run.tests[0].message()
    );
}
