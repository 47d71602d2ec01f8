//! How a run ends when it does not end by itself: a time limit, a signal
//! to the CLI, a segfault; and what it must not leave behind (processes,
//! its private temporary directory).

use super::*;
use crate::common::headline::{Verdict, says};

// ---------------------------------------------------------------------------
// Timeout: the whole process group ends, the hanging test is named
// ---------------------------------------------------------------------------

const HANGING: &str = "tests/test_hang.py::test_hangs_with_stubborn_child";

/// Waits for runner_hang's pytest and child and everything else of the run
/// to be gone ([`support::nothing_left`]).
fn nothing_left(project: &Project) -> Result<(), String> {
    support::nothing_left(&project.root, &["pytest.pid", "child.pid"])
}

/// The run ended within a few seconds of its time limit and its grace, and
/// not before both had passed (SIGTERM is ignored, so only SIGKILL after
/// the grace ends it).
fn assert_prompt(answer: &Answer, timeout: u64, grace: Duration) {
    let earliest = Duration::from_secs(timeout) + grace;
    let limit = earliest + Duration::from_secs(10);
    println!(
        "timeout {timeout}s: pytest-mcp returned after {:.2}s ({:.2}s after the time limit; \
         SIGTERM is ignored, so SIGKILL after the {:.1}s grace)",
        answer.elapsed.as_secs_f64(),
        answer.elapsed.as_secs_f64() - timeout as f64,
        grace.as_secs_f64()
    );
    assert!(
        (earliest..limit).contains(&answer.elapsed),
        "took {:?} with --timeout {timeout} and a {grace:?} grace",
        answer.elapsed
    );
}

/// Both formats at once: each run spends most of its time waiting.
#[test]
fn a_hang_times_out_names_the_test_and_kills_everything() {
    let json_project = Project::copy("runner_hang");
    let md_project = Project::copy("runner_hang");
    // 8 s: room for pytest to reach the hanging test on a loaded machine
    // (the MCP suite's 3 s was once too little beside other CI jobs).
    let args = ["--timeout", "8", "--kill-grace", SHORT_GRACE_ARG];
    let ((answer, value), (md_answer, text)) = std::thread::scope(|scope| {
        let md = scope.spawn(|| run_markdown(&md_project, &python(), &args));
        let json = run_json(&json_project, &python(), &args);
        (json, md.join().expect("the Markdown run"))
    });
    let left = [nothing_left(&json_project), nothing_left(&md_project)];
    assert!(left.iter().all(Result::is_ok), "{left:#?}");

    // JSON: the ADR-007 timeout error with what finished.
    assert_eq!(answer.status, Some(124), "{value}");
    assert_prompt(&answer, 8, SHORT_GRACE);
    let error = &value["error"];
    assert_eq!(error["code"], -32000, "{value}");
    assert!(
        error["message"]
            .as_str()
            .unwrap_or("")
            .contains("timeout of 8 seconds"),
        "{error}"
    );
    let data = &error["data"];
    assert_eq!(data["error_type"], "timeout");
    assert_eq!(data["running_test"], HANGING);
    assert_eq!(data["exit_code"], Value::Null);
    let tests = data["tests"].as_array().expect("data.tests");
    assert_eq!(tests.len(), 1, "{tests:?}");
    assert_eq!(tests[0]["node_id"], "tests/test_hang.py::test_quick");
    assert_eq!(tests[0]["outcome"], "passed");
    assert_eq!(data["summary"]["total"], 1);
    assert_eq!(data["summary"]["passed"], 1);
    assert!(data["command"].is_array() && data["duration"].is_number());

    // Markdown.
    assert_eq!(md_answer.status, Some(124), "{text}");
    assert_prompt(&md_answer, 8, SHORT_GRACE);
    assert!(says(&text, Verdict::Timeout), "{text}");
    assert!(text.contains(HANGING), "{text}");
}

