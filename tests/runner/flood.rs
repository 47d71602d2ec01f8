//! 30 MB of output: bounded memory, a small answer, the dropped output
//! counted.

use super::*;
use crate::summary::Counts;

// ---------------------------------------------------------------------------
// 30 MB of output: bounded memory, small answer, drop counted
// ---------------------------------------------------------------------------

/// `VmHWM` (peak resident set) of a process in KiB.
fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The only child of `pid` (our binary under /usr/bin/time).
fn only_child(pid: u32) -> Option<u32> {
    let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).ok()?;
    children.split_whitespace().next()?.parse().ok()
}

struct Measured {
    answer: Answer,
    /// Our process alone, sampled from /proc while it ran (a lower bound).
    sampled_kib: Option<u64>,
    /// /usr/bin/time's maximum resident set: our process and the
    /// processes it waited for (pytest), so an upper bound for ours.
    time_kib: Option<u64>,
}

/// Runs the binary, measuring its peak resident memory two ways.
fn measured_run(args: &[OsString]) -> Measured {
    let time = Path::new("/usr/bin/time");
    let report = tempfile::NamedTempFile::new().expect("time report");
    let started = Instant::now();
    let wrapped = time.is_file();
    let child = if wrapped {
        command(time)
            .arg("-v")
            .arg("-o")
            .arg(report.path())
            .arg(BIN)
            .args(args)
            .spawn()
            .expect("start /usr/bin/time")
    } else {
        command(Path::new(BIN))
            .args(args)
            .spawn()
            .expect("start pytest-mcp")
    };
    let mut sampled: Option<u64> = None;
    let answer = wait(child, started, |pid| {
        let ours = if wrapped { only_child(pid) } else { Some(pid) };
        if let Some(kib) = ours.and_then(vm_hwm_kib) {
            sampled = Some(sampled.map_or(kib, |s| s.max(kib)));
        }
    });
    let time_kib = if wrapped {
        let text = std::fs::read_to_string(report.path()).unwrap_or_default();
        let kib = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
            .and_then(|v| v.trim().parse().ok());
        assert!(
            kib.is_some(),
            "no maximum RSS in /usr/bin/time's report:\n{text}"
        );
        kib
    } else {
        None
    };
    Measured {
        answer,
        sampled_kib: sampled,
        time_kib,
    }
}

fn run_args(project: &Project, format: &str) -> Vec<OsString> {
    vec![
        "run".into(),
        "--root".into(),
        project.root.clone().into(),
        "--python".into(),
        python().into(),
        "--format".into(),
        format.into(),
        "--timeout".into(),
        "60".into(),
    ]
}

/// The number before a marker such as "bytes of output dropped".
fn dropped_before(text: &str, marker: &str) -> Vec<u64> {
    text.match_indices(marker)
        .filter_map(|(at, _)| {
            let before = text[..at].trim_end();
            let digits: String = before
                .chars()
                .rev()
                .take_while(char::is_ascii_digit)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            digits.parse().ok()
        })
        .collect()
}

const MAX_RSS_KIB: u64 = 300 * 1024;

#[test]
fn a_30_mb_flood_stays_bounded_in_memory_and_answer() {
    let project = Project::copy("runner_flood");
    let json = measured_run(&run_args(&project, "json"));
    let size = json.answer.stdout.len();
    let value = json.answer.json();
    let text = json.answer.text();
    let from_stdout = dropped_before(&text, " bytes of output dropped");
    let from_report = dropped_before(&text, " bytes dropped by pytest-mcp");
    println!(
        "flood (JSON): answer {size} bytes; peak RSS of pytest-mcp sampled from /proc {:?} KiB, \
         /usr/bin/time (pytest-mcp and the pytest it waited for) {:?} KiB; \
         dropped from captured stdout/stderr {from_stdout:?} bytes, \
         from strings of the JSON report {from_report:?} bytes; took {:.2}s",
        json.sampled_kib,
        json.time_kib,
        json.answer.elapsed.as_secs_f64()
    );
    assert_eq!(json.answer.status, Some(1), "{}", json.answer.stderr);
    assert!(size < 5 * 1024 * 1024, "the JSON answer is {size} bytes");
    assert!(
        !from_stdout.is_empty() || !from_report.is_empty(),
        "the answer does not say how much was dropped"
    );
    assert!(
        from_stdout
            .iter()
            .chain(&from_report)
            .any(|n| *n > 20_000_000),
        "less than 20 MB of the 30 MB said to be dropped: {from_stdout:?} {from_report:?}"
    );
    let summary = Counts::from_summary(&value["summary"]);
    assert_eq!((summary.total, summary.passed, summary.failed), (2, 1, 1));
    let peak = json.time_kib.or(json.sampled_kib).expect("a memory figure");
    assert!(
        peak < MAX_RSS_KIB,
        "peak resident memory {peak} KiB, limit {MAX_RSS_KIB} KiB"
    );
    if let Some(sampled) = json.sampled_kib {
        assert!(sampled < MAX_RSS_KIB, "sampled peak {sampled} KiB");
    }

    let md = measured_run(&run_args(&project, "markdown"));
    let text = md.answer.text();
    println!(
        "flood (Markdown): answer {} bytes; peak RSS sampled {:?} KiB, /usr/bin/time {:?} KiB",
        text.len(),
        md.sampled_kib,
        md.time_kib
    );
    assert_eq!(md.answer.status, Some(1), "{}", md.answer.stderr);
    assert!(
        text.len() < 1024 * 1024,
        "Markdown answer {} bytes",
        text.len()
    );
    assert!(
        text.contains(
            "### FAILED (failing for 2 runs): tests/test_flood.py::test_prints_thirty_megabytes"
        ),
        "{}",
        head(&text, 2000)
    );
    let peak = md.time_kib.or(md.sampled_kib).expect("a memory figure");
    assert!(peak < MAX_RSS_KIB, "peak resident memory {peak} KiB");
}
