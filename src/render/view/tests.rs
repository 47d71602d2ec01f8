use std::collections::HashMap;

use super::*;
use crate::model::history::{History, Since, Standing, TestHistory};
use crate::model::{Location, Outcome, TestResult};

fn failing(id: &str, message: &str, line: u32) -> TestResult {
    let mut t = TestResult::new(id, Outcome::Failed);
    t.set_message(Some(message.to_string()));
    t.location = Some(Location::new("t.py", Some(line)));
    t
}

/// A run told against 5 runs on commit bbbbbbb: `t.py::test_new` and
/// `t.py::test_twin` (the same failure) new, `t.py::test_old` failing for
/// 4 runs since aaaaaaa, `t.py::test_flip` flaky (failed 2 of 5); the
/// flip fails as the new ones do.
fn run_with_history() -> Run {
    let tests = vec![
        failing("t.py::test_new", "E: same", 3),
        failing("t.py::test_old", "E: old", 9),
        failing("t.py::test_flip", "E: same", 3),
        failing("t.py::test_twin", "E: same", 3),
    ];
    let mut histories = HashMap::new();
    histories.insert(
        "t.py::test_old".to_string(),
        TestHistory {
            runs: 5,
            failed: 4,
            flaky: false,
            failing_since: Some(Since {
                run: 2,
                commit: Some("aaaaaaa111".into()),
                runs: 4,
            }),
            ..TestHistory::default()
        },
    );
    histories.insert(
        "t.py::test_flip".to_string(),
        TestHistory {
            runs: 5,
            failed: 2,
            flaky: true,
            failing_since: None,
            ..TestHistory::default()
        },
    );
    Run {
        tests,
        history: Some(History {
            runs: 5,
            run: 6,
            commit: Some("bbbbbbb222".into()),
            tests: histories,
            ..History::default()
        }),
        ..Run::default()
    }
}

#[test]
fn with_a_history_groups_go_new_then_failing_before_then_flaky() {
    let run = run_with_history();
    let groups = failure_groups(&run, New::SinceLastRun);
    let firsts: Vec<&str> = groups.iter().map(|g| g.first.node_id.as_str()).collect();
    assert_eq!(
        firsts,
        ["t.py::test_new", "t.py::test_old", "t.py::test_flip"]
    );
    let standings: Vec<Option<Standing>> = groups.iter().map(|g| g.standing).collect();
    assert_eq!(
        standings,
        [
            Some(Standing::New),
            Some(Standing::FailingBefore),
            Some(Standing::Flaky)
        ]
    );
    // The history names the new failures, as a baseline does; a flaky
    // one is never new.
    assert_eq!(groups[0].new_ids, ["t.py::test_new", "t.py::test_twin"]);
    assert!(groups[1].new_ids.is_empty() && groups[2].new_ids.is_empty());
    assert!(groups[2].is_flaky() && !groups[0].is_flaky());
}

#[test]
fn the_history_mark_says_new_since_when_or_the_rate() {
    let run = run_with_history();
    let groups = failure_groups(&run, New::SinceLastRun);
    let marks: Vec<Option<String>> = groups.iter().map(history_mark).collect();
    assert_eq!(
        marks,
        [
            Some("new".to_string()),
            Some("failing for 4 runs, since aaaaaaa".to_string()),
            Some("flaky, failed 2 of the last 5 runs".to_string()),
        ]
    );
    // Standing marks say nothing of new failures.
    assert_eq!(standing_mark(&groups[0]), None);
}

#[test]
fn some_new_of_a_group_are_counted() {
    let mut run = run_with_history();
    // The twin failed last time too: 1 of the group's 2 is new.
    if let Some(h) = run.history.as_mut() {
        let old = h.tests["t.py::test_old"].clone();
        h.tests.insert("t.py::test_twin".into(), old);
    }
    let groups = failure_groups(&run, New::SinceLastRun);
    assert_eq!(history_mark(&groups[0]).as_deref(), Some("1 of 2 new"));
    assert_eq!(groups[0].new_ids, ["t.py::test_new"]);
}

#[test]
fn without_a_history_nothing_is_marked_or_named() {
    let mut run = run_with_history();
    run.history = None;
    let groups = failure_groups(&run, New::SinceLastRun);
    assert!(groups.iter().all(|g| history_mark(g).is_none()));
    assert!(groups.iter().all(|g| g.new_ids.is_empty()));
}

