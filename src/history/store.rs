//! The history's SQLite file: its schema, reading a window of runs and
//! writing one.
//!
//! Schema 1 (`PRAGMA user_version`): `runs` (one row per run: when, the
//! commit and code it ran, where it came from), `tests` (each node id once)
//! and `results` (a run's mark of each test that ran: passed, failed,
//! passed after retries; skipped tests are not kept), keyed by run first:
//! a run's rows are appended together and the oldest run's go as a range,
//! so writing one costs the same however full the store is (keyed by test
//! first, a run's rows touched every page of the table). Write-ahead logging
//! and a busy timeout let two runs of one project write without corrupting
//! it or failing at once.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use crate::model::history::{Mark, RunInfo, Window};

/// The schema this build reads and writes.
pub const SCHEMA: i64 = 1;
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
    failed INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS tests (
    id INTEGER PRIMARY KEY,
    node_id TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS results (
    run INTEGER NOT NULL,
    test INTEGER NOT NULL,
    mark INTEGER NOT NULL,
    PRIMARY KEY (run, test)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS results_not_passed ON results (run) WHERE mark <> 0;
";

/// One run to write.
pub struct NewRun<'a> {
    pub at: i64,
    pub commit: Option<&'a str>,
    pub code: Option<&'a str>,
    /// `run` (we ran pytest) or `report` (result files read).
    pub origin: &'a str,
    pub marks: &'a [(&'a str, Mark)],
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

    /// The schema made or checked; write-ahead logging on.
    fn prepare(&self) -> Result<(), StoreError> {
        let version: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?;
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
        self.conn.execute_batch(&format!(
            "BEGIN IMMEDIATE; {CREATE} PRAGMA user_version = {SCHEMA}; COMMIT;"
        ))?;
        Ok(())
    }

    /// The last `past` runs, oldest first, and the marks in them of the
    /// tests in `wanted` and of every test that failed or flipped in them.
    pub fn window(&self, past: usize, wanted: &[&str]) -> Result<Window, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, commit_sha, code FROM runs ORDER BY id DESC LIMIT ?1")?;
        let mut runs: Vec<RunInfo> = stmt
            .query_map(params![past as i64], |r| {
                Ok(RunInfo {
                    id: r.get(0)?,
                    commit: r.get(1)?,
                    code: r.get(2)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        runs.reverse();
        let mut window = Window {
            runs,
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
        for (test, run, mark) in self.marks_of(&interest, first)? {
            let (Some(&i), Some(mark), Some(node_id)) =
                (index.get(&run), Mark::from_code(mark), interest.get(&test))
            else {
                continue;
            };
            window
                .marks
                .entry(node_id.clone())
                .or_default()
                .push((i, mark));
        }
        for marks in window.marks.values_mut() {
            marks.sort_unstable_by_key(|(i, _)| *i);
        }
        Ok(window)
    }

    /// The rows `(test, run, mark)` of the `interest` tests from run
    /// `first` on: looked up test by test (a run's row of a test is one
    /// key), or, for a cascade of failing tests, read in one pass over the
    /// window.
    fn marks_of(
        &self,
        interest: &HashMap<i64, String>,
        first: i64,
    ) -> Result<Vec<(i64, i64, i64)>, StoreError> {
        let row = |r: &rusqlite::Row<'_>| Ok((r.get(0)?, r.get(1)?, r.get(2)?));
        if interest.len() > ONE_PASS {
            let mut all = self
                .conn
                .prepare("SELECT test, run, mark FROM results WHERE run >= ?1")?;
            let rows = all.query_map(params![first], row)?;
            let mut out = Vec::new();
            for r in rows {
                let r: (i64, i64, i64) = r?;
                if interest.contains_key(&r.0) {
                    out.push(r);
                }
            }
            return Ok(out);
        }
        let mut each = self.conn.prepare(
            "SELECT test, run, mark FROM results
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
        let failed = run.marks.iter().filter(|(_, m)| *m == Mark::Failed).count();
        tx.execute(
            "INSERT INTO runs (at, commit_sha, code, origin, tests, failed)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                run.at,
                run.commit,
                run.code,
                run.origin,
                run.marks.len() as i64,
                failed as i64
            ],
        )?;
        let id = tx.last_insert_rowid();
        {
            // The ids known, read once: an upsert per test rewrote every
            // row only to get its id back (a third of a record's time).
            let mut known: HashMap<String, i64> = tx
                .prepare("SELECT node_id, id FROM tests")?
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()?;
            let mut test = tx.prepare("INSERT INTO tests (node_id) VALUES (?1)")?;
            let mut result =
                tx.prepare("INSERT OR REPLACE INTO results (run, test, mark) VALUES (?1, ?2, ?3)")?;
            for (node_id, mark) in run.marks {
                let test_id = match known.get(*node_id) {
                    Some(&test_id) => test_id,
                    None => {
                        let test_id = test.insert(params![node_id])?;
                        known.insert(node_id.to_string(), test_id);
                        test_id
                    }
                };
                result.execute(params![id, test_id, mark.code()])?;
            }
        }
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
