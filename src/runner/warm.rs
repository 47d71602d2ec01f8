//! Warm processes (issue 50, docs/warm.md): for each interpreter a `serve`
//! runs pytest with, one Python process that has imported pytest, the
//! plugins and the libraries the project's runs imported, and forks a
//! child for each run ([`crate::runner::process::forked`]). A re-run then
//! pays for its tests, not for importing the world again.
//!
//! The warm process checks before each fork that nothing it imported or
//! read changed (docs/warm.md, "Never stale"); when something did, it ends
//! itself, that run goes cold and the next finds a fresh one. Whatever goes
//! wrong with warming, the run goes cold: warming never fails a run.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime};

use sha2::{Digest, Sha256};

use crate::runner::command::{self, Python};
use crate::runner::params::Root;
use crate::runner::process::forked;

/// The warm process's program, written into its directory.
const WARM_SCRIPT: &str = include_str!("warm/pytest_mcp_warm.py");
const WARM_MODULE: &str = "pytest_mcp_warm";
/// Times a warm process is started again without the modules that made
/// the last one unsafe to fork from, before that interpreter stays cold.
const ATTEMPTS: usize = 3;

/// Where one project's warm process for one interpreter keeps its socket,
/// its program and the list of modules to import: a directory of its own
/// under `$XDG_RUNTIME_DIR` (else the temporary directory), readable by
/// this user only, named by a hash of the root and the interpreter so that
/// `run --warm` finds the server's.
#[derive(Debug, Clone)]
pub struct Place {
    dir: PathBuf,
}

impl Place {
    pub fn of(root: &Root, python: &Python) -> Place {
        let base = std::env::var_os("XDG_RUNTIME_DIR")
            .filter(|d| !d.is_empty())
            .map_or_else(std::env::temp_dir, PathBuf::from);
        Place::under(base, root, python)
    }

    fn under(base: PathBuf, root: &Root, python: &Python) -> Place {
        let mut hash = Sha256::new();
        hash.update(root.path().as_os_str().as_encoded_bytes());
        hash.update([0]);
        hash.update(python.path.as_os_str().as_encoded_bytes());
        let name: String = hash.finalize()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let user = nix::unistd::getuid();
        let under = |base: PathBuf| base.join(format!("pytest-mcp-{user}")).join(&name);
        let dir = under(base);
        // A Unix socket's path has at most 107 bytes: a long runtime
        // directory gives way to /tmp.
        let dir = if dir.as_os_str().len() + "/warm.sock".len() > 100 {
            under(PathBuf::from("/tmp"))
        } else {
            dir
        };
        Place { dir }
    }
    pub fn socket(&self) -> PathBuf {
        self.dir.join("warm.sock")
    }
    /// The modules the runs imported (`pytest_mcp_imported.py` keeps it).
    pub fn preload(&self) -> PathBuf {
        self.dir.join("preload.txt")
    }
    /// Creates the directory (this user's only) and writes the program;
    /// refuses a directory another user owns.
    fn prepare(&self) -> std::io::Result<()> {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true).mode(0o700).create(&self.dir)?;
        for dir in [self.dir.as_path(), self.dir.parent().unwrap_or(&self.dir)] {
            if std::fs::metadata(dir)?.uid() != nix::unistd::getuid().as_raw() {
                return Err(std::io::Error::other(format!(
                    "{} belongs to another user",
                    dir.display()
                )));
            }
        }
        std::fs::write(self.dir.join(format!("{WARM_MODULE}.py")), WARM_SCRIPT)?;
        command::write_plugins(&self.dir)
    }
    /// The directory a warm run puts first on PYTHONPATH: the warm
    /// process's own, which holds our plugins too, so that the run's
    /// `sys.path` is the one the warm process imported with (pytest-xdist
    /// freezes it at import for its workers).
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// How a frontend uses warm processes.
#[derive(Debug, Clone)]
pub enum Warming {
    /// `serve`: keeps its own, at most one per interpreter, and records
    /// what each run imported for them.
    Serve(Arc<Pool>),
    /// `run --warm`: forks from the server's where one is running; runs
    /// cold where none is.
    Join,
}

impl Warming {
    /// The place of a warm process ready for this run, or `None`: cold.
    pub fn place(&self, python: &Python, root: &Root, wait: Duration) -> Option<Place> {
        match self {
            Warming::Serve(pool) => pool.lease(python, root, wait),
            Warming::Join => Some(Place::of(root, python)).filter(|p| p.socket().exists()),
        }
    }
    /// Where the run records what it imported, for the warm process.
    pub fn record(&self, python: &Python, root: &Root) -> Option<PathBuf> {
        match self {
            Warming::Serve(_) => Some(Place::of(root, python).preload()),
            Warming::Join => None,
        }
    }
    /// After a run, warm or cold: see [`Pool::after`].
    pub fn after(&self, python: &Python, root: &Root, refusal: Option<&forked::Refusal>) {
        if let Warming::Serve(pool) = self {
            pool.after(python, root, refusal);
        }
    }
}

