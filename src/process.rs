//! Running a child process safely: its own process group, a time limit that
//! ends the whole group (grandchildren included), cancellation, and output
//! captured in bounded memory however much the child prints.
//!
//! This is the only module that starts processes. It knows nothing of
//! pytest: it takes an argv and gives back how the process ended and what it
//! printed.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, killpg, sigaction};
use nix::unistd::Pid;

/// Bytes kept from the start of each output stream.
pub const HEAD_BYTES: usize = 256 * 1024;
/// Bytes kept from the end of each output stream.
pub const TAIL_BYTES: usize = 768 * 1024;
/// Time a process group gets between SIGTERM and SIGKILL.
pub const GRACE: Duration = Duration::from_secs(2);
/// How often the supervisor looks at the child, the clock and the token.
const POLL: Duration = Duration::from_millis(20);
/// A read shorter than this makes the output reader wait [`SETTLE`] before
/// the next one, so that a child writing a character at a time costs a
/// wake-up per [`SETTLE`], not per write. A child writing faster than
/// this per [`SETTLE`] is read without pauses; a pipe holds 64 KiB, so a
/// burst after a trickle waits at most one [`SETTLE`].
const SMALL_READ: usize = 4 * 1024;
const SETTLE: Duration = Duration::from_millis(10);

/// What to run.
#[derive(Debug, Clone)]
pub struct Spec {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub cwd: PathBuf,
    /// Variables set on top of the inherited environment.
    pub env: Vec<(OsString, OsString)>,
    pub timeout: Duration,
}

impl Spec {
    /// The command as a list of strings, for error reports.
    pub fn argv(&self) -> Vec<String> {
        std::iter::once(self.program.as_os_str())
            .chain(self.args.iter().map(OsString::as_os_str))
            .map(|s| s.to_string_lossy().into_owned())
            .collect()
    }
}

/// A flag another thread sets to end a run early (an MCP cancellation, the
/// client going away). Cheap to clone; all clones share the flag.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// The signal that asked this process to stop (0: none yet), set by the
/// handler [`cancel_on_signals`] installs.
static STOP_SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn note_stop_signal(signal: nix::libc::c_int) {
    STOP_SIGNAL.store(signal, Ordering::SeqCst);
}

/// For a command-line run: SIGTERM, SIGINT or SIGHUP to this process cancel
/// `token` instead of killing the process at once. The run then ends its
/// pytest process group (SIGTERM, [`GRACE`], SIGKILL) before we exit;
/// dying at once would leave pytest's own children (a server a test
/// started, a child ignoring SIGTERM) running, as pytest is in a process
/// group of its own and only pytest itself gets the parent-death signal.
pub fn cancel_on_signals(token: &CancelToken) {
    let action = SigAction::new(
        SigHandler::Handler(note_stop_signal),
        SaFlags::SA_RESTART,
        SigSet::empty(),
    );
    for signal in [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP] {
        // SAFETY: the handler only stores into an atomic integer, which is
        // async-signal-safe. Children get default dispositions back at exec.
        let _ = unsafe { sigaction(signal, &action) };
    }
    let token = token.clone();
    std::thread::spawn(move || {
        while STOP_SIGNAL.load(Ordering::SeqCst) == 0 {
            std::thread::sleep(POLL);
        }
        token.cancel();
    });
}

/// The signal number [`cancel_on_signals`] caught, if one came.
pub fn stop_signal() -> Option<i32> {
    match STOP_SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        n => Some(n),
    }
}

/// How the process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// It exited by itself with this status.
    Exited(i32),
    /// A signal killed it (not one we sent).
    Signaled { number: i32, name: String },
    /// The time limit ran out and we ended the process group.
    TimedOut,
    /// The run was cancelled and we ended the process group.
    Cancelled,
}

/// Output kept from one stream: the first [`HEAD_BYTES`] and the last
/// [`TAIL_BYTES`]; what lies between is counted, not kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Captured {
    pub head: Vec<u8>,
    pub tail: Vec<u8>,
    /// Bytes dropped between head and tail.
    pub dropped: u64,
}

