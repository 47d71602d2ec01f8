//! `run --shard`: which shard a job runs and which tests that is
//! (docs/sharding.md, "Running a shard"). Pure: the CI's variables come in
//! through a lookup, the plan and the collection as values; the command
//! line (`cli/shard.rs`) reads files and runs, and the run's own pytest
//! hands its collection to `select-shard`, which chooses with [`select`].
//!
//! Every shard of one plan works this out alone, with no word from the
//! others, so whatever a shard decides about a test the plan does not
//! name (one collected since the plan was made) must be what every other
//! shard decides too: it depends only on the plan and the test's id.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::plan::Plan;

/// What choosing a shard's tests in the run's collection found, handed
/// back to `run --shard` by `select-shard` (through a file: it runs inside
/// pytest, whose output is the run's).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// Lines for standard error, in order: how the plan was made (`K/N`),
    /// what differs from the plan ([`warnings`], each `warning: ...`),
    /// and the note.
    pub lines: Vec<String>,
    /// The note the shard's answer carries ([`note`]).
    pub note: String,
    /// The shard has no test: what the answer says instead of pytest's
    /// "no tests ran" ([`empty_note`]).
    pub empty: Option<String>,
}

/// What a shard run chose, from the plan and the collection.
pub fn outcome(s: &Selected, source: &str, mut lines: Vec<String>) -> Outcome {
    lines.extend(warnings(s).into_iter().map(|w| format!("warning: {w}")));
    let empty = s.ids.is_empty().then(|| empty_note(s, source));
    let note = note(s, source);
    lines.push(empty.clone().unwrap_or_else(|| note.clone()));
    Outcome { lines, note, empty }
}

/// Why a shard with no test passed: the answer's note.
pub fn empty_note(s: &Selected, source: &str) -> String {
    let why = if s.total > s.collected {
        "the plan has more shards than there are tests"
    } else {
        "the plan gives it no test"
    };
    format!(
        "Shard {} of {} ({source}) is empty ({why}): nothing ran, and that is a pass.",
        s.index, s.total
    )
}

/// Which shard, of how many when the spec says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    /// 1-based, as plans number their shards.
    pub index: usize,
    /// The number of shards, when the spec gave one (`K/N`, `auto`); with
    /// a plan file and `--shard K`, the plan's.
    pub total: Option<usize>,
    /// The CI whose variables `auto` read.
    pub from: Option<&'static str>,
}

/// A CI's variables for its parallel jobs: the index, the count, and
/// whether the index counts from 0.
struct Ci {
    name: &'static str,
    index: &'static str,
    total: &'static str,
    from_zero: bool,
}

/// The CIs whose parallel jobs `--shard auto` knows, in the order they are
/// looked for.
const CIS: [Ci; 3] = [
    Ci {
        name: "GitLab CI",
        index: "CI_NODE_INDEX",
        total: "CI_NODE_TOTAL",
        from_zero: false,
    },
    Ci {
        name: "CircleCI",
        index: "CIRCLE_NODE_INDEX",
        total: "CIRCLE_NODE_TOTAL",
        from_zero: true,
    },
    Ci {
        name: "Buildkite",
        index: "BUILDKITE_PARALLEL_JOB",
        total: "BUILDKITE_PARALLEL_JOB_COUNT",
        from_zero: true,
    },
];

/// What `--shard` accepts, for error messages.
const FORMS: &str = "K/N (shard K of N, 1 <= K <= N), K (with --plan) or auto";

/// Reads `--shard`: `K/N`, `K` or `auto` (the CI's variables, read
/// through `var`). `Err` is the sentence to show.
pub fn parse(text: &str, var: impl Fn(&str) -> Option<String>) -> Result<Spec, String> {
    let text = text.trim();
    if text == "auto" {
        return auto(var);
    }
    let (index, total) = match text.split_once('/') {
        Some((k, n)) => (k, Some(n)),
        None => (text, None),
    };
    let number = |s: &str, what: &str| {
        s.trim()
            .parse::<usize>()
            .map_err(|_| format!("must be {FORMS}: {what} is not a number"))
    };
    let index = number(index, "K")?;
    let total = total.map(|n| number(n, "N")).transpose()?;
    checked(index, total, None)
}

