//! The plugin matrix (issue 39): one small project per popular pytest
//! plugin under `tests/plugins/<name>/`, configured as real projects
//! configure it, each run by plain pytest and by `pytest-mcp run` (the
//! Markdown, `--format json` and `--format github`), every run in its own
//! fresh copy, with the interpreter of the project's virtualenv
//! (`.venv-plugins/<venv>/`, made by `scripts/setup.sh` from
//! `requirements-plugins.txt`). What each project must be told is in its
//! `expect.json`:
//!
//! - `plugin` (the distribution the project is about; null for pytest
//!   alone), `venv`, `exit` (pytest's exit status) and `status` (the word
//!   our Markdown starts with: `success`, `failure` or `crash`);
//! - `counts`: pytest's closing line, word by word (`passed`, `failed`,
//!   `error`, `skipped`, `rerun`, `warning`, ...), absent when the process
//!   dies before it;
//! - `failures`: each failing test's id (every test our Markdown heads a
//!   failure section with must be one), a piece of its message and its
//!   place (`path:line`: the test's own line, or another file's line in an
//!   `at` line; `path` alone for an item the plugin gives no line, a
//!   notebook's cell: then no heading names a line), `details` the
//!   Markdown must keep and `absent` it must not show (a library's source
//!   line under the test's own place);
//! - `reason`: what pytest or a plugin printed at the session's end when
//!   it failed with no failing test (a coverage gate, unused snapshots;
//!   empty when nothing was printed: any reason will do), or what our
//!   answer says when tests failed and pytest's exit status is 0;
//! - `crash`: the test running when the process ended and the tests never
//!   run; `flaky`: the tests that passed on a rerun; `duration`: our
//!   duration must be pytest's, within 5% and 0.01 s, as the closing line
//!   of the same run says it (our JSON's `text_output` holds it: two runs
//!   of one project differ by more than that on a busy machine).
//!
//! Every run is checked against pytest's own closing line (`== 2 failed,
//! 6 passed in 0.12s ==`, or pytest-sugar's `Results (0.05s):`): the
//! counts, and pytest-mcp's exit status equals pytest's. A heading's
//! `(line N)` and a GitHub annotation name a line of the file they name.
//!
//! A project whose virtualenv is missing is skipped with one line on
//! stderr naming the plugin and how to install it; with the virtualenvs
//! present, a project whose own run is not what `expect.json` says fails.
//! The projects run two at a time (the test harness's threads), each
//! project's four runs side by side: on two cores shared with another
//! build, the command-line cases took 110 s (150 s of CPU) and the whole
//! binary 5 minutes. The same projects through the MCP Python SDK:
//! `tests/mcp/test_plugins.py`, run by the last test here.

#[path = "plugins/closing.rs"]
mod closing;
mod common;
#[path = "plugins/json.rs"]
mod json;
#[path = "plugins/markdown.rs"]
mod markdown;

use std::collections::BTreeMap;
use std::io::Write as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use closing::Closing;
use common::mcp_suite;
use common::support::{clean_command, copy_tree, head, reader};
use json::check_json;
use markdown::{check_github, check_markdown};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use serde::Deserialize;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_pytest-mcp");
/// The longest project run takes a few seconds; this only stops a hang.
const DEADLINE: Duration = Duration::from_secs(180);

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn projects() -> PathBuf {
    repo().join("tests/plugins")
}

