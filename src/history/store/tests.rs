use super::*;
use crate::model::history::Mark::{Failed as F, Flaky as R, Passed as P};

/// Results without durations.
fn plain<'a>(marks: &[(&'a str, Mark)]) -> Vec<Recorded<'a>> {
    marks
        .iter()
        .map(|&(id, mark)| Recorded {
            id,
            mark,
            duration: None,
            setup_teardown: None,
        })
        .collect()
}

fn new_run<'a>(marks: &'a [Recorded<'a>], code: &'a str) -> NewRun<'a> {
    NewRun {
        at: 1,
        commit: Some("abc"),
        code: Some(code),
        origin: "run",
        duration: Some(2.5),
        marks,
    }
}

/// A window's marks of one test, without their durations.
fn marks_of(w: &Window, id: &str) -> Vec<(usize, Mark)> {
    w.marks[id].iter().map(|e| (e.run, e.mark)).collect()
}

#[test]
fn a_window_holds_the_failing_tests_marks_oldest_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("h.sqlite");
    let mut store = Store::open(&path).expect("open");
    assert_eq!(
        store
            .record(&new_run(&plain(&[("a", F), ("b", P)]), "x"), 50)
            .ok(),
        Some(1)
    );
    assert_eq!(
        store
            .record(&new_run(&plain(&[("a", P), ("b", P)]), "x"), 50)
            .ok(),
        Some(2)
    );
    assert_eq!(
        store
            .record(&new_run(&plain(&[("a", R), ("c", P)]), "y"), 50)
            .ok(),
        Some(3)
    );
    let w = store.window(49, &["c"]).expect("window");
    assert_eq!(w.runs.iter().map(|r| r.id).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(w.runs[2].code.as_deref(), Some("y"));
    assert_eq!(marks_of(&w, "a"), [(0, F), (1, P), (2, R)]);
    assert_eq!(marks_of(&w, "c"), [(2, P)]);
    // b never failed and was not asked for.
    assert!(!w.marks.contains_key("b"));
    assert_eq!(store.next_id().ok(), Some(4));
}

#[test]
fn only_the_newest_runs_are_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("h.sqlite");
    let mut store = Store::open(&path).expect("open");
    for _ in 0..7 {
        store
            .record(&new_run(&plain(&[("a", F)]), "x"), 3)
            .expect("record");
    }
    let w = store.window(100, &[]).expect("window");
    assert_eq!(w.runs.iter().map(|r| r.id).collect::<Vec<_>>(), [5, 6, 7]);
    assert_eq!(w.marks["a"].len(), 3);
    let rows: i64 = store
        .conn
        .query_row("SELECT count(*) FROM results", [], |r| r.get(0))
        .expect("count");
    assert_eq!(rows, 3);
}

#[test]
fn a_file_that_is_not_a_database_is_explained() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("h.sqlite");
    std::fs::write(&path, vec![b'x'; 4096]).expect("write");
    let err = Store::open(&path).err().expect("refused");
    assert!(
        err.explain().contains("not a history database"),
        "{}",
        err.explain()
    );
}

#[test]
fn a_newer_schema_is_refused_saying_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("h.sqlite");
    let conn = Connection::open(&path).expect("open");
    conn.execute_batch("PRAGMA user_version = 9")
        .expect("pragma");
    drop(conn);
    let err = Store::open(&path).err().expect("refused");
    assert!(
        err.explain().contains("newer pytest-mcp (schema 9"),
        "{}",
        err.explain()
    );
}

#[test]
fn the_store_is_written_ahead_and_versioned() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("h.sqlite");
    let store = Store::open(&path).expect("open");
    let mode: String = store
        .conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .expect("mode");
    assert_eq!(mode, "wal");
    let version: i64 = store
        .conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .expect("version");
    assert_eq!(version, SCHEMA);
}

#[test]
fn a_cascade_of_failures_is_read_in_one_pass_with_the_same_marks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = Store::open(&dir.path().join("h.sqlite")).expect("open");
    let ids: Vec<String> = (0..ONE_PASS + 100)
        .map(|i| format!("t.py::test_{i}"))
        .collect();
    let failing = plain(&ids.iter().map(|id| (id.as_str(), F)).collect::<Vec<_>>());
    let passing = plain(&ids.iter().map(|id| (id.as_str(), P)).collect::<Vec<_>>());
    store.record(&new_run(&passing, "x"), 50).expect("record");
    store.record(&new_run(&failing, "x"), 50).expect("record");
    store
        .record(&new_run(&plain(&[("other", P)]), "x"), 50)
        .expect("record");
    let w = store.window(49, &["other"]).expect("window");
    assert_eq!(w.marks.len(), ids.len() + 1);
    for id in &ids {
        assert_eq!(marks_of(&w, id), [(0, P), (1, F)], "{id}");
    }
    assert_eq!(marks_of(&w, "other"), [(2, P)]);
}