/// SIGTERM, SIGINT or SIGHUP to `pytest-mcp run` while a test hangs with a
/// child that ignores SIGTERM: the CLI ends the whole pytest process group
/// before it exits (dying at once used to leave that child running, as only
/// pytest itself gets the parent-death signal), answers CANCELLED naming
/// the running test, and exits 128+N. One run per signal, at once; the
/// SIGHUP run keeps the default grace (no `--kill-grace`), so that default
/// is checked too, the others take the short one.
#[test]
fn a_signal_to_the_cli_ends_the_whole_run() {
    let signals = [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP];
    let grace = |signal: Signal| match signal {
        Signal::SIGHUP => None,
        _ => Some(SHORT_GRACE_ARG),
    };
    let projects: Vec<Project> = signals
        .iter()
        .map(|_| Project::copy("runner_hang"))
        .collect();
    // (answer, seconds from the signal to the exit)
    let answers: Vec<(Answer, Option<f64>)> = std::thread::scope(|scope| {
        let runs: Vec<_> = signals
            .iter()
            .zip(&projects)
            .map(|(signal, project)| {
                scope.spawn(move || signalled_run(project, *signal, grace(*signal)))
            })
            .collect();
        runs.into_iter()
            .map(|r| r.join().expect("a signalled run"))
            .collect()
    });
    let left: Vec<_> = projects.iter().map(nothing_left).collect();
    assert!(left.iter().all(Result::is_ok), "{left:#?}");
    for (signal, (answer, after)) in signals.iter().zip(&answers) {
        let exited_after = after.unwrap_or_else(|| {
            panic!(
                "{signal}: the hanging test never started: {}",
                answer.stderr
            )
        });
        let grace = grace(*signal).map_or(DEFAULT_GRACE, |_| SHORT_GRACE);
        println!(
            "{signal} to pytest-mcp run: exit {:?} {exited_after:.2}s after the signal \
             (pytest and its child ignore SIGTERM: SIGKILL after the {:.1}s grace)",
            answer.status,
            grace.as_secs_f64()
        );
        assert_eq!(
            answer.status,
            Some(128 + *signal as i32),
            "{signal}: {}",
            answer.stderr
        );
        // Not before the grace (only SIGKILL ends the run), not long after.
        assert!(
            (grace.as_secs_f64()..(grace + Duration::from_secs(5)).as_secs_f64())
                .contains(&exited_after),
            "{signal}: exited {exited_after:.2}s after the signal, with a {grace:?} grace"
        );
        let text = answer.text();
        assert!(says(&text, Verdict::Cancelled), "{signal}: {text}");
        assert!(
            text.contains(&format!("Running at the end: {HANGING}")),
            "{signal}: {text}"
        );
    }
}

/// `pytest-mcp run` on a copy of runner_hang, sent `signal` once the
/// hanging test's child is up: the answer, and the seconds from the signal
/// to the exit (`None` when the test never started).
fn signalled_run(project: &Project, signal: Signal, grace: Option<&str>) -> (Answer, Option<f64>) {
    let started = Instant::now();
    let child = command(Path::new(BIN))
        .arg("run")
        .arg("--root")
        .arg(&project.root)
        .arg("--python")
        .arg(python())
        .args(["--timeout", "60"])
        .args(grace.map(|g| ["--kill-grace", g]).iter().flatten())
        .spawn()
        .expect("start pytest-mcp");
    let mut sent = None;
    let answer = wait(child, started, |pid| {
        if sent.is_none() && project.root.join("child.pid").exists() {
            let _ = kill(Pid::from_raw(pid as i32), signal);
            sent = Some(Instant::now());
        }
    });
    let after = sent.map(|at| (answer.elapsed - at.duration_since(started)).as_secs_f64());
    (answer, after)
}

// ---------------------------------------------------------------------------
// Crash: death by SIGSEGV
// ---------------------------------------------------------------------------

const SEGFAULTING: &str = "tests/test_crash.py::test_segfaults";

