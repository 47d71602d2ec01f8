use super::*;

fn sh(script: &str, timeout: Duration) -> Finished {
    sh_graced(script, timeout, DEFAULT_GRACE)
}

fn sh_graced(script: &str, timeout: Duration, grace: Duration) -> Finished {
    let spec = Spec {
        program: "/bin/sh".into(),
        args: vec!["-c".into(), script.into()],
        cwd: std::env::temp_dir(),
        env: Vec::new(),
        timeout,
    };
    run(&spec, grace, &CancellationToken::new()).expect("spawn")
}

#[test]
fn a_group_ignoring_sigterm_gets_the_whole_grace_then_sigkill() {
    // The ignored SIGTERM is inherited by sleep: only SIGKILL ends it.
    let grace = Duration::from_millis(600);
    let timeout = Duration::from_millis(200);
    let f = sh_graced("trap '' TERM; sleep 60", timeout, grace);
    assert_eq!(f.ending, Ending::TimedOut);
    assert!(f.duration >= timeout + grace, "{:?}", f.duration);
    assert!(f.duration < Duration::from_secs(10), "{:?}", f.duration);
}

#[test]
fn a_group_ending_on_sigterm_does_not_wait_out_the_grace() {
    let f = sh_graced(
        "sleep 60",
        Duration::from_millis(200),
        Duration::from_secs(60),
    );
    assert_eq!(f.ending, Ending::TimedOut);
    assert!(f.duration < Duration::from_secs(10), "{:?}", f.duration);
}

#[test]
fn exit_status_and_output() {
    let f = sh("echo out; echo err >&2; exit 3", Duration::from_secs(10));
    assert_eq!(f.ending, Ending::Exited(3));
    assert_eq!(f.stdout.text(), "out\n");
    assert_eq!(f.stderr.text(), "err\n");
}

#[test]
fn a_trickle_then_a_burst_is_captured_whole_and_in_order() {
    // Small reads make the reader settle; the burst after them must
    // neither be lost nor reordered, and must not stall the child.
    let started = Instant::now();
    let f = sh(
        "i=0; while [ $i -lt 300 ]; do printf .; i=$((i+1)); done; head -c 200000 /dev/zero | tr '\\0' x; echo end",
        Duration::from_secs(30),
    );
    let text = f.stdout.text();
    assert_eq!(text.len(), 300 + 200_000 + 4);
    assert!(text.starts_with(&".".repeat(300)));
    assert!(text.ends_with(&format!("{}end\n", "x".repeat(200_000))));
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn death_by_signal_is_named() {
    let f = sh("kill -SEGV $$", Duration::from_secs(10));
    assert_eq!(
        f.ending,
        Ending::Signaled {
            number: 11,
            name: "SIGSEGV".into()
        }
    );
}

#[test]
fn timeout_ends_the_whole_group_even_a_child_ignoring_sigterm() {
    let marker = tempfile::NamedTempFile::new().expect("tmp");
    let path = marker.path().display().to_string();
    // A grandchild that ignores SIGTERM writes its pid, then sleeps.
    let script = format!("(trap '' TERM; echo $$ > {path}; exec sleep 60) & sleep 60");
    let started = Instant::now();
    let f = sh(&script, Duration::from_millis(500));
    assert_eq!(f.ending, Ending::TimedOut);
    assert!(started.elapsed() < Duration::from_secs(10));
    let pid: i32 = std::fs::read_to_string(&path)
        .expect("pid file")
        .trim()
        .parse()
        .expect("pid");
    // The grandchild must be gone (no such process, or a zombie being reaped).
    let alive = nix::sys::signal::kill(Pid::from_raw(pid), None).is_ok()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .unwrap_or_default()
            .contains(" Z ");
    assert!(!alive, "grandchild {pid} survived the timeout");
}

#[test]
fn output_is_bounded_and_the_drop_is_counted() {
    let f = sh(
        "head -c 3000000 /dev/zero | tr '\\0' 'x'",
        Duration::from_secs(30),
    );
    assert_eq!(f.stdout.total(), 3_000_000);
    assert_eq!(f.stdout.head.len(), HEAD_BYTES);
    assert_eq!(f.stdout.tail.len(), TAIL_BYTES);
    assert!(f.stdout.text().contains("bytes of output dropped"));
}

#[test]
fn cancellation_stops_the_run() {
    let spec = Spec {
        program: "/bin/sleep".into(),
        args: vec!["30".into()],
        cwd: std::env::temp_dir(),
        env: Vec::new(),
        timeout: Duration::from_secs(60),
    };
    let token = CancellationToken::new();
    let t2 = token.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        t2.cancel();
    });
    let f = run(&spec, DEFAULT_GRACE, &token).expect("spawn");
    assert_eq!(f.ending, Ending::Cancelled);
    assert!(f.duration < Duration::from_secs(10));
}

#[test]
fn a_missing_program_is_a_spawn_error() {
    let spec = Spec {
        program: "/nonexistent/python".into(),
        args: Vec::new(),
        cwd: std::env::temp_dir(),
        env: Vec::new(),
        timeout: Duration::from_secs(1),
    };
    let err = run(&spec, DEFAULT_GRACE, &CancellationToken::new()).expect_err("no such program");
    assert!(err.to_string().contains("/nonexistent/python"));
}
