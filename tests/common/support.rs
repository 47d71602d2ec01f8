//! Helpers several test files share (each includes this file with
//! `#[path = "common/support.rs"] mod support;` and uses what it needs).
#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Once;
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

/// Where the shared JUnit corpus lives: `../shared/junit-corpus/`, beside
/// the repository (CI has it; a plain clone does not).
pub const CORPUS: &str = "../shared/junit-corpus";

/// The shared JUnit corpus, or `None` when it is not beside the repository.
/// Then the first call in this test binary prints one line saying the corpus
/// tests are skipped. It goes straight to stderr: `cargo test` captures
/// `println!`/`eprintln!` of a passing test, so a skip printed that way
/// would never be seen.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(CORPUS);
    if dir.is_dir() {
        return Some(dir);
    }
    static SAID: Once = Once::new();
    SAID.call_once(|| {
        let _ = writeln!(
            std::io::stderr(),
            "corpus tests skipped: {CORPUS} not found"
        );
    });
    None
}

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
