//! The history of runs for the frontends (docs/flaky.md): after `run`, an
//! MCP tool or `report --history` has its run, it is recorded in the
//! project's history and its failures judged against the runs before
//! (`crate::history`). A store that cannot be used is one warning line;
//! the answer is whole either way.

use std::path::Path;

use crate::history::{self, Code, Keeping, Origin};
use crate::model::Run;

/// Records a run we ran in `root`. The warning line, when the store could
/// not be used.
pub fn after_run(run: &mut Run, keeping: Option<&Keeping>, root: &Path) -> Option<String> {
    recorded(run, keeping, root, Origin::Run)
}

/// Records the run of one shard (`run --shard`): as [`after_run`], marked
/// so that plans do not read it ([`Origin::Shard`]).
pub fn after_shard(run: &mut Run, keeping: Option<&Keeping>, root: &Path) -> Option<String> {
    recorded(run, keeping, root, Origin::Shard)
}

fn recorded(
    run: &mut Run,
    keeping: Option<&Keeping>,
    root: &Path,
    origin: Origin,
) -> Option<String> {
    let keeping = keeping?;
    let code = history::identify(root, &keeping.path);
    history::remember(run, keeping, &code, origin).err()
}

/// Records a run read from result files: it ran `commit` when one is given
/// (`--commit`, else `GITHUB_SHA`), else what is checked out here.
pub fn after_report(run: &mut Run, keeping: &Keeping, commit: Option<&str>) -> Option<String> {
    let code = match commit.filter(|c| !c.trim().is_empty()) {
        Some(sha) => Code::commit(sha.trim()),
        None => history::identify(Path::new("."), &keeping.path),
    };
    history::remember(run, keeping, &code, Origin::Report).err()
}
