//! The agent's loop in tokens (issue 22): what an agent reads over one
//! task on `tests/projects/agent_loop` (three root causes in three
//! modules) — run, fix one cause, run, break something else, run, fix the
//! rest, run, edit one module, run, break it, run — from `pytest-mcp run`
//! (the Markdown `execute_tests` answers, with what changed since the last
//! run), from `pytest-mcp run --affected` (only the tests the edit touches,
//! through pytest-testmon), and from `python -m pytest -q` (the whole
//! suite each time), each in its own copy of the project with the same
//! edits. o200k_base tokens of standard output; the counts do not depend
//! on the machine, so one pass is enough.

use std::path::Path;
use std::process::Command;

use pytest_mcp_testkit::tokens;

use crate::Env;
use crate::proc::stdout_of;

/// One step of the loop: what the agent edits, then it runs the tests.
struct Step {
    what: &'static str,
    /// (file, text, replacement)
    edits: &'static [(&'static str, &'static str, &'static str)],
}

const STEPS: &[Step] = &[
    Step {
        what: "first run: 3 root causes",
        edits: &[],
    },
    Step {
        what: "cart fixed",
        edits: &[("shop/cart.py", "return amount + 1", "return amount")],
    },
    Step {
        what: "users broken",
        edits: &[(
            "shop/users.py",
            "(first[:1] + last[:1]).upper()",
            "(first[:1] + last[:1])",
        )],
    },
    Step {
        what: "the rest fixed",
        edits: &[
            (
                "shop/users.py",
                "(first[:1] + last[:1])",
                "(first[:1] + last[:1]).upper()",
            ),
            (
                "shop/stock.py",
                "return STOCK[name]",
                "return STOCK.get(name, 0)",
            ),
            (
                "shop/prices.py",
                "raise RuntimeError(\"rates file missing: rates.csv\")",
                "return {\"USD\": 1.1, \"GBP\": 0.85}",
            ),
        ],
    },
    Step {
        what: "stock edited",
        edits: &[("shop/stock.py", "\"pear\": 0}", "\"pear\": 0, \"plum\": 0}")],
    },
    Step {
        what: "stock broken",
        edits: &[("shop/stock.py", "STOCK.get(name, 0)", "STOCK.get(name)")],
    },
];

/// The three readers of the loop, each with its own copy of the project.
const READERS: [&str; 3] = ["pytest -q", "pytest-mcp run", "pytest-mcp run --affected"];

pub fn run(env: &Env) {
    let source = env.manifest.join("tests/projects/agent_loop");
    let base = env.inputs.join("loop");
    let _ = std::fs::remove_dir_all(&base);
    let dirs: Vec<_> = (0..READERS.len())
        .map(|i| base.join(format!("r{i}")))
        .collect();
    for dir in &dirs {
        copy(&source, dir);
    }
    println!("## The agent's loop in tokens (issue 22, tiktoken o200k_base)\n");
    println!(
        "| step | pytest -q | pytest-mcp run | run / pytest -q | pytest-mcp run --affected | affected / pytest -q |"
    );
    println!("|---|---|---|---|---|---|");
    let mut totals = [0usize; 3];
    // Tests run, from the status line (`— N run`) of pytest-mcp's answers;
    // pytest -q runs the whole suite, as `run` does.
    let mut ran = [0usize; 2];
    let mut first_lines = Vec::new();
    for step in STEPS {
        let mut counts = [0usize; 3];
        for (i, dir) in dirs.iter().enumerate() {
            for (file, from, to) in step.edits {
                edit(&dir.join(file), from, to);
            }
            let text = answer(env, dir, i);
            counts[i] = tokens::count_tokens(&text);
            if i > 0 {
                ran[i - 1] += tests_run(&text);
            }
            if i == 2 {
                first_lines.push((step.what, head(&text)));
            }
        }
        for (t, c) in totals.iter_mut().zip(counts) {
            *t += c;
        }
        let [q, run, affected] = counts;
        println!(
            "| {} | {q} | {run} | {:.0}% | {affected} | {:.0}% |",
            step.what,
            100.0 * run as f64 / q as f64,
            100.0 * affected as f64 / q as f64
        );
    }
    let [q, run, affected] = totals;
    println!(
        "| **the whole loop** | **{q}** | **{run}** | **{:.0}%** | **{affected}** | **{:.0}%** |\n",
        100.0 * run as f64 / q as f64,
        100.0 * affected as f64 / q as f64
    );
    println!(
        "Tests run over the loop: {} by pytest -q and pytest-mcp run, {} by pytest-mcp run --affected ({:.0}%).\n",
        ran[0],
        ran[1],
        100.0 * ran[1] as f64 / ran[0] as f64
    );
    println!("What `pytest-mcp run --affected` said first at each step:\n");
    println!("```text");
    for (what, lines) in first_lines {
        println!("[{what}]\n{lines}");
    }
    println!("```\n");
}

/// What reader `i` prints for the project in `dir`.
fn answer(env: &Env, dir: &Path, i: usize) -> String {
    if i == 0 {
        return stdout_of(
            Command::new(&env.python)
                .args(["-m", "pytest", "-q"])
                .current_dir(dir),
        );
    }
    let mut c = Command::new(&env.bin);
    c.arg("run")
        .arg("--root")
        .arg(dir)
        .arg("--python")
        .arg(&env.python);
    if i == 2 {
        c.arg("--affected");
    }
    stdout_of(&mut c)
}

/// The tests an answer's status line says ran (`Test ... — 14 run, ...`).
fn tests_run(text: &str) -> usize {
    let status = text.lines().next().unwrap_or_default();
    status
        .split_once(" — ")
        .and_then(|(_, counts)| counts.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// The status line and the lines before the first section.
fn head(text: &str) -> String {
    text.lines()
        .take_while(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).expect("read a project file");
    assert!(text.contains(from), "{} has no {from:?}", path.display());
    std::fs::write(path, text.replace(from, to)).expect("write a project file");
}

/// Copies the project, leaving out caches (the `suites` section's mixed
/// project too).
pub fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let name = entry.file_name();
        if [".pytest_cache", "__pycache__", ".testmondata"]
            .iter()
            .any(|n| name == *n)
        {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().expect("file type").is_dir() {
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}
