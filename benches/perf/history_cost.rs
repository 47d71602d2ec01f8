//! The history of runs (issue 32): what recording each run costs
//! `pytest-mcp run` on the 5,000-test suite (target: under 5%), what it
//! costs on its own, and how large the store grows (`history_store`).
//!
//! - `run` with the history (the default) against `run --no-history`,
//!   alternated, medians of per-round ratios.
//! - `report` of that suite's result files with and without `--history`,
//!   which isolates the recording from pytest's own run-time noise; `report
//!   --fail-on new` reads the same whole run without recording it, so the
//!   difference to it is the history alone.
//! - The history's steps timed in this process: reading the code identity
//!   (in git and outside it) and `history::remember` (the window of earlier
//!   runs, the judgement, the write).
//!
//! The project is the overhead section's suite in a git repository of its
//! own, as a user's is, so that the code identity runs git there and not in
//! pytest-mcp's work tree. Every timed run records into a store that
//! already holds 50 runs: each adds one and lets the oldest go, as in
//! steady use.

use std::fs;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use pytest_mcp::history::{self, Code, Keeping, Origin};
use pytest_mcp::sources::junit;
use pytest_mcp_testkit::inputs;

use crate::history_store::{self, Results};
use crate::overhead::{FILES, PER_FILE, Variant, failing, sample, verdict};
use crate::proc::{Sample, median};
use crate::{Env, secs};

/// Recording must add less than this factor to `run`.
pub const TARGET: f64 = 1.05;

pub fn run(env: &Env) {
    let work = env.inputs.join("history");
    let _ = fs::remove_dir_all(&work);
    fs::create_dir_all(&work).expect("create target/bench-inputs/history");
    let project = project(&work.join("project"));
    let results = history_store::results(env, &project, &work);
    println!(
        "## 1c. The history of runs: {} tests ({FILES} files × {PER_FILE}, 5 failing), {} rounds, commands alternated\n",
        FILES * PER_FILE,
        env.rounds
    );
    let filled = history_store::sizes(env, &results, &work);
    let store = history::default_path(&project);
    fs::create_dir_all(store.parent().expect("a folder")).expect("create the store's folder");
    fs::copy(&filled, &store).expect("copy the filled store");
    let run_wall = run_table(env, &project);
    let kept = history_store::size(&store);
    println!(
        "The store after the timed runs: {} runs, {} tests, {} bytes.\n",
        kept.runs,
        history_store::thousands(kept.tests as u64),
        history_store::thousands(kept.bytes)
    );
    let copy = work.join("report-timed.sqlite");
    fs::copy(&filled, &copy).expect("copy the filled store");
    let recording = report_table(env, &results, &copy, run_wall);
    let identity = steps_table(env, &project, &results, &filled, &work);
    println!(
        "Estimated from the isolated costs, free of pytest's run-to-run noise: recording {} + the code identity in git {} on top of `run --no-history`'s {}: **{:.3}x** (target < {TARGET}x).\n",
        secs(recording),
        secs(identity),
        secs(run_wall),
        (run_wall + recording + identity) / run_wall
    );
}

