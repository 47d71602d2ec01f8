//! Context budget (issue 15): o200k_base tokens of today's answers on the
//! two projects issue 15 describes, against pytest's own output for the
//! same project, as ratios. Nothing here is a target yet; the figures are
//! the "before" of issue 15.
//!
//! - `tests/projects/root_causes/`: one bug per shape breaking parametrized
//!   tests (1,000 failures of three shapes), 50 setup errors from one
//!   fixture, 100 passes and one unique failure. Answers: `pytest-mcp run`
//!   (Markdown, `--format json`, which is indented) and `execute_tests`
//!   through `pytest-mcp serve` (Markdown, JSON, which is compact), against
//!   `python -m pytest -q`.
//! - `tests/projects/discover_many/`: one function with 5,000
//!   parametrizations and two plain tests. Answers: `pytest-mcp discover`
//!   and `discover_tests`, against `python -m pytest --collect-only -q`.
//!
//! The projects are copied to `target/bench-inputs/context/` first, so no
//! `.pytest_cache` lands in the repository; every answer is kept there too.

use std::path::{Path, PathBuf};
use std::process::Command;

use pytest_mcp::text::thousands;
use serde_json::{Value, json};

use crate::Env;
use crate::server::Client;
use crate::token_cost::{stdout_of, tokens};

/// The shape `root_causes` is written to have (its pytest.ini and tests).
const ROOT_CAUSES_SUMMARY: &str = "1001 failed, 100 passed, 50 errors";
/// The tests `discover_many` collects.
const DISCOVER_MANY_TESTS: &str = "5002 tests collected";

/// One answer measured: what it is and its text.
struct Answer {
    what: String,
    text: String,
}

pub fn run(env: &Env) {
    let base = env.inputs.join("context");
    let _ = std::fs::remove_dir_all(&base);
    let root_causes = copy_project(env, "root_causes", &base);
    let discover_many = copy_project(env, "discover_many", &base);

    let run_answers = run_answers(env, &root_causes);
    let discover_answers = discover_answers(env, &discover_many);

    println!("## Context budget (issue 15): today's answers against pytest's own output\n");
    println!(
        "o200k_base tokens; the ratio is against pytest's own output for the same project \
         (first row of each block). Common MCP clients warn at 10,000 tokens and cut at 25,000.\n"
    );
    println!("| project | answer | characters | tokens | vs pytest |");
    println!("|---|---|---|---|---|");
    print_block("root_causes (1,151 tests)", &run_answers);
    print_block("discover_many (5,002 tests)", &discover_answers);
    println!();
    println!("{}", json_breakdown("root_causes", &run_answers[4].text));
    println!(
        "{}",
        json_breakdown("discover_many", &discover_answers[4].text)
    );
    println!(
        "\n(every answer is kept in {}/answers/)\n",
        base.strip_prefix(&env.manifest).unwrap_or(&base).display()
    );
    for (project, answers) in [
        ("root_causes", &run_answers),
        ("discover_many", &discover_answers),
    ] {
        let out = base.join("answers").join(project);
        std::fs::create_dir_all(&out).expect("create the answers directory");
        for a in answers.iter() {
            std::fs::write(out.join(file_name(&a.what)), &a.text).expect("write an answer");
        }
    }
}

/// pytest -q, then `run` and `execute_tests` in both formats.
fn run_answers(env: &Env, root: &Path) -> Vec<Answer> {
    let pytest_q = stdout_of(pytest(env, root).arg("-q"));
    assert!(
        pytest_q.contains(ROOT_CAUSES_SUMMARY),
        "root_causes no longer has its shape ({ROOT_CAUSES_SUMMARY}): {}",
        pytest_q.lines().last().unwrap_or_default()
    );
    let cli = |format: &str| stdout_of(pytest_mcp(env, root, "run").args(["--format", format]));
    let mut client = Client::start(env, root);
    let mut mcp = |format: &str| tool_text(&mut client, "execute_tests", format);
    let answers = vec![
        answer("python -m pytest -q", pytest_q),
        answer("pytest-mcp run (Markdown)", cli("markdown")),
        answer("pytest-mcp run --format json (indented)", cli("json")),
        answer("execute_tests, Markdown", mcp("markdown")),
        answer("execute_tests, JSON (compact)", mcp("json")),
    ];
    stop(client);
    answers
}

