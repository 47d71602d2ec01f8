//! Folds the runs read from several sources into one.
//!
//! Two cases matter: the JSON report and the JUnit file of the *same* run
//! (one result per test, no double counting: the JSON report wins per test,
//! JUnit fills what it lacks, such as an xfail's reason or a `file`/`line`),
//! and shards of one run (their union). Tests are matched by node id, but only
//! across sources: a file that lists one id twice (a rerun) keeps both.

use std::collections::HashMap;

use crate::model::{CollectionError, Run, SourceKind, TestResult};

/// Merges runs into one. The order of `runs` is the order of the inputs; JSON
/// reports are merged first whatever their position, so they win.
pub fn merge(runs: Vec<Run>) -> Run {
    let (json, other): (Vec<Run>, Vec<Run>) = runs
        .into_iter()
        .partition(|r| r.sources.iter().any(|s| s.kind == SourceKind::JsonReport));
    let json_duration = sum_durations(&json);
    let other_duration = sum_durations(&other);
    let has_json = !json.is_empty();

    let mut merged = Run::default();
    let mut raw_reports = Vec::new();
    for run in json.into_iter().chain(other) {
        let index: HashMap<String, usize> = merged
            .tests
            .iter()
            .enumerate()
            .rev()
            .map(|(i, t)| (t.node_id.clone(), i))
            .collect();
        for test in run.tests {
            match index.get(&test.node_id) {
                Some(&i) => fill_test(&mut merged.tests[i], test),
                None => merged.tests.push(test),
            }
        }
        for error in run.collection_errors {
            match merged
                .collection_errors
                .iter_mut()
                .find(|e| e.file == error.file)
            {
                Some(existing) => fill_collection_error(existing, error),
                None => merged.collection_errors.push(error),
            }
        }
        merged.warnings.extend(run.warnings);
        merged.sources.extend(run.sources);
        merged.notes.extend(run.notes);
        merged.exit_code = merged.exit_code.or(run.exit_code);
        if merged.text_output.is_none() {
            merged.text_output = run.text_output;
        }
        if let Some(raw) = run.json_report {
            raw_reports.push(raw);
        }
    }
    merged.duration = if has_json {
        json_duration
    } else {
        other_duration
    };
    merged.json_report = match raw_reports.len() {
        0 => None,
        1 => raw_reports.pop(),
        // Several JSON reports (shards): keep them all rather than pick one.
        _ => Some(serde_json::Value::Array(raw_reports)),
    };
    merged
}

fn sum_durations(runs: &[Run]) -> Option<f64> {
    runs.iter()
        .filter_map(|r| r.duration)
        .fold(None, |acc, d| Some(acc.unwrap_or(0.0) + d))
}

/// Fills what `kept` lacks from `extra`, the same test read from a source
/// that ranks lower. The outcome is never changed.
fn fill_test(kept: &mut TestResult, extra: TestResult) {
    fn fill<T>(slot: &mut Option<T>, value: Option<T>) {
        if slot.is_none() {
            *slot = value;
        }
    }
    fill(&mut kept.duration, extra.duration);
    fill(&mut kept.traceback, extra.traceback);
    fill(&mut kept.phase, extra.phase);
    fill(&mut kept.stdout, extra.stdout);
    fill(&mut kept.stderr, extra.stderr);
    fill(&mut kept.log, extra.log);
    fill(&mut kept.xfail, extra.xfail);
    // Only take a message from a source that agrees on the outcome: a
    // skip reason must not become a failure message.
    if kept.outcome == extra.outcome {
        fill(&mut kept.message, extra.message);
    }
    match (&mut kept.location, extra.location) {
        (None, loc) => kept.location = loc,
        (Some(k), Some(e)) if k.file == e.file && k.line.is_none() => k.line = e.line,
        _ => {}
    }
}

fn fill_collection_error(kept: &mut CollectionError, extra: CollectionError) {
    if kept.error_type.is_none() {
        kept.error_type = extra.error_type;
    }
    if kept.line.is_none() {
        kept.line = extra.line;
    }
    if kept.traceback.is_none() {
        kept.traceback = extra.traceback;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Outcome, SourceInfo, Xfail};

    fn run(kind: SourceKind, tests: Vec<TestResult>, duration: f64) -> Run {
        Run {
            tests,
            duration: Some(duration),
            sources: vec![SourceInfo {
                kind,
                name: "x".into(),
                entries: 0,
            }],
            ..Run::default()
        }
    }

    #[test]
    fn json_wins_and_junit_fills_gaps() {
        let mut from_json = TestResult::new("t.py::a", Outcome::Skipped);
        from_json.xfail = Some(Xfail::XFailed);
        let mut from_junit = TestResult::new("t.py::a", Outcome::Skipped);
        from_junit.message = Some("known bug".into());
        from_junit.xfail = Some(Xfail::XFailed);
        let mut failed_junit = TestResult::new("t.py::b", Outcome::Failed);
        failed_junit.message = Some("boom".into());
        let passed_json = TestResult::new("t.py::b", Outcome::Passed);

        // JUnit given first: JSON still wins.
        let merged = merge(vec![
            run(SourceKind::PytestJunit, vec![from_junit, failed_junit], 2.0),
            run(SourceKind::JsonReport, vec![from_json, passed_json], 1.0),
        ]);
        assert_eq!(merged.tests.len(), 2);
        assert_eq!(merged.tests[0].message.as_deref(), Some("known bug"));
        assert_eq!(merged.tests[1].outcome, Outcome::Passed);
        assert_eq!(merged.tests[1].message, None);
        assert_eq!(merged.duration, Some(1.0));
    }

    #[test]
    fn shards_are_a_union_and_duplicates_within_a_file_stay() {
        let a = TestResult::new("a", Outcome::Passed);
        let b = TestResult::new("b", Outcome::Failed);
        let merged = merge(vec![
            run(SourceKind::Junit, vec![a.clone(), a.clone()], 1.0),
            run(SourceKind::Junit, vec![b], 2.0),
        ]);
        assert_eq!(merged.tests.len(), 3);
        assert_eq!(merged.duration, Some(3.0));
    }
}