impl Captured {
    fn push(&mut self, mut bytes: &[u8]) {
        if self.head.len() < HEAD_BYTES {
            let take = bytes.len().min(HEAD_BYTES - self.head.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        if bytes.is_empty() {
            return;
        }
        self.tail.extend_from_slice(bytes);
        if self.tail.len() > 2 * TAIL_BYTES {
            let excess = self.tail.len() - TAIL_BYTES;
            self.tail.drain(..excess);
            self.dropped += excess as u64;
        }
    }

    fn finish(&mut self) {
        if self.tail.len() > TAIL_BYTES {
            let excess = self.tail.len() - TAIL_BYTES;
            self.tail.drain(..excess);
            self.dropped += excess as u64;
        }
    }

    /// Total bytes the stream carried.
    pub fn total(&self) -> u64 {
        self.head.len() as u64 + self.dropped + self.tail.len() as u64
    }

    /// The text, decoded lossily, with ANSI codes removed and a marker
    /// where bytes were dropped.
    pub fn text(&self) -> String {
        let mut out = String::from_utf8_lossy(&self.head).into_owned();
        if self.dropped > 0 {
            out.push_str(&format!(
                "\n[… {} bytes of output dropped: pytest-mcp keeps the first {} KiB and the last {} KiB …]\n",
                self.dropped,
                HEAD_BYTES / 1024,
                TAIL_BYTES / 1024
            ));
        }
        out.push_str(&String::from_utf8_lossy(&self.tail));
        crate::text::strip_ansi(&out).into_owned()
    }
}

/// A finished process.
#[derive(Debug, Clone)]
pub struct Finished {
    pub ending: Ending,
    pub stdout: Captured,
    pub stderr: Captured,
    pub duration: Duration,
}

/// Why a process could not be started.
#[derive(Debug, thiserror::Error)]
#[error("cannot start {program}: {source}")]
pub struct SpawnError {
    pub program: String,
    #[source]
    pub source: std::io::Error,
}

/// Runs `spec` to the end, the time limit, or cancellation.
///
/// The child gets its own process group, null stdin and piped output. When it
/// ends by itself the group is killed too, so nothing it started outlives the
/// run; on time-out or cancellation the group gets SIGTERM, then SIGKILL
/// after [`GRACE`].
pub fn run(spec: &Spec, cancel: &CancelToken) -> Result<Finished, SpawnError> {
    run_watched(spec, cancel, &mut || {})
}

/// [`run`], calling `on_tick` about ten times a second while the child runs
/// (progress reporting reads the child's files from there).
pub fn run_watched(
    spec: &Spec,
    cancel: &CancelToken,
    on_tick: &mut dyn FnMut(),
) -> Result<Finished, SpawnError> {
    let started = Instant::now();
    let mut command = Command::new(&spec.program);
    command
        .args(&spec.args)
        .current_dir(&spec.cwd)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    set_parent_death_signal(&mut command);
    let mut child = command.spawn().map_err(|source| SpawnError {
        program: spec.program.display().to_string(),
        source,
    })?;
    let group = Pid::from_raw(child.id() as i32);
    // Kill the group if this function unwinds or returns early.
    let guard = GroupGuard(group);
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());

    let ending = supervise(&mut child, group, spec.timeout, started, cancel, on_tick);
    // Whatever the child left running in its group goes with it.
    let _ = killpg(group, Signal::SIGKILL);
    drop(guard);
    let stdout = join(stdout);
    let stderr = join(stderr);
    Ok(Finished {
        ending,
        stdout,
        stderr,
        duration: started.elapsed(),
    })
}

fn supervise(
    child: &mut Child,
    group: Pid,
    timeout: Duration,
    started: Instant,
    cancel: &CancelToken,
    on_tick: &mut dyn FnMut(),
) -> Ending {
    let mut polls = 0u32;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return ending_of(status),
            Ok(None) => {}
            Err(_) => {
                // The child cannot be waited for; treat it as gone.
                let _ = killpg(group, Signal::SIGKILL);
                return child.wait().map_or(Ending::Cancelled, ending_of);
            }
        }
        let reason = if cancel.is_cancelled() {
            Some(Ending::Cancelled)
        } else if started.elapsed() >= timeout {
            Some(Ending::TimedOut)
        } else {
            None
        };
        if let Some(reason) = reason {
            terminate(child, group);
            return reason;
        }
        polls = polls.wrapping_add(1);
        if polls % 5 == 0 {
            on_tick();
        }
        std::thread::sleep(POLL);
    }
}

