//! Timing one process: wall time, CPU time and peak resident memory.
//!
//! `wait4` gives the rusage of exactly the child we waited for, including
//! the processes it reaped itself (pytest under `pytest-mcp run`), so CPU
//! time and peak RSS are per run, not accumulated over the harness's life.
//! CPU time is quoted next to wall time because it is far less disturbed
//! by other work on a shared machine.

use std::process::{Command, Stdio};
use std::time::Instant;

/// Runs `cmd` and returns its stdout (stderr is dropped).
pub fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .expect("spawn");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// One finished run.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    /// Seconds from spawn to reaping.
    pub wall: f64,
    /// User + system seconds of the process and the children it reaped.
    pub cpu: f64,
    /// Peak resident set size of the largest of them, in bytes.
    pub max_rss: u64,
    /// Exit status, or 128 + signal.
    pub status: i32,
}

/// Runs `cmd` to completion. Its stdio must not be piped (nothing reads
/// the pipe while we wait): use files or `Stdio::null()`.
pub fn timed(cmd: &mut Command) -> Sample {
    let started = Instant::now();
    let child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {:?}: {e}", cmd.get_program()));
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain old data; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = started.elapsed().as_secs_f64();
    assert_eq!(
        reaped,
        pid,
        "wait4 failed: {}",
        std::io::Error::last_os_error()
    );
    // Already reaped: dropping the handle neither waits nor kills.
    drop(child);
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let status = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    Sample {
        wall,
        cpu: secs(usage.ru_utime) + secs(usage.ru_stime),
        max_rss: usage.ru_maxrss as u64 * 1024,
        status,
    }
}

/// The median (the mean of the middle two for an even count).
pub fn median(values: &[f64]) -> f64 {
    assert!(!values.is_empty(), "median of nothing");
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}
