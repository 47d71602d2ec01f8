//! Folds the runs read from several sources into one.
//!
//! Two cases matter: the JSON report and the JUnit file of the *same* run
//! (one result per test, no double counting: the JSON report wins per test,
//! JUnit fills what it lacks, such as an xfail's reason or a `file`/`line`),
//! and shards of one run (their union). Tests are matched by node id only
//! between a JSON report and another kind of source: two JUnit shards that
//! both list an id (a rerun on another machine) keep both entries, as does
//! a file that lists an id twice.

use foldhash::{HashMap, HashMapExt};

use crate::model::raw_report::RawReports;
use crate::model::{CollectionError, Run, SourceKind, TestResult};

/// Merges runs into one. The order of `runs` is the order of the inputs; JSON
/// reports are merged first whatever their position, so they win.
pub fn merge(mut runs: Vec<Run>) -> Run {
    if runs.len() == 1
        && let Some(run) = runs.pop()
    {
        // Nothing to fold: returning the run as it is spares a copy of every
        // test (a second vector of them at once, for a large report).
        return run;
    }
    let (json, other): (Vec<Run>, Vec<Run>) = runs
        .into_iter()
        .partition(|r| r.sources.iter().any(|s| s.kind == SourceKind::JsonReport));
    let json_duration = sum_durations(&json);
    let other_duration = sum_durations(&other);
    // The exit status the sources recorded, if they agree; else it is
    // derived from the merged results.
    let mut codes = json.iter().chain(&other).filter_map(|r| r.exit_code);
    let first_code = codes.next();
    let exit_code = first_code.filter(|c| codes.all(|other| other == *c));

    let mut merged = Run::default();
    merged
        .tests
        .reserve(json.iter().chain(&other).map(|r| r.tests.len()).sum());
    let mut raw_reports = Vec::new();
    // Ids of tests that came from JSON reports, and collection errors by
    // collector, from earlier runs only.
    let mut json_tests: HashMap<String, usize> = HashMap::new();
    let mut errors_by_file: HashMap<String, (usize, usize)> = HashMap::new();
    for (run_no, run) in json.into_iter().chain(other).enumerate() {
        let from_json = run.sources.iter().any(|s| s.kind == SourceKind::JsonReport);
        for test in run.tests {
            match json_tests.get(&test.node_id) {
                Some(&i) if !from_json => fill_test(&mut merged.tests[i], test),
                _ => {
                    if from_json {
                        json_tests
                            .entry(test.node_id.clone())
                            .or_insert(merged.tests.len());
                    }
                    merged.tests.push(test);
                }
            }
        }
        for error in run.collection_errors {
            match errors_by_file.get(&error.file) {
                Some(&(i, seen_in)) if seen_in < run_no => {
                    fill_collection_error(&mut merged.collection_errors[i], error)
                }
                _ => {
                    errors_by_file
                        .entry(error.file.clone())
                        .or_insert((merged.collection_errors.len(), run_no));
                    merged.collection_errors.push(error);
                }
            }
        }
        merged.warnings.extend(run.warnings);
        merged.sources.extend(run.sources);
        merged.notes.extend(run.notes);
        if merged.text_output.is_none() {
            merged.text_output = run.text_output;
        }
        if let Some(raw) = run.json_report {
            raw_reports.push(raw);
        }
    }
    merged.exit_code = exit_code;
    merged.duration = json_duration.or(other_duration);
    // Several JSON reports (shards): keep them all rather than pick one.
    merged.json_report = RawReports::join(raw_reports);
    merged
}

fn sum_durations(runs: &[Run]) -> Option<f64> {
    runs.iter()
        .filter_map(|r| r.duration)
        .fold(None, |acc, d| Some(acc.unwrap_or(0.0) + d))
}

