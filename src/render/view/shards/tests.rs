use super::*;

fn check(
    planned: usize,
    came_back: &[usize],
    empty: &[usize],
    not_run: &[(&str, usize)],
) -> ShardCheck {
    ShardCheck {
        planned,
        came_back: came_back.to_vec(),
        empty: empty.to_vec(),
        not_run: not_run.iter().map(|(id, k)| (id.to_string(), *k)).collect(),
        run_twice: Vec::new(),
        unplanned: 0,
    }
}

fn lines(c: ShardCheck) -> Vec<String> {
    let run = Run {
        shards: Some(c),
        ..Run::default()
    };
    shards(&run)
        .expect("checked")
        .lines()
        .iter()
        .map(|l| l.format(str::to_string, |id| format!("`{id}`")))
        .collect()
}

#[test]
fn every_shard_back_is_one_line() {
    assert_eq!(
        lines(check(3, &[1, 2, 3], &[], &[])),
        ["Shards: all 3 came back."]
    );
    assert_eq!(
        lines(check(4, &[1, 2], &[3, 4], &[])),
        ["Shards: all 2 with tests came back; shards 3 and 4 had no test to run."]
    );
    assert!(shards(&Run::default()).is_none());
}

#[test]
fn a_missing_shard_and_its_tests_are_named() {
    let c = check(4, &[1, 3, 4], &[], &[("a", 2), ("b", 2), ("c", 4)]);
    assert_eq!(
        lines(c),
        [
            "Shards: 3 of 4 came back (1, 3 and 4); shard 2 did not: its 2 planned tests were not run (an error each, above).",
            "1 planned test of shards that came back was not run (not collected there? a plan older than the code?): an error each, above.",
        ]
    );
    let none = check(2, &[], &[], &[("a", 1), ("b", 2)]);
    assert_eq!(
        lines(none)[0],
        "Shards: 0 of 2 came back; shards 1 and 2 did not: their 2 planned tests were not run (an error each, above)."
    );
}

#[test]
fn tests_run_twice_and_unplanned_ones_are_told() {
    let mut c = check(3, &[1, 2, 3], &[], &[]);
    c.run_twice = vec![("x".to_string(), vec![1, 2]), ("y".to_string(), vec![0, 3])];
    c.unplanned = 2;
    assert_eq!(
        lines(c.clone())[1..],
        [
            "Run by more than one shard: `x` (shards 1 and 2), `y` (shard 3 and a file of no planned test).",
            "2 tests the plan does not name ran (collected since it was made).",
        ]
    );
    let run = Run {
        shards: Some(c),
        ..Run::default()
    };
    let json = serde_json::to_value(shards(&run).expect("checked")).expect("JSON");
    assert_eq!(
        json,
        serde_json::json!({
            "planned": 3, "came_back": [1, 2, 3], "missing": [], "empty": [],
            "not_run": [],
            "run_twice": [{"node_id": "x", "shards": [1, 2]}, {"node_id": "y", "shards": [0, 3]}],
            "unplanned": 2
        })
    );
}
