//! Runs forked by a warm process (docs/warm.md): the same [`Spec`], the same
//! supervision, only started by a Python process that has already imported
//! pytest and the project's libraries, instead of by `exec`.
//!
//! The warm process forks; the child is in a process group of its own, as a
//! cold run's is, and writes to pipes we made and passed over the socket,
//! so its output is read and bounded here exactly as a cold run's. The warm
//! process reports the child's wait status on the socket; we signal the
//! group directly for a time limit or a cancellation. Closing our end of the
//! socket (our process gone) makes the warm process kill the group.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, IoSlice, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use nix::sys::socket::{ControlMessage, MsgFlags, sendmsg};
use nix::unistd::Pid;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::{Finished, GroupGuard, Spec, Watched, clock, drain};

/// Why a run did not go through the warm process: it then runs cold.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// No warm process answers on the socket.
    #[error("no warm process answers ({0})")]
    Unreachable(std::io::Error),
    /// It is running another run.
    #[error("the warm process is busy with another run")]
    Busy,
    /// Something it imported, or depends on, changed since: it has ended
    /// itself, and a fresh one is needed.
    #[error("the warm process is stale: {0}")]
    Stale(String),
    /// It will not run this command (not `-m pytest`, another environment).
    #[error("the warm process refused the run: {0}")]
    Refused(String),
    /// It ended during the run, taking the run with it: the run is done
    /// again, cold.
    #[error("the warm process ended during the run")]
    Died,
}

/// Runs `spec` (`python -m pytest ...`) as a child of the warm process
/// listening on `socket`, supervised as [`super::run_watched`] supervises.
pub fn run_forked(
    socket: &Path,
    spec: &Spec,
    grace: Duration,
    cancel: &CancellationToken,
    on_tick: &mut dyn FnMut(),
) -> Result<Forked, Refusal> {
    let started = Instant::now();
    let clock = clock().map_err(Refusal::Unreachable)?;
    let stream = UnixStream::connect(socket).map_err(Refusal::Unreachable)?;
    let (out_read, out_write) = pipe().map_err(Refusal::Unreachable)?;
    let (err_read, err_write) = pipe().map_err(Refusal::Unreachable)?;
    let null = std::fs::File::open("/dev/null").map_err(Refusal::Unreachable)?;
    send(&stream, spec, [&null, &out_write, &err_write]).map_err(Refusal::Unreachable)?;
    // Only the child holds the write ends now: its exit ends our reads.
    drop((null, out_write, err_write));
    let mut answers = BufReader::new(stream.try_clone().map_err(Refusal::Unreachable)?);
    let (group, saved) = match read_line(&mut answers).as_deref() {
        Some(line) => answer(line)?,
        None => return Err(Refusal::Died),
    };
    let guard = GroupGuard(group);
    let stdout = drain(Some(out_read));
    let stderr = drain(Some(err_read));
    let died = Arc::new(AtomicBool::new(false));
    let (exited, exit) = oneshot::channel();
    let flag = Arc::clone(&died);
    std::thread::spawn(move || {
        let status = read_line(&mut answers)
            .and_then(|line| line.strip_prefix("exit ")?.trim().parse::<i32>().ok())
            .map(ExitStatus::from_raw);
        if status.is_none() {
            flag.store(true, Ordering::SeqCst);
        }
        let _ = exited.send(status.ok_or_else(|| std::io::Error::other("warm process gone")));
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
    drop(stream);
    if died.load(Ordering::SeqCst) && !cancel.is_cancelled() {
        return Err(Refusal::Died);
    }
    Ok(Forked { finished, saved })
}

/// A run a warm process forked, and what its preload saved.
#[derive(Debug)]
pub struct Forked {
    pub finished: Finished,
    /// Seconds the warm process spent importing before the run.
    pub saved: f64,
}

/// A pipe, its read end as a file for the output readers.
fn pipe() -> std::io::Result<(std::fs::File, OwnedFd)> {
    let (read, write) = nix::unistd::pipe().map_err(std::io::Error::from)?;
    Ok((std::fs::File::from(read), write))
}

/// The warm process's first answer: the child's pid (its group) and the
/// seconds its preload took, or why not.
fn answer(line: &str) -> Result<(Pid, f64), Refusal> {
    let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
    match word {
        "pid" => {
            let mut parts = rest.split_whitespace();
            let pid = parts.next().and_then(|p| p.parse::<i32>().ok());
            let seconds = parts.next().and_then(|s| s.parse::<f64>().ok());
            match (pid, seconds) {
                (Some(pid), Some(s)) if pid > 1 && s.is_finite() => Ok((Pid::from_raw(pid), s)),
                _ => Err(Refusal::Refused(format!(
                    "an answer it should not give: {line}"
                ))),
            }
        }
        "busy" => Err(Refusal::Busy),
        "stale" => Err(Refusal::Stale(rest.trim().to_string())),
        _ => Err(Refusal::Refused(rest.trim().to_string())),
    }
}

fn read_line(reader: &mut impl BufRead) -> Option<String> {
    let mut line = String::new();
    match reader.read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim_end().to_string()),
    }
}

/// The request: its length with the child's three standard streams, then
/// the working directory, the arguments and the whole environment the
/// child gets (ours with the spec's on top), each ended by a NUL byte.
fn send(stream: &UnixStream, spec: &Spec, fds: [&dyn AsRawFd; 3]) -> std::io::Result<()> {
    let payload = payload(spec);
    let length = (payload.len() as u64).to_le_bytes();
    let raw = fds.map(|fd| fd.as_raw_fd());
    let rights = [ControlMessage::ScmRights(&raw)];
    sendmsg::<()>(
        stream.as_raw_fd(),
        &[IoSlice::new(&length)],
        &rights,
        MsgFlags::empty(),
        None,
    )
    .map_err(std::io::Error::from)?;
    (&*stream).write_all(&payload)
}

fn payload(spec: &Spec) -> Vec<u8> {
    let mut env: BTreeMap<OsString, OsString> = std::env::vars_os().collect();
    env.extend(spec.env.iter().cloned());
    let mut out = Vec::new();
    let mut field = |bytes: &[u8]| {
        out.extend_from_slice(bytes);
        out.push(0);
    };
    field(spec.cwd.as_os_str().as_bytes());
    field(spec.args.len().to_string().as_bytes());
    for arg in &spec.args {
        field(arg.as_bytes());
    }
    for (key, value) in &env {
        let mut entry = key.as_bytes().to_vec();
        entry.push(b'=');
        entry.extend_from_slice(value.as_bytes());
        field(&entry);
    }
    out
}

/// Starts a warm process: `program args` in `cwd` with `env` on top of
/// ours, in a process group of its own (a terminal's Ctrl-C is for the
/// server, which ends it), its stdin a pipe whose end (our process gone,
/// or the [`Child`]'s stdin dropped) tells it to stop, its stdout a pipe for
/// its one line of readiness. No parent-death signal: that follows the
/// thread that spawned, and a server's threads come and go.
pub fn start_warm(
    program: &Path,
    args: &[OsString],
    cwd: &Path,
    env: &[(OsString, OsString)],
) -> std::io::Result<Child> {
    Command::new(program)
        .args(args)
        .current_dir(cwd)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
}

#[cfg(test)]
mod tests;
