//! The history of runs, kept by us (docs/flaky.md): every run's per-test
//! marks in an SQLite file, so that each failure can be told as new,
//! failing before, or flaky, to the agent and to the reviewer alike.
//!
//! The one stage besides the runner that does I/O: it reads the window of
//! earlier runs, writes this one, and hands the window to the model's
//! judge (`model::history`). Whatever goes wrong with the store (corrupt,
//! locked, read-only, newer) is one warning line; the answer stays whole.

mod code;
mod store;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

pub use code::{Code, identify};

use crate::model::Run;
use crate::model::coverage::{self, FileState};
use crate::model::history::{self as judge, Entry, Mark, Recorded, Rules, RunInfo, SLOWER_BY};
use store::{NewRun, Store};

/// Runs kept when not told otherwise (`--history-runs`).
pub const DEFAULT_RUNS: usize = 50;
/// The most runs `--history-runs` keeps.
pub const MAX_RUNS: usize = 1000;

/// Where the history is kept, how many runs, and the numbers of the
/// flaky rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keeping {
    pub path: PathBuf,
    /// Runs kept, this one included: the window a failure is judged in.
    pub runs: usize,
    /// When a flaky test is passing or failing again (`--flaky-passes`,
    /// `--flaky-failures`).
    pub rules: Rules,
}

/// Where `run` keeps a project's history when not told: in pytest's cache
/// folder, which pytest keeps out of git, where its plugins keep folders
/// (`cache.mkdir`), so that `pytest --cache-clear` clears it too.
pub fn default_path(root: &Path) -> PathBuf {
    root.join(".pytest_cache")
        .join("d")
        .join("pytest-mcp")
        .join("history.sqlite")
}

/// Runs of the history a shard plan reads durations from (`plan
/// --history`, `run --shard K/N`): each test's median over them, so that
/// one slow run does not move the plan, and recent enough that a test made
/// faster is planned by its new time.
pub const PLAN_RUNS: usize = 10;

/// One test's time in one run, as the history keeps it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timed {
    /// Seconds in all.
    pub seconds: f64,
    /// Setup and teardown seconds, when the run's source timed the phases
    /// (the call has the rest).
    pub setup_teardown: Option<(f64, f64)>,
}

/// The tests' times in the last runs of a history ([`timings`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timings {
    /// Runs that timed at least one test.
    pub runs: usize,
    /// Each timed test's node id and its times, one per run that timed it,
    /// oldest first; sorted by node id.
    pub tests: Vec<(String, Vec<Timed>)>,
}

/// The times of the tests in the last `runs` runs of the history at
/// `path`, for a shard plan, runs of one shard left out
/// ([`Origin::Shard`]). A missing file is a history with no runs (the
/// first CI run has none yet), and nothing is created; `Err` says why the
/// store could not be read.
pub fn timings(path: &Path, runs: usize) -> Result<Timings, String> {
    if !path.exists() {
        return Ok(Timings::default());
    }
    let why = |e: store::StoreError| format!("{}: {}", path.display(), e.explain());
    Store::open(path).map_err(why)?.timings(runs).map_err(why)
}

/// Where a run came from, as the store records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// We ran pytest (`run`, `execute_tests`).
    Run,
    /// Result files were read (`report --history`).
    Report,
    /// We ran one shard of a plan (`run --shard`). Plans do not read such
    /// runs ([`timings`]): every shard of a plan must plan from the same
    /// history, and a shard run here must not change the next shard's
    /// plan; the merged shards are recorded by `report --history`.
    Shard,
}

impl Origin {
    /// The word the store keeps.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Origin::Run => "run",
            Origin::Report => "report",
            Origin::Shard => "shard",
        }
    }
}

