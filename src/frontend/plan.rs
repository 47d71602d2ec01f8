//! `plan`: shards planned from what pytest collects and the durations of
//! earlier runs (docs/sharding.md). The collecting is `discover`'s, the
//! planning `crate::plan`'s; here the two meet: durations gathered per
//! test over the runs given, and the plan written as JSON or as one file
//! of node ids per shard.

use std::collections::HashMap;
use std::num::NonZeroUsize;

use crate::plan::{self, Input, Plan, Test, Timing};

/// The durations of earlier runs, per test.
#[derive(Debug, Default)]
pub struct Durations {
    /// Each test's timing in each run that timed it, in the order the
    /// runs were added.
    by_id: HashMap<String, Vec<Timing>>,
    /// Runs added.
    pub runs: usize,
    /// The history of runs read, if one was ([`Durations::add_history`]),
    /// for the plan's summary line.
    pub history: Option<std::path::PathBuf>,
}

impl Durations {
    /// Adds one run's tests and timings; a test listed twice keeps its
    /// last timing.
    pub fn add_run(&mut self, tests: Vec<(String, Timing)>) {
        self.runs += 1;
        let mut this_run: HashMap<String, Timing> = HashMap::with_capacity(tests.len());
        for (id, timing) in tests {
            this_run.insert(id, timing);
        }
        // One timing per test and run: the order each list grows in is
        // the runs', whatever order the map hands them out.
        for (id, timing) in this_run {
            self.by_id.entry(id).or_default().push(timing);
        }
    }

    /// Adds the runs of the history of runs ([`crate::history::timings`]):
    /// each test's timing in every run that timed it, phase by phase when
    /// the run's source timed the phases.
    pub fn add_history(&mut self, path: &std::path::Path, timings: crate::history::Timings) {
        self.history = Some(path.to_path_buf());
        self.runs += timings.runs;
        for (id, runs) in timings.tests {
            let list = self.by_id.entry(id).or_default();
            list.extend(runs.into_iter().map(|t| match t.setup_teardown {
                Some((setup, teardown)) => {
                    Timing::phased(setup, (t.seconds - setup - teardown).max(0.0), teardown)
                }
                None => Timing::total(t.seconds),
            }));
        }
    }

    /// A test's timing over the runs: the median ([`Timing::median`]).
    fn of(&self, id: &str) -> Option<Timing> {
        self.by_id.get(id).and_then(|runs| Timing::median(runs))
    }
}

/// The plan of the `collected` ids (in collection order) in `shards`.
pub fn make(collected: &[String], durations: &Durations, shards: NonZeroUsize) -> Plan {
    let tests: Vec<Test> = collected
        .iter()
        .map(|id| Test {
            id: id.clone(),
            timing: durations.of(id),
        })
        .collect();
    plan::plan(Input {
        tests: &tests,
        shards,
        runs: durations.runs,
    })
}

/// The plan as JSON: indented (one node id a line, so a plan reads and
/// diffs line by line), ending with a newline.
pub fn json(plan: &Plan) -> String {
    let mut text = serde_json::to_string_pretty(plan).unwrap_or_default();
    text.push('\n');
    text
}

/// A plan file read back (`run --plan`, `report --plan`): the JSON
/// [`json`] writes. Keys it does not know are left alone (a later version
/// may add some); `Err` says what is wrong, in a sentence.
pub fn read(bytes: &[u8]) -> Result<Plan, String> {
    let plan: Plan = serde_json::from_slice(crate::sources::without_bom(bytes))
        .map_err(|e| format!("is not a plan (pytest-mcp plan's JSON, docs/sharding.md): {e}"))?;
    if plan.shards.is_empty() {
        return Err("is a plan of no shards".to_string());
    }
    if let Some((k, shard)) = plan
        .shards
        .iter()
        .enumerate()
        .find(|(k, shard)| shard.index != k + 1)
    {
        return Err(format!(
            "is not a plan pytest-mcp wrote: its shard {} has the index {} (shards are numbered 1 to N in order)",
            k + 1,
            shard.index
        ));
    }
    Ok(plan)
}

/// What an empty shard's ids file holds: a marker expression no test can
/// match. An empty file would be no arguments at all, and pytest given no
/// arguments runs the whole suite.
pub const EMPTY_SHARD: &str = "-m\npytest_mcp_empty_shard and not pytest_mcp_empty_shard\n";

/// `--format ids`: for each shard, its file name (`shard-K.txt`) and its
/// node ids, one a line, which `pytest @shard-K.txt` reads as arguments
/// (pytest 8.2 and later); an empty shard's file selects nothing
/// ([`EMPTY_SHARD`]: pytest exits 5, no tests ran).
pub fn id_files(plan: &Plan) -> Vec<(String, String)> {
    plan.shards
        .iter()
        .map(|shard| {
            if shard.tests.is_empty() {
                return (
                    format!("shard-{}.txt", shard.index),
                    EMPTY_SHARD.to_string(),
                );
            }
            let mut text = String::new();
            for id in &shard.tests {
                text.push_str(id);
                text.push('\n');
            }
            (format!("shard-{}.txt", shard.index), text)
        })
        .collect()
}

/// One line for standard error: what was planned, on what basis (how
/// many runs, and which history when one was read; when none held a run,
/// how to record one).
pub fn summary(plan: &Plan, durations: &Durations) -> String {
    let slowest = plan.shards.iter().map(|s| s.seconds).fold(0.0, f64::max);
    let empty = plan.shards.iter().filter(|s| s.tests.is_empty()).count();
    let basis = &plan.basis;
    let mut line = format!(
        "planned {} in {}",
        crate::text::plural(basis.tests, "test", "tests"),
        crate::text::plural(plan.shards.len(), "shard", "shards"),
    );
    let history = durations
        .history
        .as_deref()
        .map(|p| p.display().to_string());
    if basis.runs == 0 {
        let most = plan.shards.iter().map(|s| s.tests.len()).max().unwrap_or(0);
        let why = match &history {
            Some(path) => format!(
                "no durations: the history of runs at {path} holds no run yet (`pytest-mcp run` records one there; or give --durations FILE)"
            ),
            None => "no durations (--durations FILE, --history FILE, or a run recorded by `pytest-mcp run`)".to_string(),
        };
        line.push_str(&format!(
            ", up to {most} each; {why}: every test counted alike"
        ));
    } else {
        line.push_str(&format!(", the slowest expected to take {slowest:.1}s"));
        line.push_str(&format!(
            "; durations of {} from {} run{}",
            basis.tests - basis.estimated,
            basis.runs,
            if basis.runs == 1 { "" } else { "s" }
        ));
        if let Some(path) = &history {
            line.push_str(&format!(" of the history of runs at {path}"));
        }
        if basis.estimated > 0 {
            line.push_str(&format!(
                ", {} estimated from their module's (else the suite's) mean",
                basis.estimated
            ));
        }
    }
    if empty > 0 {
        line.push_str(&format!(
            "; {} (more shards than tests)",
            crate::text::plural(empty, "shard is empty", "shards are empty")
        ));
    }
    line
}