/// A project's `expect.json`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    plugin: Option<String>,
    venv: String,
    exit: i32,
    status: String,
    #[serde(default)]
    counts: Option<BTreeMap<String, u64>>,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    failures: Vec<Failure>,
    #[serde(default)]
    crash: Option<Crash>,
    #[serde(default)]
    flaky: Vec<String>,
    #[serde(default)]
    duration: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Failure {
    id: String,
    message: String,
    place: String,
    #[serde(default)]
    details: Vec<String>,
    /// Text the section must not hold: a library's source line under the
    /// test's own place.
    #[serde(default)]
    absent: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Crash {
    running: String,
    not_run: Vec<String>,
}

fn expectations(name: &str) -> Expect {
    let path = projects().join(name).join("expect.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A finished process: exit status, standard output and error.
struct Ran {
    status: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `command` (in a fresh copy of the project, its working directory)
/// in a process group of its own, ended whole past [`DEADLINE`].
fn run_in_copy(name: &str, mut command: Command) -> Ran {
    let dir = tempfile::Builder::new()
        .prefix("plugins-it-")
        .tempdir()
        .expect("temporary directory");
    let root = dir.path().join(name);
    copy_tree(&projects().join(name), &root);
    let root = root.canonicalize().expect("canonical root");
    let program = PathBuf::from(command.get_program());
    let mut child = command
        .arg(&root)
        .current_dir(&root)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
    let stdout = reader(child.stdout.take().expect("stdout"));
    let stderr = reader(child.stderr.take().expect("stderr"));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status.code();
        }
        if started.elapsed() > DEADLINE {
            let _ = killpg(Pid::from_raw(child.id() as i32), Signal::SIGKILL);
            let _ = child.wait();
            panic!(
                "{name}: {} did not end within {DEADLINE:?}",
                program.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).into_owned();
    Ran {
        status,
        stdout: text(stdout.join().unwrap_or_default()),
        stderr: text(stderr.join().unwrap_or_default()),
    }
}

/// Plain pytest on a copy: `python -m pytest --rootdir <copy>`.
fn pytest(name: &str, python: &Path) -> Ran {
    let mut command = clean_command(python);
    command.args(["-m", "pytest", "--rootdir"]);
    run_in_copy(name, command)
}

/// `pytest-mcp run --python <python> <args> --root <copy>`.
fn ours(name: &str, python: &Path, args: &[&str]) -> Ran {
    let mut command = clean_command(Path::new(BIN));
    command.arg("run").arg("--python").arg(python).args(args);
    command.arg("--root");
    run_in_copy(name, command)
}

/// The project's interpreter, or None (said on stderr) when its
/// virtualenv is not there.
fn interpreter(name: &str, expect: &Expect) -> Option<PathBuf> {
    let python = repo()
        .join(".venv-plugins")
        .join(&expect.venv)
        .join("bin/python");
    if python.is_file() {
        return Some(python);
    }
    let plugin = expect.plugin.as_deref().unwrap_or("pytest alone");
    let _ = writeln!(
        std::io::stderr(),
        "plugin matrix: {name} ({plugin}) skipped: {} is missing; `bash scripts/setup.sh` \
         installs requirements-plugins.txt's `{}` group there",
        python.display(),
        expect.venv
    );
    None
}

/// The four runs of a project, side by side.
struct Runs {
    pytest: Ran,
    markdown: Ran,
    json: Ran,
    github: Ran,
}

fn run_all(name: &str, python: &Path) -> Runs {
    std::thread::scope(|s| {
        let pytest = s.spawn(|| pytest(name, python));
        let markdown = s.spawn(|| ours(name, python, &[]));
        let json = s.spawn(|| ours(name, python, &["--format", "json"]));
        let github = s.spawn(|| ours(name, python, &["--format", "github"]));
        let join = |h: std::thread::ScopedJoinHandle<'_, Ran>| h.join().expect("a run panicked");
        Runs {
            pytest: join(pytest),
            markdown: join(markdown),
            json: join(json),
            github: join(github),
        }
    })
}

/// Runs the project and checks every answer; fails listing every problem.
fn check_project(name: &str) {
    let expect = expectations(name);
    let Some(python) = interpreter(name, &expect) else {
        return;
    };
    let started = Instant::now();
    let runs = run_all(name, &python);
    let closing = closing::closing(&runs.pytest.stdout);
    let mut problems = check_pytest(&expect, &runs.pytest, closing.as_ref());
    let project_ok = problems.is_empty();
    if project_ok {
        let dir = projects().join(name);
        problems.extend(check_markdown(
            &expect,
            closing.as_ref(),
            &runs.markdown,
            &dir,
        ));
        problems.extend(check_json(
            &expect,
            closing.as_ref(),
            &runs.json,
            &runs.pytest,
        ));
        problems.extend(check_github(&expect, closing.as_ref(), &runs.github, &dir));
    }
    println!(
        "{name}: four runs in {:.1}s",
        started.elapsed().as_secs_f64()
    );
    let plugin = expect.plugin.as_deref().unwrap_or("pytest alone");
    assert!(
        problems.is_empty(),
        "{name} ({plugin}): {}\n- {}\n\npytest's closing line: {}\n\nour Markdown:\n{}\n\nour JSON \
         (head):\n{}\n\nour GitHub annotations:\n{}",
        if project_ok {
            "pytest-mcp's answers are wrong"
        } else {
            "the project itself is broken (pytest's own run is not what expect.json says)"
        },
        problems.join("\n- "),
        closing.as_ref().map_or("(none)", |c| c.line.as_str()),
        runs.markdown.stdout,
        head(&without_kept_report(&runs.json.stdout), 3000),
        runs.github.stdout,
    );
}

/// The JSON answer without the pytest-json-report document and pytest's
/// output it carries, for messages.
fn without_kept_report(json: &str) -> String {
    match serde_json::from_str::<Value>(json) {
        Ok(Value::Object(mut map)) => {
            map.remove("json_report");
            map.remove("text_output");
            serde_json::to_string_pretty(&map).unwrap_or_default()
        }
        _ => json.to_string(),
    }
}

/// pytest's own run is what the project says: its exit status, a closing
/// line unless the process died, each failure in its short summary.
fn check_pytest(expect: &Expect, run: &Ran, closing: Option<&Closing>) -> Vec<String> {
    let mut problems = Vec::new();
    if run.status != Some(expect.exit) {
        problems.push(format!(
            "pytest exited {:?}, expect.json says {}",
            run.status, expect.exit
        ));
    }
    match (closing, &expect.counts) {
        (None, Some(_)) => problems.push("pytest printed no closing line".into()),
        (Some(c), None) => problems.push(format!(
            "pytest printed a closing line ({}) though expect.json has no counts",
            c.line
        )),
        (Some(c), Some(counts)) if c.counts != *counts => problems.push(format!(
            "pytest's closing line ({}) is not expect.json's counts {counts:?}",
            c.line
        )),
        _ => {}
    }
    for failure in &expect.failures {
        if !run.stdout.lines().any(|l| lists(l, &failure.id)) {
            problems.push(format!("pytest's summary does not list {}", failure.id));
        }
    }
    if !problems.is_empty() {
        problems.push(format!(
            "pytest's output (tail):\n{}\nstderr (tail):\n{}",
            tail(&run.stdout, 2500),
            tail(&run.stderr, 1500)
        ));
    }
    problems
}

/// A line of pytest's short summary for `id`: `FAILED <id>`, `ERROR
/// <id>` or `SUBFAILED(...) <id>`, then ` - <message>` or nothing (an item
/// whose failure has no one-line message: sybil's).
fn lists(line: &str, id: &str) -> bool {
    let word = line.split([' ', '(', '[']).next().unwrap_or_default();
    matches!(word, "FAILED" | "ERROR" | "SUBFAILED")
        && line.match_indices(id).any(|(i, _)| {
            let after = &line[i + id.len()..];
            line[..i].ends_with(' ') && (after.is_empty() || after.starts_with(' '))
        })
}

fn tail(text: &str, max: usize) -> &str {
    let start = text.len().saturating_sub(max);
    let start = (start..text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len());
    &text[start..]
}

/// One test per project, and the list every folder must be in.
macro_rules! matrix {
    ($($name:ident),* $(,)?) => {
        const PROJECTS: &[&str] = &[$(stringify!($name)),*];
        $(
            #[test]
            fn $name() {
                check_project(stringify!($name));
            }
        )*
    };
}

matrix!(
    anyio,
    approvaltests,
    asyncio_auto,
    asyncio_strict,
    bdd,
    benchmark,
    check,
    cov_gate,
    custom_exit_code,
    dependency,
    django,
    env,
    exception_group,
    flaky,
    hypothesis,
    instafail,
    mock,
    mypy,
    nbval,
    order,
    os_exit,
    randomly,
    repeat,
    rerunfailures,
    retry,
    retry_pass,
    ruff,
    sessionfinish_status,
    slow_finish,
    socket,
    subtests,
    sugar,
    sybil,
    syrupy_unused,
    timeout_signal,
    timeout_thread,
    xdist,
    yaml_items,
);

#[test]
fn every_project_has_a_test() {
    let mut folders: Vec<String> = std::fs::read_dir(projects())
        .expect("tests/plugins")
        .map(|e| e.expect("entry"))
        .filter(|e| e.path().join("expect.json").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    assert_eq!(
        folders, PROJECTS,
        "tests/plugins/* and the matrix! list differ"
    );
}

/// `discover` on pytest-bdd's project: its scenarios are functions of
/// pytest_bdd/scenario.py, whose line is no line of the test file (the
/// heading names the file; no `L303` under it).
#[test]
fn bdd_discovery_pairs_no_library_line_with_the_test_file() {
    let expect = expectations("bdd");
    let Some(python) = interpreter("bdd", &expect) else {
        return;
    };
    let mut command = clean_command(Path::new(BIN));
    command
        .arg("discover")
        .arg("--python")
        .arg(&python)
        .arg("--root");
    let ran = run_in_copy("bdd", command);
    assert_eq!(ran.status, Some(0), "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout
            .contains("### tests/test_cart.py\n- test_adding_an_item\n"),
        "{}",
        ran.stdout
    );
    assert!(!ran.stdout.contains("- L3"), "{}", ran.stdout);
}

/// The same projects through the MCP Python SDK (`tests/mcp/test_plugins.py`):
/// `execute_tests` on each, its structured result's status, counts and
/// failures. The projects it skips (their virtualenv is missing) are said
/// in one line.
#[test]
fn through_the_mcp_python_sdk() {
    let missing: Vec<&str> = PROJECTS
        .iter()
        .copied()
        .filter(|name| {
            let venv = expectations(name).venv;
            !repo()
                .join(".venv-plugins")
                .join(venv)
                .join("bin/python")
                .is_file()
        })
        .collect();
    if !missing.is_empty() {
        let _ = writeln!(
            std::io::stderr(),
            "plugin matrix through MCP: {} skipped ({}): their virtualenvs are missing; run `bash \
             scripts/setup.sh`",
            missing.len(),
            missing.join(", ")
        );
    }
    mcp_suite::run_python_suite(
        "the plugin matrix through MCP (tests/mcp/test_plugins.py)",
        "mcp_plugins",
        &["tests/mcp/test_plugins.py", "-n", "2", "-rs"],
    );
}
