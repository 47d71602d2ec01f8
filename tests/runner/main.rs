//! `pytest-mcp run` and `pytest-mcp discover` end to end, against real
//! pytest projects (`tests/projects/`), with the real binary and a real
//! interpreter.
//!
//! Every project is copied into a temporary directory first, so nothing is
//! written into the repository. Counts are checked against pytest's own
//! summary of a plain run of the same copy, never against numbers written
//! into this file.
//!
//! Interpreters: `PYTEST_MCP_TEST_PYTHON`, else `.venv/bin/python` (pytest,
//! pytest-json-report, xdist); `.venv-nojson/bin/python` has pytest alone.
//! `bash scripts/setup.sh` creates both; a missing one fails the tests.
//!
//! One test binary (the tests run in parallel, and the helpers below are
//! compiled once) in files by topic: `results.rs` (ordinary runs against
//! pytest's summary), `ending.rs` (time limit, signals, crashes, what a run
//! leaves behind), `faults.rs` (no pytest, exit codes 2 to 4, broken output),
//! `flood.rs` (30 MB of output), `refusals.rs` (invalid parameters) and
//! `discover.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

// This binary's root is `tests/runner/main.rs`: the shared module is one
// folder up.
#[path = "../common/mod.rs"]
mod common;
mod discover;
mod ending;
mod faults;
mod flood;
mod refusals;
mod results;
mod summary;

use common::support;
use support::{head, processes_in, reader};

const BIN: &str = env!("CARGO_BIN_EXE_pytest-mcp");
/// Longest any single invocation may take before the test gives up on it.
const DEADLINE: Duration = Duration::from_secs(90);
/// `process::DEFAULT_GRACE`: time between SIGTERM and SIGKILL when a run
/// is ended and `--kill-grace` is not given.
const DEFAULT_GRACE: Duration = Duration::from_secs(2);
/// The `--kill-grace` of the tests that do not check the default: pytest
/// and its child ignore SIGTERM there, so every such run waits it in full.
const SHORT_GRACE: Duration = Duration::from_millis(200);
const SHORT_GRACE_ARG: &str = "0.2";
/// The file the `runner_tripwire` project's conftest.py creates.
const TRIPWIRE: &str = "PYTEST_STARTED";

// ---------------------------------------------------------------------------
// Interpreters and projects
// ---------------------------------------------------------------------------

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn require_interpreter(path: PathBuf, what: &str) -> PathBuf {
    assert!(
        path.is_file(),
        "{what} {} does not exist: run `bash scripts/setup.sh` in {} to create the test \
         interpreters (.venv with pytest + pytest-json-report, .venv-nojson with pytest only)",
        path.display(),
        repo().display()
    );
    path
}

/// The interpreter with pytest and pytest-json-report.
fn python() -> PathBuf {
    match std::env::var_os("PYTEST_MCP_TEST_PYTHON").filter(|p| !p.is_empty()) {
        Some(p) => require_interpreter(PathBuf::from(p), "PYTEST_MCP_TEST_PYTHON"),
        None => require_interpreter(repo().join(".venv/bin/python"), "the test interpreter"),
    }
}

/// The interpreter with pytest but without pytest-json-report.
fn python_nojson() -> PathBuf {
    require_interpreter(
        repo().join(".venv-nojson/bin/python"),
        "the interpreter without pytest-json-report",
    )
}

/// A private copy of `tests/projects/<name>`.
struct Project {
    _dir: tempfile::TempDir,
    /// The copy, symlinks resolved (as pytest and the processes see it).
    root: PathBuf,
}

impl Project {
    fn copy(name: &str) -> Project {
        let source = repo().join("tests/projects").join(name);
        assert!(source.is_dir(), "no project {}", source.display());
        let dir = tempfile::Builder::new()
            .prefix("runner-it-")
            .tempdir()
            .expect("temporary directory");
        let root = dir.path().join(name);
        copy_tree(&source, &root);
        let root = root.canonicalize().expect("canonical root");
        Project { _dir: dir, root }
    }

