//! Real suites with injected bugs in tokens (issue 33): real libraries'
//! own test suites from their sdists (`.suites/`, see
//! `requirements-suites.txt`) with the bugs of the testkit's
//! `real_suites`, and `tests/projects/mixed`, each read four ways:
//! `python -m pytest -q`, the same with `--tb=line` and with
//! `--tb=short`, and `pytest-mcp run` (the default Markdown). o200k_base
//! tokens of standard output; the counts do not depend on the machine, so
//! one pass is enough. Every text is kept under
//! `target/bench-inputs/suites/answers/`.

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

use pytest_mcp_testkit::real_suites::{self, SUITES};
use pytest_mcp_testkit::tokens;

use crate::Env;

/// The four readers: pytest's extra arguments, or `None` for pytest-mcp.
const READERS: [(&str, Option<&str>); 4] = [
    ("pytest -q", Some("")),
    ("--tb=line", Some("--tb=line")),
    ("--tb=short", Some("--tb=short")),
    ("pytest-mcp run", None),
];

/// One project ready to run: its name, root and environment.
struct Case {
    name: String,
    root: std::path::PathBuf,
    env: Vec<(&'static str, OsString)>,
}

pub fn run(env: &Env) {
    let base = env.inputs.join("suites");
    let answers = base.join("answers");
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&answers).expect("create target/bench-inputs/suites/answers");
    let cases = cases(env, &base);
    println!("## Real suites with injected bugs (issue 33, tiktoken o200k_base)\n");
    println!(
        "| case | tests | failing | pytest -q | --tb=line | --tb=short | pytest-mcp run | ours / pytest -q |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for case in &cases {
        let texts: Vec<String> = READERS
            .iter()
            .map(|(reader, args)| {
                let text = answer(env, case, *args);
                let file = format!("{}-{}.txt", file_name(&case.name), file_name(reader));
                std::fs::write(answers.join(file), &text).expect("keep an answer");
                text
            })
            .collect();
        let counts: Vec<usize> = texts.iter().map(|t| tokens::count_tokens(t)).collect();
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.0}% |",
            case.name,
            tests_run(&texts[3]),
            failing(&texts[0]),
            counts[0],
            counts[1],
            counts[2],
            counts[3],
            100.0 * counts[3] as f64 / counts[0] as f64
        );
    }
    println!("\nThe bugs:\n");
    for suite in SUITES {
        let bugs: Vec<String> = suite.bugs.iter().map(|b| b.what.to_string()).collect();
        println!("- {} {}: {}", suite.name, suite.version, bugs.join("; "));
    }
    println!();
}

/// Each suite extracted under `base` with its bugs, then the mixed project.
fn cases(env: &Env, base: &Path) -> Vec<Case> {
    let mut cases: Vec<Case> = SUITES
        .iter()
        .map(|suite| {
            let root = base.join(suite.name);
            if let Err(e) = real_suites::prepare(suite, &root) {
                panic!("{}: {e}", suite.name);
            }
            Case {
                name: format!("{} {}", suite.name, suite.version),
                env: real_suites::environment(suite, &root),
                root,
            }
        })
        .collect();
    let root = base.join("mixed");
    crate::loop_tokens::copy(&env.manifest.join("tests/projects/mixed"), &root);
    cases.push(Case {
        name: "tests/projects/mixed".into(),
        root,
        env: Vec::new(),
    });
    cases
}

/// What a reader prints for the case: pytest with `args` (independent
/// runs: no cache), or `pytest-mcp run --no-history`. Both must report
/// failures (exit status 1).
fn answer(env: &Env, case: &Case, args: Option<&str>) -> String {
    let mut c = match args {
        Some(args) => {
            let mut c = Command::new(&env.python);
            c.args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
                .args(args.split_whitespace())
                .current_dir(&case.root);
            c
        }
        None => {
            let mut c = Command::new(&env.bin);
            c.arg("run")
                .arg("--root")
                .arg(&case.root)
                .arg("--python")
                .arg(&env.python)
                .arg("--no-history");
            c
        }
    };
    for var in ["PYTEST_PLUGINS", "PYTHONPATH"] {
        c.env_remove(var);
    }
    // The project is its own rootdir, as in a checkout of it: under
    // target/, pytest (8.1 on) would take the repository's pyproject.toml
    // for the rootdir of a project with no pytest configuration of its own
    // (inflection), and every id would start with target/bench-inputs/.
    let mut rootdir = OsString::from("--rootdir=");
    rootdir.push(&case.root);
    let out = c
        .env("PYTEST_ADDOPTS", rootdir)
        .envs(case.env.iter().map(|(k, v)| (k, v)))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("start a reader");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{} ({args:?}) exited {}: {}",
        case.name,
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The tests an answer's status line says ran (`Test ... — 455 run, ...`).
fn tests_run(text: &str) -> String {
    let status = text.lines().next().unwrap_or_default();
    status
        .split_once(" — ")
        .and_then(|(_, counts)| counts.split(' ').next())
        .unwrap_or("?")
        .to_string()
}

/// The FAILED and ERROR lines of pytest -q's short summary.
fn failing(pytest_q: &str) -> usize {
    pytest_q
        .lines()
        .filter(|l| l.starts_with("FAILED ") || l.starts_with("ERROR "))
        .count()
}

/// A file-name form of a case or reader name.
fn file_name(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}