#[test]
fn durations_and_run_counts_are_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = Store::open(&dir.path().join("h.sqlite")).expect("open");
    let timed = [
        Recorded {
            id: "a",
            mark: P,
            duration: Some(1.234_567),
            setup_teardown: Some((0.5, 0.001)),
        },
        Recorded {
            id: "b",
            mark: F,
            duration: Some(0.25),
            setup_teardown: None,
        },
        Recorded {
            id: "c",
            mark: R,
            duration: None,
            setup_teardown: None,
        },
    ];
    store.record(&new_run(&timed, "x"), 50).expect("record");
    let w = store.window(49, &["a"]).expect("window");
    let run = &w.runs[0];
    assert_eq!((run.passed, run.failed, run.flaky), (1, 1, 1));
    assert_eq!((run.at, run.duration), (1, Some(2.5)));
    assert_eq!(w.marks["a"][0].duration, Some(1.234_567));
    assert_eq!(w.marks["b"][0].duration, Some(0.25));
    assert_eq!(w.marks["c"][0].duration, None);
    let (setup, teardown): (Option<i64>, Option<i64>) = store
        .conn
        .query_row(
            "SELECT setup, teardown FROM results r JOIN tests t ON t.id = r.test WHERE t.node_id = 'a'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("phases");
    assert_eq!((setup, teardown), (Some(500_000), Some(1_000)));
}

#[test]
fn a_failure_every_attempt_confirmed_is_kept_apart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = Store::open(&dir.path().join("h.sqlite")).expect("open");
    store
        .record(&new_run(&plain(&[("a", Mark::FailedAll)]), "x"), 50)
        .expect("record");
    let w = store.window(49, &[]).expect("window");
    assert_eq!(marks_of(&w, "a"), [(0, Mark::FailedAll)]);
    assert_eq!(w.runs[0].failed, 1);
}

/// Schema 1 as the first history (issue 32) wrote it, byte for byte.
const SCHEMA_1: &str = "
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
PRAGMA user_version = 1;
";

#[test]
fn a_store_of_schema_1_is_upgraded_in_place_and_keeps_its_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("h.sqlite");
    let old = Connection::open(&path).expect("open");
    old.execute_batch(SCHEMA_1).expect("schema 1");
    old.execute_batch("PRAGMA journal_mode = WAL").expect("wal");
    old.execute_batch(
        "INSERT INTO runs (at, commit_sha, code, origin, tests, failed)
           VALUES (10, 'aaa', 'a', 'report', 3, 1), (20, 'aaa', 'a', 'report', 3, 1);
         INSERT INTO tests (id, node_id) VALUES (1, 'flip'), (2, 'ok'), (3, 'retried');
         INSERT INTO results (run, test, mark) VALUES
           (1, 1, 1), (1, 2, 0), (1, 3, 2),
           (2, 1, 0), (2, 2, 0), (2, 3, 1);",
    )
    .expect("two runs");
    drop(old);

    let mut store = Store::open(&path).expect("upgraded");
    let version: i64 = store
        .conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .expect("version");
    assert_eq!(version, SCHEMA);
    let w = store.window(49, &["ok"]).expect("window");
    let counts: Vec<(u32, u32, u32, Option<f64>)> = w
        .runs
        .iter()
        .map(|r| (r.passed, r.failed, r.flaky, r.duration))
        .collect();
    assert_eq!(counts, [(1, 1, 1, None), (2, 1, 0, None)]);
    assert_eq!(marks_of(&w, "flip"), [(0, F), (1, P)]);
    assert_eq!(w.marks["flip"][0].duration, None);
    // A new run is written beside the old ones, with its durations.
    let timed = [Recorded {
        id: "flip",
        mark: F,
        duration: Some(0.5),
        setup_teardown: None,
    }];
    assert_eq!(store.record(&new_run(&timed, "a"), 50).ok(), Some(3));
    let w = store.window(49, &[]).expect("window");
    assert_eq!(marks_of(&w, "flip"), [(0, F), (1, P), (2, F)]);
    assert_eq!(w.marks["flip"][2].duration, Some(0.5));
    drop(store);
    // Opened again: nothing more to upgrade.
    assert!(Store::open(&path).is_ok());
}

/// A result timed `seconds`, with setup and teardown when given.
fn timed(id: &str, seconds: f64, phases: Option<(f64, f64)>) -> Recorded<'_> {
    Recorded {
        id,
        mark: P,
        duration: Some(seconds),
        setup_teardown: phases,
    }
}

#[test]
fn a_plan_reads_the_last_runs_timings_sorted_and_leaves_shards_out() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = Store::open(&dir.path().join("h.sqlite")).expect("open");
    assert_eq!(store.timings(10).expect("timings"), Timings::default());
    // Run 1: no durations (a schema 1 run, or a source without times).
    store
        .record(&new_run(&plain(&[("b", P)]), "x"), 50)
        .expect("record");
    for seconds in [1.0, 3.0, 2.0] {
        let marks = [
            timed("b", seconds, Some((0.5, 0.25))),
            timed("a", seconds / 10.0, None),
        ];
        store.record(&new_run(&marks, "x"), 50).expect("record");
    }
    // A shard's run: plans never read it.
    let shard_marks = [timed("a", 99.0, None), timed("z", 99.0, None)];
    let shard = NewRun {
        origin: "shard",
        ..new_run(&shard_marks, "x")
    };
    store.record(&shard, 50).expect("record");
    let t = store.timings(10).expect("timings");
    assert_eq!(t.runs, 3);
    let ids: Vec<&str> = t.tests.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["a", "b"]);
    let b: Vec<f64> = t.tests[1].1.iter().map(|x| x.seconds).collect();
    assert_eq!(b, [1.0, 3.0, 2.0]);
    assert_eq!(t.tests[1].1[0].setup_teardown, Some((0.5, 0.25)));
    assert_eq!(t.tests[0].1[0].setup_teardown, None);
    // The last 2 runs that were not a shard's: runs 3 and 4.
    let last = store.timings(2).expect("timings");
    assert_eq!(last.runs, 2);
    let b: Vec<f64> = last.tests[1].1.iter().map(|x| x.seconds).collect();
    assert_eq!(b, [3.0, 2.0]);
}
