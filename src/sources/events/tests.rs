use super::*;

const LOG: &str = r#"{"event": "collected", "count": 4}
{"event": "start", "nodeid": "t.py::a"}
{"event": "report", "nodeid": "t.py::a", "when": "setup", "outcome": "passed", "duration": 0.1}
{"event": "report", "nodeid": "t.py::a", "when": "call", "outcome": "failed", "duration": 0.2, "longrepr": "E   assert 1 == 2", "message": "assert 1 == 2"}
{"event": "report", "nodeid": "t.py::a", "when": "teardown", "outcome": "passed", "duration": 0.0}
{"event": "finish", "nodeid": "t.py::a"}
{"event": "start", "nodeid": "t.py::b"}
{"event": "report", "nodeid": "t.py::b", "when": "setup", "outcome": "skipped", "duration": 0.0, "longrepr": "('/p/t.py', 3, 'Skipped: later')"}
{"event": "finish", "nodeid": "t.py::b"}
{"event": "start", "nodeid": "t.py::hangs"}
{"event": "report", "nodeid": "t.py::hangs", "when": "setup", "outco"#;

#[test]
fn the_tail_follows_the_log_as_it_grows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("events.jsonl");
    let mut tail = EventTail::new(path.clone());
    assert!(tail.poll().is_none());
    let (first, rest) = LOG.split_at(
        LOG.find("{\"event\": \"start\", \"nodeid\": \"t.py::b\"")
            .unwrap(),
    );
    std::fs::write(&path, first).expect("write");
    let p = tail.poll().expect("progress").clone();
    assert_eq!((p.done, p.total), (1, Some(4)));
    std::fs::write(&path, LOG).expect("write");
    let p = tail.poll().expect("progress").clone();
    assert_eq!(p.done, 2);
    assert_eq!(p.current.as_deref(), Some("t.py::hangs"));
    assert!(rest.len() > 10);
    assert!(tail.poll().is_none());
}

#[test]
fn finished_tests_and_the_running_one() {
    let log = EventLog::parse(LOG);
    assert_eq!(log.collected, Some(4));
    assert_eq!(log.completed(), 2);
    assert_eq!(
        log.running(),
        [Running {
            node_id: "t.py::hangs".into(),
            worker: None
        }]
    );
    let run = log.to_run();
    assert_eq!(run.tests.len(), 2);
    assert_eq!(run.tests[0].outcome, Outcome::Failed);
    assert_eq!(run.tests[0].message(), Some("assert 1 == 2"));
    assert!((run.tests[0].duration.unwrap() - 0.3).abs() < 1e-9);
    assert_eq!(run.tests[1].outcome, Outcome::Skipped);
    assert_eq!(run.tests[1].message(), Some("later"));
}

/// Under pytest-xdist the workers write the start lines (with their
/// id) and the controller the rest: a test is running when it is the
/// last one its worker started and it did not finish.
const XDIST_LOG: &str = r#"{"event": "collected", "count": 5, "ids": ["t.py::hangs_one", "t.py::c", "t.py::b", "t.py::a", "t.py::hangs_two"]}
{"event": "start", "nodeid": "t.py::a", "worker": "gw1"}
{"event": "start", "nodeid": "t.py::b", "worker": "gw0"}
{"event": "report", "nodeid": "t.py::a", "when": "call", "outcome": "passed", "duration": 0.1}
{"event": "finish", "nodeid": "t.py::a"}
{"event": "start", "nodeid": "t.py::hangs_one", "worker": "gw1"}
{"event": "report", "nodeid": "t.py::b", "when": "???", "outcome": "failed", "duration": 0, "longrepr": "worker 'gw0' crashed while running 't.py::b'"}
{"event": "finish", "nodeid": "t.py::b"}
{"event": "start", "nodeid": "t.py::c", "worker": "gw2"}
{"event": "finish", "nodeid": "t.py::c"}
{"event": "start", "nodeid": "t.py::hangs_two", "worker": "gw2"}
{"event": "maxfail", "failures": 1}
"#;

