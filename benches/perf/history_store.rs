//! The history's inputs and its store's size (issue 32): the result files
//! of one real pytest run of the 5,000-test suite, the same results with a
//! few failures varied per run, and a store filled with 100 such runs by
//! `pytest-mcp report --history PATH --commit SHA` (each call is one
//! recorded run, as a CI job's would be), its size read as it fills.
//!
//! A hundred real pytest runs would take a quarter of an hour here; `report --history`
//! records exactly what `run` records (the same `history::remember`), with
//! the commit given instead of read from git.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rusqlite::{Connection, OpenFlags};

use crate::overhead::failing;
use crate::proc::{median, timed};
use crate::{Env, secs};

/// After how many recorded runs the stores' sizes are read; the last is
/// how many are recorded.
const READ_AT: [usize; 9] = [1, 10, 20, 30, 40, 50, 60, 80, 100];
const FILLED: usize = READ_AT[READ_AT.len() - 1];
/// `--history-runs` of the bounded store (the default) and of the one kept
/// whole for contrast.
pub const KEEP: usize = 50;
const KEEP_ALL: usize = 1000;

/// One real pytest run's result files of the suite.
pub struct Results {
    pub junit: PathBuf,
    pub json: PathBuf,
    /// The JUnit XML's text, varied per recorded run.
    pub junit_text: String,
}

/// Runs pytest once in `project` with both sources pytest-mcp reads.
pub fn results(env: &Env, project: &Path, work: &Path) -> Results {
    let junit = work.join("junit.xml");
    let json = work.join("report.json");
    let status = Command::new(&env.python)
        .args([
            "-m",
            "pytest",
            "-q",
            "-o",
            "junit_family=xunit1",
            "--json-report",
        ])
        .arg(format!("--junitxml={}", junit.display()))
        .arg(format!("--json-report-file={}", json.display()))
        .current_dir(project)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run pytest");
    assert_eq!(status.code(), Some(1), "pytest on the suite: 5 tests fail");
    let junit_text = fs::read_to_string(&junit).expect("read the JUnit XML");
    Results {
        junit,
        json,
        junit_text,
    }
}

/// The commit recorded run `k` is of: two runs per commit, so that a test
/// that passes and fails on one commit is seen (flaky).
pub fn commit_of(k: usize) -> String {
    format!("{:040x}", 0xbe00 + k / 2)
}

/// Tests (module, test) that fail in recorded run `k` besides the suite's
/// 5: one flaky (every third run), one regression that lasts ten runs, one
/// failure of a single run.
fn flipped(k: usize) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    if k % 3 == 0 {
        v.push((10, 3));
    }
    v.push((20 + (k / 10) % 30, 42));
    v.push(((k * 7) % 50, (k * 13 + 1) % 100));
    v.retain(|&(f, t)| !failing(f, t));
    v.sort_unstable();
    v.dedup();
    v
}

/// The suite's JUnit XML as recorded run `k` saw it: [`flipped`]'s tests
/// turned into assertion failures, the suite's failure count to match.
pub fn varied(base: &str, k: usize) -> String {
    let flips = flipped(k);
    let mut places: Vec<(usize, String)> = flips
        .iter()
        .map(|&(f, t)| {
            let head = format!("<testcase classname=\"tests.test_m{f:03}\" name=\"test_{t}\" ");
            let start = base.find(&head).expect("the suite's test case");
            let end = start + base[start..].find("/>").expect("a passing test case");
            let attrs = &base[start..end];
            assert!(!attrs.contains('>'), "test_m{f:03}::test_{t} passes in the suite");
            let line: usize = attrs
                .split("line=\"")
                .nth(1)
                .and_then(|s| s.split('"').next())
                .and_then(|s| s.parse().ok())
                .expect("a line attribute");
            let failure = format!(
                "><failure message=\"assert {} == {}\">def test_{t}():\n&gt;       assert {t} + 1 == {}\nE       assert {} == {}\n\ntests/test_m{f:03}.py:{}: AssertionError</failure></testcase>",
                t + 1,
                t + 2,
                t + 2,
                t + 1,
                t + 2,
                line + 2
            );
            (end, failure)
        })
        .collect();
    places.sort_unstable_by_key(|(at, _)| std::cmp::Reverse(*at));
    let mut text = base.replacen(
        "failures=\"5\"",
        &format!("failures=\"{}\"", 5 + flips.len()),
        1,
    );
    for (at, failure) in places {
        text.replace_range(at..at + 2, &failure);
    }
    text
}

/// What a store holds and takes on disk.
#[derive(Debug, Clone, Copy)]
pub struct Size {
    /// The database file's bytes, and its write-ahead log's (none once the
    /// last writer closed it).
    pub bytes: u64,
    pub wal: u64,
    pub runs: i64,
    pub tests: i64,
    pub results: i64,
    /// Pages free for reuse (left by deleted runs).
    pub free_pages: i64,
}

