use super::*;
use crate::model::history::Mark::{Failed as F, Flaky as R, Passed as P};

fn new_run<'a>(marks: &'a [(&'a str, Mark)], code: &'a str) -> NewRun<'a> {
    NewRun {
        at: 1,
        commit: Some("abc"),
        code: Some(code),
        origin: "run",
        marks,
    }
}

#[test]
fn a_window_holds_the_failing_tests_marks_oldest_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("h.sqlite");
    let mut store = Store::open(&path).expect("open");
    assert_eq!(
        store.record(&new_run(&[("a", F), ("b", P)], "x"), 50).ok(),
        Some(1)
    );
    assert_eq!(
        store.record(&new_run(&[("a", P), ("b", P)], "x"), 50).ok(),
        Some(2)
    );
    assert_eq!(
        store.record(&new_run(&[("a", R), ("c", P)], "y"), 50).ok(),
        Some(3)
    );
    let w = store.window(49, &["c"]).expect("window");
    assert_eq!(w.runs.iter().map(|r| r.id).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(w.runs[2].code.as_deref(), Some("y"));
    assert_eq!(w.marks["a"], [(0, F), (1, P), (2, R)]);
    assert_eq!(w.marks["c"], [(2, P)]);
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
        store.record(&new_run(&[("a", F)], "x"), 3).expect("record");
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
    let failing: Vec<(&str, Mark)> = ids.iter().map(|id| (id.as_str(), F)).collect();
    let passing: Vec<(&str, Mark)> = ids.iter().map(|id| (id.as_str(), P)).collect();
    store.record(&new_run(&passing, "x"), 50).expect("record");
    store.record(&new_run(&failing, "x"), 50).expect("record");
    store
        .record(&new_run(&[("other", P)], "x"), 50)
        .expect("record");
    let w = store.window(49, &["other"]).expect("window");
    assert_eq!(w.marks.len(), ids.len() + 1);
    for id in &ids {
        assert_eq!(w.marks[id], [(0, P), (1, F)], "{id}");
    }
    assert_eq!(w.marks["other"], [(2, P)]);
}