/// How a warm process is doing, as its one line on stdout said.
#[derive(Debug, Clone)]
enum State {
    Starting,
    Ready,
    /// Importing `imported` made forking unsafe (`why`): started again
    /// without them.
    Unsafe {
        imported: Vec<String>,
    },
    Gone,
}

/// One warm process.
struct Entry {
    child: Mutex<Child>,
    state: Mutex<State>,
    changed: Condvar,
    /// The module list's modification time when it started: a newer list
    /// (a run imported more) replaces it.
    list: Option<SystemTime>,
    skip: Vec<String>,
    attempt: usize,
}

impl Drop for Entry {
    /// Closing its stdin asks it to end (it removes its socket, so that
    /// `run --warm` finds none); a moment later it is killed either way.
    fn drop(&mut self) {
        if let Ok(child) = self.child.get_mut() {
            drop(child.stdin.take());
            for _ in 0..20 {
                if !matches!(child.try_wait(), Ok(None)) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(child.id() as i32),
                nix::sys::signal::Signal::SIGKILL,
            );
            let _ = child.wait();
        }
    }
}

/// The warm processes of one server, at most one per interpreter and root,
/// ended with it (dropped, or their stdin closed by our exit).
#[derive(Default)]
pub struct Pool {
    entries: Mutex<HashMap<PathBuf, Arc<Entry>>>,
    /// The modules left out for each place so far (they made a warm
    /// process unsafe to fork from), kept across its replacements so that
    /// each is found once.
    skips: Mutex<HashMap<PathBuf, Vec<String>>>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("warm::Pool")
    }
}

impl Pool {
    /// A warm process ready for a run of `python` in `root`, started (and
    /// waited for, up to `wait`) if there is none; `None`: run cold.
    pub fn lease(&self, python: &Python, root: &Root, wait: Duration) -> Option<Place> {
        let place = Place::of(root, python);
        let deadline = Instant::now() + wait;
        loop {
            let entry = self.entry(&place, python, root)?;
            match entry.wait_ready(deadline) {
                State::Ready => return Some(place),
                State::Unsafe { imported } if entry.attempt < ATTEMPTS => {
                    let mut skip = entry.skip.clone();
                    skip.extend(imported);
                    if let Ok(mut skips) = self.skips.lock() {
                        skips.insert(place.dir.clone(), skip.clone());
                    }
                    let next = start(&place, python, root, skip, entry.attempt + 1)?;
                    self.put(&place, Some(next));
                }
                _ => {
                    self.put(&place, None);
                    return None;
                }
            }
        }
    }

    /// After a run: `refusal` (the warm process was stale, died, ...)
    /// replaces it; a module list that grew since it started does too, so
    /// the next run finds what this one imported.
    pub fn after(&self, python: &Python, root: &Root, refusal: Option<&forked::Refusal>) {
        let place = Place::of(root, python);
        let Some(entry) = self.current(&place) else {
            return;
        };
        let grew = modified(&place.preload()) > entry.list;
        let replace = match refusal {
            Some(forked::Refusal::Busy) => false,
            Some(why) => {
                tracing::info!("warm process for {}: {why}", python.path.display());
                true
            }
            None => grew,
        };
        if replace {
            let next = start(&place, python, root, entry.skip.clone(), 0);
            self.put(&place, next);
        }
    }

    fn current(&self, place: &Place) -> Option<Arc<Entry>> {
        self.entries.lock().ok()?.get(&place.dir).cloned()
    }

    fn put(&self, place: &Place, entry: Option<Arc<Entry>>) {
        if let Ok(mut entries) = self.entries.lock() {
            match entry {
                Some(e) => entries.insert(place.dir.clone(), e),
                None => entries.remove(&place.dir),
            };
        }
    }

    /// The live entry for `place`, or a new one.
    fn entry(&self, place: &Place, python: &Python, root: &Root) -> Option<Arc<Entry>> {
        if let Some(entry) = self.current(place)
            && entry.alive()
        {
            return Some(entry);
        }
        let skip = self
            .skips
            .lock()
            .ok()
            .and_then(|skips| skips.get(&place.dir).cloned())
            .unwrap_or_default();
        let entry = start(place, python, root, skip, 0)?;
        self.put(place, Some(Arc::clone(&entry)));
        Some(entry)
    }
}