#[test]
fn segfault_json_is_a_crash_with_sigsegv_and_the_test() {
    let project = Project::copy("runner_segfault");
    let (answer, value) = run_json(&project, &python(), &["--timeout", "30"]);
    assert_eq!(answer.status, Some(128 + 11), "{value}");
    let error = &value["error"];
    assert_eq!(error["code"], -32000);
    assert!(
        error["message"].as_str().unwrap_or("").contains("SIGSEGV"),
        "{error}"
    );
    let data = &error["data"];
    assert_eq!(data["error_type"], "crash");
    assert_eq!(data["signal"], "SIGSEGV");
    assert_eq!(data["exit_code"], Value::Null);
    assert_eq!(data["running_test"], SEGFAULTING);
    let tests = data["tests"].as_array().expect("data.tests");
    assert_eq!(tests.len(), 1, "{tests:?}");
    assert_eq!(
        tests[0]["node_id"],
        "tests/test_crash.py::test_before_the_crash"
    );
    assert_eq!(tests[0]["outcome"], "passed");
    // faulthandler's dump reaches us on stderr.
    assert!(
        data["stderr"]
            .as_str()
            .unwrap_or("")
            .contains("Segmentation fault"),
        "{}",
        data["stderr"]
    );
}

#[test]
fn segfault_markdown_is_a_crash_with_sigsegv_and_the_test() {
    let project = Project::copy("runner_segfault");
    let (answer, text) = run_markdown(&project, &python(), &["--timeout", "30"]);
    assert_eq!(answer.status, Some(139), "{text}");
    assert!(says(&text, Verdict::Crash), "{text}");
    assert!(text.contains("SIGSEGV"), "{text}");
    assert!(text.contains(SEGFAULTING), "{text}");
}

// ---------------------------------------------------------------------------
// A child left running by a test that passed, or that crashed
// ---------------------------------------------------------------------------

/// pytest exits (normally, or by SIGSEGV) while a child it started, which
/// ignores SIGTERM, still runs: the group is killed after pytest ends, so
/// the child is gone by the time the answer is out.
#[test]
fn a_child_left_behind_by_a_test_does_not_outlive_the_run() {
    for (test, status, verdict) in [
        (
            "tests/test_orphan.py::test_passes_and_leaves_a_child",
            0,
            Verdict::Success,
        ),
        (
            "tests/test_orphan.py::test_segfaults_and_leaves_a_child",
            139,
            Verdict::Crash,
        ),
    ] {
        let project = Project::copy("runner_orphan");
        let (answer, text) = run_markdown(&project, &python(), &[test]);
        let left = nothing_left(&project);
        assert!(left.is_ok(), "{test}: {left:?}");
        assert_eq!(answer.status, Some(status), "{test}: {text}");
        assert!(says(&text, verdict), "{test}: {text}");
    }
}
// ---------------------------------------------------------------------------
// The private temporary directory
// ---------------------------------------------------------------------------

/// Each run writes its result files into a private directory under TMPDIR
/// and removes it afterwards, after a normal run and after a timeout alike.
#[test]
fn the_private_temporary_directory_is_removed() {
    for (project, extra) in [
        ("one_failure", vec![]),
        (
            "runner_hang",
            vec!["--timeout", "2", "--kill-grace", SHORT_GRACE_ARG],
        ),
    ] {
        let project = Project::copy(project);
        let tmp = tempfile::tempdir().expect("TMPDIR for the run");
        let started = Instant::now();
        let child = command(Path::new(BIN))
            .env("TMPDIR", tmp.path())
            .arg("run")
            .arg("--root")
            .arg(&project.root)
            .arg("--python")
            .arg(python())
            .args(&extra)
            .spawn()
            .expect("start pytest-mcp");
        // While it runs, the directory is there (so the check below can fail).
        let mut seen = false;
        let answer = wait(child, started, |_| {
            seen = seen
                || std::fs::read_dir(tmp.path()).is_ok_and(|mut d| {
                    d.any(|e| {
                        e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("pytest-mcp-"))
                    })
                });
        });
        assert!(
            matches!(answer.status, Some(1) | Some(124)),
            "{}",
            answer.stderr
        );
        assert!(
            seen,
            "no pytest-mcp-* directory appeared in TMPDIR during the run"
        );
        let left: Vec<_> = std::fs::read_dir(tmp.path())
            .expect("read TMPDIR")
            .map(|e| e.expect("entry").file_name())
            .filter(|n| n.to_string_lossy().starts_with("pytest-mcp-"))
            .collect();
        assert!(left.is_empty(), "left behind in TMPDIR: {left:?}");
    }
}
