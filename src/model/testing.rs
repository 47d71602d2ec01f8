//! Runs the unit tests of several renderers share.

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
