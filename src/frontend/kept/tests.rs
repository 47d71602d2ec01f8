use super::*;

fn keep(runs: &mut Runs, bytes: usize) -> Option<u64> {
    runs.keep("execute_tests", "Test FAILURE".into(), "x".repeat(bytes))
        .map(|k| k.number)
}

#[test]
fn the_oldest_results_go_first_by_count_and_by_bytes() {
    let mut runs = Runs::new(3, 100);
    for n in 1..=4 {
        assert_eq!(keep(&mut runs, 10), Some(n));
    }
    let numbers: Vec<u64> = runs.list().map(|k| k.number).collect();
    assert_eq!(numbers, [4, 3, 2]);
    assert_eq!(
        runs.read("pytest-mcp://runs/1"),
        Err(Missing::LetGo { number: 1 })
    );
    assert_eq!(
        runs.read("pytest-mcp://runs/3").map(|k| k.json.len()),
        Ok(10)
    );
    // 85 bytes more: only the newest of the rest can stay beside it.
    assert_eq!(keep(&mut runs, 85), Some(5));
    let numbers: Vec<u64> = runs.list().map(|k| k.number).collect();
    assert_eq!(numbers, [5, 4]);
    // Over the whole allowance: not kept, nothing let go.
    assert_eq!(keep(&mut runs, 101), None);
    assert_eq!(runs.list().count(), 2);
}

#[test]
fn a_uri_that_is_not_a_kept_result_says_why() {
    let mut runs = Runs::default();
    keep(&mut runs, 1);
    assert_eq!(runs.read("pytest-mcp://runs/1").map(|k| k.number), Ok(1));
    for uri in [
        "file:///etc/passwd",
        "pytest-mcp://runs/01",
        "pytest-mcp://runs/x",
    ] {
        assert_eq!(runs.read(uri), Err(Missing::NotOurs(uri.into())));
    }
    let err = runs.read("pytest-mcp://runs/2").expect_err("not yet");
    assert_eq!(err, Missing::NotYet { number: 2 });
    assert!(err.to_string().contains("no shortened answer"), "{err}");
    let gone = Missing::LetGo { number: 1 }.to_string();
    assert!(gone.contains("last 5 shortened answers"), "{gone}");
}