/// pytest --collect-only -q, then `discover` and `discover_tests` in both
/// formats.
fn discover_answers(env: &Env, root: &Path) -> Vec<Answer> {
    let collect = stdout_of(pytest(env, root).args(["--collect-only", "-q"]));
    assert!(
        collect.contains(DISCOVER_MANY_TESTS),
        "discover_many no longer collects {DISCOVER_MANY_TESTS}: {}",
        collect.lines().last().unwrap_or_default()
    );
    let cli =
        |format: &str| stdout_of(pytest_mcp(env, root, "discover").args(["--format", format]));
    let mut client = Client::start(env, root);
    let mut mcp = |format: &str| tool_text(&mut client, "discover_tests", format);
    let answers = vec![
        answer("python -m pytest --collect-only -q", collect),
        answer("pytest-mcp discover (Markdown)", cli("markdown")),
        answer("pytest-mcp discover --format json (indented)", cli("json")),
        answer("discover_tests, Markdown", mcp("markdown")),
        answer("discover_tests, JSON (compact)", mcp("json")),
    ];
    stop(client);
    answers
}

fn answer(what: &str, text: String) -> Answer {
    Answer {
        what: what.to_string(),
        text,
    }
}

/// One table block: the first answer is pytest's own, the reference.
fn print_block(project: &str, answers: &[Answer]) {
    let reference = tokens::count_tokens(&answers[0].text) as f64;
    for a in answers {
        let n = tokens::count_tokens(&a.text);
        println!(
            "| {project} | {} | {} | {} | {:.2}x |",
            a.what,
            thousands(a.text.chars().count()),
            thousands(n),
            n as f64 / reference
        );
    }
}

/// Where a compact JSON answer's tokens go: each top-level key's value.
fn json_breakdown(project: &str, text: &str) -> String {
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text) else {
        return format!("{project}: the JSON answer is not a JSON object");
    };
    let total = tokens::count_tokens(text.trim_end()).max(1);
    let mut parts: Vec<(String, usize)> = map
        .iter()
        .map(|(k, v)| (k.clone(), tokens::count_tokens(&v.to_string())))
        .collect();
    parts.sort_by_key(|p| std::cmp::Reverse(p.1));
    let shown: Vec<String> = parts
        .iter()
        .take(6)
        .map(|(k, n)| {
            format!(
                "`{k}` {} ({:.0}%)",
                thousands(*n),
                *n as f64 * 100.0 / total as f64
            )
        })
        .collect();
    format!(
        "- {project}, compact JSON by top-level key: {}",
        shown.join(", ")
    )
}

/// The text of one tool call's first content block.
fn tool_text(client: &mut Client, tool: &str, format: &str) -> String {
    let v = client.request(
        "tools/call",
        json!({"name": tool, "arguments": {"format": format}}),
    );
    assert!(
        v["result"]["isError"] != json!(true),
        "{tool} ({format}) answered with an error: {v}"
    );
    v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn stop(client: Client) {
    let Client {
        mut child, stdin, ..
    } = client;
    drop(stdin);
    let _ = child.wait();
}

/// `python -m pytest` in `root`, without the cache (the copy stays clean)
/// and at pytest's default width.
fn pytest(env: &Env, root: &Path) -> Command {
    let mut c = Command::new(&env.python);
    c.args(["-m", "pytest", "-p", "no:cacheprovider"])
        .current_dir(root)
        .env("COLUMNS", "80");
    c
}

fn pytest_mcp(env: &Env, root: &Path, command: &str) -> Command {
    let mut c = Command::new(&env.bin);
    c.arg(command)
        .arg("--root")
        .arg(root)
        .arg("--python")
        .arg(&env.python);
    c
}

/// A fresh copy of `tests/projects/<name>` under `base`.
fn copy_project(env: &Env, name: &str, base: &Path) -> PathBuf {
    let to = base.join(name);
    copy_tree(&env.manifest.join("tests/projects").join(name), &to);
    to
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create a project copy");
    for entry in std::fs::read_dir(from).expect("read a test project") {
        let entry = entry.expect("a directory entry");
        let name = entry.file_name();
        if name == "__pycache__" || name == ".pytest_cache" {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            copy_tree(&path, &to.join(&name));
        } else {
            std::fs::copy(&path, to.join(&name)).expect("copy a project file");
        }
    }
}

/// An answer's description as a file name.
fn file_name(what: &str) -> String {
    let stem: String = what
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let stem = stem
        .split('-')
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let ext = if what.contains("JSON") || what.contains("json") {
        "json"
    } else if what.contains("Markdown") {
        "md"
    } else {
        "txt"
    };
    format!("{stem}.{ext}")
}
