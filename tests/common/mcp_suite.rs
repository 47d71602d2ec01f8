//! Runs Python tests of `tests/mcp/` (the MCP Python SDK over stdio against
//! the binary cargo just built) with pytest, and fails with pytest's output
//! when they fail. Shared by `tests/mcp.rs` and `tests/mcp_load.rs`.
//!
//! Interpreter: `PYTEST_MCP_TEST_PYTHON`, else `.venv/bin/python`, which must
//! have pytest, pytest-json-report, pytest-xdist and the MCP SDK (`mcp`);
//! `bash scripts/setup.sh` creates it. The same interpreter is the one the
//! server runs the test projects with.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

const BIN: &str = env!("CARGO_BIN_EXE_pytest-mcp");
/// Each Python suite takes one to three minutes on two idle cores, and up
/// to twice that on a loaded CI machine; this only stops a hang.
const DEADLINE: Duration = Duration::from_secs(600);
/// After the deadline pytest gets SIGINT first and this long to print its
/// summary (the tests that failed so far, and the traceback of the one that
/// hangs) before the whole group is killed.
const INTERRUPT_GRACE: Duration = Duration::from_secs(20);

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn python() -> PathBuf {
    let (path, what) = match std::env::var_os("PYTEST_MCP_TEST_PYTHON").filter(|p| !p.is_empty()) {
        Some(p) => (PathBuf::from(p), "PYTEST_MCP_TEST_PYTHON"),
        None => (repo().join(".venv/bin/python"), "the test interpreter"),
    };
    assert!(
        path.is_file(),
        "{what} {} does not exist: run `bash scripts/setup.sh` in {} to create .venv with \
         pytest, pytest-json-report, pytest-xdist and the MCP Python SDK (requirements-dev.txt)",
        path.display(),
        repo().display()
    );
    path
}

fn require_sdk(python: &Path) {
    let out = Command::new(python)
        .args([
            "-c",
            "import mcp.client.stdio, mcp.client.session, pytest, anyio, xdist",
        ])
        .output()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", python.display()));
    assert!(
        out.status.success(),
        "{} lacks the MCP Python SDK, pytest or pytest-xdist: run `bash scripts/setup.sh` in {} \
         (requirements-dev.txt pins them)\n{}",
        python.display(),
        repo().display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn read_all(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// SIGINT to pytest's group (pytest then prints its summary, xdist's
/// controller too), then SIGKILL to whatever is left after the grace.
fn stop(child: &mut std::process::Child) {
    let group = Pid::from_raw(child.id() as i32);
    let _ = killpg(group, Signal::SIGINT);
    let interrupted = Instant::now();
    while interrupted.elapsed() < INTERRUPT_GRACE {
        if matches!(child.try_wait(), Ok(Some(_))) {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = killpg(group, Signal::SIGKILL);
    let _ = child.wait();
}

/// `python -m pytest <args> -p no:cacheprovider -q -rfE` in the repository, with
/// the binary and the interpreter in the environment; panics with pytest's
/// output unless every test passed. `what` names the suite in messages.
/// With `PYTEST_MCP_JUNIT_DIR` set, pytest also writes its JUnit XML there
/// as `<name>.xml` (CI reports it with this repository's own action).
pub fn run_python_suite(what: &str, name: &str, args: &[&str]) {
    let python = python();
    require_sdk(&python);
    let started = Instant::now();
    let junit: Vec<String> = std::env::var_os("PYTEST_MCP_JUNIT_DIR")
        .filter(|d| !d.is_empty())
        .map(|dir| {
            let path = Path::new(&dir).join(format!("{name}.xml"));
            vec![format!("--junitxml={}", path.display())]
        })
        .unwrap_or_default();
    let mut child = Command::new(&python)
        .args(["-m", "pytest"])
        .args(args)
        .args(&junit)
        .args(["-p", "no:cacheprovider", "-q", "-rfE"])
        .current_dir(repo())
        .env("PYTEST_MCP_BIN", BIN)
        .env("PYTEST_MCP_TEST_PYTHON", &python)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own group, so a hang past the deadline can be ended whole.
        .process_group(0)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {} -m pytest: {e}", python.display()));
    let stdout = read_all(child.stdout.take().expect("stdout"));
    let stderr = read_all(child.stderr.take().expect("stderr"));
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for pytest") {
            break Some(status);
        }
        if started.elapsed() > DEADLINE {
            stop(&mut child);
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    println!("{stdout}");
    eprintln!("{stderr}");
    println!(
        "{what}: pytest finished in {:.1}s",
        started.elapsed().as_secs_f64()
    );
    match status {
        None => panic!("{what} did not finish within {DEADLINE:?}:\n{stdout}\n{stderr}"),
        Some(status) => assert!(
            status.success(),
            "{what} failed ({status}):\n{stdout}\n{stderr}"
        ),
    }
}
