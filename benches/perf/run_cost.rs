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
use std::process::{Command, Stdio};

use pytest_mcp::runner::command::Workspace;

use crate::overhead::{suite, verdict};
use crate::proc::{Sample, median, timed};
use crate::{Env, order, secs};

/// `run` at default settings must stay within this factor of the baseline.
pub const TARGET: f64 = 1.05;

struct Variant {
    name: &'static str,
    build: Box<dyn Fn(&Workspace) -> Command>,
}

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
    });
    let (py, d) = (env.python.clone(), dir.clone());
    variants.push(Variant {
        name: "python -m pytest -q + both sources",
        build: Box::new(move |ws| pytest_both(&py, &d, ws, &["-q"])),
    });
    for (name, extra) in [
        ("pytest-mcp run (defaults)", &[][..]),
        ("pytest-mcp run --verbosity -1", &["--verbosity", "-1"][..]),
    ] {
        let (bin, py, d) = (env.bin.clone(), env.python.clone(), dir.clone());
        variants.push(Variant {
            name,
            build: Box::new(move |_| pytest_mcp_run(&bin, &py, &d, extra)),
        });
    }

    println!(
        "## 1b. run's own cost: {} tests, {} rounds, commands alternated\n",
        crate::overhead::FILES * crate::overhead::PER_FILE,
        env.rounds
    );
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); variants.len()];
    for round in 0..env.rounds {
        for i in order(variants.len(), round) {
            let v = &variants[i];
            let ws = Workspace::new().expect("temp dir");
            let mut c = (v.build)(&ws);
            c.stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            let s = timed(&mut c);
            assert_eq!(s.status, 1, "{} exited {}", v.name, s.status);
            samples[i].push(s);
            eprint!(".");
        }
    }
    eprintln!();
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
