//! Reader for pytest-mcp's own event log (`command/pytest_mcp_events.py`):
//! one JSON object per line, written and flushed as pytest goes.
//!
//! It is the source of last resort for results (after a timeout or a crash
//! neither the JSON report nor the JUnit file exists, but this log has every
//! test that finished and the one that was running), the source of progress
//! while tests run, and the source of discovered items. A line cut short by a
//! kill is skipped, never an error.

use std::collections::HashMap;

use serde::Deserialize;

use super::phases;
use crate::model::affected::{Affected, AllRan};
use crate::model::changes::LastRun;
use crate::model::discovery::Item;
use crate::model::exec_error::Running;
use crate::model::rerun::{FailureCache, LastFailed};
use crate::model::{
    Attempt, Location, Outcome, Phase, PhaseSplit, Run, SourceInfo, SourceKind, TestResult, Xfail,
};
use crate::pytest_text;

#[derive(Debug, Deserialize)]
#[serde(tag = "event", rename_all = "lowercase")]
enum Event {
    Collected {
        count: usize,
        /// Under pytest-xdist: the ids in collection order (the workers
        /// finish tests in no fixed order).
        #[serde(default)]
        ids: Vec<String>,
    },
    Item(Item),
    Collecterror {
        nodeid: String,
        #[serde(default)]
        longrepr: Option<String>,
    },
    Start {
        nodeid: String,
        /// The pytest-xdist worker that started it (`gw0`).
        #[serde(default)]
        worker: Option<String>,
    },
    Report(Report),
    Finish {
        nodeid: String,
        /// A failed attempt pytest-rerunfailures runs again: not a test
        /// done.
        #[serde(default)]
        rerun: bool,
    },
    Lastfailed(CacheEvent),
    /// pytest's record of the last run's failures, read before this run
    /// rewrites it (`pytest_mcp_events._last_run`).
    Lastrun(LastRun),
    /// pytest-testmon's selection, for a run with `affected`
    /// (`pytest_mcp_events._affected`; when it is off the run stops with a
    /// usage error instead).
    Affected(AffectedEvent),
    /// Under pytest-xdist: the run stopped after this many failures (`-x`,
    /// `--maxfail`), which xdist ends as interrupted.
    Maxfail {
        failures: usize,
    },
    /// Written as the plugin is imported: the process began.
    Begin,
    /// Written as pytest unconfigures: the session ran to its end.
    End(SessionEnd),
}

/// How the session ended, as the plugin saw it at its very end.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct SessionEnd {
    /// pytest's exit status; `None` when no session started (a usage error).
    #[serde(default)]
    pub exitstatus: Option<i32>,
    /// The session's seconds as pytest's closing line measures them.
    #[serde(default)]
    pub duration: Option<f64>,
    /// What stopped the session early: `Exit: <reason>` (pytest.exit) or
    /// `KeyboardInterrupt: ...`.
    #[serde(default)]
    pub interrupt: Option<String>,
}

/// pytest-testmon's selection, or why it is off.
#[derive(Debug, Deserialize)]
struct AffectedEvent {
    #[serde(default)]
    new_db: bool,
    #[serde(default)]
    packages_changed: bool,
    #[serde(default)]
    left_out: usize,
}

/// What pytest's cache of failures did (`pytest_mcp_events._last_failed`).
#[derive(Debug, Deserialize)]
struct CacheEvent {
    enabled: bool,
    asked: bool,
    #[serde(default)]
    recorded: usize,
    #[serde(default)]
    selected: usize,
    #[serde(default)]
    cache_exists: bool,
}

impl CacheEvent {
    fn state(&self) -> FailureCache {
        if !self.enabled {
            return FailureCache::Disabled { asked: self.asked };
        }
        FailureCache::Asked(LastFailed {
            recorded: self.recorded,
            selected: self.selected,
            cache_exists: self.cache_exists,
        })
    }
}

#[derive(Debug, Clone, Deserialize)]
struct Report {
    nodeid: String,
    when: String,
    outcome: String,
    #[serde(default)]
    duration: Option<f64>,
    #[serde(default)]
    wasxfail: Option<String>,
    #[serde(default)]
    longrepr: Option<String>,
    #[serde(default)]
    message: Option<String>,
    /// pytest-rerunfailures' failed attempt (outcome "rerun"): which one,
    /// counted from 0.
    #[serde(default)]
    rerun: Option<u64>,
    /// The line of a test's passed phases: of `duration` (their sum), the
    /// seconds of its setup and of its teardown; the call has the rest. An
    /// older plugin wrote neither, and its line is all call.
    #[serde(default)]
    setup: Option<f64>,
    #[serde(default)]
    teardown: Option<f64>,
}

