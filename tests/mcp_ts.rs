//! `pytest-mcp serve` driven through the official TypeScript MCP client,
//! `@modelcontextprotocol/sdk` 1.x (`tests/mcp_ts/client.mjs`, versions
//! pinned by `tests/mcp_ts/package-lock.json`): titles and annotations,
//! structured results accepted by the SDK's own output-schema validation
//! for a mixed run, discoveries, a timeout and hundreds of failures, and a
//! shortened answer's complete result read back through its resource link.
//!
//! Needs Node 18 or later and npm, which install the SDK (`npm ci`, into a
//! directory under `target/`, never into `tests/`). Without them the test
//! prints one line saying it was skipped and passes: the MCP Python SDK
//! suite (`tests/mcp.rs`) covers the same ground everywhere.
//!
//! Interpreter: `PYTEST_MCP_TEST_PYTHON`, else `.venv/bin/python`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;
use common::support;

const BIN: &str = env!("CARGO_BIN_EXE_pytest-mcp");
/// The client's files, copied next to the SDK's installation.
const CLIENT_FILES: [&str; 3] = ["package.json", "package-lock.json", "client.mjs"];
/// The projects the client serves, copied from `tests/projects`.
const PROJECTS: [&str; 4] = ["mixed", "many_cases", "runner_hang", "root_causes"];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `program --version`'s output, when it runs.
fn version(program: &str) -> Option<String> {
    let out = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Why the test cannot run here, if it cannot: no Node 18+ or no npm.
fn missing_node() -> Option<String> {
    let Some(node) = version("node") else {
        return Some("node is not installed".into());
    };
    let major = node
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|m| m.parse::<u32>().ok());
    if major.is_none_or(|m| m < 18) {
        return Some(format!("node {node} is older than 18"));
    }
    version("npm")
        .is_none()
        .then(|| "npm is not installed".into())
}

fn shown(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The client and its locked dependencies in `dir`: `npm ci` when the
/// lockfile changed since the last installation (or there is none).
fn install(dir: &Path) {
    std::fs::create_dir_all(dir).expect("mkdir");
    let lock = std::fs::read(repo().join("tests/mcp_ts/package-lock.json")).expect("lockfile");
    let installed = std::fs::read(dir.join("node_modules/.package-lock.json")).ok();
    let stale = std::fs::read(dir.join("package-lock.json")).ok().as_ref() != Some(&lock);
    for file in CLIENT_FILES {
        std::fs::copy(repo().join("tests/mcp_ts").join(file), dir.join(file)).expect("copy");
    }
    if installed.is_some() && !stale {
        return;
    }
    let out = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .arg("--cache")
        .arg(dir.join(".npm-cache"))
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("run npm ci");
    assert!(
        out.status.success(),
        "npm ci in {} failed (the TypeScript SDK test needs npm's registry, or a cache): {}",
        dir.display(),
        shown(&out)
    );
}

/// Copies of the projects, and one generated: 1,200 cases, 1,100 failing,
/// whose ids do not fit the answer's budget.
fn projects(dir: &Path) {
    for name in PROJECTS {
        support::copy_tree(&repo().join("tests/projects").join(name), &dir.join(name));
    }
    let generated = dir.join("failing_cases");
    std::fs::create_dir_all(generated.join("tests")).expect("mkdir");
    std::fs::write(
        generated.join("pytest.ini"),
        "[pytest]\ntestpaths = tests\n",
    )
    .expect("ini");
    std::fs::write(
        generated.join("tests/test_many.py"),
        "import pytest\n\n\n@pytest.mark.parametrize('n', range(1200))\ndef test_case(n):\n    assert n % 12 == 0\n",
    )
    .expect("test file");
}

#[test]
fn the_server_works_with_the_typescript_sdk() {
    if let Some(why) = missing_node() {
        // Straight to stderr: cargo test captures a passing test's println!.
        let _ = writeln!(
            std::io::stderr(),
            "mcp_ts: SKIPPED the TypeScript SDK client test: {why} (needs Node 18+ and npm)"
        );
        return;
    }
    let client = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mcp_ts");
    install(&client);
    let work = tempfile::tempdir().expect("temporary directory");
    projects(work.path());
    let out = Command::new("node")
        .arg("client.mjs")
        .current_dir(&client)
        .env("PYTEST_MCP_BIN", BIN)
        .env("PYTEST_MCP_TEST_PYTHON", support::test_python())
        .env("PYTEST_MCP_PROJECTS", work.path())
        .stdin(Stdio::null())
        .output()
        .expect("run node");
    let text = shown(&out);
    // The client's lines (figures among them), shown by a plain cargo test.
    let _ = write!(std::io::stderr(), "{text}");
    assert!(
        out.status.success() && text.contains("ALL OK"),
        "the TypeScript SDK client failed:\n{text}"
    );
}