#[test]
fn under_xdist_each_busy_worker_names_its_test() {
    let log = EventLog::parse(XDIST_LOG);
    let running = log.running();
    let running: Vec<(&str, Option<&str>)> = running
        .iter()
        .map(|r| (r.node_id.as_str(), r.worker.as_deref()))
        .collect();
    assert_eq!(
        running,
        [
            ("t.py::hangs_one", Some("gw1")),
            ("t.py::hangs_two", Some("gw2"))
        ]
    );
    let mut run = log.to_run();
    let ids: Vec<&str> = run.tests.iter().map(|t| t.node_id.as_str()).collect();
    assert_eq!(ids, ["t.py::a", "t.py::b", "t.py::c"]);
    run.tests
        .push(TestResult::new("t.py::unknown", Outcome::Passed));
    log.sort_in_collection_order(&mut run.tests);
    let ids: Vec<&str> = run.tests.iter().map(|t| t.node_id.as_str()).collect();
    assert_eq!(ids, ["t.py::c", "t.py::b", "t.py::a", "t.py::unknown"]);
    assert_eq!(log.stopped_at_maxfail, Some(1));
    assert_eq!(EventLog::parse(LOG).stopped_at_maxfail, None);
    // The test of the worker that crashed failed; it is no longer running.
    assert_eq!(run.tests[1].outcome, Outcome::Failed);
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("events.jsonl");
    std::fs::write(&path, XDIST_LOG).expect("write");
    let mut tail = EventTail::new(path);
    let p = tail.poll().expect("progress").clone();
    assert_eq!((p.done, p.total), (3, Some(5)));
    assert_eq!(p.current.as_deref(), Some("t.py::hangs_two"));
}

