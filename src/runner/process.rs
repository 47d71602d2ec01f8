//! Running a child process safely: its own process group, a time limit that
//! ends the whole group (grandchildren included), cancellation, and output
//! captured in bounded memory however much the child prints.
//!
//! This is the only module that starts processes. It knows nothing of
//! pytest: it takes an argv and gives back how the process ended and what it
//! printed.

use std::ffi::OsString;
use std::future::Future;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::task::Poll;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// Bytes kept from the start of each output stream.
pub const HEAD_BYTES: usize = 256 * 1024;
/// Bytes kept from the end of each output stream.
pub const TAIL_BYTES: usize = 768 * 1024;
/// Time a process group gets between SIGTERM and SIGKILL, unless
/// `--kill-grace` says otherwise.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(2);
/// Longest `--kill-grace` accepted.
pub const MAX_GRACE: Duration = Duration::from_secs(60);
/// How often [`run_watched`] calls its `on_tick` while the child runs.
const TICK: Duration = Duration::from_millis(100);
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

/// The signals that end a command-line run.
pub const CLI_STOP_SIGNALS: [Signal; 3] = [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP];

/// Installs handlers for `signals` now (in the calling thread's tokio
/// runtime) and returns a future that resolves to the first of them that
/// arrives. The one signal mechanism of the crate: the server awaits it,
/// [`cancel_on_signals`] runs it on a thread of its own.
pub fn stop_signals(signals: &[Signal]) -> std::io::Result<impl Future<Output = Signal> + use<>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut streams = signals
        .iter()
        .map(|&s| Ok((s, signal(SignalKind::from_raw(s as i32))?)))
        .collect::<std::io::Result<Vec<_>>>()?;
    Ok(std::future::poll_fn(move |cx| {
        for (number, stream) in &mut streams {
            if let Poll::Ready(Some(())) = stream.poll_recv(cx) {
                return Poll::Ready(*number);
            }
        }
        Poll::Pending
    }))
}

/// The signal that asked this process to stop (0: none yet), set by the
/// thread [`cancel_on_signals`] starts.
static STOP_SIGNAL: AtomicI32 = AtomicI32::new(0);

/// For a command-line run: SIGTERM, SIGINT or SIGHUP to this process cancel
/// `token` instead of killing the process at once. The run then ends its
/// pytest process group (SIGTERM, the grace, SIGKILL) before we exit;
/// dying at once would leave pytest's own children (a server a test
/// started, a child ignoring SIGTERM) running, as pytest is in a process
/// group of its own and only pytest itself gets the parent-death signal.
/// The handlers are in place when this returns.
pub fn cancel_on_signals(token: &CancellationToken) {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
    else {
        return;
    };
    let stop = {
        let _entered = runtime.enter();
        match stop_signals(&CLI_STOP_SIGNALS) {
            Ok(stop) => stop,
            Err(_) => return,
        }
    };
    let token = token.clone();
    std::thread::spawn(move || {
        let signal = runtime.block_on(stop);
        // Before the cancellation, so the run's end can read it.
        STOP_SIGNAL.store(signal as i32, Ordering::SeqCst);
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

    /// The text, decoded lossily, without escape sequences and control
    /// characters ([`crate::text::clean`]), with a marker where bytes were
    /// dropped.
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
        match crate::text::clean(&out) {
            std::borrow::Cow::Owned(clean) => clean,
            std::borrow::Cow::Borrowed(_) => out,
        }
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
/// after `grace`.
pub fn run(
    spec: &Spec,
    grace: Duration,
    cancel: &CancellationToken,
) -> Result<Finished, SpawnError> {
    run_watched(spec, grace, cancel, &mut || {})
}

/// [`run`], calling `on_tick` about ten times a second while the child runs
/// (progress reporting reads the child's files from there).
pub fn run_watched(
    spec: &Spec,
    grace: Duration,
    cancel: &CancellationToken,
    on_tick: &mut dyn FnMut(),
) -> Result<Finished, SpawnError> {
    let started = Instant::now();
    let program = || spec.program.display().to_string();
    let clock = clock().map_err(|source| SpawnError {
        program: program(),
        source,
    })?;
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
        program: program(),
        source,
    })?;
    let group = Pid::from_raw(child.id() as i32);
    // Kill the group if this function unwinds or returns early.
    let guard = GroupGuard(group);
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    // A thread blocked in waitpid tells the supervisor when the child ends.
    let (exited, exit) = oneshot::channel();
    std::thread::spawn(move || {
        let _ = exited.send(child.wait());
    });
    let watched = Watched {
        started,
        clock,
        group,
        exit,
        stdout,
        stderr,
    };
    let finished = watched.watch(spec.timeout, grace, cancel, on_tick);
    drop(guard);
    Ok(finished)
}

/// A started child, however it was started ([`run_watched`], or forked by a
/// warm process in [`forked`]): its group, how it will say it ended, and
/// the threads reading its output.
struct Watched {
    started: Instant,
    clock: tokio::runtime::Runtime,
    group: Pid,
    exit: oneshot::Receiver<std::io::Result<ExitStatus>>,
    stdout: Option<JoinHandle<Captured>>,
    stderr: Option<JoinHandle<Captured>>,
}

impl Watched {
    /// Supervises the child to its end, the time limit or cancellation,
    /// then kills whatever it left in its group and collects its output.
    fn watch(
        self,
        timeout: Duration,
        grace: Duration,
        cancel: &CancellationToken,
        on_tick: &mut dyn FnMut(),
    ) -> Finished {
        let deadline = self.started.checked_add(timeout);
        let supervisor = Supervisor {
            clock: self.clock,
            exit: self.exit,
            group: self.group,
            grace,
        };
        let ending = supervisor.supervise(deadline, cancel, on_tick);
        // Whatever the child left running in its group goes with it.
        let _ = killpg(self.group, Signal::SIGKILL);
        Finished {
            ending,
            stdout: join(self.stdout),
            stderr: join(self.stderr),
            duration: self.started.elapsed(),
        }
    }
}

/// The supervisor's clock: a runtime of its own, as the runs happen on
/// plain threads (the CLI's, the server's blocking pool).
fn clock() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
}

