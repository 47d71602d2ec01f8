//! Context budget (issue 15): o200k_base tokens of the answers on the two
//! projects issue 15 describes, against pytest's own output for the same
//! project, as ratios, and whether each MCP answer keeps its token budget
//! (`max_tokens`: the default 8,000, and 400).
//!
//! - `tests/projects/root_causes/`: one bug per shape breaking parametrized
//!   tests (1,000 failures of three shapes), 50 setup errors from one
//!   fixture, 100 passes and one unique failure. Answers: `pytest-mcp run`
//!   (Markdown, `--format json`, which is indented; no token budget) and
//!   `execute_tests` through `pytest-mcp serve` (Markdown, JSON, which is
//!   compact) at the default budget and at `max_tokens: 400`, against
//!   `python -m pytest -q`.
//! - `tests/projects/discover_many/`: one function with 5,000
//!   parametrizations and two plain tests. Answers: `pytest-mcp discover`
//!   and `discover_tests` (the same budgets), against
//!   `python -m pytest --collect-only -q`.
//!
//! An MCP answer's tokens are those of its text (the first content block);
//! its `structuredContent` is counted beside it. The projects are copied to
//! `target/bench-inputs/context/` first, so no `.pytest_cache` lands in the
//! repository; every answer is kept there too.

use std::path::{Path, PathBuf};
use std::process::Command;

use pytest_mcp::budget::DEFAULT_MCP_TOKENS;
use pytest_mcp::text::thousands;
use pytest_mcp_testkit::tokens;
use serde_json::{Value, json};

use crate::Env;
use crate::proc::stdout_of;
use crate::server::Client;

/// The shape `root_causes` is written to have (its pytest.ini and tests).
const ROOT_CAUSES_SUMMARY: &str = "1001 failed, 100 passed, 50 errors";
/// The tests `discover_many` collects.
const DISCOVER_MANY_TESTS: &str = "5002 tests collected";

/// The small budget issue 15 asks about besides the default.
const SMALL_BUDGET: usize = 400;

/// One answer measured: what it is and its text.
struct Answer {
    what: String,
    text: String,
    /// The token budget it was asked to keep (MCP answers).
    budget: Option<usize>,
    /// Its `structuredContent`, compact (MCP answers).
    structured: Option<String>,
    /// Whether the answer says it was shortened (`truncated`).
    shortened: bool,
}