impl Report {
    /// The phases this report times, in seconds: its duration, for its
    /// phase; or, on the line of the passed phases with their setup and
    /// teardown, each phase's part of it (a part beyond the duration is cut
    /// to it, so the three add up to the duration).
    fn times(&self) -> impl Iterator<Item = (Phase, f64)> {
        let Some(duration) = self.duration else {
            return [None, None, None].into_iter().flatten();
        };
        let valid = |t: &f64| t.is_finite() && *t >= 0.0;
        if (self.setup.is_none() && self.teardown.is_none()) || !valid(&duration) {
            let phase = phases::phase_of(&self.when);
            return [Some((phase, duration)), None, None].into_iter().flatten();
        }
        let part = |t: Option<f64>, room: f64| t.filter(valid).map_or(0.0, |t| t.min(room));
        let setup = part(self.setup, duration);
        let teardown = part(self.teardown, duration - setup);
        [
            Some((Phase::Setup, setup)),
            Some((Phase::Call, duration - setup - teardown)),
            Some((Phase::Teardown, teardown)),
        ]
        .into_iter()
        .flatten()
    }
}

/// What the event log says about a run.
#[derive(Debug, Default)]
pub struct EventLog {
    /// Tests pytest collected, once collection finished.
    pub collected: Option<usize>,
    pub items: Vec<Item>,
    /// What pytest's cache of failures did, when the log says.
    pub failure_cache: Option<FailureCache>,
    /// What pytest's cache recorded of the run before, when it has a
    /// record this run can be compared with.
    pub last_run: Option<LastRun>,
    /// pytest-testmon's selection, for a run with `affected`.
    pub affected: Option<Affected>,
    /// Under pytest-xdist: the failures after which `-x`/`--maxfail`
    /// stopped the run (xdist exits 2 then, as if interrupted).
    pub stopped_at_maxfail: Option<usize>,
    /// Whether the plugin wrote its first line: pytest got going.
    pub began: bool,
    /// How the session ended, when it got to its end.
    pub end: Option<SessionEnd>,
    collect_errors: Vec<(String, Option<String>)>,
    /// The collected ids in their order (for discovery, the items).
    order: Vec<String>,
    /// Test ids in the order they started, with their xdist worker.
    started: Vec<(String, Option<String>)>,
    reports: HashMap<String, Vec<Report>>,
    finished: std::collections::HashSet<String>,
}

impl EventLog {
    /// Reads the log; malformed or truncated lines are skipped.
    pub fn parse(text: &str) -> EventLog {
        let mut log = EventLog::default();
        for line in text.lines() {
            let Ok(event) = serde_json::from_str::<Event>(line) else {
                continue;
            };
            match event {
                Event::Collected { count, ids } => {
                    log.collected = Some(count);
                    log.order = ids;
                }
                Event::Item(item) => log.items.push(item),
                Event::Collecterror { nodeid, longrepr } => {
                    log.collect_errors.push((nodeid, longrepr))
                }
                Event::Start { nodeid, worker } => log.started.push((nodeid, worker)),
                Event::Report(r) => log.reports.entry(r.nodeid.clone()).or_default().push(r),
                Event::Finish { nodeid, .. } => {
                    log.finished.insert(nodeid);
                }
                Event::Lastfailed(cache) => log.failure_cache = Some(cache.state()),
                Event::Lastrun(last) => log.last_run = Some(last),
                Event::Affected(a) => {
                    log.affected = Some(Affected {
                        left_out: a.left_out,
                        all_ran: if a.new_db {
                            Some(AllRan::FirstRun)
                        } else if a.packages_changed {
                            Some(AllRan::PackagesChanged)
                        } else {
                            None
                        },
                    })
                }
                Event::Maxfail { failures } => log.stopped_at_maxfail = Some(failures),
                Event::Begin => log.began = true,
                Event::End(end) => log.end = Some(end),
            }
        }
        log
    }

    /// Puts `tests` in collection order when the log has it (under
    /// pytest-xdist, where they finish in no fixed order), so that a run on
    /// workers reads as one without; tests it does not list go last, in
    /// their order.
    pub fn sort_in_collection_order(&self, tests: &mut [TestResult]) {
        if self.order.is_empty() {
            return;
        }
        let position: HashMap<&str, usize> = self
            .order
            .iter()
            .enumerate()
            .map(|(i, id)| (id.as_str(), i))
            .collect();
        tests.sort_by_key(|t| {
            position
                .get(t.node_id.as_str())
                .copied()
                .unwrap_or(usize::MAX)
        });
    }