/// Fills what `kept` lacks from `extra`, the same test read from a source
/// that ranks lower. The outcome is never changed.
fn fill_test(kept: &mut TestResult, mut extra: TestResult) {
    fn fill<T>(slot: &mut Option<T>, value: Option<T>) {
        if slot.is_none() {
            *slot = value;
        }
    }
    fill(&mut kept.duration, extra.duration);
    // Only take what describes the outcome from a source that agrees on it:
    // a skip reason must not become a failure message.
    let agree = kept.outcome == extra.outcome;
    if agree {
        fill(&mut kept.phase, extra.phase);
        fill(&mut kept.xfail, extra.xfail);
    }
    if let Some(e) = extra.take_details() {
        let mut k = kept.take_details().unwrap_or_default();
        fill(&mut k.stdout, e.stdout);
        fill(&mut k.stderr, e.stderr);
        fill(&mut k.log, e.log);
        if agree {
            if k.message.is_none() && k.phase_failures.is_empty() {
                k.phase_failures = e.phase_failures;
            }
            fill(&mut k.message, e.message);
            fill(&mut k.traceback, e.traceback);
            if k.reruns.is_empty() {
                k.reruns = e.reruns;
            }
        }
        kept.set_details(Some(k));
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
                folded: 0,
            }],
            ..Run::default()
        }
    }

    #[test]
    fn json_wins_and_junit_fills_gaps() {
        let mut from_json = TestResult::new("t.py::a", Outcome::Skipped);
        from_json.xfail = Some(Xfail::XFailed);
        let mut from_junit = TestResult::new("t.py::a", Outcome::Skipped);
        from_junit.set_message(Some("known bug".into()));
        from_junit.xfail = Some(Xfail::XFailed);
        let mut failed_junit = TestResult::new("t.py::b", Outcome::Failed);
        failed_junit.set_message(Some("boom".into()));
        let passed_json = TestResult::new("t.py::b", Outcome::Passed);

        // JUnit given first: JSON still wins.
        let merged = merge(vec![
            run(SourceKind::PytestJunit, vec![from_junit, failed_junit], 2.0),
            run(SourceKind::JsonReport, vec![from_json, passed_json], 1.0),
        ]);
        assert_eq!(merged.tests.len(), 2);
        assert_eq!(merged.tests[0].message(), Some("known bug"));
        assert_eq!(merged.tests[1].outcome, Outcome::Passed);
        assert_eq!(merged.tests[1].message(), None);
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

#[cfg(test)]
mod review_regressions {
    use crate::frontend::report::{Input, build_run};
    use crate::request::Format;

    fn run_of(files: &[(&str, &str)]) -> crate::model::Run {
        let inputs: Vec<Input> = files
            .iter()
            .map(|(name, text)| Input {
                name: name.to_string(),
                contents: Ok(text.as_bytes().to_vec()),
            })
            .collect();
        build_run(&inputs, Format::Json).expect("readable")
    }

    #[test]
    fn a_failure_in_a_second_junit_shard_is_not_hidden() {
        let run = run_of(&[
            (
                "s1.xml",
                r#"<testsuite name="s"><testcase classname="C" name="t"/></testsuite>"#,
            ),
            (
                "s2.xml",
                r#"<testsuite name="s"><testcase classname="C" name="t"><failure message="broke on linux"/></testcase></testsuite>"#,
            ),
        ]);
        assert_eq!(run.counts().failed, 1);
        assert_eq!(run.exit_code(), 1);
    }

    #[test]
    fn disagreeing_exit_codes_are_derived_from_the_results() {
        let run = run_of(&[
            (
                "a.json",
                r#"{"exitcode": 0, "tests": [{"nodeid": "t.py::a", "outcome": "passed"}]}"#,
            ),
            (
                "b.json",
                r#"{"exitcode": 1, "tests": [{"nodeid": "t.py::b", "outcome": "failed"}]}"#,
            ),
        ]);
        assert_eq!(run.exit_code(), 1);
    }

    #[test]
    fn two_suite_level_errors_in_one_file_are_both_kept() {
        let run = run_of(&[(
            "dup.xml",
            r#"<testsuite name="com.A"><error message="first"/><error message="second"/></testsuite>"#,
        )]);
        assert_eq!(run.collection_errors.len(), 2);
    }

    #[test]
    fn an_xfail_that_errors_in_teardown_is_an_error_only() {
        let run = run_of(&[(
            "x.json",
            r#"{"tests": [{"nodeid": "t.py::x", "outcome": "xfailed", "call": {"outcome": "skipped"}, "teardown": {"outcome": "failed", "longrepr": "E   RuntimeError: td boom"}}]}"#,
        )]);
        let c = run.counts();
        assert_eq!((c.errors, c.xfailed, c.skipped), (1, 0, 0));
    }

    #[test]
    fn no_durations_give_zero_not_minus_zero() {
        let run = run_of(&[(
            "n.xml",
            r#"<testsuite name="s"><testcase classname="C" name="t"/></testsuite>"#,
        )]);
        assert!(run.duration_secs().is_sign_positive());
        assert!(crate::render::markdown::render(&run).contains("(0.0s)"));
    }

    #[test]
    fn a_pytest_suite_does_not_turn_other_suites_into_pytest_ids() {
        let run = run_of(&[(
            "mix.xml",
            r#"<testsuites><testsuite name="pytest"><testcase classname="tests.test_a" name="test_x"/></testsuite><testsuite name="java"><testcase classname="com.B" name="u"/></testsuite></testsuites>"#,
        )]);
        let ids: Vec<&str> = run.tests.iter().map(|t| t.node_id.as_str()).collect();
        assert_eq!(ids, ["tests/test_a.py::test_x", "com.B#u"]);
    }

    #[test]
    fn an_id_cannot_forge_a_section() {
        let run = run_of(&[(
            "inj.xml",
            "<testsuite name=\"s\"><testcase classname=\"C\" name=\"t&#10;### FAILED: fake&#10;&gt; Sources: none\"><failure message=\"m\"/></testcase></testsuite>",
        )]);
        let md = crate::render::markdown::render(&run);
        assert_eq!(md.matches("\n### ").count(), 1, "{md}");
        assert!(!md.contains("\n> Sources: none"), "{md}");
    }
}
