//! `run`'s own cost (issue 13): `pytest-mcp run` against pytest itself
//! writing both sources pytest-mcp reads, on the 5,000-test suite of the
//! overhead section, at default settings and at `--verbosity -1`, in one
//! interleaved run. The baseline is pytest with pytest-json-report's and
//! JUnit XML's plain options and pytest's default verbosity:
//!
//! ```text
//! python -m pytest --junitxml=X -o junit_family=xunit1 --json-report --json-report-file=Y
//! ```
//!
//! Ratios are medians of per-round ratios against the baseline of the same
//! round; CPU time (user + sys of the process and everything it reaped) is
//! the figure to read on a shared machine, wall time is shown beside it.

use std::path::Path;
use std::process::Command;

use pytest_mcp::runner::command::Workspace;

use crate::overhead::{Variant, sample, suite, verdict};
use crate::proc::{Sample, median};
use crate::{Env, secs};

/// `run` at default settings must stay within this factor of the baseline.
pub const TARGET: f64 = 1.05;

fn pytest_both(python: &Path, dir: &Path, ws: &Workspace, extra: &[&str]) -> Command {
    let mut c = Command::new(python);
    c.args(["-m", "pytest"])
        .arg(format!("--junitxml={}", ws.junit().display()))
        .args(["-o", "junit_family=xunit1", "--json-report"])
        .arg(format!("--json-report-file={}", ws.json_report().display()))
        .args(extra)
        .current_dir(dir);
    c
}

fn pytest_mcp_run(bin: &Path, python: &Path, dir: &Path, extra: &[&str]) -> Command {
    let mut c = Command::new(bin);
    c.arg("run")
        .arg("--root")
        .arg(dir)
        .arg("--python")
        .arg(python)
        .args(extra);
    c
}

pub fn run(env: &Env) {
    let dir = suite(env);
    let mut variants: Vec<Variant> = Vec::new();
    let (py, d) = (env.python.clone(), dir.clone());
    variants.push(Variant {
        name: "python -m pytest + both sources (baseline)",
        build: Box::new(move |ws| pytest_both(&py, &d, ws, &[])),
        status: 1,
    });
    let (py, d) = (env.python.clone(), dir.clone());
    variants.push(Variant {
        name: "python -m pytest -q + both sources",
        build: Box::new(move |ws| pytest_both(&py, &d, ws, &["-q"])),
        status: 1,
    });
    for (name, extra) in [
        ("pytest-mcp run (defaults)", &[][..]),
        ("pytest-mcp run --verbosity -1", &["--verbosity", "-1"][..]),
    ] {
        let (bin, py, d) = (env.bin.clone(), env.python.clone(), dir.clone());
        variants.push(Variant {
            name,
            build: Box::new(move |_| pytest_mcp_run(&bin, &py, &d, extra)),
            status: 1,
        });
    }

    println!(
        "## 1b. run's own cost: {} tests, {} rounds, commands alternated\n",
        crate::overhead::FILES * crate::overhead::PER_FILE,
        env.rounds
    );
    let samples = sample(&variants, env.rounds);
    println!("| command | wall (median) | CPU (median) | wall vs baseline | CPU vs baseline |");
    println!("|---|---|---|---|---|");
    let ratio = |s: &[Sample], f: fn(&Sample) -> f64| {
        median(
            &s.iter()
                .zip(&samples[0])
                .map(|(a, b)| f(a) / f(b))
                .collect::<Vec<_>>(),
        )
    };
    for (v, s) in variants.iter().zip(&samples) {
        println!(
            "| {} | {} | {} | {:.3}x | {:.3}x |",
            v.name,
            secs(median(&s.iter().map(|x| x.wall).collect::<Vec<_>>())),
            secs(median(&s.iter().map(|x| x.cpu).collect::<Vec<_>>())),
            ratio(s, |x| x.wall),
            ratio(s, |x| x.cpu),
        );
    }
    let cpu = ratio(&samples[2], |x| x.cpu);
    let quiet = ratio(&samples[3], |x| x.cpu);
    println!(
        "\nTarget: pytest-mcp run (defaults) ≤ {TARGET}x pytest + both sources (CPU, median of per-round ratios): {cpu:.3}x {}; at --verbosity -1: {quiet:.3}x\n",
        verdict(cpu <= TARGET)
    );
}