    /// Gives each of `tests` that has a duration and no split of it into
    /// phases (JUnit's one time per test) the split this log timed for
    /// the same id: pytest's JUnit time is the sum of the phases' own, so
    /// the log's shares apply. One pass, reading the log's reports by id;
    /// nothing when every test has its split (pytest-json-report's).
    pub fn split_phases(&self, tests: &mut [TestResult]) {
        let lacks = |t: &TestResult| t.phases.is_none() && t.duration.is_some();
        if self.reports.is_empty() || !tests.iter().any(lacks) {
            return;
        }
        for test in tests.iter_mut().filter(|t| lacks(t)) {
            if let Some(reports) = self.reports.get(test.node_id.as_str()) {
                test.phases = split_of(reports);
            }
        }
    }

    /// Whether the process ended before its session did: the plugin
    /// began and never wrote its last line (os._exit, a signal, a plugin
    /// ending the process).
    pub fn ended_early(&self) -> bool {
        self.began && self.end.is_none()
    }

    /// The collected tests that neither finished nor were running when the
    /// log ends, in collection order: the tests a run that ended early
    /// never reached. Empty when the log has no ids.
    pub fn never_ran(&self, running: &[Running]) -> Vec<String> {
        let running: std::collections::HashSet<&str> =
            running.iter().map(|r| r.node_id.as_str()).collect();
        self.order
            .iter()
            .filter(|id| !self.finished.contains(*id) && !running.contains(id.as_str()))
            .cloned()
            .collect()
    }

    /// Tests that finished.
    pub fn completed(&self) -> usize {
        self.finished.len()
    }

    /// Whether any test started (the log recorded the run at all).
    pub fn saw_tests(&self) -> bool {
        !self.started.is_empty()
    }

    /// Whether the log says this test finished.
    pub fn finished(&self, id: &str) -> bool {
        self.finished.contains(id)
    }

    /// The tests that had started and not finished when the log ends, in
    /// the order they started: the last test each worker started (one
    /// worker, `None`, without pytest-xdist) when it did not finish.
    pub fn running(&self) -> Vec<Running> {
        let mut seen: Vec<Option<&str>> = Vec::new();
        let mut running = Vec::new();
        for (id, worker) in self.started.iter().rev() {
            let worker = worker.as_deref();
            if seen.contains(&worker) {
                continue;
            }
            seen.push(worker);
            if !self.finished.contains(id) {
                running.push(Running {
                    node_id: id.clone(),
                    worker: worker.map(str::to_string),
                });
            }
        }
        running.reverse();
        running
    }

    /// The finished tests and the collection errors as a run.
    pub fn to_run(&self) -> Run {
        let mut run = Run::default();
        // A test rerun by pytest-rerunfailures starts once per attempt.
        let mut seen = std::collections::HashSet::new();
        let finished = self.started.iter().map(|(id, _)| id);
        for id in finished.filter(|id| self.finished.contains(*id) && seen.insert(*id)) {
            let reports = self.reports.get(id).map(Vec::as_slice).unwrap_or_default();
            run.tests.push(test_from_reports(id, reports));
        }
        for (nodeid, longrepr) in &self.collect_errors {
            let error = super::collection_error(nodeid.clone(), longrepr.clone());
            run.collection_errors.push(error);
        }
        run.sources.push(SourceInfo {
            kind: SourceKind::PytestEvents,
            name: "event log".to_string(),
            entries: run.tests.len() + run.collection_errors.len(),
            folded: 0,
        });
        run.clean_text(crate::text::clean);
        run
    }
}

