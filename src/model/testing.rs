//! Runs the unit tests of several renderers share.

use super::discovery::{Discovery, Item};
use super::history::{History, Since, State, TestHistory};
use super::{Location, Outcome, Run, TestResult};

/// `n` failing tests, each its own root cause: `tests/t<i>.py::test_x`,
/// failing with `ValueError<i>: broken` at line 1 of its own file.
pub(crate) fn distinct_failures(n: usize) -> Run {
    let tests = (0..n)
        .map(|i| {
            let mut t = TestResult::new(format!("tests/t{i}.py::test_x"), Outcome::Failed);
            t.set_message(Some(format!("ValueError{i}: broken")));
            t.location = Some(Location::new(format!("tests/t{i}.py"), Some(1)));
            t
        })
        .collect();
    Run {
        tests,
        ..Run::default()
    }
}

/// A history of `runs` runs on commit bbbbbbb: `old` failing for 4 runs
/// since `since`, `flaky` flaky (failed 2 of them); any other failure is
/// new.
pub(crate) fn history(runs: u32, old: &[&str], since: &str, flaky: &[&str]) -> History {
    let mut tests = std::collections::HashMap::new();
    for id in old {
        let since = Since {
            run: 1,
            commit: Some(since.to_string()),
            runs: 4,
        };
        let h = TestHistory {
            runs,
            failed: 4,
            flaky: false,
            failing_since: Some(since),
            state: State::Failing,
            ..TestHistory::default()
        };
        tests.insert(id.to_string(), h);
    }
    for id in flaky {
        let h = TestHistory {
            runs,
            failed: 2,
            flaky: true,
            failing_since: None,
            state: State::Flaky,
            ..TestHistory::default()
        };
        tests.insert(id.to_string(), h);
    }
    History {
        runs: runs as usize,
        run: i64::from(runs),
        commit: Some("bbbbbbb22222".into()),
        tests,
        ..History::default()
    }
}

/// A discovered test `nodeid` of the function `function` at `line`.
pub(crate) fn item(nodeid: &str, function: Option<&str>, line: u32) -> Item {
    Item {
        nodeid: nodeid.into(),
        file: nodeid.split("::").next().map(str::to_string),
        line: Some(line),
        module: None,
        class: None,
        function: function.map(str::to_string),
    }
}

/// What a discovery of `items` found.
pub(crate) fn discovery(items: Vec<Item>) -> Discovery {
    Discovery {
        items,
        ..Discovery::default()
    }
}
