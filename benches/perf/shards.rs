//! A sharded suite merged (issue 24): `pytest-mcp report` over 1 to 10
//! shard files of 100,000 cases each (the report section's JUnit XML with
//! each shard's modules renamed, so no id repeats), reading one file at a
//! time (`--threads 1`, what `report` did before) against all cores (the
//! default); with `--baseline BIN`, that build on all ten files too. Each
//! its own process, alternated round by round: median wall time, CPU time
//! (user + system) and peak RSS.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::overhead::verdict;
use crate::proc::median;
use crate::throughput::{CASES, generate, mb};
use crate::{Env, alternated, secs};

/// Shards in the largest merge.
const SHARDS: usize = 10;

/// `--generate-shards DIR N`: writes `DIR/shards/shard-K.xml` for K < N
/// from `DIR/junit-100000.xml`, module names prefixed by the shard.
pub fn generate_main(dir: &Path, shards: usize) {
    let xml = std::fs::read_to_string(dir.join(format!("junit-{CASES}.xml"))).expect("the XML");
    let out = dir.join("shards");
    std::fs::create_dir_all(&out).expect("create shards/");
    for k in 0..shards {
        let shard = xml
            .replace("tests.test_mod", &format!("tests.shard{k}.test_mod"))
            .replace("tests/test_mod", &format!("tests/shard{k}/test_mod"));
        std::fs::write(out.join(format!("shard-{k}.xml")), shard).expect("write a shard");
    }
}

struct Cmd {
    name: String,
    bin: PathBuf,
    files: usize,
    threads: Option<&'static str>,
}

pub fn run(env: &Env) {
    let (xml, _) = generate(env);
    let dir = xml.parent().expect("report dir").to_path_buf();
    eprintln!("generating {SHARDS} shards of {CASES} cases ...");
    let status = Command::new(&env.me)
        .arg("--generate-shards")
        .arg(&dir)
        .arg(SHARDS.to_string())
        .status()
        .expect("run the generator");
    assert!(status.success(), "generating the shards failed");
    let shard = |k: usize| dir.join(format!("shards/shard-{k}.xml"));
    let shard_bytes = std::fs::metadata(shard(0)).expect("a shard").len();
    let cmds = commands(env);
    let rounds = env.rounds.max(3);
    let (samples, _) = alternated(
        cmds.len(),
        rounds,
        &dir.join("shards-out"),
        |i| cmds[i].name.clone(),
        |i| {
            let c = &cmds[i];
            let mut command = Command::new(&c.bin);
            command.arg("report");
            command.args((0..c.files).map(shard));
            if let Some(n) = c.threads {
                command.args(["--threads", n]);
            }
            command
        },
        Stdio::null,
    );
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "## 2b. Shards merged: `report` (Markdown) over 1 to {SHARDS} files of {CASES} cases ({:.1} MB each), {cores} cores; {rounds} rounds\n",
        mb(shard_bytes)
    );
    print_table(env, &samples);
}

/// Each number of files read serially then in parallel; the baseline
/// build on all of them last.
fn commands(env: &Env) -> Vec<Cmd> {
    let mut cmds = Vec::new();
    for files in 1..=SHARDS {
        for threads in [Some("1"), None] {
            cmds.push(Cmd {
                name: format!("{files} files, threads {}", threads.unwrap_or("default")),
                bin: env.bin.clone(),
                files,
                threads,
            });
        }
    }
    if let Some(baseline) = &env.baseline {
        cmds.push(Cmd {
            name: format!("{SHARDS} files, baseline build"),
            bin: baseline.clone(),
            files: SHARDS,
            threads: None,
        });
    }
    cmds
}

/// The table, and the targets against the baseline build (or, without
/// one, against this build reading one file at a time).
fn print_table(env: &Env, samples: &[Vec<crate::proc::Sample>]) {
    let of = |i: usize, f: fn(&crate::proc::Sample) -> f64| {
        median(&samples[i].iter().map(f).collect::<Vec<_>>())
    };
    let wall = |i: usize| of(i, |s| s.wall);
    let cpu = |i: usize| of(i, |s| s.cpu);
    let rss = |i: usize| of(i, |s| s.max_rss as f64);
    println!(
        "| files | serial wall | serial CPU | serial peak RSS | parallel wall | parallel CPU | parallel peak RSS | wall parallel / serial |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for files in 1..=SHARDS {
        let (s, p) = (2 * (files - 1), 2 * (files - 1) + 1);
        println!(
            "| {files} | {} | {} | {:.1} MB | {} | {} | {:.1} MB | {:.2}x |",
            secs(wall(s)),
            secs(cpu(s)),
            mb(rss(s) as u64),
            secs(wall(p)),
            secs(cpu(p)),
            mb(rss(p) as u64),
            wall(p) / wall(s)
        );
    }
    let (serial, parallel) = (2 * (SHARDS - 1), 2 * (SHARDS - 1) + 1);
    // "Today's": the baseline build when given, else this build reading
    // one file at a time.
    let (today, what) = match env.baseline {
        Some(_) => (samples.len() - 1, "the baseline build"),
        None => (serial, "--threads 1"),
    };
    if env.baseline.is_some() {
        println!(
            "\nBaseline build on {SHARDS} files: {} wall, {} CPU, {:.1} MB peak RSS.",
            secs(wall(today)),
            secs(cpu(today)),
            mb(rss(today) as u64)
        );
    }
    println!("\nTargets ({SHARDS} files, against {what}):");
    println!(
        "- wall time ≤ 0.6x: {} vs {}, {:.2}x {}",
        secs(wall(parallel)),
        secs(wall(today)),
        wall(parallel) / wall(today),
        verdict(wall(parallel) <= 0.6 * wall(today))
    );
    println!(
        "- peak RSS no more: {:.1} MB vs {:.1} MB {}",
        mb(rss(parallel) as u64),
        mb(rss(today) as u64),
        verdict(rss(parallel) <= rss(today))
    );
    // Issue 42: against reading the files one after another, each in a
    // `report` of its own (the shards are alike: ten times one file's
    // median), one thread each and all cores each.
    println!(
        "\nTargets ({SHARDS} files on all cores, against {SHARDS} `report` runs of one file each, issue 42):"
    );
    for (one, what) in [(0, "--threads 1"), (1, "all cores")] {
        let separate = SHARDS as f64 * wall(one);
        println!(
            "- wall time ≤ 0.6x of {SHARDS} x one file ({what}): {} vs {}, {:.2}x {}",
            secs(wall(parallel)),
            secs(separate),
            wall(parallel) / separate,
            verdict(wall(parallel) <= 0.6 * separate)
        );
    }
    println!(
        "- peak RSS per file beyond the first (parallel): {:.1} MB; {SHARDS} files {:.1} MB\n",
        mb(((rss(parallel) - rss(1)) / (SHARDS - 1) as f64) as u64),
        mb(rss(parallel) as u64)
    );
}