/// One finished test from its phase reports, folded as every reader folds
/// them (`phases.rs`).
fn test_from_reports(id: &str, reports: &[Report]) -> TestResult {
    let failing: Vec<phases::Failure> = reports
        .iter()
        .filter(|r| r.outcome == "failed")
        .map(|r| phases::Failure {
            phase: phases::phase_of(&r.when),
            message: r.message.clone().or_else(|| {
                r.longrepr
                    .as_deref()
                    .and_then(pytest_text::last_error_line)
                    .map(str::to_string)
            }),
            traceback: r.longrepr.clone(),
        })
        .collect();
    let skipped = reports.iter().find(|r| r.outcome == "skipped");
    let xfail_reason = reports.iter().find_map(|r| {
        let reason = r.wasxfail.as_deref()?;
        Some(
            reason
                .strip_prefix("reason: ")
                .unwrap_or(reason)
                .to_string(),
        )
    });
    let mut test = TestResult::new(id, Outcome::Passed);
    if let Some(outcome) = phases::fold_failures(&mut test, failing) {
        test.outcome = outcome;
    } else if let Some(r) = skipped {
        test.outcome = Outcome::Skipped;
        if let Some(reason) = xfail_reason {
            test.xfail = Some(Xfail::XFailed);
            test.set_message(Some(reason));
        } else {
            test.set_message(r.longrepr.as_deref().map(pytest_text::skip_reason));
        }
    } else if let Some(reason) = xfail_reason {
        test.xfail = Some(Xfail::XPassed);
        test.set_message(Some(reason).filter(|m| !m.is_empty()));
    }
    test.set_reruns(attempts(reports));
    phases::time(&mut test, reports.iter().flat_map(Report::times));
    let file = id.split("::").next().unwrap_or_default();
    if !file.is_empty() {
        test.location = Some(Location::new(file, None));
    }
    test
}

/// How one test's reports split its time into phases, folded as
/// [`test_from_reports`] folds them.
fn split_of(reports: &[Report]) -> Option<PhaseSplit> {
    let mut timed = TestResult::new(String::new(), Outcome::Passed);
    phases::time(&mut timed, reports.iter().flat_map(Report::times));
    timed.phases
}

/// A retrying plugin's failed attempts, oldest first: its reports with a
/// word of its own (pytest-rerunfailures' "rerun", pytest-retry's
/// "retried"), one attempt per attempt number (a failed call and its
/// failed teardown are one attempt, said by the first).
fn attempts(reports: &[Report]) -> Vec<Attempt> {
    let mut attempts = Vec::new();
    let mut last = None;
    let of_a_retry = |r: &&Report| !matches!(&*r.outcome, "passed" | "failed" | "skipped");
    for r in reports.iter().filter(of_a_retry) {
        if r.rerun.is_some() && r.rerun == last {
            continue;
        }
        last = r.rerun;
        attempts.push(Attempt::failed(r.message.clone().or_else(|| {
            r.longrepr
                .as_deref()
                .and_then(pytest_text::last_error_line)
                .map(str::to_string)
        })));
    }
    attempts
}

/// How far a run has got, read from the event log while it grows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Progress {
    /// Tests finished so far.
    pub done: usize,
    /// Tests collected, once collection finished.
    pub total: Option<usize>,
    /// The test running now.
    pub current: Option<String>,
}

/// Follows an event log as pytest appends to it: each [`EventTail::poll`]
/// reads only the new complete lines.
#[derive(Debug)]
pub struct EventTail {
    path: std::path::PathBuf,
    offset: u64,
    partial: Vec<u8>,
    progress: Progress,
}

impl EventTail {
    pub fn new(path: std::path::PathBuf) -> Self {
        EventTail {
            path,
            offset: 0,
            partial: Vec::new(),
            progress: Progress::default(),
        }
    }

    /// Reads what was appended since the last call. Returns the progress
    /// when it changed.
    pub fn poll(&mut self) -> Option<&Progress> {
        use std::io::{Read, Seek, SeekFrom};
        let mut file = std::fs::File::open(&self.path).ok()?;
        file.seek(SeekFrom::Start(self.offset)).ok()?;
        let mut fresh = Vec::new();
        let read = file.take(16 * 1024 * 1024).read_to_end(&mut fresh).ok()?;
        if read == 0 {
            return None;
        }
        self.offset += read as u64;
        self.partial.extend_from_slice(&fresh);
        let end = self.partial.iter().rposition(|&b| b == b'\n')?;
        let complete: Vec<u8> = self.partial.drain(..=end).collect();
        let before = self.progress.clone();
        for line in String::from_utf8_lossy(&complete).lines() {
            match serde_json::from_str::<Event>(line) {
                Ok(Event::Collected { count, .. }) => self.progress.total = Some(count),
                Ok(Event::Start { nodeid, .. }) => self.progress.current = Some(nodeid),
                Ok(Event::Finish { rerun: true, .. }) => self.progress.current = None,
                Ok(Event::Finish { .. }) => {
                    self.progress.done += 1;
                    self.progress.current = None;
                }
                _ => {}
            }
        }
        (self.progress != before).then_some(&self.progress)
    }
}

#[cfg(test)]
mod tests;
