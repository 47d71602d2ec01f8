//! `pytest-mcp plan`: the durations read (files, the history of runs), the
//! tests collected as `discover` collects them, the plan written
//! (docs/sharding.md). `run --shard` plans with the same functions.

use std::num::NonZeroUsize;
use std::path::Path;

use super::args::{PlanArgs, PlanFormat};
use super::{cancelled_on_signals, finish};
use crate::frontend::plan::{self, Durations};
use crate::frontend::respond::{self, EXIT_INPUT_ERROR, EXIT_INVALID_PARAMS, EXIT_OK};
use crate::plan::Plan;
use crate::request::{ExecuteTestsRequest, OutputFormat};
use crate::runner::execute::{self, Settings};
use crate::runner::params::{DEFAULT_TIMEOUT_SECS, DiscoverParams, Root};

pub(super) fn run_plan(args: &PlanArgs) -> u8 {
    if args.format == PlanFormat::Ids && args.output.is_none() {
        eprintln!("pytest-mcp: error: --format ids writes one file per shard: give -o DIR");
        return EXIT_INVALID_PARAMS;
    }
    let mut durations = match read_durations(&args.durations) {
        Ok(d) => d,
        Err(status) => return status,
    };
    if let Some(path) = history_of(args)
        && let Err(status) = add_history(&mut durations, &path)
    {
        return status;
    }
    let collected = match checked(args).and_then(|(settings, params)| collect(&settings, &params)) {
        Ok(ids) => ids,
        Err(status) => return status,
    };
    let shards = NonZeroUsize::new(usize::from(args.shards)).unwrap_or(NonZeroUsize::MIN);
    let (made, lines) = planned(&collected, &durations, shards);
    for line in lines {
        eprintln!("pytest-mcp: {line}");
    }
    match (args.format, &args.output) {
        (PlanFormat::Ids, Some(dir)) => write_ids(dir, &made),
        (_, output) => finish(output.as_ref(), &plan::json(&made), EXIT_OK),
    }
}

/// The history of runs a plan reads: `--history`'s; with neither it nor
/// `--durations` (nor `--no-history`), the one `run` keeps under `--root`,
/// so that a plan made after a `run` balances by what that run took.
fn history_of(args: &PlanArgs) -> Option<std::path::PathBuf> {
    if args.no_history {
        return None;
    }
    match (&args.history, args.durations.is_empty()) {
        (Some(path), _) => Some(path.clone()),
        (None, true) => Some(crate::history::default_path(&args.pytest.root)),
        (None, false) => None,
    }
}

/// The plan of `collected`, and the lines for standard error that say
/// what it rests on (after a warning when no collected test has a
/// duration though some were read: node ids of another rootdir).
pub(super) fn planned(
    collected: &[String],
    durations: &Durations,
    shards: NonZeroUsize,
) -> (Plan, Vec<String>) {
    let made = plan::make(collected, durations, shards);
    let mut lines = Vec::new();
    if durations.runs > 0 && made.basis.tests > 0 && made.basis.estimated == made.basis.tests {
        lines.push(
            "warning: no collected test has a duration in the durations read: \
do their node ids match this collection (the same --root as the runs that timed them)?"
                .to_string(),
        );
    }
    lines.push(plan::summary(&made, durations));
    (made, lines)
}

/// The durations of the last runs of the history at `path`
/// ([`crate::history::PLAN_RUNS`]); a store that cannot be read is an
/// error naming it (exit status 2).
pub(super) fn add_history(durations: &mut Durations, path: &Path) -> Result<(), u8> {
    match crate::history::timings(path, crate::history::PLAN_RUNS) {
        Ok(timings) => {
            durations.add_history(path, timings);
            Ok(())
        }
        Err(e) => {
            eprintln!("pytest-mcp: error: --history {e}");
            Err(EXIT_INPUT_ERROR)
        }
    }
}

/// Every `--durations` file, one run each; an unreadable one is an error
/// naming it (exit status 2), as `report` answers.
pub(super) fn read_durations(files: &[std::path::PathBuf]) -> Result<Durations, u8> {
    let mut durations = Durations::default();
    for file in files {
        let name = file.display().to_string();
        let tests = std::fs::read(file)
            .map_err(|e| format!("cannot read {name}: {e}"))
            .and_then(|bytes| {
                crate::sources::durations::read(&bytes, &name).map_err(|e| format!("{name}: {e}"))
            });
        match tests {
            Ok(tests) => durations.add_run(tests),
            Err(message) => {
                eprintln!("pytest-mcp: error: --durations {message}");
                return Err(EXIT_INPUT_ERROR);
            }
        }
    }
    Ok(durations)
}

/// The settings and the collection's parameters of `plan`: `run`'s
/// selection; a refused parameter is answered here (exit status 4).
fn checked(args: &PlanArgs) -> Result<(Settings, DiscoverParams), u8> {
    let root = Root::new(&args.pytest.root).map_err(|e| {
        eprintln!("pytest-mcp: error: {e}");
        EXIT_INVALID_PARAMS
    })?;
    let settings = Settings {
        root,
        python: args.pytest.python.clone(),
        default_timeout: std::time::Duration::from_secs(DEFAULT_TIMEOUT_SECS),
        kill_grace: args.pytest.kill_grace,
        history: None,
        results: None,
        warm: None,
    };
    let request = ExecuteTestsRequest {
        node_ids: args.selection.node_ids.clone(),
        markers: args.selection.markers.clone(),
        keywords: args.selection.keywords.clone(),
        timeout: args.pytest.timeout,
        ..ExecuteTestsRequest::default()
    };
    let params = request
        .validate(&settings.root, settings.default_timeout)
        .map(DiscoverParams::of_run)
        .map_err(|e| {
            eprintln!("pytest-mcp: {e}");
            EXIT_INVALID_PARAMS
        })?;
    Ok((settings, params))
}

/// The node ids pytest collects with the selection, in collection order.
/// A collection that fails or has collection errors (whose tests a plan
/// would silently leave out) is answered here.
pub(super) fn collect(settings: &Settings, params: &DiscoverParams) -> Result<Vec<String>, u8> {
    let discovery = execute::discover(settings, params, &cancelled_on_signals()).map_err(|e| {
        let budget = crate::budget::Budget::default();
        let answer = respond::exec_error(&e, OutputFormat::Markdown, &budget);
        let status = answer.exit();
        eprintln!("{}", answer.into_text());
        status
    })?;
    if !discovery.collection_errors.is_empty() {
        eprintln!(
            "pytest-mcp: error: pytest could not collect {} (no plan: their tests would be left out):",
            crate::text::plural(discovery.collection_errors.len(), "file", "files")
        );
        for e in &discovery.collection_errors {
            let kind = e
                .error_type
                .as_deref()
                .map(|t| format!("{t}: "))
                .unwrap_or_default();
            eprintln!("  {}: {kind}{}", e.file, e.message);
        }
        return Err(EXIT_INPUT_ERROR);
    }
    Ok(discovery.items.into_iter().map(|i| i.nodeid).collect())
}

/// `--format ids`: `DIR/shard-K.txt` for every shard.
fn write_ids(dir: &Path, made: &crate::plan::Plan) -> u8 {
    let written = std::fs::create_dir_all(dir).and_then(|()| {
        plan::id_files(made)
            .into_iter()
            .try_for_each(|(name, text)| std::fs::write(dir.join(name), text))
    });
    match written {
        Ok(()) => EXIT_OK,
        Err(e) => {
            eprintln!(
                "pytest-mcp: error: cannot write into {}: {e}",
                dir.display()
            );
            EXIT_INPUT_ERROR
        }
    }
}
