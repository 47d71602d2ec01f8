//! Runs the unit tests of several renderers share.

use super::discovery::{Discovery, Item};
use super::history::{History, Mark, RunInfo, Since, State, TestHistory};
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

/// A run told against a history of three runs (12 to 14, the second on a
/// commit with markup and a control character in it, and without a
/// duration): `t.py::test_flip` fails now, flaky, its last 12 outcomes
/// `✓✓✓↻✓✓✓✓✗✓✗✗`; `t.py::test_slow` passes in 3 s, its median 0.5 s
/// (slower than usual); `t.py::test_ok` passes in 0.1 s.
pub(crate) fn run_with_trend() -> Run {
    use Mark::{Failed as F, Flaky as K, Passed as P};
    let mut flip = TestResult::new("t.py::test_flip", Outcome::Failed);
    flip.set_message(Some("E: flip".into()));
    flip.location = Some(Location::new("t.py", Some(2)));
    let mut slow = TestResult::new("t.py::test_slow", Outcome::Passed);
    slow.duration = Some(3.0);
    let mut ok = TestResult::new("t.py::test_ok", Outcome::Passed);
    ok.duration = Some(0.1);
    let mut tests = std::collections::HashMap::new();
    let recent = vec![P, P, P, K, P, P, P, P, F, P, F, F];
    let h = TestHistory {
        runs: 12,
        failed: 3,
        flaky: true,
        state: State::Flaky,
        recent,
        ..TestHistory::default()
    };
    tests.insert("t.py::test_flip".to_string(), h);
    let h = TestHistory {
        runs: 3,
        recent: vec![P, P, P],
        median: Some(0.5),
        slower: true,
        ..TestHistory::default()
    };
    tests.insert("t.py::test_slow".to_string(), h);
    let day = 86_400;
    let trend = vec![
        RunInfo {
            id: 12,
            commit: Some("aaaaaaa111".into()),
            at: 1_700_000_000,
            passed: 2,
            flaky: 1,
            duration: Some(1.0),
            ..RunInfo::default()
        },
        RunInfo {
            id: 13,
            commit: Some("b|<b>\u{7}bbbbbb".into()),
            at: 1_700_000_000 + day,
            passed: 2,
            failed: 1,
            ..RunInfo::default()
        },
        RunInfo {
            id: 14,
            commit: Some("ccccccc333".into()),
            at: 1_700_000_000 + 2 * day,
            passed: 2,
            failed: 1,
            duration: Some(4.0),
            ..RunInfo::default()
        },
    ];
    Run {
        tests: vec![flip, slow, ok],
        recorded_exit: Some(1),
        duration: Some(4.0),
        history: Some(History {
            runs: 3,
            run: 14,
            commit: Some("ccccccc333".into()),
            tests,
            trend,
        }),
        ..Run::default()
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
