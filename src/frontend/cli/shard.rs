//! `run --shard`: one pytest process collects the suite and runs the
//! shard (docs/sharding.md, "Running a shard"). Before the run, the shard
//! and its plan file are checked and the choosing program is put into the
//! run's parameters ([`prepare`]); inside the run, pytest-mcp's plugin
//! hands pytest's collection to that program, `pytest-mcp select-shard`
//! ([`select_main`]), which chooses with `frontend::shard` and writes what
//! it found to a file; after the run, that is told and put into the answer
//! ([`Prepared::conclude`]). What a shard is and which tests it holds is
//! `frontend::shard`'s.

use std::ffi::OsString;
use std::io::{Read as _, Write as _};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use super::args::{RunArgs, SelectShardArgs};
use super::plan::{add_history, planned};
use crate::frontend::plan::{self as plans, Durations};
use crate::frontend::respond::{EXIT_INPUT_ERROR, EXIT_OK};
use crate::frontend::shard::{self, Outcome, Spec};
use crate::model::Run;
use crate::plan::Plan;
use crate::request::{ValidationError, invalid};
use crate::runner::execute::Settings;
use crate::runner::params::{RunParams, ShardChoice};

/// A shard run prepared: where `select-shard` leaves its [`Outcome`].
pub(super) struct Prepared {
    dir: tempfile::TempDir,
}

/// Why a shard cannot run: a refused `--shard` or `--plan` (answered in
/// the run's format), or an exit status already explained on standard
/// error.
pub(super) enum Refused {
    Param(ValidationError),
    Status(u8),
}

/// Checks the shard `spec` names (and its plan file) and puts the program
/// that chooses its tests into `params.shard`.
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
    let unusable = |what: &str, e: std::io::Error| {
        eprintln!("pytest-mcp: error: {what} ({e})");
        Refused::Status(EXIT_INPUT_ERROR)
    };
    let exe = std::env::current_exe().map_err(|e| unusable("cannot find pytest-mcp itself", e))?;
    let mut argv: Vec<OsString> = vec![exe.into(), "select-shard".into()];
    if let Some(file) = args.plan.as_deref() {
        // Read before the run: a wrong file is told at once.
        read_plan(file, spec).map_err(Refused::Param)?;
        argv.extend([
            "--plan".into(),
            absolute(file).into(),
            "--named".into(),
            file.as_os_str().to_owned(),
            "--shard".into(),
            spec.index.to_string().into(),
        ]);
    } else {
        let Some(total) = spec.total else {
            return Err(Refused::Param(invalid(
                "shard",
                "must be K/N (a plan of N shards made here) without --plan FILE: a shard number alone needs the plan it is of",
                spec.index,
            )));
        };
        argv.extend(["--shard".into(), format!("{}/{total}", spec.index).into()]);
        if let Some(keeping) = &settings.history {
            argv.extend(["--history".into(), absolute(&keeping.path).into()]);
        }
    }
    let dir = tempfile::Builder::new()
        .prefix("pytest-mcp-shard-")
        .tempdir()
        .map_err(|e| unusable("cannot create a temporary directory; check TMPDIR", e))?;
    argv.extend(["--outcome".into(), outcome_path(dir.path()).into()]);
    params.shard = Some(ShardChoice { argv });
    Ok(Prepared { dir })
}

impl Prepared {
    /// Tells what `select-shard` found on standard error and puts it into
    /// the shard's answer: its note, or, for a shard with no test (pytest
    /// says "no tests ran"), the pass it is. `true` for such an empty
    /// shard. Nothing when pytest never got as far as choosing (it could
    /// not start, or could not collect).
    pub(super) fn conclude(self, run: Option<&mut Run>) -> bool {
        let Some(outcome) = std::fs::read(outcome_path(self.dir.path()))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Outcome>(&bytes).ok())
        else {
            return false;
        };
        for line in &outcome.lines {
            eprintln!("pytest-mcp: {line}");
        }
        let Some(run) = run else {
            return false;
        };
        match outcome.empty {
            Some(note) if run.tests.is_empty() && run.collection_errors.is_empty() => {
                *run = empty(note);
                true
            }
            _ => {
                run.notes.push(outcome.note);
                false
            }
        }
    }
}

fn outcome_path(dir: &Path) -> PathBuf {
    dir.join("outcome.json")
}