    /// The directory that holds the copy (outside the root).
    fn parent(&self) -> &Path {
        self.root.parent().expect("parent")
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let name = entry.file_name();
        if name == "__pycache__" || name == ".pytest_cache" {
            continue;
        }
        let kind = entry.file_type().expect("file type");
        let target = to.join(&name);
        if kind.is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// A copy of `runner_tripwire` (its conftest marks that pytest started),
/// with a directory outside the root holding a test file, and a symlink
/// `link` inside the root pointing at it.
fn tripwire_project() -> Project {
    let project = Project::copy("runner_tripwire");
    let outside = project.parent().join("outside");
    std::fs::create_dir_all(&outside).expect("mkdir outside");
    std::fs::write(outside.join("test_out.py"), "def test_out():\n    pass\n")
        .expect("write outside test");
    std::os::unix::fs::symlink(&outside, project.root.join("link")).expect("symlink");
    std::os::unix::fs::symlink(
        outside.join("test_out.py"),
        project.root.join("link_file.py"),
    )
    .expect("file symlink");
    std::os::unix::fs::symlink("loop", project.root.join("loop")).expect("symlink loop");
    project
}

// ---------------------------------------------------------------------------
// Running processes
// ---------------------------------------------------------------------------

/// What an invocation of the binary (or of pytest) gave back.
struct Answer {
    status: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
    elapsed: Duration,
}

impl Answer {
    /// Standard output, which must be valid UTF-8.
    fn text(&self) -> String {
        String::from_utf8(self.stdout.clone()).unwrap_or_else(|e| {
            panic!(
                "the answer is not valid UTF-8 ({e}); stderr: {}",
                self.stderr
            )
        })
    }

    /// Standard output parsed as JSON.
    fn json(&self) -> Value {
        serde_json::from_str(&self.text()).unwrap_or_else(|e| {
            panic!(
                "the answer is not JSON ({e}):\n{}\nstderr: {}",
                head(&self.text(), 3000),
                self.stderr
            )
        })
    }
}

fn command(program: &Path) -> Command {
    let mut c = support::clean_command(program);
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    c
}

/// Waits for `child`, calling `poll` every few milliseconds while it runs;
/// kills it and fails the test after [`DEADLINE`].
fn wait(mut child: Child, started: Instant, mut poll: impl FnMut(u32)) -> Answer {
    let out = reader(child.stdout.take().expect("piped stdout"));
    let err = reader(child.stderr.take().expect("piped stderr"));
    let pid = child.id();
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if started.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("process {pid} still running after {DEADLINE:?}; killed");
        }
        poll(pid);
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = started.elapsed();
    Answer {
        status: status.code(),
        stdout: out.join().expect("stdout reader"),
        stderr: String::from_utf8_lossy(&err.join().expect("stderr reader")).into_owned(),
        elapsed,
    }
}

fn pytest_mcp<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Answer {
    let started = Instant::now();
    let child = command(Path::new(BIN))
        .args(args)
        .spawn()
        .expect("start pytest-mcp");
    wait(child, started, |_| {})
}

/// `pytest-mcp run --root <project> --python <python> <extra...>`.
fn run(project: &Project, python: &Path, extra: &[&str]) -> Answer {
    let mut args: Vec<OsString> = vec![
        "run".into(),
        "--root".into(),
        project.root.clone().into(),
        "--python".into(),
        python.into(),
    ];
    args.extend(extra.iter().map(OsString::from));
    pytest_mcp(&args)
}

fn run_json(project: &Project, python: &Path, extra: &[&str]) -> (Answer, Value) {
    let mut args = vec!["--format", "json"];
    args.extend_from_slice(extra);
    let answer = run(project, python, &args);
    let value = answer.json();
    (answer, value)
}

fn run_markdown(project: &Project, python: &Path, extra: &[&str]) -> (Answer, String) {
    let mut args = vec!["--format", "markdown"];
    args.extend_from_slice(extra);
    let answer = run(project, python, &args);
    let text = answer.text();
    (answer, text)
}

fn discover(project: &Project, extra: &[&str]) -> Answer {
    let mut args: Vec<OsString> = vec![
        "discover".into(),
        "--root".into(),
        project.root.clone().into(),
        "--python".into(),
        python().into(),
    ];
    args.extend(extra.iter().map(OsString::from));
    pytest_mcp(&args)
}

/// `<python> -m pytest <args>` in the project, as a user would run it.
fn plain_pytest(project: &Project, python: &Path, args: &[&str]) -> Answer {
    let started = Instant::now();
    let child = command(python)
        .args(["-m", "pytest", "-p", "no:cacheprovider"])
        .args(args)
        .current_dir(&project.root)
        .spawn()
        .expect("start pytest");
    wait(child, started, |_| {})
}
