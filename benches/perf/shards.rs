//! A sharded suite merged (issue 24): `pytest-mcp report` over 1 to 10
//! shard files of 100,000 cases each (the report section's JUnit XML with
//! each shard's modules renamed, so no id repeats), reading one file at a
//! time (`--threads 1`, what `report` did before) against all cores (the
//! default); with `--baseline BIN`, that build on all ten files too. Each
//! its own process, alternated round by round: median wall time, CPU time
//! (user + system) and peak RSS.
//!
//! The `untimed` section (issue 49): the same shards with no `time` on
//! their `<testsuite>` (common outside pytest), the run's duration then the
//! sum of its tests': one file and all ten on all cores, against ten
//! single reads and 100 MiB of peak RSS; with `--baseline BIN`, that build
//! on the same files too.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::overhead::verdict;
use crate::proc::median;
use crate::throughput::{CASES, generate, mb};
use crate::{Env, alternated, secs};

/// Shards in the largest merge.
const SHARDS: usize = 10;

/// `--generate-shards DIR N`: writes `DIR/shards/shard-K.xml` for K < N
/// from `DIR/junit-100000.xml`, module names prefixed by the shard, and
/// beside each `untimed-K.xml`, the same with no suite `time`.
pub fn generate_main(dir: &Path, shards: usize) {
    let xml = std::fs::read_to_string(dir.join(format!("junit-{CASES}.xml"))).expect("the XML");
    let out = dir.join("shards");
    std::fs::create_dir_all(&out).expect("create shards/");
    for k in 0..shards {
        let shard = xml
            .replace("tests.test_mod", &format!("tests.shard{k}.test_mod"))
            .replace("tests/test_mod", &format!("tests/shard{k}/test_mod"));
        std::fs::write(out.join(format!("untimed-{k}.xml")), untimed(&shard))
            .expect("write an untimed shard");
        std::fs::write(out.join(format!("shard-{k}.xml")), shard).expect("write a shard");
    }
}

/// `xml` with the `time` attribute of each `<testsuite>` taken out.
fn untimed(xml: &str) -> String {
    let mut out = String::with_capacity(xml.len());
    let mut rest = xml;
    while let Some(at) = rest.find("<testsuite ") {
        let end = at + rest[at..].find('>').expect("a closed <testsuite> tag");
        let tag = &rest[at..end];
        out.push_str(&rest[..at]);
        match tag.find(" time=\"") {
            Some(t) => {
                let close = t + 7 + tag[t + 7..].find('"').expect("a quoted time");
                out.push_str(&tag[..t]);
                out.push_str(&tag[close + 1..]);
            }
            None => out.push_str(tag),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The report section's inputs and `SHARDS` shards of them, timed and
/// untimed; the directory of the shards.
fn generate_shards(env: &Env) -> PathBuf {
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
    dir
}

struct Cmd {
    name: String,
    bin: PathBuf,
    files: usize,
    threads: Option<&'static str>,
}

pub fn run(env: &Env) {
    let dir = generate_shards(env);
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

/// The `untimed` section: `report` on one untimed shard and on all ten (all
/// cores), by this build and the `--baseline` build when given, with the
/// ten timed shards beside them.
pub fn run_untimed(env: &Env) {
    let dir = generate_shards(env);
    let file = |name: &str, k: usize| dir.join(format!("shards/{name}-{k}.xml"));
    let shard_bytes = std::fs::metadata(file("untimed", 0))
        .expect("an untimed shard")
        .len();
    // Name, build, files' name, how many files.
    let mut cmds = vec![
        ("1 untimed file", &env.bin, "untimed", 1),
        ("10 untimed files", &env.bin, "untimed", SHARDS),
        ("10 timed files", &env.bin, "shard", SHARDS),
    ];
    if let Some(baseline) = &env.baseline {
        cmds.push(("1 untimed file, baseline build", baseline, "untimed", 1));
        let ten = "10 untimed files, baseline build";
        cmds.push((ten, baseline, "untimed", SHARDS));
    }
    let rounds = env.rounds.max(3);
    let (samples, _) = alternated(
        cmds.len(),
        rounds,
        &dir.join("untimed-out"),
        |i| cmds[i].0.to_string(),
        |i| {
            let (_, bin, name, files) = cmds[i];
            let mut command = Command::new(bin);
            command.arg("report");
            command.args((0..files).map(|k| file(name, k)));
            command
        },
        Stdio::null,
    );
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "## 2c. Untimed shards merged: `report` (Markdown, all cores) over 1 and {SHARDS} files of {CASES} cases ({:.1} MB each) whose `<testsuite>` records no `time`, {cores} cores; {rounds} rounds\n",
        mb(shard_bytes)
    );
    let names: Vec<&str> = cmds.iter().map(|c| c.0).collect();
    print_untimed(&names, &samples, env.baseline.is_some());
}

/// The `untimed` table, and its targets for this build (commands 0 and 1:
/// one file, ten) and the baseline build (3 and 4) when there is one.
fn print_untimed(names: &[&str], samples: &[Vec<crate::proc::Sample>], baseline: bool) {
    let of = |i: usize, f: fn(&crate::proc::Sample) -> f64| {
        median(&samples[i].iter().map(f).collect::<Vec<_>>())
    };
    let wall = |i: usize| of(i, |s| s.wall);
    let rss = |i: usize| of(i, |s| s.max_rss as f64);
    println!("| files | wall | CPU | peak RSS |");
    println!("|---|---|---|---|");
    for (i, name) in names.iter().enumerate() {
        println!(
            "| {name} | {} | {} | {:.1} MiB |",
            secs(wall(i)),
            secs(of(i, |s| s.cpu)),
            mib(rss(i))
        );
    }
    let builds = [(0, "this build"), (3, "the baseline build")];
    for (one, what) in builds.into_iter().take(if baseline { 2 } else { 1 }) {
        let (ten, separate) = (one + 1, SHARDS as f64 * wall(one));
        println!("\nTargets ({what}, {SHARDS} untimed files on all cores):");
        println!(
            "- wall time ≤ 0.9x of {SHARDS} single reads: {} vs {}, {:.2}x {}",
            secs(wall(ten)),
            secs(separate),
            wall(ten) / separate,
            verdict(wall(ten) <= 0.9 * separate)
        );
        println!(
            "- peak RSS under 100 MiB: {:.1} MiB {}",
            mib(rss(ten)),
            verdict(mib(rss(ten)) < 100.0)
        );
    }
    println!();
}

/// Bytes in MiB.
fn mib(bytes: f64) -> f64 {
    bytes / (1024.0 * 1024.0)
}
