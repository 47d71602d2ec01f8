//! Helpers several test files share (each declares `mod common;`, see
//! `common/mod.rs`, and uses what it needs).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

/// Drains a child's output stream on a thread, so that neither pipe can
/// fill up and stall the child while the other is read.
pub fn reader<R: Read + Send + 'static>(mut stream: R) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stream.read_to_end(&mut buf);
        buf
    })
}

/// The first `max` characters of `text`, for assertion messages.
pub fn head(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((cut, _)) => &text[..cut],
        None => text,
    }
}

/// The interpreter with pytest and pytest-json-report:
/// `PYTEST_MCP_TEST_PYTHON`, else the repository's `.venv/bin/python`.
pub fn test_python() -> PathBuf {
    let path = std::env::var_os("PYTEST_MCP_TEST_PYTHON")
        .filter(|p| !p.is_empty())
        .map_or_else(
            || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python"),
            PathBuf::from,
        );
    assert!(
        path.is_file(),
        "{} does not exist: run `bash scripts/setup.sh` or set PYTEST_MCP_TEST_PYTHON",
        path.display()
    );
    path
}

/// The interpreter with pytest alone (no pytest-json-report, no plugin
/// beside it): the repository's `.venv-nojson/bin/python`, which
/// `scripts/setup.sh` makes.
pub fn nojson_python() -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".venv-nojson/bin/python");
    assert!(
        path.is_file(),
        "{} is missing: run `bash scripts/setup.sh`",
        path.display()
    );
    path
}

/// `pytest-mcp run --root <root> --python <test_python> <args>`: exit
/// status and standard output, which must not be empty.
pub fn run_pytest_mcp(root: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pytest-mcp"))
        .arg("run")
        .arg("--root")
        .arg(root)
        .arg("--python")
        .arg(test_python())
        .args(args)
        // The caller's pytest settings must not change what the project does.
        .env_remove("PYTEST_ADDOPTS")
        .env_remove("PYTEST_PLUGINS")
        .env_remove("PYTEST_MCP_PYTHON")
        .env_remove("PYTHONPATH")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run pytest-mcp");
    let text = String::from_utf8(out.stdout).expect("UTF-8 answer");
    assert!(
        !text.is_empty(),
        "no answer; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

/// The shared JUnit corpus (`../shared/junit-corpus/`), found by the
/// testkit crate, which the token-cost measurement shares with the benches.
pub use pytest_mcp_testkit::corpus_dir;

/// The `.xml` files directly in `dir`, sorted.
fn xml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    files.sort();
    files
}

/// Every XML file of the corpus, sorted; `None` when there is no corpus
/// (see [`corpus_dir`]); fails when the corpus is there but not whole.
pub fn corpus_files() -> Option<Vec<PathBuf>> {
    let files = xml_files(&corpus_dir()?);
    assert!(
        files.len() > 100,
        "expected the whole corpus, found {} files",
        files.len()
    );
    Some(files)
}

/// The JUnit fixtures written for this repository
/// (`tests/fixtures/junit/*.xml`, one small file per dialect), sorted.
pub fn own_junit_fixtures() -> Vec<PathBuf> {
    let files = xml_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/junit"));
    assert!(files.len() >= 15, "only {} JUnit fixtures", files.len());
    files
}

/// Copies a project tree (`tests/projects/<name>`) to `to`, leaving out
/// Python's caches.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        if entry.file_name() == "__pycache__" || entry.file_name() == ".pytest_cache" {
            continue;
        }
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// A private copy of `tests/projects/<name>` in a temporary directory
/// (kept alive by the handle), without Python's or pytest's caches; the
/// copy's canonical path.
pub fn project_copy(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join(name);
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/projects")
        .join(name);
    copy_tree(&source, &root);
    let root = root.canonicalize().expect("canonical");
    (dir, root)
}

/// A command for `program` (the binary, or an interpreter running pytest)
/// without the caller's pytest settings, which must not change what the
/// projects do, and with no standard input.
pub fn clean_command(program: &Path) -> std::process::Command {
    let mut c = std::process::Command::new(program);
    for var in [
        "PYTEST_ADDOPTS",
        "PYTEST_PLUGINS",
        "PYTEST_MCP_PYTHON",
        "PYTHONPATH",
    ] {
        c.env_remove(var);
    }
    c.stdin(std::process::Stdio::null());
    c
}