/// `K` and `N` within range: N at least 1, K from 1 to N.
fn checked(index: usize, total: Option<usize>, from: Option<&'static str>) -> Result<Spec, String> {
    let auto = from.map(|ci| format!("auto ({ci}): ")).unwrap_or_default();
    if total == Some(0) {
        return Err(format!("{auto}must name at least one shard (N from 1)"));
    }
    if index == 0 {
        return Err(format!(
            "{auto}must count shards from 1 (CircleCI and Buildkite number their jobs from 0: --shard auto adds one)"
        ));
    }
    if let Some(total) = total.filter(|&n| index > n) {
        return Err(format!(
            "{auto}must name a shard from 1 to {total}: there is no shard {index} of {total}"
        ));
    }
    Ok(Spec { index, total, from })
}

/// `--shard auto`: the first CI of [`CIS`] whose variables are set.
fn auto(var: impl Fn(&str) -> Option<String>) -> Result<Spec, String> {
    let set = |name: &str| var(name).filter(|v| !v.trim().is_empty());
    for ci in &CIS {
        let (index, total) = (set(ci.index), set(ci.total));
        if index.is_none() && total.is_none() {
            continue;
        }
        let (Some(index), Some(total)) = (index, total) else {
            return Err(format!(
                "auto: {} sets {} and {} for a parallel job, and only one of them is set",
                ci.name, ci.index, ci.total
            ));
        };
        let read = |name: &str, value: &str| {
            value
                .trim()
                .parse::<usize>()
                .map_err(|_| format!("auto: {name}={value} ({}) is not a number", ci.name))
        };
        let index = read(ci.index, &index)? + usize::from(ci.from_zero);
        let total = read(ci.total, &total)?;
        return checked(index, Some(total), Some(ci.name));
    }
    if set("GITHUB_ACTIONS").is_some() {
        return Err(
            "auto: GitHub Actions gives a job no shard index of its own: \
run the shards as a matrix (`strategy: matrix: shard: [1, 2, 3, 4]`) and pass \
`--shard ${{ matrix.shard }}/4` (docs/sharding.md)"
                .to_string(),
        );
    }
    let names: Vec<String> = CIS
        .iter()
        .map(|ci| format!("{} ({} and {})", ci.name, ci.index, ci.total))
        .collect();
    Err(format!(
        "auto: no CI's parallel job variables are set (it reads {}); elsewhere give K/N",
        names.join(", ")
    ))
}

/// The tests one shard runs, and how the plan and the collection differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selected {
    pub index: usize,
    pub total: usize,
    /// Tests collected, in all shards.
    pub collected: usize,
    /// Node ids to run, in collection order.
    pub ids: Vec<String>,
    /// Planned tests (of any shard) that were not collected: renamed or
    /// deleted since the plan was made, or collected otherwise here.
    pub gone: Vec<String>,
    /// Collected tests the plan does not name, each with the shard it
    /// goes to ([`home`]), in collection order.
    pub added: Vec<(String, usize)>,
}

/// Shard `index` of `plan`, given what pytest collects now: the plan's
/// tests of that shard that were collected, and the collected tests the
/// plan does not name that go to it.
pub fn select(plan: &Plan, collected: &[String], index: usize) -> Selected {
    let mut planned: HashMap<&str, usize> = HashMap::new();
    for shard in &plan.shards {
        for id in &shard.tests {
            planned.insert(id.as_str(), shard.index);
        }
    }
    let homes = Homes::of(plan);
    let mut seen: HashMap<&str, ()> = HashMap::with_capacity(collected.len());
    let mut ids = Vec::new();
    let mut added = Vec::new();
    for id in collected {
        seen.insert(id.as_str(), ());
        let shard = match planned.get(id.as_str()) {
            Some(&shard) => shard,
            None => {
                let shard = homes.home(id, plan.shards.len());
                added.push((id.clone(), shard));
                shard
            }
        };
        if shard == index {
            ids.push(id.clone());
        }
    }
    let gone = plan
        .shards
        .iter()
        .flat_map(|s| &s.tests)
        .filter(|id| !seen.contains_key(id.as_str()))
        .cloned()
        .collect();
    Selected {
        index,
        total: plan.shards.len(),
        collected: collected.len(),
        ids,
        gone,
        added,
    }
}

