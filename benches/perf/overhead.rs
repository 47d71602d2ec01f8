//! Run overhead: `pytest-mcp run` against `python -m pytest -q` on 5,000
//! fast tests (5 failing), and what each result source costs inside pytest.
//!
//! The source options and the exact argv come from the crate itself
//! (`command::junit_args`, `command::json_report_args`, `command::build`),
//! so the figures follow whatever `run` really does.

use std::ffi::OsString;
use std::process::{Command, Stdio};

use pytest_mcp::request::OutputFormat;
use pytest_mcp::runner::command::{self, Mode, Python, Workspace};
use pytest_mcp::runner::params::{Root, RunParams, Stop};
use pytest_mcp_testkit::inputs;

use crate::proc::{Sample, median, timed};
use crate::{Env, order, secs};

/// Files × tests per file of the suite; which tests fail.
pub const FILES: usize = 50;
pub const PER_FILE: usize = 100;

/// 5 failures: test 7 of every tenth module, starting at the fourth.
pub fn failing(f: usize, t: usize) -> bool {
    f % 10 == 3 && t == 7
}

/// The 5,000-test suite (shared with the server section).
pub fn suite(env: &Env) -> std::path::PathBuf {
    let dir = env.inputs.join("suite-5000");
    inputs::pytest_project(&dir, FILES, PER_FILE, &failing);
    dir
}

pub struct Variant {
    pub name: &'static str,
    /// The command, given a fresh private directory for its result files.
    pub build: Box<dyn Fn(&Workspace) -> Command>,
    /// Exit status expected (pytest: 1, some tests failed).
    pub status: i32,
}

/// Runs every variant `rounds` times, alternating which goes first, each
/// with a fresh private directory (as pytest-mcp makes) and its output
/// discarded; checks each exit status. One list of samples per variant.
pub fn sample(variants: &[Variant], rounds: usize) -> Vec<Vec<Sample>> {
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); variants.len()];
    for round in 0..rounds {
        for i in order(variants.len(), round) {
            let v = &variants[i];
            let ws = Workspace::new().expect("temp dir");
            let mut c = (v.build)(&ws);
            c.stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            let s = timed(&mut c);
            assert_eq!(s.status, v.status, "{} exited {}", v.name, s.status);
            samples[i].push(s);
            eprint!(".");
        }
    }
    eprintln!();
    samples
}

