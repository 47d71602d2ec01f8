//! Folds the runs read from several sources into one.
//!
//! Two cases matter: the files of the *same* run (one result per test, no
//! double counting) and shards of one run (their union). The kinds of file
//! rank: a pytest-json-report file first, then CTRF, then JUnit. The
//! higher-ranked file wins per test and a lower one fills what it lacks
//! (JUnit an xfail's reason or a `file`/`line`, CTRF a flaky attempt's
//! message). Tests are matched by id only against a file of a higher
//! rank: two JUnit (or two CTRF) shards that both list an id (a rerun on
//! another machine) keep both entries, as does a file that lists an id
//! twice.

use foldhash::{HashMap, HashMapExt};

use crate::model::raw_report::RawReports;
use crate::model::{
    CollectionError, DurationSum, Outcome, Run, SourceKind, Subtest, Subtests, TestResult,
};
use crate::pytest_text::paths_match;

/// How a run's kind of file ranks in a merge: lower wins.
fn rank(run: &Run) -> u8 {
    let kinds = || run.sources.iter().map(|s| s.kind);
    if kinds().any(|k| k == SourceKind::JsonReport) {
        0
    } else if kinds().any(|k| k == SourceKind::Ctrf) {
        1
    } else {
        2
    }
}

/// Merges runs into one. The order of `runs` is the order of the inputs;
/// JSON reports are merged first whatever their position, then CTRF, then
/// the rest, so that the higher-ranked win.
pub fn merge(mut runs: Vec<Run>) -> Run {
    if runs.len() == 1
        && let Some(run) = runs.pop()
    {
        // Nothing to fold: returning the run as it is spares a copy of every
        // test (a second vector of them at once, for a large report).
        return run;
    }
    // Stable: inputs of one rank keep their order.
    runs.sort_by_key(rank);
    let duration = best_duration(&runs);
    let started = runs.iter().filter_map(|r| r.started).reduce(f64::min);
    let exit_code = recorded_exit(&runs);
    sum_listed_durations(&mut runs);

    let mut merged = Run::default();
    merged
        .tests
        .reserve(runs.iter().map(|r| r.tests.len()).sum());
    let mut raw_reports = Vec::new();
    // Ids of tests from ranked files (JSON reports, CTRF), with their rank,
    // and collection errors by collector, from earlier runs only.
    let mut ranked: HashMap<String, (usize, u8, bool)> = HashMap::new();
    let mut errors_by_file: HashMap<String, (usize, usize)> = HashMap::new();
    for (run_no, run) in runs.into_iter().enumerate() {
        let this_rank = rank(&run);
        let recorded = run.attempts_recorded;
        for test in run.tests {
            match ranked.get(&test.node_id) {
                Some(&(i, r, all)) if r < this_rank => fill_test(&mut merged.tests[i], test, all),
                _ => {
                    if this_rank < 2 {
                        ranked.entry(test.node_id.clone()).or_insert((
                            merged.tests.len(),
                            this_rank,
                            recorded,
                        ));
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
        // Passes counted, not listed (JUnit XML files merged for a
        // Markdown rendering: none matched by id), and the sum of every
        // test's duration: exact (`DurationSum`), so the merge's is that
        // of the same files read listed, to the bit, and `report` reads
        // each file once (`report::RenderOnly`).
        merged.unlisted.append(run.unlisted);
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
    merged.recorded_exit = exit_code;
    merged.duration = duration;
    merged.started = started;
    // Several JSON reports (shards): keep them all rather than pick one.
    merged.json_report = RawReports::join(raw_reports);
    merged
}

/// When some of `runs` counted passes: the duration sum of each that
/// counted none ([`crate::model::Unlisted::tests_duration`], else left
/// unset), so that the merge's sum is that of every test.
fn sum_listed_durations(runs: &mut [Run]) {
    if runs.iter().any(|r| r.unlisted.passed > 0) {
        for run in runs.iter_mut().filter(|r| r.unlisted.passed == 0) {
            run.unlisted.tests_duration =
                DurationSum::of(run.tests.iter().filter_map(|t| t.duration));
        }
    }
}

/// The exit status the sources recorded, if they agree; else none, and
/// it is derived from the merged results. A 0 stands only when every
/// source with tests recorded one: a JUnit file beside a passing shard's
/// JSON report may hold failures, and a 0 over them would read as a
/// plugin's doing.
fn recorded_exit(runs: &[Run]) -> Option<i32> {
    let mut codes = runs.iter().filter_map(|r| r.recorded_exit);
    let first = codes.next();
    let agreed = first.filter(|c| codes.all(|other| other == *c));
    let unrecorded = runs
        .iter()
        .any(|r| r.recorded_exit.is_none() && !r.tests.is_empty());
    agreed.filter(|&c| c != 0 || !unrecorded)
}

/// The run's duration from the best-ranked files that say one: the sum of
/// theirs (shards run one after another, or side by side on as many
/// machines; the sum is what they cost).
fn best_duration(runs: &[Run]) -> Option<f64> {
    (0..=2).find_map(|r| {
        runs.iter()
            .filter(|run| rank(run) == r)
            .filter_map(|run| run.duration)
            .fold(None, |acc, d| Some(acc.unwrap_or(0.0) + d))
    })
}

/// Fills what `kept` lacks from `extra`, the same test read from a source
/// that ranks lower. The outcome is never changed; nor are the attempts
/// when `kept`'s source recorded every one (`Run::attempts_recorded`).
fn fill_test(kept: &mut TestResult, mut extra: TestResult, attempts_recorded: bool) {
    fn fill<T>(slot: &mut Option<T>, value: Option<T>) {
        if slot.is_none() {
            *slot = value;
        }
    }
    // The split is of its duration: taken together.
    if kept.duration.is_none() {
        kept.duration = extra.duration;
        kept.phases = extra.phases;
    }
    // Only take what describes the outcome from a source that agrees on it:
    // a skip reason must not become a failure message.
    let agree = kept.outcome == extra.outcome;
    if agree {
        fill(&mut kept.phase, extra.phase);
        fill(&mut kept.xfail, extra.xfail);
    }
    if let Some(mut e) = extra.take_details() {
        let mut k = kept.take_details().unwrap_or_default();
        fill(&mut k.stdout, e.stdout);
        fill(&mut k.stderr, e.stderr);
        fill(&mut k.log, e.log);
        // A test whose subtests the kept source told apart: its own
        // message and traceback are the kept ones (pytest's JUnit gives a
        // test with one failed subtest that subtest's).
        if agree && k.subtests.is_none() {
            // pytest-json-report keeps no subtest; pytest's JUnit does.
            k.subtests = match e.subtests.take() {
                Some(s) => Some(s.without_own_failure(k.message.as_deref())),
                // A test pytest-json-report says failed, no phase of its
                // own failing (its subtests did: unittest's subTest), and
                // one failure in pytest's JUnit: its one failed subtest.
                None if kept.outcome == Outcome::Failed
                    && k.message.is_none()
                    && k.traceback.is_none()
                    && e.message.is_some() =>
                {
                    let failed = vec![Subtest::new(None, e.message.take(), e.traceback.take())];
                    Some(Subtests {
                        failed,
                        test_passed: true,
                    })
                }
                None => None,
            };
            if let Some(s) = k.subtests.as_ref().filter(|_| k.message.is_none()) {
                k.message = Some(s.summary());
            }
            if k.message.is_none() && k.phase_failures.is_empty() {
                k.phase_failures = e.phase_failures;
            }
            fill(&mut k.message, e.message);
            fill(&mut k.traceback, e.traceback);
        }
        if agree && !attempts_recorded {
            // A source that knows only that attempts failed (pytest's
            // JUnit, pytest-json-report's one entry of a rerun test) gives
            // way to one that counts more of them, or as many with what
            // they said (pytest-json-ctrf's).
            let more = e.reruns.len() > k.reruns.len();
            let as_many_said =
                e.reruns.len() == k.reruns.len() && e.reruns.iter().any(|a| a.message.is_some());
            if (more || as_many_said) && k.reruns.iter().all(|a| a.message.is_none()) {
                k.reruns = e.reruns;
            }
        }
        kept.set_details(Some(k));
    }
    fill_location(kept, extra.location);
}

/// Fills what `kept` lacks of its place from `extra`'s, the same test's
/// in a source that ranks lower.
fn fill_location(kept: &mut TestResult, extra: Option<crate::model::Location>) {
    match (&mut kept.location, extra) {
        (None, loc) => kept.location = loc,
        (Some(k), Some(e)) if k.file == e.file && k.line.is_none() => k.line = e.line,
        // pytest-json-report's `lineno` is the line of the test's place as
        // pytest knows it, in a file it does not name (the id's is
        // assumed); JUnit's `file` names it. When that is another file (a
        // test a plugin made: pytest-bdd's scenarios are functions of
        // pytest_bdd/scenario.py), the line is that file's, never the id's.
        (Some(k), Some(e))
            if e.line.is_some()
                && k.line == e.line
                && !paths_match(&e.file, &k.file)
                && !paths_match(&k.file, &e.file) =>
        {
            *k = e;
        }
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
mod tests;