#[test]
fn what_the_cache_of_failures_did() {
    let state = |line: &str| EventLog::parse(line).failure_cache;
    assert_eq!(state(LOG), None);
    assert_eq!(
        state(r#"{"event": "lastfailed", "enabled": false, "asked": false}"#),
        Some(FailureCache::Disabled { asked: false })
    );
    assert_eq!(
        state(
            r#"{"event": "lastfailed", "enabled": true, "asked": true, "recorded": 3, "selected": 1, "cache_exists": true}"#
        ),
        Some(FailureCache::Asked(LastFailed {
            recorded: 3,
            selected: 1,
            cache_exists: true
        }))
    );
}

#[test]
fn what_pytest_testmon_selected() {
    let log = EventLog::parse(
        r#"{"event": "affected", "new_db": false, "packages_changed": false, "left_out": 10}"#,
    );
    assert_eq!(
        log.affected,
        Some(Affected {
            left_out: 10,
            all_ran: None
        })
    );
    let first = EventLog::parse(r#"{"event": "affected", "new_db": true, "left_out": 0}"#);
    assert_eq!(
        first.affected.and_then(|a| a.all_ran),
        Some(AllRan::FirstRun)
    );
}

/// pytest-rerunfailures starts a test once per attempt; its failed attempts
/// are reports with the outcome "rerun", each attempt's finish marked.
#[test]
fn a_rerun_test_is_one_test_with_its_failed_attempts() {
    let log = r#"{"event": "collected", "count": 1}
{"event": "start", "nodeid": "t.py::flip"}
{"event": "report", "nodeid": "t.py::flip", "when": "call", "outcome": "rerun", "rerun": 0, "message": "AssertionError: not yet"}
{"event": "report", "nodeid": "t.py::flip", "when": "teardown", "outcome": "rerun", "rerun": 0, "message": "teardown too"}
{"event": "finish", "nodeid": "t.py::flip", "rerun": true}
{"event": "start", "nodeid": "t.py::flip"}
{"event": "report", "nodeid": "t.py::flip", "when": "call", "outcome": "rerun", "rerun": 1, "longrepr": "E   ValueError: later"}
{"event": "finish", "nodeid": "t.py::flip", "rerun": true}
{"event": "start", "nodeid": "t.py::flip"}
{"event": "report", "nodeid": "t.py::flip", "when": "call", "outcome": "passed", "duration": 0.1}
{"event": "finish", "nodeid": "t.py::flip"}
"#;
    let run = EventLog::parse(log).to_run();
    let [flip] = &run.tests[..] else {
        panic!("{:?}", run.tests)
    };
    assert_eq!(flip.outcome, Outcome::Passed);
    let said: Vec<Option<&str>> = flip.reruns().iter().map(|a| a.message.as_deref()).collect();
    assert_eq!(
        said,
        [Some("AssertionError: not yet"), Some("ValueError: later")]
    );

    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("events.jsonl");
    std::fs::write(&path, log).expect("write");
    let mut tail = EventTail::new(path);
    let p = tail.poll().expect("progress").clone();
    assert_eq!((p.done, p.total), (1, Some(1)));
}

#[test]
fn a_log_without_its_last_line_ended_early_and_names_what_never_ran() {
    let log = r#"{"event": "begin"}
{"event": "collected", "count": 4, "ids": ["t.py::a", "t.py::b", "t.py::c", "t.py::d"]}
{"event": "start", "nodeid": "t.py::a"}
{"event": "report", "nodeid": "t.py::a", "when": "call", "outcome": "passed", "duration": 0.1}
{"event": "finish", "nodeid": "t.py::a"}
{"event": "start", "nodeid": "t.py::b"}
"#;
    let events = EventLog::parse(log);
    assert!(events.ended_early());
    let running = events.running();
    assert_eq!(running.len(), 1);
    assert_eq!(events.never_ran(&running), ["t.py::c", "t.py::d"]);
    // With its last line: the session ended, its duration is pytest's.
    let ended = format!(
        "{log}{}\n",
        r#"{"event": "end", "exitstatus": 1, "duration": 1.41, "interrupt": "Exit: db gone"}"#
    );
    let events = EventLog::parse(&ended);
    assert!(!events.ended_early());
    let end = events.end.expect("the end");
    assert_eq!((end.exitstatus, end.duration), (Some(1), Some(1.41)));
    assert_eq!(end.interrupt.as_deref(), Some("Exit: db gone"));
    // No first line (an older plugin, or none): nothing is said.
    assert!(!EventLog::parse(r#"{"event": "collected", "count": 1}"#).ended_early());
}

/// The seconds of a test's setup, call and teardown, to within the
/// split's precision (a share in 1/65,534).
fn phase_seconds(test: &TestResult) -> [f64; 3] {
    let times = test.phase_times().expect("timed phases");
    [times.setup, times.call, times.teardown]
}

fn close(a: [f64; 3], b: [f64; 3]) -> bool {
    a.iter().zip(b).all(|(a, b)| (a - b).abs() < 1e-4)
}

/// The passed phases' one line carries their setup and teardown seconds
/// beside their sum (issue 49): the test's time splits into its phases.
#[test]
fn the_passed_phases_line_splits_the_time_into_phases() {
    let log = r#"{"event": "collected", "count": 3}
{"event": "start", "nodeid": "t.py::first"}
{"event": "report", "nodeid": "t.py::first", "when": "call", "outcome": "passed", "duration": 2.25, "setup": 2.000000, "teardown": 0.050000}
{"event": "finish", "nodeid": "t.py::first"}
{"event": "start", "nodeid": "t.py::failing"}
{"event": "report", "nodeid": "t.py::failing", "when": "call", "outcome": "failed", "duration": 0.5, "longrepr": "E   assert 0", "message": "assert 0"}
{"event": "report", "nodeid": "t.py::failing", "when": "call", "outcome": "passed", "duration": 0.125, "setup": 0.100000, "teardown": 0.025000}
{"event": "finish", "nodeid": "t.py::failing"}
{"event": "start", "nodeid": "t.py::old"}
{"event": "report", "nodeid": "t.py::old", "when": "call", "outcome": "passed", "duration": 0.3}
{"event": "finish", "nodeid": "t.py::old"}
"#;
    let run = EventLog::parse(log).to_run();
    let [first, failing, old] = &run.tests[..] else {
        panic!("{:?}", run.tests)
    };
    assert_eq!(first.outcome, Outcome::Passed);
    assert!((first.duration.unwrap() - 2.25).abs() < 1e-12);
    assert!(close(phase_seconds(first), [2.0, 0.2, 0.05]));
    // A failed call's own report, and the passed setup and teardown.
    assert_eq!(failing.outcome, Outcome::Failed);
    assert!((failing.duration.unwrap() - 0.625).abs() < 1e-12);
    assert!(close(phase_seconds(failing), [0.1, 0.5, 0.025]));
    // An older plugin's line, without them: all of it the call, as before.
    assert!(close(phase_seconds(old), [0.0, 0.3, 0.0]));
}

/// A setup or teardown the line gives beyond its sum (rounded to the
/// microsecond on a test of none), or not a time, is cut to what is left:
/// the phases still add up to the duration.
#[test]
fn the_parts_never_exceed_the_sum() {
    let line = |setup: &str, teardown: &str| {
        format!(
            "{{\"event\": \"start\", \"nodeid\": \"t.py::a\"}}\n\
             {{\"event\": \"report\", \"nodeid\": \"t.py::a\", \"when\": \"call\", \"outcome\": \"passed\", \"duration\": 0.000001, \"setup\": {setup}, \"teardown\": {teardown}}}\n\
             {{\"event\": \"finish\", \"nodeid\": \"t.py::a\"}}\n"
        )
    };
    for (setup, teardown) in [
        ("0.000001", "0.000001"),
        ("0.000002", "0.0"),
        ("-1", "0.000001"),
    ] {
        let run = EventLog::parse(&line(setup, teardown)).to_run();
        let test = &run.tests[0];
        assert_eq!(test.duration, Some(0.000001), "{setup} {teardown}");
        let times = test.phase_times().expect("phases");
        let sum = times.setup + times.call + times.teardown;
        assert!(
            (sum - 0.000001).abs() < 1e-15,
            "{setup} {teardown}: {times:?}"
        );
        assert!(times.setup >= 0.0 && times.call >= 0.0 && times.teardown >= 0.0);
    }
    // A duration that is no time is no time, split or not.
    let run = EventLog::parse(&line("0.1", "0.1").replace("0.000001,", "-1.0,")).to_run();
    assert_eq!((run.tests[0].duration, run.tests[0].phases), (None, None));
}

/// JUnit's tests (one time each) get the log's split of the same id; a
/// test with its own split, without a duration, or unknown to the log is
/// left as it is.
#[test]
fn tests_timed_as_a_whole_get_the_logs_split() {
    let log = EventLog::parse(
        r#"{"event": "start", "nodeid": "t.py::a"}
{"event": "report", "nodeid": "t.py::a", "when": "call", "outcome": "passed", "duration": 4.0, "setup": 3.000000, "teardown": 0.000000}
{"event": "finish", "nodeid": "t.py::a"}
{"event": "start", "nodeid": "t.py::b"}
{"event": "report", "nodeid": "t.py::b", "when": "call", "outcome": "passed", "duration": 1.0, "setup": 0.000000, "teardown": 0.500000}
{"event": "finish", "nodeid": "t.py::b"}
"#,
    );
    let timed = |id: &str, duration: Option<f64>, phases: Option<PhaseSplit>| {
        let mut test = TestResult::new(id, Outcome::Passed);
        test.duration = duration;
        test.phases = phases;
        test
    };
    let own = PhaseSplit::of(1.0, 1.0, 0.0);
    let mut tests = vec![
        timed("t.py::a", Some(4.2), None),
        timed("t.py::b", Some(2.0), own),
        timed("t.py::b", None, None),
        timed("t.py::unknown", Some(1.0), None),
    ];
    log.split_phases(&mut tests);
    // JUnit's own time, split by the log's shares.
    assert!(close(phase_seconds(&tests[0]), [3.15, 1.05, 0.0]));
    assert_eq!(tests[1].phases, own);
    assert_eq!(tests[2].phases, None);
    assert_eq!(tests[3].phases, None);
    // A second time changes nothing; every test split: nothing to do.
    let before = tests.clone();
    log.split_phases(&mut tests);
    assert_eq!(tests, before);
}