impl Entry {
    fn alive(&self) -> bool {
        let running = self
            .child
            .lock()
            .is_ok_and(|mut c| matches!(c.try_wait(), Ok(None)));
        running && !matches!(self.state.lock().as_deref(), Ok(State::Gone))
    }

    fn wait_ready(&self, deadline: Instant) -> State {
        let Ok(mut state) = self.state.lock() else {
            return State::Gone;
        };
        while matches!(*state, State::Starting) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return State::Gone;
            }
            match self.changed.wait_timeout(state, left) {
                Ok((next, _)) => state = next,
                Err(_) => return State::Gone,
            }
        }
        state.clone()
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Starts a warm process for `python` in `root`, without the modules in
/// `skip`; a thread reads its line of readiness. `None` (logged): it could
/// not be started, so runs go cold.
fn start(
    place: &Place,
    python: &Python,
    root: &Root,
    skip: Vec<String>,
    attempt: usize,
) -> Option<Arc<Entry>> {
    if let Err(e) = place.prepare() {
        tracing::warn!("no warm process: {e}");
        return None;
    }
    let list = modified(&place.preload());
    let env = environment(place, root, &skip);
    let args: Vec<OsString> = vec!["-m".into(), WARM_MODULE.into()];
    // In the root, as a run: `-m` puts the working directory first on
    // sys.path, and pytest-xdist freezes that sys.path for its workers.
    let mut child = match forked::start_warm(&python.path, &args, root.path(), &env) {
        Ok(child) => child,
        Err(e) => {
            tracing::warn!("no warm process for {}: {e}", python.path.display());
            return None;
        }
    };
    let stdout = child.stdout.take();
    let entry = Arc::new(Entry {
        child: Mutex::new(child),
        state: Mutex::new(State::Starting),
        changed: Condvar::new(),
        list,
        skip,
        attempt,
    });
    let weak = Arc::downgrade(&entry);
    let shown = python.path.display().to_string();
    std::thread::spawn(move || {
        let line = stdout.and_then(|out| BufReader::new(out).lines().next()?.ok());
        let state = readiness(line.as_deref(), &shown);
        if let Some(entry) = weak.upgrade()
            && let Ok(mut now) = entry.state.lock()
        {
            *now = state;
            entry.changed.notify_all();
        }
    });
    Some(entry)
}

/// The warm process's environment on top of ours: its own directory first
/// on PYTHONPATH (each run's child puts the run's there instead), output
/// unbuffered as a run's is, and where to listen and what to import.
fn environment(place: &Place, root: &Root, skip: &[String]) -> Vec<(OsString, OsString)> {
    let mut path = place.dir.clone().into_os_string();
    if let Some(existing) = std::env::var_os("PYTHONPATH").filter(|p| !p.is_empty()) {
        path.push(":");
        path.push(existing);
    }
    vec![
        ("PYTHONPATH".into(), path),
        ("PYTHONUNBUFFERED".into(), "1".into()),
        (
            "PYTEST_MCP_WARM_SOCKET".into(),
            place.socket().into_os_string(),
        ),
        (
            "PYTEST_MCP_WARM_PRELOAD".into(),
            place.preload().into_os_string(),
        ),
        ("PYTEST_MCP_WARM_SKIP".into(), skip.join(",").into()),
        (
            "PYTEST_MCP_WARM_ROOT".into(),
            root.path().as_os_str().into(),
        ),
    ]
}

/// Reads the warm process's line: ready, unsafe (which modules), or
/// nothing (it ended); logged, as it is the only place it is said.
fn readiness(line: Option<&str>, python: &str) -> State {
    let value: Option<serde_json::Value> = line.and_then(|l| serde_json::from_str(l).ok());
    let Some(value) = value else {
        tracing::warn!("warm process for {python} ended before it was ready: runs go cold");
        return State::Gone;
    };
    if value.get("ready").and_then(serde_json::Value::as_bool) == Some(true) {
        let seconds = value.get("seconds").and_then(serde_json::Value::as_f64);
        let modules = value.get("modules").and_then(serde_json::Value::as_u64);
        tracing::info!(
            "warm process for {python} ready: {} modules imported in {:.2} s",
            modules.unwrap_or(0),
            seconds.unwrap_or(0.0)
        );
        return State::Ready;
    }
    let text = |key: &str| {
        value
            .get(key)
            .and_then(serde_json::Value::as_str)
            .unwrap_or("?")
            .to_string()
    };
    let imported: Vec<String> = value
        .get("imported")
        .and_then(serde_json::Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    tracing::warn!(
        "warm process for {python}: importing {} {}, so it is not preloaded (nor the {} modules it imported)",
        text("unsafe"),
        text("why"),
        imported.len()
    );
    let mut imported = imported;
    imported.push(text("unsafe"));
    State::Unsafe { imported }
}

#[cfg(test)]
mod tests;