/// The suite, committed in a git repository of its own.
fn project(dir: &Path) -> PathBuf {
    inputs::pytest_project(dir, FILES, PER_FILE, &failing);
    fs::write(dir.join(".gitignore"), "__pycache__/\n").expect("write .gitignore");
    for args in [
        &["init", "-q"][..],
        &["add", "-A"],
        &["commit", "-q", "-m", "the 5,000-test suite"],
    ] {
        let status = Command::new("git")
            .args(["-c", "user.name=bench", "-c", "user.email=bench@localhost"])
            .args([
                "-c",
                "commit.gpgsign=false",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("run git");
        assert!(status.success(), "git {args:?} in {}", dir.display());
    }
    dir.to_path_buf()
}

/// `run` with and without the history. The median wall time of
/// `run --no-history`.
fn run_table(env: &Env, project: &Path) -> f64 {
    let variant = |name: &'static str, extra: &'static [&'static str]| {
        let (bin, py, d) = (env.bin.clone(), env.python.clone(), project.to_path_buf());
        Variant {
            name,
            build: Box::new(move |_| {
                let mut c = Command::new(&bin);
                c.arg("run")
                    .arg("--root")
                    .arg(&d)
                    .arg("--python")
                    .arg(&py)
                    .args(extra);
                c
            }),
            status: 1,
        }
    };
    let variants = [
        variant("pytest-mcp run --no-history (baseline)", &["--no-history"]),
        variant("pytest-mcp run (history on: the default)", &[]),
        variant(
            "pytest-mcp run --no-history (again: the noise)",
            &["--no-history"],
        ),
    ];
    println!(
        "### run with the history against --no-history\n\nThe store holds {} runs before each timed run (default path, in the project's .pytest_cache); the code identity runs git in the project's repository. The last row is the baseline's command again: how far two identical commands differ here.\n",
        history_store::KEEP
    );
    let samples = sample(&variants, env.rounds);
    let names: Vec<&str> = variants.iter().map(|v| v.name).collect();
    print_rows(&names, &samples, &samples[0]);
    let wall = ratio(&samples[1], &samples[0], |s| s.wall);
    let cpu = ratio(&samples[1], &samples[0], |s| s.cpu);
    let each = |f: fn(&Sample) -> f64| {
        let ratios: Vec<String> = samples[1]
            .iter()
            .zip(&samples[0])
            .map(|(a, b)| format!("{:.3}", f(a) / f(b)))
            .collect();
        ratios.join(", ")
    };
    println!(
        "\nPer-round ratios, history on / --no-history: wall {}; CPU {}.",
        each(|s| s.wall),
        each(|s| s.cpu)
    );
    println!(
        "\nTarget: run with the history < {TARGET}x run --no-history (median of per-round ratios): wall {wall:.3}x {}, CPU {cpu:.3}x {}\n",
        verdict(wall < TARGET),
        verdict(cpu < TARGET)
    );
    median(&samples[0].iter().map(|s| s.wall).collect::<Vec<_>>())
}

/// `report` of the result files with and without `--history`. What
/// recording costs (wall; the JUnit XML's rounds).
fn report_table(env: &Env, results: &Results, store: &Path, run_wall: f64) -> f64 {
    let rounds = env.rounds * 3;
    println!(
        "### The history's own cost: report of the suite's result files\n\n{rounds} rounds; the `--history` store holds {} runs. `--fail-on new` reads the whole run as `--history` does (exit status 1: the 5 failures are new), without recording it.\n",
        history_store::KEEP
    );
    let mut cost = None;
    let files = [
        (
            &results.junit,
            [
                "report JUnit XML",
                "report JUnit XML --fail-on new",
                "report JUnit XML --history",
            ],
        ),
        (
            &results.json,
            [
                "report JSON report",
                "report JSON report --fail-on new",
                "report JSON report --history",
            ],
        ),
    ];
    for (file, [plain, whole, recorded]) in files {
        let variant = |name: &'static str, extra: Vec<String>, status: i32| {
            let (bin, f) = (env.bin.clone(), file.clone());
            Variant {
                name,
                build: Box::new(move |_| {
                    let mut c = Command::new(&bin);
                    c.arg("report").arg(&f).args(&extra);
                    c
                }),
                status,
            }
        };
        let history = vec![
            "--history".to_string(),
            store.display().to_string(),
            "--commit".into(),
            history_store::commit_of(1000),
        ];
        let variants = [
            variant(plain, Vec::new(), 0),
            variant(whole, vec!["--fail-on".into(), "new".into()], 1),
            variant(recorded, history, 0),
        ];
        let samples = sample(&variants, rounds);
        let names: Vec<&str> = variants.iter().map(|v| v.name).collect();
        print_rows(&names, &samples, &samples[0]);
        println!();
        let own = |f: fn(&Sample) -> f64| difference(&samples[2], &samples[1], f);
        cost.get_or_insert((own(|s| s.wall), own(|s| s.cpu)));
    }
    let (wall, cpu) = cost.expect("the JUnit XML's rounds");
    println!(
        "Recording one run of 5,000 tests (JUnit XML: `--history` less `--fail-on new`, median of per-round differences): {} wall, {} CPU; {:.2}% of `run --no-history`'s median wall time ({}).\n",
        secs(wall),
        secs(cpu),
        wall / run_wall * 100.0,
        secs(run_wall)
    );
    wall
}

/// The history's steps in this process. The code identity's time in git.
fn steps_table(env: &Env, project: &Path, results: &Results, filled: &Path, work: &Path) -> f64 {
    let rounds = env.rounds * 3;
    let data = fs::read(&results.junit).expect("read the JUnit XML");
    let parsed = junit::parse(&data, "junit.xml").expect("the suite's JUnit XML");
    let store = work.join("steps.sqlite");
    fs::copy(filled, &store).expect("copy the filled store");
    let outside =
        std::env::temp_dir().join(format!("pytest-mcp-bench-history-{}", std::process::id()));
    let _ = fs::remove_dir_all(&outside);
    inputs::pytest_project(&outside, FILES, PER_FILE, &failing);
    let in_git = |dir: &Path| {
        Command::new("git")
            .args(["rev-parse", "--git-dir"])
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let outside_note = if in_git(&outside) {
        " (WARNING: the temporary folder is inside a git work tree)"
    } else {
        ""
    };
    let keeping = Keeping {
        path: store.clone(),
        runs: history_store::KEEP,
        rules: Default::default(),
    };
    let mut k = 2000;
    let steps: Vec<(String, f64)> = vec![
        (
            "read the JUnit XML (for scale)".into(),
            time(rounds, || junit::parse(&data, "junit.xml").map(|r| r.tests.len())),
        ),
        (
            "code identity in git (`history::identify`: git rev-parse --show-toplevel HEAD, diff HEAD, ls-files --others)".into(),
            time(rounds, || history::identify(project, &keeping.path)),
        ),
        (
            format!("code identity outside git (a hash of 52 .py files and pytest.ini){outside_note}"),
            time(rounds, || history::identify(&outside, &keeping.path)),
        ),
        (
            format!("`history::remember`: open, window of {} runs, judge, record 5,000 marks, prune", history_store::KEEP - 1),
            time(rounds, || {
                let mut run = parsed.clone();
                k += 1;
                let code = Code::commit(&history_store::commit_of(k));
                history::remember(&mut run, &keeping, &code, Origin::Report).expect("recorded")
            }),
        ),
    ];
    let _ = fs::remove_dir_all(&outside);
    println!("### The history's steps, timed in-process ({rounds} rounds, medians)\n");
    println!("| step | wall (median) |");
    println!("|---|---|");
    for (name, t) in &steps {
        println!("| {name} | {} |", secs(*t));
    }
    println!();
    steps[1].1
}

/// The median wall time of `f` over `rounds` calls.
fn time<T>(rounds: usize, mut f: impl FnMut() -> T) -> f64 {
    let mut walls = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let started = Instant::now();
        black_box(f());
        walls.push(started.elapsed().as_secs_f64());
    }
    median(&walls)
}

/// The median of per-round ratios of `a` to `b`.
fn ratio(a: &[Sample], b: &[Sample], f: fn(&Sample) -> f64) -> f64 {
    median(
        &a.iter()
            .zip(b)
            .map(|(x, y)| f(x) / f(y))
            .collect::<Vec<_>>(),
    )
}

/// The median of per-round differences of `a` from `b`.
fn difference(a: &[Sample], b: &[Sample], f: fn(&Sample) -> f64) -> f64 {
    median(
        &a.iter()
            .zip(b)
            .map(|(x, y)| f(x) - f(y))
            .collect::<Vec<_>>(),
    )
}

/// One row per command: medians, and ratios and differences to `base`.
fn print_rows(names: &[&str], samples: &[Vec<Sample>], base: &[Sample]) {
    println!(
        "| command | wall (median) | CPU (median) | wall vs first | CPU vs first | wall − first | CPU − first |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (name, s) in names.iter().zip(samples) {
        let m = |f: fn(&Sample) -> f64| median(&s.iter().map(f).collect::<Vec<_>>());
        println!(
            "| {name} | {} | {} | {:.3}x | {:.3}x | {:+.1} ms | {:+.1} ms |",
            secs(m(|x| x.wall)),
            secs(m(|x| x.cpu)),
            ratio(s, base, |x| x.wall),
            ratio(s, base, |x| x.cpu),
            difference(s, base, |x| x.wall) * 1000.0,
            difference(s, base, |x| x.cpu) * 1000.0,
        );
    }
}
