//! The history's SQLite file: its schema, reading a window of runs and
//! writing one.
//!
//! Schema 2 (`PRAGMA user_version`): `runs` (one row per run: when, the
//! commit and code it ran, where it came from, its counts and duration),
//! `tests` (each node id once) and `results` (a run's mark of each test
//! that ran: passed, failed, passed after retries, failed every attempt;
//! skipped tests are not kept; its duration, and its setup and teardown
//! when the source timed its phases, in microseconds: an integer of 2 to 4
//! bytes where a float takes 8), keyed by run first: a run's rows are
//! appended together and the oldest run's go as a range, so writing one
//! costs the same however full the store is (keyed by test first, a run's
//! rows touched every page of the table). Write-ahead logging and a busy
//! timeout let two runs of one project write without corrupting it or
//! failing at once.
//!
//! A store of schema 1 (no durations, no run counts) is upgraded in place
//! when opened: the columns are added, each old run's counts worked out
//! from its results; its runs have no durations.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use crate::model::history::{Entry, Mark, Recorded, RunInfo, Window};

use super::{Timed, Timings};

/// The schema this build reads and writes.
pub const SCHEMA: i64 = 2;
/// Tests judged beyond which their marks are read in one pass over the
/// window rather than test by test (50 lookups each).
const ONE_PASS: usize = 400;
/// How long a write waits for another process's to end.
const BUSY: Duration = Duration::from_secs(5);

const CREATE: &str = "
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at INTEGER NOT NULL,
    commit_sha TEXT,
    code TEXT,
    origin TEXT NOT NULL,
    tests INTEGER NOT NULL,
    failed INTEGER NOT NULL,
    passed INTEGER,
    flaky INTEGER,
    duration REAL
);
CREATE TABLE IF NOT EXISTS tests (
    id INTEGER PRIMARY KEY,
    node_id TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS results (
    run INTEGER NOT NULL,
    test INTEGER NOT NULL,
    mark INTEGER NOT NULL,
    duration INTEGER,
    setup INTEGER,
    teardown INTEGER,
    PRIMARY KEY (run, test)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS results_not_passed ON results (run) WHERE mark <> 0;
";

/// The changed files' lines as the last run under coverage measured them
/// (`run --coverage`: the next run tells its gaps apart by them). Made
/// when first used, outside the schema's version: a build without it
/// never reads it.
const COVERAGE_STATES: &str =
    "CREATE TABLE IF NOT EXISTS coverage_states (path TEXT PRIMARY KEY, state TEXT NOT NULL);";

/// Schema 1 to 2: durations and the runs' counts. Old runs' flaky and
/// passed counts come from their results (`tests` and `failed` were
/// kept); their durations stay unknown.
const UPGRADE_1: &str = "
ALTER TABLE runs ADD COLUMN passed INTEGER;
ALTER TABLE runs ADD COLUMN flaky INTEGER;
ALTER TABLE runs ADD COLUMN duration REAL;
ALTER TABLE results ADD COLUMN duration INTEGER;
ALTER TABLE results ADD COLUMN setup INTEGER;
ALTER TABLE results ADD COLUMN teardown INTEGER;
UPDATE runs SET flaky = (SELECT count(*) FROM results WHERE results.run = runs.id AND mark = 2);
UPDATE runs SET passed = tests - failed - flaky;
";

/// Seconds as the store keeps them: whole microseconds.
fn micros(secs: f64) -> i64 {
    (secs * 1e6).round() as i64
}

/// Microseconds kept back to seconds.
fn secs(micros: i64) -> f64 {
    micros as f64 / 1e6
}

/// One run to write.
pub struct NewRun<'a> {
    pub at: i64,
    pub commit: Option<&'a str>,
    pub code: Option<&'a str>,
    /// `run` (we ran pytest) or `report` (result files read).
    pub origin: &'a str,
    /// Its duration in seconds, when known.
    pub duration: Option<f64>,
    pub marks: &'a [Recorded<'a>],
}

/// One result read back.
struct Row {
    test: i64,
    run: i64,
    mark: i64,
    /// Microseconds.
    duration: Option<i64>,
}

