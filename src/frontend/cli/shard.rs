//! `run --shard`: the plan read (`--plan FILE`) or made here from the
//! history of runs, the tests collected to check it against, and the
//! shard's tests handed to the run (docs/sharding.md, "Running a shard").
//! What a shard is and which tests it holds is `frontend::shard`'s.

use std::num::NonZeroUsize;
use std::path::Path;

use super::args::RunArgs;
use super::plan::{add_history, collect, planned};
use crate::frontend::plan::{self as plans, Durations};
use crate::frontend::shard::{self, Selected, Spec};
use crate::model::Run;
use crate::plan::Plan;
use crate::request::{ValidationError, invalid};
use crate::runner::execute::Settings;
use crate::runner::params::{DiscoverParams, RunParams};

/// What the run of a shard runs.
pub(super) enum Prepared {
    /// Its tests are in `params.shard`; the note goes into the answer.
    Tests { note: String },
    /// It has no test: the answer says so and nothing runs.
    Empty(Box<Run>),
}

/// Why a shard cannot run: a refused `--shard` or `--plan` (answered in
/// the run's format), or an exit status already explained on standard
/// error (a collection that failed).
pub(super) enum Refused {
    Param(ValidationError),
    Status(u8),
}

/// Works out the shard `spec` names and puts its tests into
/// `params.shard`.
pub(super) fn prepare(
    args: &RunArgs,
    spec: &str,
    settings: &Settings,
    params: &mut RunParams,
) -> Result<Prepared, Refused> {
    let spec = shard::parse(spec, |name| std::env::var(name).ok())
        .map_err(|e| Refused::Param(invalid("shard", e, spec)))?;
    if let Some(ci) = spec.from {
        eprintln!(
            "pytest-mcp: shard {} of {} ({ci}'s parallel job)",
            spec.index,
            spec.total.unwrap_or(0)
        );
    }
    let plan_file = args.plan.as_deref();
    if let Some(file) = plan_file {
        // Read before collecting: a wrong file is told at once.
        let plan = read_plan(file, spec)?;
        let collected = collect_for(settings, params)?;
        let source = file.display().to_string();
        return Ok(select(&plan, &collected, spec.index, &source, params));
    }
    let Some(total) = spec.total else {
        return Err(Refused::Param(invalid(
            "shard",
            "must be K/N (a plan of N shards made here) without --plan FILE: a shard number alone needs the plan it is of",
            spec.index,
        )));
    };
    let collected = collect_for(settings, params)?;
    let mut durations = Durations::default();
    if let Some(keeping) = &settings.history {
        add_history(&mut durations, &keeping.path).map_err(Refused::Status)?;
    }
    let shards = NonZeroUsize::new(total).unwrap_or(NonZeroUsize::MIN);
    let plan = planned(&collected, &durations, shards);
    let source = if durations.runs > 0 {
        "planned from the history of runs"
    } else {
        "planned with no history: every test counted alike"
    };
    Ok(select(&plan, &collected, spec.index, source, params))
}

/// The plan at `file`, whose shards must include `spec`'s.
fn read_plan(file: &Path, spec: Spec) -> Result<Plan, Refused> {
    let name = file.display().to_string();
    let refused = |detail: String| Refused::Param(invalid("plan", detail, name.as_str()));
    let bytes = std::fs::read(file)
        .map_err(|e| refused(format!("must be a plan file pytest-mcp can read ({e})")))?;
    let plan = plans::read(&bytes).map_err(|e| refused(format!("must be a plan file: it {e}")))?;
    let total = plan.shards.len();
    if spec.total.is_some_and(|n| n != total) || spec.index > total {
        let asked = match spec.total {
            Some(n) => format!("shard {} of {n}", spec.index),
            None => format!("shard {}", spec.index),
        };
        return Err(Refused::Param(invalid(
            "shard",
            format!("must be a shard of {name}, a plan of {total} shards: there is no {asked}"),
            asked.as_str(),
        )));
    }
    Ok(plan)
}

/// What pytest collects with the run's selection: what the plan is checked
/// against (or made from).
fn collect_for(settings: &Settings, params: &RunParams) -> Result<Vec<String>, Refused> {
    let discover = DiscoverParams::of_run(params.clone());
    collect(settings, &discover).map_err(Refused::Status)
}

/// Shard `index` of `plan` put into `params`, what differs from the plan
/// told on standard error.
fn select(
    plan: &Plan,
    collected: &[String],
    index: usize,
    source: &str,
    params: &mut RunParams,
) -> Prepared {
    let selected: Selected = shard::select(plan, collected, index);
    for line in shard::warnings(&selected) {
        eprintln!("pytest-mcp: warning: {line}");
    }
    if selected.ids.is_empty() {
        let run = empty(&selected, source);
        eprintln!("pytest-mcp: {}", run.notes.join(" "));
        return Prepared::Empty(Box::new(run));
    }
    let note = shard::note(&selected, source);
    eprintln!("pytest-mcp: {note}");
    params.shard = Some(selected.ids);
    Prepared::Tests { note }
}

/// The answer of a shard with no test: a run of nothing that passed
/// (exit status 0, where pytest would say 5: no tests ran), saying why.
fn empty(s: &Selected, source: &str) -> Run {
    let why = if s.total > s.collected {
        "the plan has more shards than there are tests"
    } else {
        "the plan gives it no test"
    };
    Run {
        recorded_exit: Some(0),
        duration: Some(0.0),
        notes: vec![format!(
            "Shard {} of {} ({source}) is empty ({why}): nothing ran, and that is a pass.",
            s.index, s.total
        )],
        ..Run::default()
    }
}
