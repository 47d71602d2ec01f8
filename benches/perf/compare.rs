//! Report cost against an earlier build (issue 15: "the 100k-case report
//! benchmark does not get slower by more than 10%"): `pytest-mcp report`
//! on the report section's 100,000-case JUnit XML and its JSON twin, by
//! this build and by `--baseline BIN` (a `pytest-mcp` built from an
//! earlier commit), both formats, alternated round by round; then this
//! build with `--max-tokens 8000` on the XML (no baseline: the option is
//! new). Figures: median wall and CPU time, the median of the per-round
//! ratios now / before, and, when valgrind is installed, instructions
//! (callgrind, one run each, all but the JSON twin's `--format json`),
//! which the shared machine cannot
//! disturb.
//!
//! ```text
//! git worktree add /tmp/before <commit> && (cd /tmp/before && cargo build --release)
//! cargo bench --bench perf -- --only compare --baseline /tmp/before/target/release/pytest-mcp
//! ```

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::proc::{Sample, median};
use crate::throughput::{CASES, generate, mb};
use crate::{Env, alternated, secs};

/// One command timed: which build, which file, which arguments.
struct Cmd {
    name: String,
    bin: PathBuf,
    args: Vec<String>,
    file: PathBuf,
    /// Also counted under callgrind.
    instructions: bool,
}

impl Cmd {
    fn command(&self) -> Command {
        let mut c = Command::new(&self.bin);
        c.arg("report").arg(&self.file).args(&self.args);
        c
    }
}

pub fn run(env: &Env) {
    let Some(baseline) = &env.baseline else {
        println!("## Report cost against a baseline: skipped (no --baseline BIN)\n");
        return;
    };
    let (xml, json) = generate(env);
    let cmds = commands(env, baseline, &xml, &json);
    let out = env.inputs.join("report/compare-out");
    let rounds = env.rounds.max(5);
    let (samples, outputs) = alternated(
        cmds.len(),
        rounds,
        &out,
        |i| cmds[i].name.clone(),
        |i| cmds[i].command(),
        Stdio::null,
    );
    let counts: Vec<Option<u64>> = cmds
        .iter()
        .map(|c| c.instructions.then(|| callgrind(c)).flatten())
        .collect();
    print_table(
        env, baseline, &cmds, &samples, &outputs, &counts, rounds, &xml, &json,
    );
}

/// Before and now for each file and format, then now with `--max-tokens
/// 8000` on the XML. A before is always followed by its now.
fn commands(env: &Env, baseline: &Path, xml: &Path, json: &Path) -> Vec<Cmd> {
    let mut cmds = Vec::new();
    for (file, label) in [(xml, "JUnit XML"), (json, "JSON report")] {
        for format in ["markdown", "json"] {
            for (bin, who) in [(baseline, "before"), (env.bin.as_path(), "now")] {
                cmds.push(Cmd {
                    name: format!("{who}: report {label} --format {format}"),
                    bin: bin.to_path_buf(),
                    args: vec!["--format".into(), format.into()],
                    file: file.to_path_buf(),
                    // Not the JSON twin's JSON: a minute under callgrind.
                    instructions: file == xml || format == "markdown",
                });
            }
        }
    }
    for format in ["markdown", "json"] {
        cmds.push(Cmd {
            name: format!("now: report JUnit XML --format {format} --max-tokens 8000"),
            bin: env.bin.clone(),
            args: vec![
                "--format".into(),
                format.into(),
                "--max-tokens".into(),
                "8000".into(),
            ],
            file: xml.to_path_buf(),
            instructions: true,
        });
    }
    cmds
}

#[allow(clippy::too_many_arguments)]
fn print_table(
    env: &Env,
    baseline: &Path,
    cmds: &[Cmd],
    samples: &[Vec<Sample>],
    outputs: &[u64],
    counts: &[Option<u64>],
    rounds: usize,
    xml: &Path,
    json: &Path,
) {
    let size = |p: &Path| mb(std::fs::metadata(p).map_or(0, |m| m.len()));
    println!(
        "## Report cost against a baseline: {CASES} test cases; JUnit XML {:.1} MB, JSON report {:.1} MB; {rounds} rounds\n",
        size(xml),
        size(json)
    );
    println!("- before: {}", baseline.display());
    println!("- now: {}\n", env.bin.display());
    println!(
        "| command | wall (median) | CPU (median) | output | instructions | wall now / before | CPU now / before | instructions now / before |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let med =
        |i: usize, f: fn(&Sample) -> f64| median(&samples[i].iter().map(f).collect::<Vec<_>>());
    // Per-round ratio against the command this one is compared with: a
    // `now` row against the `before` row just above it, a --max-tokens
    // row against `now` without it (same format).
    let reference = |i: usize| -> Option<usize> {
        let c = &cmds[i];
        if c.name.starts_with("before") {
            None
        } else if c.args.len() > 2 {
            let format = &c.args[1];
            cmds.iter()
                .position(|o| o.name == format!("now: report JUnit XML --format {format}"))
        } else {
            Some(i - 1)
        }
    };
    for (i, c) in cmds.iter().enumerate() {
        let ratio = |f: fn(&Sample) -> f64| {
            reference(i).map_or("-".to_string(), |r| {
                format!("{:.3}x", per_round(&samples[i], &samples[r], f))
            })
        };
        let instr = counts[i].map_or("-".to_string(), |n| format!("{:.3} G", n as f64 / 1e9));
        let instr_ratio = match (reference(i).and_then(|r| counts[r]), counts[i]) {
            (Some(b), Some(n)) => format!("{:.3}x", n as f64 / b as f64),
            _ => "-".to_string(),
        };
        println!(
            "| {} | {} | {} | {:.1} KB | {instr} | {} | {} | {instr_ratio} |",
            c.name,
            secs(med(i, |s| s.wall)),
            secs(med(i, |s| s.cpu)),
            outputs[i] as f64 / 1024.0,
            ratio(|s| s.wall),
            ratio(|s| s.cpu),
        );
    }
    println!(
        "\n(ratios: the median of per-round ratios; --max-tokens rows against `now` without it; instructions: callgrind, one run each, not the JSON twin's --format json)\n"
    );
    if let Some(i) = cmds
        .iter()
        .position(|c| c.name == "now: report JUnit XML --format markdown")
        .filter(|&i| i > 0)
    {
        let r = per_round(&samples[i], &samples[i - 1], |s| s.wall);
        println!(
            "Target (issue 24, against the c713ba2 build as --baseline): JUnit XML markdown wall now / before ≤ 1: {r:.3}x {}\n",
            crate::overhead::verdict(r <= 1.0)
        );
    }
}

/// The median over rounds of `f(now) / f(before)`.
fn per_round(now: &[Sample], before: &[Sample], f: fn(&Sample) -> f64) -> f64 {
    let ratios: Vec<f64> = now.iter().zip(before).map(|(a, b)| f(a) / f(b)).collect();
    median(&ratios)
}

/// Instructions of one run under callgrind (`Collected :` on valgrind's
/// stderr); None without valgrind.
fn callgrind(c: &Cmd) -> Option<u64> {
    let output = Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(&c.bin)
        .arg("report")
        .arg(&c.file)
        .args(&c.args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .ok()?;
    eprint!("i");
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .find_map(|l| l.split("Collected :").nth(1))
        .and_then(|n| n.trim().parse().ok())
}