/// What the waiting thread reports: the child's status, or why it could not
/// be waited for.
type Exit = Result<std::io::Result<ExitStatus>, oneshot::error::RecvError>;

/// What ended one wait of the supervisor.
enum Event {
    Exited(Exit),
    Stop(Ending),
    Tick,
}

/// Waits for the child's end, the time limit and the cancellation at once.
struct Supervisor {
    clock: tokio::runtime::Runtime,
    exit: oneshot::Receiver<std::io::Result<ExitStatus>>,
    group: Pid,
    grace: Duration,
}

impl Supervisor {
    fn supervise(
        mut self,
        deadline: Option<Instant>,
        cancel: &CancellationToken,
        on_tick: &mut dyn FnMut(),
    ) -> Ending {
        loop {
            let exit = &mut self.exit;
            let event = self.clock.block_on(async {
                let limit = async {
                    match deadline {
                        Some(at) => tokio::time::sleep_until(at.into()).await,
                        None => std::future::pending().await,
                    }
                };
                // In this order when several are ready: an exit is an exit.
                tokio::select! {
                    biased;
                    status = exit => Event::Exited(status),
                    () = cancel.cancelled() => Event::Stop(Ending::Cancelled),
                    () = limit => Event::Stop(Ending::TimedOut),
                    () = tokio::time::sleep(TICK) => Event::Tick,
                }
            });
            match event {
                Event::Exited(Ok(Ok(status))) => return ending_of(status),
                Event::Exited(_) => {
                    // The child cannot be waited for; treat it as gone.
                    let _ = killpg(self.group, Signal::SIGKILL);
                    return Ending::Cancelled;
                }
                Event::Stop(reason) => {
                    self.terminate();
                    return reason;
                }
                // Outside the clock's block_on: the callback may block on
                // a runtime of its own.
                Event::Tick => on_tick(),
            }
        }
    }

    /// SIGTERM to the group, up to the grace for the child to exit, then
    /// SIGKILL, and the child reaped.
    fn terminate(self) {
        let Supervisor {
            clock,
            mut exit,
            group,
            grace,
        } = self;
        let _ = killpg(group, Signal::SIGTERM);
        let exited = clock.block_on(async { tokio::time::timeout(grace, &mut exit).await });
        let _ = killpg(group, Signal::SIGKILL);
        if exited.is_err() {
            let _ = clock.block_on(exit);
        }
    }
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
            // nix's prctl wrapper is a plain system call: safe here.
            nix::sys::prctl::set_pdeathsig(Signal::SIGKILL).map_err(std::io::Error::from)?;
            // The parent may have died before prctl took effect.
            if nix::unistd::getppid().as_raw() as u32 != parent {
                return Err(std::io::Error::other("parent exited"));
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn set_parent_death_signal(_command: &mut Command) {}

pub mod forked;

#[cfg(test)]
mod tests;