/// The state letter of a process, None when there is no such process.
pub fn process_state(pid: i32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "pid (comm) S ...": the state follows the last ')'.
    stat.rsplit_once(')')?.1.trim_start().chars().next()
}

/// True while `pid` is a live process (zombies and dying ones count as dead).
pub fn alive(pid: i32) -> bool {
    matches!(process_state(pid), Some(s) if s != 'Z' && s != 'X')
}

/// Live processes whose command line or working directory is in `dir`.
pub fn processes_in(dir: &Path) -> Vec<(i32, String)> {
    let needle = dir.as_os_str().as_encoded_bytes();
    let me = std::process::id() as i32;
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        if pid == me || !alive(pid) {
            continue;
        }
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let in_cmdline = cmdline.windows(needle.len()).any(|w| w == needle);
        let in_cwd = std::fs::read_link(format!("/proc/{pid}/cwd"))
            .map(|cwd| cwd.starts_with(dir))
            .unwrap_or(false);
        if in_cmdline || in_cwd {
            let shown = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            found.push((pid, shown));
        }
    }
    found
}

/// Waits (briefly: SIGKILL is delivered asynchronously) for the processes
/// whose pids the run wrote to `pid_files` in `root`, and everything else
/// of the run, to be gone. Survivors are killed before the test fails, so
/// a failure leaves nothing behind either; a pid file never written fails
/// too (the hanging test never got going).
pub fn nothing_left(root: &Path, pid_files: &[&str]) -> Result<(), String> {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    use std::time::{Duration, Instant};
    let recorded: Vec<(&str, Option<i32>)> = pid_files
        .iter()
        .map(|&file| {
            let pid = std::fs::read_to_string(root.join(file))
                .ok()
                .and_then(|t| t.trim().parse().ok());
            (file, pid)
        })
        .collect();
    let until = Instant::now() + Duration::from_secs(2);
    loop {
        let living: Vec<i32> = recorded
            .iter()
            .filter_map(|(_, pid)| *pid)
            .filter(|pid| alive(*pid) && belongs_to(*pid, root))
            .collect();
        let others = processes_in(root);
        if living.is_empty() && others.is_empty() {
            break;
        }
        if Instant::now() > until {
            for pid in living.iter().chain(others.iter().map(|(pid, _)| pid)) {
                let _ = kill(Pid::from_raw(*pid), Signal::SIGKILL);
            }
            return Err(format!(
                "processes of the run survived the timeout: recorded {recorded:?}, alive \
                 {living:?}; processes in the project: {others:?}"
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    match recorded.iter().find(|(_, pid)| pid.is_none()) {
        Some((file, _)) => Err(format!(
            "{file} was not written: the hanging test never got going"
        )),
        None => Ok(()),
    }
}

/// True when `pid` is still one of the run's processes (not a reused pid).
fn belongs_to(pid: i32, dir: &Path) -> bool {
    processes_in(dir).iter().any(|(p, _)| *p == pid)
        || std::fs::read(format!("/proc/{pid}/cmdline")).is_err()
}

/// The section of Markdown under `heading` (text it starts with), up to
/// the next `### ` heading.
pub fn section<'a>(md: &'a str, heading: &str) -> &'a str {
    let start = md
        .find(heading)
        .unwrap_or_else(|| panic!("no {heading:?} in:\n{md}"));
    let rest = &md[start + heading.len()..];
    &rest[..rest.find("\n### ").unwrap_or(rest.len())]
}

/// `pytest-mcp report --format FORMAT ARGS FILES`' standard output.
pub fn report_bytes(format: &str, args: &[&str], files: &[PathBuf]) -> Vec<u8> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pytest-mcp"))
        .args(["report", "--format", format])
        .args(args)
        .args(files)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .expect("pytest-mcp report");
    // 0: `--fail-on` is `never` by default.
    assert_eq!(
        out.status.code(),
        Some(0),
        "{format} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}