pub fn size(store: &Path) -> Size {
    let len = |p: &Path| fs::metadata(p).map_or(0, |m| m.len());
    let mut wal = store.as_os_str().to_owned();
    wal.push("-wal");
    let (bytes, wal) = (len(store), len(Path::new(&wal)));
    // Read-write (nothing is written): the last connection to close a WAL
    // database removes its -wal and -shm files; a read-only one leaves them.
    let conn = Connection::open_with_flags(store, OpenFlags::SQLITE_OPEN_READ_WRITE)
        .expect("open the store");
    let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).expect(sql) };
    Size {
        bytes,
        wal,
        runs: count("SELECT count(*) FROM runs"),
        tests: count("SELECT count(*) FROM tests"),
        results: count("SELECT count(*) FROM results"),
        free_pages: count("PRAGMA freelist_count"),
    }
}

/// A store's size after the runs of [`READ_AT`], and the median wall time
/// of the `report --history` calls since the reading before.
type Readings = Vec<(usize, Size, f64)>;

/// Records [`FILLED`] varied runs into a new store at `store`, keeping
/// `keep`.
fn fill(env: &Env, results: &Results, work: &Path, store: &Path, keep: usize) -> Readings {
    for stale in ["", "-wal", "-shm"] {
        let mut p = store.as_os_str().to_owned();
        p.push(stale);
        let _ = fs::remove_file(Path::new(&p));
    }
    let file = work.join("varied.xml");
    let mut readings = Vec::new();
    let mut walls = Vec::new();
    for k in 0..FILLED {
        fs::write(&file, varied(&results.junit_text, k)).expect("write the varied results");
        let mut c = Command::new(&env.bin);
        c.arg("report")
            .arg(&file)
            .arg("--history")
            .arg(store)
            .args(["--history-runs", &keep.to_string()])
            .args(["--commit", &commit_of(k)])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let s = timed(&mut c);
        assert_eq!(s.status, 0, "report --history exited {}", s.status);
        walls.push(s.wall);
        if READ_AT.contains(&(k + 1)) {
            readings.push((k + 1, size(store), median(&walls)));
            walls.clear();
        }
    }
    eprintln!();
    readings
}

/// Fills the bounded store and the whole one, prints their sizes, and
/// returns the bounded store (holding [`KEEP`] runs) for the timings.
pub fn sizes(env: &Env, results: &Results, work: &Path) -> PathBuf {
    let bounded = work.join("filled-50.sqlite");
    let whole = work.join("filled-1000.sqlite");
    let kept = fill(env, results, work, &bounded, KEEP);
    let all = fill(env, results, work, &whole, KEEP_ALL);
    println!(
        "### The store's size\n\n{FILLED} runs of the 5,000 tests recorded one after the other by `pytest-mcp report varied.xml --history PATH --history-runs N --commit SHA` (not {FILLED} pytest runs: that would take {FILLED} × 8 s here; `report --history` records what `run` records). Each run is the suite's real JUnit XML (5 failing) with 1 to 3 more failures varied per run (a flaky test failing every third run, a regression lasting ten runs, a one-run failure); two runs per commit.\n"
    );
    println!(
        "| runs recorded | --history-runs {KEEP}: bytes | runs kept | tests | results rows | free pages | --history-runs {KEEP_ALL}: bytes | results rows | report --history (wall, median since the row before) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for ((n, b, wall), (_, a, _)) in kept.iter().zip(&all) {
        println!(
            "| {n} | {}{} | {} | {} | {} | {} | {}{} | {} | {} |",
            thousands(b.bytes),
            wal_note(b.wal),
            b.runs,
            thousands(b.tests as u64),
            thousands(b.results as u64),
            b.free_pages,
            thousands(a.bytes),
            wal_note(a.wal),
            thousands(a.results as u64),
            secs(*wall)
        );
    }
    let at = |n: usize| kept.iter().find(|(k, _, _)| *k == n).map(|(_, s, _)| *s);
    if let (Some(fifty), Some(sixty), Some(last)) = (at(KEEP), at(60), at(FILLED)) {
        println!(
            "\nAfter {KEEP} runs of 5,000 tests: **{} bytes** ({:.1} MiB, {:.1} bytes per recorded test result); with --history-runs {KEEP}, after 60 runs **{} bytes** and after {FILLED} runs {} bytes ({} runs kept: the oldest runs' rows are deleted and their pages reused, so the file stays about this size).\n",
            thousands(fifty.bytes),
            fifty.bytes as f64 / 1048576.0,
            fifty.bytes as f64 / fifty.results.max(1) as f64,
            thousands(sixty.bytes),
            thousands(last.bytes),
            last.runs
        );
    }
    bounded
}

fn wal_note(wal: u64) -> String {
    if wal == 0 {
        String::new()
    } else {
        format!(" (+{} WAL)", thousands(wal))
    }
}

/// 1234567 as "1,234,567".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