/// Where a test the plan does not name goes: to the shard that runs most
/// of its module's planned tests (lowest index on a tie), so that a module
/// fixture is not paid on one more shard; a test of a module the plan does
/// not know goes by a hash of the module's path, so that a new module's
/// tests stay together.
struct Homes<'p> {
    /// Each module's planned tests per shard index.
    modules: HashMap<&'p str, Vec<(usize, usize)>>,
}

impl<'p> Homes<'p> {
    fn of(plan: &'p Plan) -> Homes<'p> {
        let mut modules: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
        for shard in &plan.shards {
            for id in &shard.tests {
                let counts = modules.entry(module(id)).or_default();
                match counts.last_mut() {
                    Some((k, n)) if *k == shard.index => *n += 1,
                    _ => counts.push((shard.index, 1)),
                }
            }
        }
        Homes { modules }
    }

    fn home(&self, id: &str, shards: usize) -> usize {
        let module = module(id);
        match self.modules.get(module) {
            Some(counts) => counts
                .iter()
                .fold((0, 0), |(best, most), &(k, n)| {
                    if n > most || (n == most && k < best) {
                        (k, n)
                    } else {
                        (best, most)
                    }
                })
                .0
                .max(1),
            None => (fnv1a(module.as_bytes()) % shards.max(1) as u64) as usize + 1,
        }
    }
}

/// The module part of a node id: its path, before the first `::`.
fn module(id: &str) -> &str {
    id.split("::").next().unwrap_or(id)
}

/// FNV-1a, 64 bits: a hash that is the same on every machine and in every
/// version (std's hashers promise neither).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Ids listed in a message: the first few, then how many more.
const LISTED: usize = 10;

/// What to tell about a shard on standard error, one line each: the
/// planned tests no longer collected, the collected tests the plan does
/// not name and where they go.
pub fn warnings(s: &Selected) -> Vec<String> {
    let mut lines = Vec::new();
    if !s.gone.is_empty() {
        lines.push(format!(
            "{} of the plan {} not collected now (renamed or deleted since the plan was made, or a different selection than the plan's): no shard runs {}, and `report --plan` will name {} as not run: {}",
            crate::text::plural(s.gone.len(), "test", "tests"),
            if s.gone.len() == 1 { "is" } else { "are" },
            if s.gone.len() == 1 { "it" } else { "them" },
            if s.gone.len() == 1 { "it" } else { "them" },
            listed(s.gone.iter().map(String::as_str))
        ));
    }
    if !s.added.is_empty() {
        let here = s.added.iter().filter(|(_, k)| *k == s.index).count();
        let places = s
            .added
            .iter()
            .take(LISTED)
            .map(|(id, k)| format!("{id} -> shard {k}"))
            .collect::<Vec<_>>()
            .join(", ");
        let more = s.added.len().saturating_sub(LISTED);
        lines.push(format!(
            "{} collected {} not in the plan (new since it was made); each goes to the shard of its module's planned tests (a new module's by its path), {here} of them to this one: {places}{}",
            crate::text::plural(s.added.len(), "test", "tests"),
            if s.added.len() == 1 { "is" } else { "are" },
            if more > 0 { format!(", +{more} more") } else { String::new() }
        ));
    }
    lines
}

/// `a, b, c, +7 more`.
fn listed<'a>(ids: impl ExactSizeIterator<Item = &'a str>) -> String {
    let total = ids.len();
    let mut text = ids.take(LISTED).collect::<Vec<_>>().join(", ");
    if total > LISTED {
        text.push_str(&format!(", +{} more", total - LISTED));
    }
    text
}

/// The note a shard's answer carries: which shard of how many, and what
/// it runs.
pub fn note(s: &Selected, source: &str) -> String {
    let added = s.added.iter().filter(|(_, k)| *k == s.index).count();
    let mut text = format!(
        "Shard {} of {} ({source}): {}",
        s.index,
        s.total,
        crate::text::plural(s.ids.len(), "test", "tests")
    );
    if added > 0 {
        text.push_str(&format!(", {added} of them new since the plan"));
    }
    text
}

#[cfg(test)]
mod tests;