pub fn run(env: &Env) {
    let base = env.inputs.join("context");
    let _ = std::fs::remove_dir_all(&base);
    let root_causes = copy_project(env, "root_causes", &base);
    let discover_many = copy_project(env, "discover_many", &base);

    let run_answers = run_answers(env, &root_causes);
    let discover_answers = discover_answers(env, &discover_many);

    println!("## Context budget (issue 15): answers against pytest's own output\n");
    println!(
        "o200k_base tokens; the ratio is against pytest's own output for the same project \
         (first row of each block). Common MCP clients warn at 10,000 tokens and cut at 25,000. \
         MCP answers: the text's tokens against `max_tokens` (kept: at most the budget; \
         the share of the budget used, and whether that is within 10% of it), \
         shortened when the answer says so (`truncated`); structuredContent (which carries a \
         Markdown answer) counted apart, against the same budget.\n"
    );
    println!(
        "| project | answer | characters | tokens | vs pytest | budget | kept | used | shortened | structuredContent |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
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
    let mut answers = vec![
        answer("python -m pytest -q", pytest_q),
        answer("pytest-mcp run (Markdown)", cli("markdown")),
        answer("pytest-mcp run --format json (indented)", cli("json")),
    ];
    answers.extend(tool_answers(&mut client, "execute_tests"));
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
    let mut answers = vec![
        answer("python -m pytest --collect-only -q", collect),
        answer("pytest-mcp discover (Markdown)", cli("markdown")),
        answer("pytest-mcp discover --format json (indented)", cli("json")),
    ];
    answers.extend(tool_answers(&mut client, "discover_tests"));
    stop(client);
    answers
}

fn answer(what: &str, text: String) -> Answer {
    Answer {
        what: what.to_string(),
        text,
        budget: None,
        structured: None,
        shortened: false,
    }
}

/// A tool's answers in both formats at the default budget (no
/// `max_tokens`, as a client that does not set it gets), then at
/// [`SMALL_BUDGET`]; after pytest's and the CLI's three answers, the
/// compact JSON at the default budget is a block's index 4.
fn tool_answers(client: &mut Client, tool: &str) -> Vec<Answer> {
    let mut out = Vec::new();
    for max_tokens in [None, Some(SMALL_BUDGET)] {
        for (format, label) in [("markdown", "Markdown"), ("json", "JSON (compact)")] {
            let what = match max_tokens {
                None => format!("{tool}, {label}"),
                Some(n) => format!("{tool}, {label}, max_tokens {n}"),
            };
            out.push(tool_answer(client, tool, format, max_tokens, what));
        }
    }
    out
}

/// One table block: the first answer is pytest's own, the reference.
fn print_block(project: &str, answers: &[Answer]) {
    let reference = tokens::count_tokens(&answers[0].text) as f64;
    for a in answers {
        let n = tokens::count_tokens(&a.text);
        let ratio = n as f64 / reference;
        let ratio = if ratio < 0.01 {
            format!("{ratio:.4}x")
        } else {
            format!("{ratio:.2}x")
        };
        let (budget, kept, used) = match a.budget {
            Some(b) => {
                let used = n as f64 / b as f64;
                let near = if n <= b && used >= 0.9 {
                    " (within 10%)"
                } else {
                    ""
                };
                (
                    thousands(b),
                    if n <= b { "yes" } else { "NO" }.to_string(),
                    format!("{:.1}%{near}", used * 100.0),
                )
            }
            None => ("-".into(), "-".into(), "-".into()),
        };
        let shortened = match (a.budget, a.shortened) {
            (None, _) => "-",
            (Some(_), true) => "yes",
            (Some(_), false) => "no",
        };
        // A client may show a model only the structured result (which then
        // carries the Markdown): it keeps the budget too.
        let structured = match (&a.structured, a.budget) {
            (Some(s), Some(b)) => {
                let n = tokens::count_tokens(s);
                format!(
                    "{} ({})",
                    thousands(n),
                    if n <= b { "kept" } else { "OVER" }
                )
            }
            (Some(s), None) => thousands(tokens::count_tokens(s)),
            (None, _) => "-".into(),
        };
        println!(
            "| {project} | {} | {} | {} | {ratio} | {budget} | {kept} | {used} | {shortened} | {structured} |",
            a.what,
            thousands(a.text.chars().count()),
            thousands(n),
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

/// One tool call: its first content block's text and its
/// structuredContent.
fn tool_answer(
    client: &mut Client,
    tool: &str,
    format: &str,
    max_tokens: Option<usize>,
    what: String,
) -> Answer {
    let mut arguments = json!({"format": format});
    if let Some(n) = max_tokens {
        arguments["max_tokens"] = json!(n);
    }
    let v = client.request("tools/call", json!({"name": tool, "arguments": arguments}));
    let result = &v["result"];
    assert!(
        result["isError"] != json!(true),
        "{tool} ({format}) answered with an error: {v}"
    );
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    Answer {
        what,
        budget: Some(max_tokens.unwrap_or(DEFAULT_MCP_TOKENS)),
        shortened: shortened(&text),
        structured: result.get("structuredContent").map(Value::to_string),
        text,
    }
}

/// Whether an answer says it was shortened to fit its budget: the JSON's
/// `truncated.max_tokens` (discovery's `truncated` without it only says
/// how parametrized cases were folded), the Markdown's note.
pub(crate) fn shortened(text: &str) -> bool {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => !v["truncated"]["max_tokens"].is_null(),
        Err(_) => text.contains("Shortened to fit"),
    }
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