#[test]
fn a_commit_is_quoted_by_its_first_seven_characters_without_control_ones() {
    assert_eq!(super::short_commit("1a2b3c4d5e6f"), "1a2b3c4");
    assert_eq!(super::short_commit("abc"), "abc");
    assert_eq!(super::short_commit("a\nb\u{1b}[31mc"), "ab[31mc");
    assert_eq!(super::short_commit("ééééééééé"), "ééééééé");
}

#[test]
fn a_run_is_a_success_only_when_pytest_s_status_says_so() {
    use crate::model::Run;
    let passed = Run {
        tests: vec![TestResult::new("t.py::a", Outcome::Passed)],
        ..Run::default()
    };
    let s = status(&passed);
    assert_eq!(
        (s.verdict, s.exit_code, s.exit_reason),
        (Verdict::Success, 0, None)
    );
    // pytest exited 1 with every test passed: a coverage gate said why.
    let gated = Run {
        recorded_exit: Some(1),
        closing_lines: Some("FAIL Required test coverage of 90% not reached.".into()),
        text_output: Some(String::new()),
        ..passed.clone()
    };
    let s = status(&gated);
    assert_eq!(s.verdict, Verdict::Failure);
    let reason = s.exit_reason.expect("a reason");
    assert_eq!(
        reason.text,
        "FAIL Required test coverage of 90% not reached."
    );
    assert_eq!(reason.lead(), "Exit status 1 with no test failed");
    // Nothing printed; and `report`, which has no console.
    let silent = Run {
        closing_lines: None,
        ..gated.clone()
    };
    assert!(
        status(&silent)
            .exit_reason
            .expect("a reason")
            .text
            .contains("printed no reason")
    );
    let files = Run {
        text_output: None,
        ..silent
    };
    assert!(
        status(&files)
            .exit_reason
            .expect("a reason")
            .text
            .contains("result files do not say")
    );
    // A failing test explains exit status 1: no reason to give.
    let failed = Run {
        tests: vec![TestResult::new("t.py::a", Outcome::Failed)],
        ..gated
    };
    assert_eq!(status(&failed).exit_reason, None);
    let none = Run {
        recorded_exit: Some(5),
        ..Run::default()
    };
    assert_eq!(status(&none).verdict, Verdict::NoTests);
}

#[test]
fn failures_with_exit_status_0_say_a_plugin_set_it() {
    use crate::model::Run;
    let run = Run {
        recorded_exit: Some(0),
        tests: vec![
            TestResult::new("t.py::a", Outcome::Failed),
            TestResult::new("t.py::b", Outcome::Passed),
        ],
        ..Run::default()
    };
    let s = status(&run);
    assert_eq!((s.verdict, s.exit_code), (Verdict::Failure, 0));
    let reason = s.exit_reason.expect("a reason");
    assert_eq!(reason.lead(), "Exit status 0 with 1 failed");
    assert!(
        reason
            .text
            .contains("a plugin or conftest.py set pytest's exit status")
    );
}

#[test]
fn a_long_message_is_cut_in_the_middle_and_findings_keep_each_title_and_place() {
    let mut out = String::new();
    let long: Vec<String> = (1..=30).map(|n| format!("line {n}")).collect();
    failure::message_lines(&mut out, &long.join("\n"), 6);
    assert_eq!(
        out,
        "line 1\n  line 2\n  line 3\n  line 4\n  … 23 more lines\n  line 28\n  line 29\n  line 30\n"
    );
    let finding = |code: &str, line: u32| {
        format!(
            "{code} something is wrong\n --> src/app.py:{line}:5\n  |\n{line} | code\n  |   ^^\n"
        )
    };
    let ruff = [finding("F401", 3), finding("B006", 6), finding("F821", 9)].join("\n");
    let mut out = String::new();
    failure::message_lines(&mut out, &ruff, 9);
    for kept in [
        "F401 something",
        "--> src/app.py:3:5",
        "B006 something",
        "--> src/app.py:6:5",
        "F821 something",
        "--> src/app.py:9:5",
    ] {
        assert!(out.contains(kept), "{kept} is not in:\n{out}");
    }
    assert!(!out.contains("^^"), "{out}");
    // Fewer lines: the findings that do not fit are counted.
    let mut out = String::new();
    failure::message_lines(&mut out, &ruff, 6);
    assert!(out.ends_with("  … 1 more finding (5 lines)\n"), "{out}");
}
