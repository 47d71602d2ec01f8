//! A test's failed subtests as pytest-mcp's plugin records them in the
//! test's pytest-json-report entry (`"subtests"`: one object per failed
//! subtest, with its `msg`, `kwargs`, `crash`, `longrepr`, `stdout`,
//! `stderr` and `log`; see `runner/command/pytest_mcp_events.py`).
//! pytest-json-report itself keeps none of them: each subtest's report is
//! written over the test's call phase, and the test's own comes last.
//! Read leniently: what is not as expected is left out, never the file.

use serde_json::{Map, Value};

use crate::model::{Location, Subtest, SubtestLabel, Subtests, TestResult};
use crate::pytest_text;

/// Gives a failing `test` the failed subtests its entry's `list` holds,
/// and takes pytest's progress for them out of its captured stdout
/// ([`without_progress`]). `by_subtests`: no phase of the test's own
/// failed (unittest's subTest), so pytest counts it among the passed.
pub(super) fn attach(test: &mut TestResult, list: Option<&Value>, by_subtests: bool) {
    if let Some(kept) = test
        .stdout()
        .and_then(|out| without_progress(out, by_subtests))
    {
        test.set_stdout(Some(kept).filter(|k| !k.trim().is_empty()));
    }
    let Some(list) = list.filter(|_| test.is_problem()) else {
        return;
    };
    let failed = read(list, &test.node_id);
    test.set_subtests(Subtests {
        failed,
        test_passed: by_subtests,
    });
}

/// The failed subtests `list` holds, for the test `nodeid`.
fn read(list: &Value, nodeid: &str) -> Vec<Subtest> {
    let Some(list) = list.as_array() else {
        return Vec::new();
    };
    list.iter()
        .filter_map(Value::as_object)
        .map(|entry| one(entry, nodeid))
        .collect()
}

fn one(entry: &Map<String, Value>, nodeid: &str) -> Subtest {
    let text = |key: &str| {
        entry
            .get(key)
            .and_then(Value::as_str)
            .filter(|t| !t.trim().is_empty())
            .map(str::to_string)
    };
    let params = entry
        .get("kwargs")
        .and_then(Value::as_object)
        .map(|kwargs| {
            kwargs
                .iter()
                .map(|(k, v)| (k.clone(), value_text(v)))
                .collect()
        })
        .unwrap_or_default();
    let label = SubtestLabel {
        msg: entry.get("msg").and_then(Value::as_str).map(str::to_string),
        params,
    };
    let crash = entry.get("crash").and_then(Value::as_object);
    let message = crash
        .and_then(|c| c.get("message"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let longrepr = text("longrepr").map(|l| pytest_text::without_worker_line(&l).to_string());
    let mut subtest = Subtest::new(Some(label), message, longrepr);
    if subtest.location.is_none() {
        subtest.location = crash.and_then(|c| crash_in_test_file(c, nodeid));
    }
    subtest.stdout = text("stdout");
    subtest.stderr = text("stderr");
    subtest.log = text("log");
    subtest
}

/// A keyword argument's value as pytest wrote it: its repr, a string (any
/// other JSON value as JSON writes it).
fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The crash's place when it is in the test's own file (the path is
/// absolute, the file in the id relative to the rootdir).
fn crash_in_test_file(crash: &Map<String, Value>, nodeid: &str) -> Option<Location> {
    let file = nodeid.split("::").next().filter(|f| !f.is_empty())?;
    let path = crash.get("path")?.as_str()?.replace('\\', "/");
    let same = path == file || path.ends_with(&format!("/{file}"));
    let line = crash
        .get("lineno")
        .and_then(Value::as_u64)
        .and_then(|l| u32::try_from(l).ok())
        .filter(|l| *l > 0);
    same.then(|| Location::new(file, line))
}

/// A test's captured stdout without the progress pytest's terminal wrote
/// into it for unittest's subtests, which are logged while the test's
/// output is captured: with `-v`, a `SUBFAILED(n=1) ... [ 83%]` line per
/// subtest (in any test); else, with `letters` (a test failed by its
/// subtests alone), a `u` per failed subtest, a line of its own when the
/// test printed nothing around it. pytest-mcp's plugin logs them with
/// capture suspended; a file written without it holds them. `None` when
/// nothing was taken out, else what is left.
pub(super) fn without_progress(stdout: &str, letters: bool) -> Option<String> {
    let progress = |line: &str| {
        let line = line.trim();
        let letters_only = letters && !line.is_empty() && line.bytes().all(|b| b == b'u');
        let word = line.rsplit_once(' ').map_or(line, |(_, w)| w);
        let status = line
            .split(' ')
            .find(|w| w.starts_with("SUB"))
            .is_some_and(|w| {
                ["SUBPASSED", "SUBFAILED", "SUBSKIPPED", "SUBXFAIL"]
                    .iter()
                    .any(|s| w.starts_with(s))
            });
        letters_only || (status && word.ends_with("%]"))
    };
    if !stdout.lines().any(progress) {
        return None;
    }
    let kept: Vec<&str> = stdout.lines().filter(|l| !progress(l)).collect();
    Some(kept.join("\n"))
}