/// Records `run` (its code was `code`) in the history and judges its tests
/// against the runs before it: `run.history` is set when there were some,
/// and in `run.changes` the new failures that are flaky are set apart and
/// the flaky tests that pass now are not fixed.
/// `Err` is the one warning line to show; what could be read is still
/// used.
pub fn remember(
    run: &mut Run,
    keeping: &Keeping,
    code: &Code,
    origin: Origin,
) -> Result<(), String> {
    let warn = |why: String| format!("history not kept: {}: {why}", keeping.path.display());
    make_folder(&keeping.path).map_err(|e| warn(format!("cannot create its folder ({e})")))?;
    let mut store = Store::open(&keeping.path).map_err(|e| warn(e.explain()))?;
    let marks = judge::marks(run);
    // Judged: the tests that do not pass cleanly now, and those slow
    // enough now to be slower than usual (with the tests that failed or
    // flipped in the window, which the store adds).
    let wanted: Vec<&str> = marks
        .iter()
        .filter(|r| r.mark != Mark::Passed || r.duration.is_some_and(|d| d >= SLOWER_BY))
        .map(|r| r.id)
        .collect();
    let past = keeping.runs.saturating_sub(1);
    let mut window = store.window(past, &wanted).map_err(|e| warn(e.explain()))?;
    let now = RunInfo {
        at: started_at(run),
        commit: code.commit.clone(),
        code: code.id.clone(),
        duration: Some(run.duration_secs()).filter(|d| d.is_finite() && *d > 0.0),
        ..counts(&marks)
    };
    let new_run = NewRun {
        at: now.at,
        commit: code.commit.as_deref(),
        code: code.id.as_deref(),
        origin: origin.as_str(),
        duration: now.duration,
        marks: &marks,
    };
    let written = store.record(&new_run, keeping.runs);
    let id = match &written {
        Ok(id) => *id,
        Err(_) => store.next_id().unwrap_or(0),
    };
    let had_past = !window.runs.is_empty();
    add_this_run(&mut window, RunInfo { id, ..now }, &marks, &wanted);
    if had_past {
        let history = judge::judge(&window, keeping.rules);
        if let Some(changes) = &mut run.changes {
            changes.set_apart_flaky(&history);
        }
        run.history = Some(history);
    }
    compare_coverage(run, &mut store);
    written.map(|_| ()).map_err(|e| warn(e.explain()))
}

/// A run under coverage: its gaps told apart by the previous run's states
/// of the same files (unless already compared with a base's coverage),
/// then its own states kept for the next. A store that cannot keep them
/// only loses the comparison.
fn compare_coverage(run: &mut Run, store: &mut Store) {
    let Some(c) = run.coverage.as_mut().filter(|c| !c.measured.is_empty()) else {
        return;
    };
    if c.compared_with.is_none() {
        let paths: Vec<&str> = c.measured.iter().map(|s| s.path.as_str()).collect();
        let before: Vec<FileState> = store
            .coverage_states(&paths)
            .unwrap_or_default()
            .iter()
            .filter_map(|state| serde_json::from_str(state).ok())
            .collect();
        coverage::compare(c, &before, "the previous run");
    }
    let states: Vec<(&str, String)> = c
        .measured
        .iter()
        .filter_map(|s| Some((s.path.as_str(), serde_json::to_string(s).ok()?)))
        .collect();
    let _ = store.keep_coverage_states(&states);
}

/// When `run` ran, in whole seconds since the Unix epoch: when its source
/// says it started (pytest-json-report's `created`, a JUnit suite's
/// `timestamp`), so that a run reported later is put at its own time in
/// a trend; else now, when it is recorded.
fn started_at(run: &Run) -> i64 {
    match run.started.filter(|s| s.is_finite() && *s > 0.0) {
        Some(s) => s as i64,
        None => SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64),
    }
}

/// A run's counts of passed, failed and flaky tests.
fn counts(marks: &[Recorded<'_>]) -> RunInfo {
    let count = |m: fn(Mark) -> bool| marks.iter().filter(|r| m(r.mark)).count() as u32;
    RunInfo {
        passed: count(|m| m == Mark::Passed),
        failed: count(Mark::failed),
        flaky: count(|m| m == Mark::Flaky),
        ..RunInfo::default()
    }
}

/// This run added to the window read from the store: its run last, and the
/// marks of the tests judged (those asked for, and those the window holds).
fn add_this_run(window: &mut judge::Window, now: RunInfo, marks: &[Recorded<'_>], wanted: &[&str]) {
    let at = window.runs.len();
    window.runs.push(now);
    let wanted: std::collections::HashSet<&str> = wanted.iter().copied().collect();
    for r in marks {
        if wanted.contains(r.id) || window.marks.contains_key(r.id) {
            window
                .marks
                .entry(r.id.to_string())
                .or_default()
                .push(Entry {
                    run: at,
                    mark: r.mark,
                    duration: r.duration,
                });
        }
    }
}

/// The store's folder, made when missing. A `.pytest_cache` we make is
/// kept out of git as pytest keeps its own.
fn make_folder(path: &Path) -> std::io::Result<()> {
    let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) else {
        return Ok(());
    };
    if folder.is_dir() {
        return Ok(());
    }
    let cache = folder
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == ".pytest_cache"));
    let made_cache = cache.is_some_and(|c| !c.exists());
    fs::create_dir_all(folder)?;
    if let (true, Some(cache)) = (made_cache, cache) {
        let _ = fs::write(
            cache.join(".gitignore"),
            "# Created by pytest-mcp automatically.\n*\n",
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests;