pub fn run(env: &Env) {
    let dir = suite(env);
    let root = Root::new(&dir).expect("suite root");
    let python = Python {
        path: env.python.clone(),
        origin: "--python",
    };
    let caps = command::probe(&python, &root).expect("the bench venv has pytest");
    assert!(
        caps.json_report,
        "the bench venv must have pytest-json-report"
    );
    let params = RunParams {
        node_ids: Vec::new(),
        markers: None,
        keywords: None,
        verbosity: 0,
        stop: Stop::Never,
        last_failed: false,
        affected: false,
        show_capture: true,
        workers: None,
        retries: None,
        timeout: std::time::Duration::from_secs(600),
        format: OutputFormat::Markdown,
        max_tokens: None,
        shard: None,
        coverage: None,
        warm: false,
    };

    let py = env.python.clone();
    let cwd = dir.clone();
    let pytest = move |extra: &[OsString]| {
        let mut c = Command::new(&py);
        c.args(["-m", "pytest", "-q"]).args(extra).current_dir(&cwd);
        c
    };
    let json_defaults = |ws: &Workspace| -> Vec<OsString> {
        vec![
            "--json-report".into(),
            format!("--json-report-file={}", ws.json_report().display()).into(),
        ]
    };

    let mut variants: Vec<Variant> = Vec::new();
    let p = pytest.clone();
    variants.push(Variant {
        name: "python -m pytest -q (baseline)",
        build: Box::new(move |_| p(&[])),
        status: 1,
    });
    let (bin, d, pyp) = (env.bin.clone(), dir.clone(), env.python.clone());
    variants.push(Variant {
        name: "pytest-mcp run (markdown)",
        build: Box::new(move |_| {
            let mut c = Command::new(&bin);
            c.arg("run").arg("--root").arg(&d).arg("--python").arg(&pyp);
            c
        }),
        status: 1,
    });
    let p = pytest.clone();
    variants.push(Variant {
        name: "pytest -q + JUnit XML (pytest-mcp's options)",
        build: Box::new(move |ws| p(&command::junit_args(ws))),
        status: 1,
    });
    let p = pytest.clone();
    variants.push(Variant {
        name: "pytest -q + pytest-json-report (defaults)",
        build: Box::new(move |ws| p(&json_defaults(ws))),
        status: 1,
    });
    // pytest-mcp's pytest-json-report options need the plugin (it writes
    // the file): loaded with the event log itself switched off.
    let (p, py1, root1, params1) = (pytest.clone(), python.clone(), root.clone(), params.clone());
    variants.push(Variant {
        name: "pytest -q + pytest-json-report (pytest-mcp's options)",
        build: Box::new(move |ws| {
            let mut a = command::json_report_args();
            a.extend(["-p".into(), "pytest_mcp_events".into()]);
            let mut c = p(&a);
            let spec = command::build(&py1, &root1, caps, ws, &Mode::Run(&params1));
            without_event_log(&mut c, &spec);
            c
        }),
        status: 1,
    });
    let (py1, root1, params1) = (python.clone(), root.clone(), params.clone());
    variants.push(Variant {
        name: "pytest-mcp's argv without the event log (both sources)",
        build: Box::new(move |ws| {
            let spec = command::build(&py1, &root1, caps, ws, &Mode::Run(&params1));
            let mut c = Command::new(&spec.program);
            c.args(&spec.args).current_dir(&spec.cwd);
            without_event_log(&mut c, &spec);
            c
        }),
        status: 1,
    });
    let p = pytest.clone();
    variants.push(Variant {
        name: "pytest -q + both (defaults, xunit1)",
        build: Box::new(move |ws| {
            let mut a = json_defaults(ws);
            a.extend(["-o".into(), "junit_family=xunit1".into()]);
            a.push(format!("--junitxml={}", ws.junit().display()).into());
            p(&a)
        }),
        status: 1,
    });
    let p = pytest.clone();
    let (py2, root2, params2) = (python.clone(), root.clone(), params.clone());
    variants.push(Variant {
        name: "pytest -q + event-log plugin",
        build: Box::new(move |ws| {
            let mut c = p(&["-p".into(), "pytest_mcp_events".into()]);
            let spec = command::build(&py2, &root2, caps, ws, &Mode::Run(&params2));
            c.envs(spec.env.iter().map(|(k, v)| (k, v)));
            c
        }),
        status: 1,
    });
    let (py3, root3, params3) = (python.clone(), root.clone(), params.clone());
    variants.push(Variant {
        name: "pytest-mcp's exact pytest argv + env",
        build: Box::new(move |ws| {
            let spec = command::build(&py3, &root3, caps, ws, &Mode::Run(&params3));
            let mut c = Command::new(&spec.program);
            c.args(&spec.args).current_dir(&spec.cwd);
            c.envs(spec.env.iter().map(|(k, v)| (k, v)));
            c
        }),
        status: 1,
    });
    let (py4, d4) = (env.python.clone(), dir.clone());
    variants.push(Variant {
        name: "fixed: python -c pass (interpreter start)",
        build: Box::new(move |_| {
            let mut c = Command::new(&py4);
            c.args(["-c", "pass"]).current_dir(&d4);
            c
        }),
        status: 0,
    });
    let (py5, d5) = (env.python.clone(), dir.clone());
    variants.push(Variant {
        name: "fixed: the interpreter probe",
        build: Box::new(move |_| {
            let mut c = Command::new(&py5);
            c.args(["-c", command::PROBE_SCRIPT]).current_dir(&d5);
            c
        }),
        status: 0,
    });

    println!(
        "## 1. Run overhead: {} tests ({FILES} files × {PER_FILE}, 5 failing), {} rounds, commands alternated\n",
        FILES * PER_FILE,
        env.rounds
    );
    let samples = sample(&variants, env.rounds);
    let base = &samples[0];
    println!(
        "| command | wall (median) | CPU (median) | wall vs pytest -q | CPU vs pytest -q | source cost (CPU) |"
    );
    println!("|---|---|---|---|---|---|");
    for (v, s) in variants.iter().zip(&samples) {
        let wall = median(&s.iter().map(|x| x.wall).collect::<Vec<_>>());
        let cpu = median(&s.iter().map(|x| x.cpu).collect::<Vec<_>>());
        let fixed = v.name.starts_with("fixed:");
        let (rw, rc, cost) = if fixed {
            (
                "".to_string(),
                "".to_string(),
                format!("+{} per run", secs(cpu)),
            )
        } else {
            let rw = median(
                &s.iter()
                    .zip(base)
                    .map(|(a, b)| a.wall / b.wall)
                    .collect::<Vec<_>>(),
            );
            let rc = median(
                &s.iter()
                    .zip(base)
                    .map(|(a, b)| a.cpu / b.cpu)
                    .collect::<Vec<_>>(),
            );
            let d = median(
                &s.iter()
                    .zip(base)
                    .map(|(a, b)| a.cpu - b.cpu)
                    .collect::<Vec<_>>(),
            );
            (
                format!("{rw:.3}x"),
                format!("{rc:.3}x"),
                format!("{:+.0} ms ({:+.1}%)", d * 1000.0, (rc - 1.0) * 100.0),
            )
        };
        println!(
            "| {} | {} | {} | {rw} | {rc} | {cost} |",
            v.name,
            secs(wall),
            secs(cpu)
        );
    }
    let run_ratio = median(
        &samples[1]
            .iter()
            .zip(base)
            .map(|(a, b)| a.wall / b.wall)
            .collect::<Vec<_>>(),
    );
    println!(
        "\nTarget: pytest-mcp run ≤ 1.25x pytest -q (wall, median of per-round ratios): {run_ratio:.3}x {}\n",
        verdict(run_ratio <= 1.25)
    );
    let spec = command::build(
        &python,
        &root,
        caps,
        &Workspace::new().expect("temp dir"),
        &Mode::Run(&params),
    );
    let argv: Vec<String> = spec.argv().into_iter().skip(1).collect();
    println!("pytest-mcp's argv: `python {}`\n", redact(&argv.join(" ")));
}

/// Temporary paths vary per run; the table shows their shape.
/// pytest-mcp's environment for `spec`, less the variable that switches
/// the event log on.
fn without_event_log(c: &mut Command, spec: &pytest_mcp::runner::process::Spec) {
    c.envs(
        spec.env
            .iter()
            .filter(|(k, _)| k != "PYTEST_MCP_EVENTS")
            .map(|(k, v)| (k, v)),
    );
}

fn redact(s: &str) -> String {
    let tmp = std::env::temp_dir().display().to_string();
    s.split(' ')
        .map(|w| {
            if let Some(i) = w.find(&tmp) {
                let file = w.rsplit('/').next().unwrap_or("");
                format!("{}$TMP/{file}", &w[..i])
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn verdict(ok: bool) -> &'static str {
    if ok { "(met)" } else { "(MISSED)" }
}