/// Writes run `id`'s results, each test's id made when new.
fn write_results(
    tx: &rusqlite::Transaction<'_>,
    id: i64,
    marks: &[Recorded<'_>],
) -> Result<(), StoreError> {
    // The ids known, read once: an upsert per test rewrote every row only
    // to get its id back (a third of a record's time).
    let mut known: HashMap<String, i64> = tx
        .prepare("SELECT node_id, id FROM tests")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let mut test = tx.prepare("INSERT INTO tests (node_id) VALUES (?1)")?;
    let mut result = tx.prepare(
        "INSERT OR REPLACE INTO results (run, test, mark, duration, setup, teardown)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for r in marks {
        let test_id = match known.get(r.id) {
            Some(&test_id) => test_id,
            None => {
                let test_id = test.insert(params![r.id])?;
                known.insert(r.id.to_string(), test_id);
                test_id
            }
        };
        let (setup, teardown) = r
            .setup_teardown
            .map_or((None, None), |(s, t)| (Some(micros(s)), Some(micros(t))));
        result.execute(params![
            id,
            test_id,
            r.mark.code(),
            r.duration.map(micros),
            setup,
            teardown
        ])?;
    }
    Ok(())
}

/// An open history file.
pub struct Store {
    conn: Connection,
}

impl Store {
    /// Opens (creating when missing) the store at `path`, its schema made
    /// when new. Errors are SQLite's: a file that is not a database, one
    /// that cannot be created or written, a newer schema.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(BUSY)?;
        let store = Store { conn };
        store.prepare()?;
        Ok(store)
    }

    /// The schema made, upgraded or checked; write-ahead logging on.
    fn prepare(&self) -> Result<(), StoreError> {
        let version = self.version()?;
        if version > SCHEMA {
            return Err(StoreError::Newer(version));
        }
        // WAL is a property of the file: set once, by the first writer.
        let mode: String = self
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            let _: Result<String, _> = self
                .conn
                .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0));
        }
        if version == SCHEMA {
            return Ok(());
        }
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        let made = self.make_or_upgrade();
        let end = if made.is_ok() { "COMMIT" } else { "ROLLBACK" };
        self.conn.execute_batch(end)?;
        made
    }

    /// In the write transaction: the version read again (another process
    /// may have made or upgraded the file meanwhile), then the schema made
    /// or upgraded to [`SCHEMA`].
    fn make_or_upgrade(&self) -> Result<(), StoreError> {
        let version = self.version()?;
        let steps = match version {
            SCHEMA => return Ok(()),
            v if v > SCHEMA => return Err(StoreError::Newer(v)),
            1 => UPGRADE_1,
            _ => CREATE,
        };
        self.conn
            .execute_batch(&format!("{steps} PRAGMA user_version = {SCHEMA};"))?;
        Ok(())
    }

    fn version(&self) -> Result<i64, StoreError> {
        Ok(self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?)
    }

    /// The last `past` runs, oldest first, and the marks in them of the
    /// tests in `wanted` and of every test that failed or flipped in them.
    pub fn window(&self, past: usize, wanted: &[&str]) -> Result<Window, StoreError> {
        let mut window = Window {
            runs: self.runs(past)?,
            ..Window::default()
        };
        let Some(first) = window.runs.first().map(|r| r.id) else {
            return Ok(window);
        };
        // The tests worth judging: those that failed or flipped in the
        // window, and those asked for.
        let mut interest: HashMap<i64, String> = self
            .conn
            .prepare(
                "SELECT DISTINCT r.test, t.node_id FROM results r JOIN tests t ON t.id = r.test
                 WHERE r.run >= ?1 AND r.mark <> 0",
            )?
            .query_map(params![first], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let mut lookup = self
            .conn
            .prepare("SELECT id FROM tests WHERE node_id = ?1")?;
        for node_id in wanted {
            if let Some(id) = lookup
                .query_row(params![node_id], |r| r.get::<_, i64>(0))
                .optional()?
            {
                interest.insert(id, node_id.to_string());
            }
        }
        let index: HashMap<i64, usize> = window
            .runs
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id, i))
            .collect();
        for row in self.marks_of(&interest, first)? {
            let (Some(&run), Some(mark), Some(node_id)) = (
                index.get(&row.run),
                Mark::from_code(row.mark),
                interest.get(&row.test),
            ) else {
                continue;
            };
            let entry = Entry {
                run,
                mark,
                duration: row.duration.map(secs),
            };
            window.marks.entry(node_id.clone()).or_default().push(entry);
        }
        for marks in window.marks.values_mut() {
            marks.sort_unstable_by_key(|e| e.run);
        }
        Ok(window)
    }

    /// The last `past` runs, oldest first.
    fn runs(&self, past: usize) -> Result<Vec<RunInfo>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT id, commit_sha, code, at, passed, failed, flaky, duration
             FROM runs ORDER BY id DESC LIMIT ?1",
        )?;
        let count = |r: &rusqlite::Row<'_>, i: usize| -> rusqlite::Result<u32> {
            Ok(r.get::<_, Option<i64>>(i)?
                .map_or(0, |n| u32::try_from(n).unwrap_or(0)))
        };
        let mut runs: Vec<RunInfo> = stmt
            .query_map(params![past as i64], |r| {
                Ok(RunInfo {
                    id: r.get(0)?,
                    commit: r.get(1)?,
                    code: r.get(2)?,
                    at: r.get(3)?,
                    passed: count(r, 4)?,
                    failed: count(r, 5)?,
                    flaky: count(r, 6)?,
                    duration: r.get(7)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        runs.reverse();
        Ok(runs)
    }

    /// The rows of the `interest` tests from run `first` on: looked up
    /// test by test (a run's row of a test is one key), or, for a cascade
    /// of failing tests, read in one pass over the window.
    fn marks_of(
        &self,
        interest: &HashMap<i64, String>,
        first: i64,
    ) -> Result<Vec<Row>, StoreError> {
        let row = |r: &rusqlite::Row<'_>| {
            Ok(Row {
                test: r.get(0)?,
                run: r.get(1)?,
                mark: r.get(2)?,
                duration: r.get(3)?,
            })
        };
        if interest.len() > ONE_PASS {
            let mut all = self
                .conn
                .prepare("SELECT test, run, mark, duration FROM results WHERE run >= ?1")?;
            let rows = all.query_map(params![first], row)?;
            let mut out = Vec::new();
            for r in rows {
                let r: Row = r?;
                if interest.contains_key(&r.test) {
                    out.push(r);
                }
            }
            return Ok(out);
        }
        let mut each = self.conn.prepare(
            "SELECT test, run, mark, duration FROM results
             WHERE run IN (SELECT id FROM runs WHERE id >= ?2) AND test = ?1",
        )?;
        let mut out = Vec::new();
        for test in interest.keys() {
            for r in each.query_map(params![test, first], row)? {
                out.push(r?);
            }
        }
        Ok(out)
    }

    /// Writes `run`, then lets all but the newest `keep` runs go. Its
    /// number in the store.
    pub fn record(&mut self, run: &NewRun<'_>, keep: usize) -> Result<i64, StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let count = |m: fn(Mark) -> bool| run.marks.iter().filter(|r| m(r.mark)).count() as i64;
        tx.execute(
            "INSERT INTO runs (at, commit_sha, code, origin, tests, failed, passed, flaky, duration)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                run.at,
                run.commit,
                run.code,
                run.origin,
                run.marks.len() as i64,
                count(Mark::failed),
                count(|m| m == Mark::Passed),
                count(|m| m == Mark::Flaky),
                run.duration.filter(|d| d.is_finite()),
            ],
        )?;
        let id = tx.last_insert_rowid();
        write_results(&tx, id, run.marks)?;
        let oldest_kept: Option<i64> = tx
            .query_row(
                "SELECT id FROM runs ORDER BY id DESC LIMIT 1 OFFSET ?1",
                params![keep.saturating_sub(1) as i64],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(oldest) = oldest_kept {
            let gone = tx.execute("DELETE FROM runs WHERE id < ?1", params![oldest])?;
            if gone > 0 {
                tx.execute("DELETE FROM results WHERE run < ?1", params![oldest])?;
                // Ids no kept run has: renamed and deleted tests.
                if id % (keep.max(1) as i64) == 0 {
                    tx.execute(
                        "DELETE FROM tests WHERE id NOT IN (SELECT test FROM results)",
                        [],
                    )?;
                }
            }
        }
        tx.commit()?;
        Ok(id)
    }

    /// The states of `paths` as the last run under coverage that judged
    /// each measured them (JSON, as [`keep_coverage_states`] wrote them).
    /// The table is made when first used: builds before it ignore it.
    ///
    /// [`keep_coverage_states`]: Self::keep_coverage_states
    pub fn coverage_states(&self, paths: &[&str]) -> Result<Vec<String>, StoreError> {
        self.conn.execute_batch(COVERAGE_STATES)?;
        let mut each = self
            .conn
            .prepare_cached("SELECT state FROM coverage_states WHERE path = ?1")?;
        let mut out = Vec::new();
        for path in paths {
            if let Some(state) = each.query_row(params![path], |r| r.get(0)).optional()? {
                out.push(state);
            }
        }
        Ok(out)
    }

    /// Keeps each `(path, state)`, in place of the state kept for its path.
    pub fn keep_coverage_states(&mut self, states: &[(&str, String)]) -> Result<(), StoreError> {
        self.conn.execute_batch(COVERAGE_STATES)?;
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        for (path, state) in states {
            tx.execute(
                "INSERT OR REPLACE INTO coverage_states (path, state) VALUES (?1, ?2)",
                params![path, state],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Every timed result of the last `runs` runs that were not one shard's
    /// ([`super::Origin::Shard`]), for a shard plan: each
    /// test's timings, tests sorted by node id and each test's timings by
    /// run, so that the same store reads the same, byte for byte; and how
    /// many of those runs timed any test (runs recorded before durations
    /// were kept time none).
    pub fn timings(&self, runs: usize) -> Result<Timings, StoreError> {
        let shard = super::Origin::Shard.as_str();
        let first: Option<i64> = self
            .conn
            .query_row(
                "SELECT min(id) FROM (SELECT id FROM runs WHERE origin <> ?1 ORDER BY id DESC LIMIT ?2)",
                params![shard, runs as i64],
                |r| r.get(0),
            )?;
        let Some(first) = first else {
            return Ok(Timings::default());
        };
        let names: HashMap<i64, String> = self
            .conn
            .prepare("SELECT id, node_id FROM tests")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let mut stmt = self.conn.prepare(
            "SELECT run, test, duration, setup, teardown FROM results
             WHERE run >= ?1 AND duration IS NOT NULL
             AND run IN (SELECT id FROM runs WHERE origin <> ?2)
             ORDER BY test, run",
        )?;
        let rows = stmt.query_map(params![first, shard], |r| {
            let seconds: i64 = r.get(2)?;
            let setup: Option<i64> = r.get(3)?;
            let teardown: Option<i64> = r.get(4)?;
            let timed = Timed {
                seconds: secs(seconds),
                setup_teardown: setup.zip(teardown).map(|(s, t)| (secs(s), secs(t))),
            };
            Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, timed))
        })?;
        let mut timed_runs = std::collections::BTreeSet::new();
        let mut tests: Vec<(String, Vec<Timed>)> = Vec::new();
        let mut last_test = None;
        for row in rows {
            let (run, test, timed) = row?;
            let Some(name) = names.get(&test) else {
                continue;
            };
            timed_runs.insert(run);
            match tests.last_mut() {
                Some(last) if last_test == Some(test) => last.1.push(timed),
                _ => tests.push((name.clone(), vec![timed])),
            }
            last_test = Some(test);
        }
        tests.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        Ok(Timings {
            runs: timed_runs.len(),
            tests,
        })
    }

    /// The number the next run will get (for a run that could not be
    /// written).
    pub fn next_id(&self) -> Result<i64, StoreError> {
        let last: Option<i64> = self
            .conn
            .query_row("SELECT max(id) FROM runs", [], |r| r.get(0))?;
        Ok(last.unwrap_or(0) + 1)
    }
}

/// Why the store could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("written by a newer pytest-mcp (schema {0}, this one reads {SCHEMA})")]
    Newer(i64),
}

impl StoreError {
    /// What went wrong, in words a user can act on.
    pub fn explain(&self) -> String {
        use rusqlite::ErrorCode as C;
        let code = match self {
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => Some(e.code),
            _ => None,
        };
        match code {
            Some(C::NotADatabase | C::DatabaseCorrupt) => {
                "not a history database (corrupt?); delete it to start a new history".to_string()
            }
            Some(C::DatabaseBusy | C::DatabaseLocked) => {
                format!("locked by another run for over {} s", BUSY.as_secs())
            }
            Some(C::ReadOnly | C::CannotOpen | C::PermissionDenied) => {
                "cannot be written (read-only file or folder?)".to_string()
            }
            Some(C::DiskFull) => "the disk is full".to_string(),
            _ => self.to_string(),
        }
    }
}

#[cfg(test)]
mod tests;