/// SIGTERM to the group, up to [`GRACE`] for the child to exit, then SIGKILL.
fn terminate(child: &mut Child, group: Pid) {
    let _ = killpg(group, Signal::SIGTERM);
    let deadline = Instant::now() + GRACE;
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        std::thread::sleep(POLL);
    }
    let _ = killpg(group, Signal::SIGKILL);
    let _ = child.wait();
}

fn ending_of(status: std::process::ExitStatus) -> Ending {
    if let Some(code) = status.code() {
        return Ending::Exited(code);
    }
    let number = status.signal().unwrap_or(0);
    Ending::Signaled {
        number,
        name: signal_name(number),
    }
}

/// `SIGSEGV` for 11; `signal 99` for numbers without a name.
pub fn signal_name(number: i32) -> String {
    Signal::try_from(number).map_or_else(|_| format!("signal {number}"), |s| s.as_str().to_string())
}

/// Kills the process group when dropped: the last line of defence when the
/// supervising code panics or returns early.
struct GroupGuard(Pid);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        let _ = killpg(self.0, Signal::SIGKILL);
    }
}

fn drain<R: Read + Send + 'static>(stream: Option<R>) -> Option<JoinHandle<Captured>> {
    let mut stream = stream?;
    Some(std::thread::spawn(move || {
        let mut captured = Captured::default();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    captured.push(&buf[..n]);
                    // A trickle (pytest flushes a progress character per
                    // test): let it gather instead of waking per write.
                    // Below SMALL_READ bytes per SETTLE the pipe cannot
                    // fill meanwhile, so the child never waits on us.
                    if n < SMALL_READ {
                        std::thread::sleep(SETTLE);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        captured.finish();
        captured
    }))
}

fn join(handle: Option<JoinHandle<Captured>>) -> Captured {
    handle.and_then(|h| h.join().ok()).unwrap_or_default()
}

/// On Linux, asks the kernel to SIGKILL the child if the thread that
/// spawned it dies (our process killed with SIGKILL, say), so a pytest run
/// is never orphaned. Grandchildren in its group are handled by the group
/// kill in [`run`] and [`GroupGuard`].
#[cfg(target_os = "linux")]
fn set_parent_death_signal(command: &mut Command) {
    let parent = std::process::id();
    // SAFETY: the closure runs in the child between fork and exec and only
    // makes async-signal-safe system calls.
    unsafe {
        command.pre_exec(move || {
            if libc_prctl_pdeathsig() != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may have died before prctl took effect.
            if nix::unistd::getppid().as_raw() as u32 != parent {
                return Err(std::io::Error::other("parent exited"));
            }
            Ok(())
        });
    }
}

#[cfg(target_os = "linux")]
fn libc_prctl_pdeathsig() -> i32 {
    match nix::sys::prctl::set_pdeathsig(Signal::SIGKILL) {
        Ok(()) => 0,
        Err(_) => -1,
    }
}

#[cfg(not(target_os = "linux"))]
fn set_parent_death_signal(_command: &mut Command) {}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, timeout: Duration) -> Finished {
        let spec = Spec {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), script.into()],
            cwd: std::env::temp_dir(),
            env: Vec::new(),
            timeout,
        };
        run(&spec, &CancelToken::new()).expect("spawn")
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
        let token = CancelToken::new();
        let t2 = token.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            t2.cancel();
        });
        let f = run(&spec, &token).expect("spawn");
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
        let err = run(&spec, &CancelToken::new()).expect_err("no such program");
        assert!(err.to_string().contains("/nonexistent/python"));
    }
}