/// `path` from the root of the file system: `select-shard` runs in
/// pytest's directory, the root, not this one.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The plan at `file`, whose shards must include `spec`'s.
fn read_plan(file: &Path, spec: Spec) -> Result<Plan, ValidationError> {
    let name = file.display().to_string();
    let refused = |detail: String| invalid("plan", detail, name.as_str());
    let bytes = std::fs::read(file)
        .map_err(|e| refused(format!("must be a plan file pytest-mcp can read ({e})")))?;
    let plan = plans::read(&bytes).map_err(|e| refused(format!("must be a plan file: it {e}")))?;
    let total = plan.shards.len();
    if spec.total.is_some_and(|n| n != total) || spec.index > total {
        let asked = match spec.total {
            Some(n) => format!("shard {} of {n}", spec.index),
            None => format!("shard {}", spec.index),
        };
        return Err(invalid(
            "shard",
            format!("must be a shard of {name}, a plan of {total} shards: there is no {asked}"),
            asked.as_str(),
        ));
    }
    Ok(plan)
}

/// The answer of a shard with no test: a run of nothing that passed
/// (exit status 0, where pytest says 5: no tests ran), saying why.
fn empty(note: String) -> Run {
    Run {
        recorded_exit: Some(0),
        duration: Some(0.0),
        notes: vec![note],
        ..Run::default()
    }
}

/// `pytest-mcp select-shard`, run by pytest-mcp's plugin inside the run of
/// a shard: the collected node ids on standard input, one a line; the
/// shard's on standard output; what differs from the plan in
/// `--outcome`'s file. Exit status 2 with a sentence on standard error
/// when the plan or the history cannot be read (the plugin stops pytest
/// with it).
pub(super) fn select_main(args: &SelectShardArgs) -> u8 {
    match select(args) {
        Ok(ids) => {
            let mut out = std::io::stdout().lock();
            let written = ids
                .iter()
                .try_for_each(|id| writeln!(out, "{id}"))
                .and_then(|()| out.flush());
            if written.is_ok() {
                EXIT_OK
            } else {
                EXIT_INPUT_ERROR
            }
        }
        Err(message) => {
            eprintln!("pytest-mcp: error: {message}");
            EXIT_INPUT_ERROR
        }
    }
}

/// The shard's ids, its [`Outcome`] written.
fn select(args: &SelectShardArgs) -> Result<Vec<String>, String> {
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .map_err(|e| format!("cannot read the collected ids: {e}"))?;
    let collected: Vec<String> = String::from_utf8_lossy(&input)
        .split('\n')
        .filter(|id| !id.is_empty())
        .map(str::to_string)
        .collect();
    let spec = shard::parse(&args.shard, |_| None).map_err(|e| format!("--shard {e}"))?;
    let (plan, source, lines) = match &args.plan {
        Some(file) => {
            let plan = read_plan(file, spec).map_err(|e| e.to_string())?;
            let named = args.named.as_deref().unwrap_or(file);
            (plan, named.display().to_string(), Vec::new())
        }
        None => own_plan(args, spec, &collected)?,
    };
    let selected = shard::select(&plan, &collected, spec.index);
    let outcome = shard::outcome(&selected, &source, lines);
    write_outcome(&args.outcome, &outcome)?;
    Ok(selected.ids)
}

/// `K/N`: the plan made here, from the history when there is one, and the
/// words the shard's note gives its source.
fn own_plan(
    args: &SelectShardArgs,
    spec: Spec,
    collected: &[String],
) -> Result<(Plan, String, Vec<String>), String> {
    let total = spec.total.unwrap_or(1);
    let mut durations = Durations::default();
    if let Some(path) = &args.history {
        add_history(&mut durations, path).map_err(|_| {
            format!(
                "the history of runs {} cannot be read (it is said above)",
                path.display()
            )
        })?;
    }
    let shards = NonZeroUsize::new(total).unwrap_or(NonZeroUsize::MIN);
    let (plan, lines) = planned(collected, &durations, shards);
    let source = if durations.runs > 0 {
        "planned from the history of runs"
    } else {
        "planned with no history: every test counted alike"
    };
    Ok((plan, source.to_string(), lines))
}

/// The outcome into its file whole or not at all: pytest-xdist's workers
/// each choose, alike, at about the same time.
fn write_outcome(path: &Path, outcome: &Outcome) -> Result<(), String> {
    let text = serde_json::to_vec(outcome).map_err(|e| e.to_string())?;
    let mut partial = path.as_os_str().to_owned();
    partial.push(format!(".{}", std::process::id()));
    let partial = PathBuf::from(partial);
    std::fs::write(&partial, text)
        .and_then(|()| std::fs::rename(&partial, path))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}
