use super::*;

fn plan(shards: &[&[&str]]) -> Vec<Vec<String>> {
    shards
        .iter()
        .map(|ids| ids.iter().map(|s| s.to_string()).collect())
        .collect()
}

fn check(plan: &[Vec<String>], files: &[&[&str]]) -> ShardCheck {
    let mut checker = Checker::new(plan);
    for file in files {
        checker.file(file.iter().copied());
    }
    checker.finish()
}

#[test]
fn shards_that_all_came_back_leave_nothing_to_say() {
    let p = plan(&[&["a::x", "a::y"], &["b::z"], &[]]);
    // Shard 1's JUnit and JSON report both hold its tests: run once.
    let c = check(&p, &[&["a::x", "a::y"], &["a::y", "a::x"], &["b::z"]]);
    assert_eq!(c.planned, 3);
    assert_eq!(c.came_back, [1, 2]);
    assert_eq!(c.empty, [3]);
    assert!(c.missing().is_empty());
    assert!(c.not_run.is_empty() && c.run_twice.is_empty());
    assert_eq!(c.unplanned, 0);
}

#[test]
fn a_withheld_shard_and_a_lost_test_are_not_run() {
    let p = plan(&[&["a::x", "a::y"], &["b::z", "b::w"], &["c::v"]]);
    // Shard 2's files withheld; shard 1 came back without a::y.
    let c = check(&p, &[&["a::x"], &["c::v"]]);
    assert_eq!(c.came_back, [1, 3]);
    assert_eq!(c.missing(), [2]);
    assert_eq!(
        c.not_run,
        [
            ("a::y".to_string(), 1),
            ("b::z".to_string(), 2),
            ("b::w".to_string(), 2)
        ]
    );
    let mut run = Run::default();
    c.apply(&mut run);
    let messages: Vec<(&str, Outcome, Option<&str>)> = run
        .tests
        .iter()
        .map(|t| (t.node_id.as_str(), t.outcome, t.message()))
        .collect();
    assert_eq!(
        messages[0],
        (
            "a::y",
            Outcome::Error,
            Some(
                "Not run: planned for shard 1 of 3, whose results came back without it (not collected there?)"
            )
        )
    );
    assert_eq!(
        messages[1].2,
        Some("Not run: planned for shard 2 of 3, whose results did not come back")
    );
    assert_eq!(run.tests[1].location.as_ref().map(|l| &*l.file), Some("b"));
    assert_eq!(run.counts().errors, 3);
    assert!(run.shards.is_some());
}

#[test]
fn tests_two_shards_ran_are_named_with_the_shards() {
    let p = plan(&[&["a::x", "a::y"], &["b::z", "b::w"]]);
    // Shard 2 also ran a::x; the third file is shard 2's (b::w is), and
    // a file of no planned test ran n::new again.
    let c = check(
        &p,
        &[
            &["a::x", "a::y"],
            &["b::z", "b::w", "a::x"],
            &["n::new", "b::w"],
            &["n::new"],
        ],
    );
    assert_eq!(c.came_back, [1, 2]);
    assert_eq!(
        c.run_twice,
        [
            ("a::x".to_string(), vec![1, 2]),
            ("n::new".to_string(), vec![0, 2])
        ]
    );
    assert_eq!(c.unplanned, 1);
    assert!(c.not_run.is_empty());
}

#[test]
fn a_file_goes_to_the_shard_that_plans_most_of_it() {
    let p = plan(&[&["a::x"], &["b::y", "b::z"]]);
    // Mostly shard 2's: a::x counts as run by shard 2.
    let c = check(&p, &[&["a::x", "b::y", "b::z"]]);
    assert_eq!(c.came_back, [2]);
    assert_eq!(c.missing(), [1]);
    assert!(c.not_run.is_empty(), "every test ran");
}
