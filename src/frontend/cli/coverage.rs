//! `report --coverage`: coverage.py's files named on the command line (a
//! file, a directory, a glob) read, and the change judged by them
//! (`runner::coverage::judge_files`, docs/coverage.md).

use std::path::{Path, PathBuf};

use super::args::ReportArgs;
use crate::model::coverage::ChangeCoverage;
use crate::runner::command::find_python;
use crate::runner::coverage::{DataFile, judge_files};
use crate::runner::params::Root;

/// The change's coverage by `--coverage`'s files, none without the flag;
/// `Err` holds one line per problem (a file that cannot be read or is no
/// coverage data, coverage.py missing for `.coverage` files).
pub(super) fn judge(args: &ReportArgs) -> Result<Option<ChangeCoverage>, Vec<String>> {
    let given = &args.coverage;
    if given.files.is_empty() {
        return Ok(None);
    }
    let mut errors = Vec::new();
    let files = read(&given.files, "--coverage", &mut errors);
    let baseline = read(&given.baseline_coverage, "--baseline-coverage", &mut errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    // Paths in the results are relative to where pytest ran: the change's
    // are too, so that --path-prefix puts both under the repository.
    let root = match &args.path_prefix {
        Some(prefix) => PathBuf::from(prefix),
        None => PathBuf::from("."),
    };
    let root = Root::new(&root).map_err(|e| vec![format!("--coverage: {e}")])?;
    let python = find_python(given.python.as_deref(), &root);
    let base = given.base.as_deref().unwrap_or("HEAD");
    judge_files(&python, root.path(), &files, &baseline, base)
        .map(Some)
        .map_err(|e| vec![e])
}

/// The files `args` name (`flag`'s), read; what cannot be is said in
/// `errors`.
fn read(args: &[PathBuf], flag: &str, errors: &mut Vec<String>) -> Vec<DataFile> {
    let mut files = Vec::new();
    for arg in args {
        let paths = match expand(arg) {
            Ok(paths) => paths,
            Err(why) => {
                errors.push(format!("{flag} {}: {why}", arg.display()));
                continue;
            }
        };
        for path in paths {
            match std::fs::read(&path) {
                Ok(bytes) => files.push(DataFile {
                    name: path.display().to_string(),
                    bytes,
                    path,
                }),
                Err(e) => errors.push(format!("{flag} {}: {e}", path.display())),
            }
        }
    }
    files
}

/// The files an argument names: itself; under a directory, coverage.py's
/// (`coverage.xml`, `coverage.json`, `.coverage`, `.coverage.*`); or what a
/// quoted glob matches.
fn expand(arg: &Path) -> Result<Vec<PathBuf>, String> {
    if arg.is_dir() {
        let mut found: Vec<PathBuf> = std::fs::read_dir(arg)
            .map_err(|e| e.to_string())?
            .flatten()
            .map(|entry| entry.path())
            .filter(|p| {
                p.is_file()
                    && p.file_name()
                        .is_some_and(|n| is_coverage_name(&n.to_string_lossy()))
            })
            .collect();
        found.sort();
        return match found.is_empty() {
            true => {
                Err("is a directory with no coverage.xml, coverage.json or .coverage file".into())
            }
            false => Ok(found),
        };
    }
    let name = arg.display().to_string();
    if name.contains(['*', '?', '[']) && !arg.exists() {
        let matched: Vec<PathBuf> = glob::glob(&name)
            .map_err(|e| format!("is not a valid glob pattern: {e}"))?
            .flatten()
            .filter(|p| p.is_file())
            .collect();
        return match matched.is_empty() {
            true => Err("matches no files".into()),
            false => Ok(matched),
        };
    }
    Ok(vec![arg.to_path_buf()])
}

/// coverage.py's own file names (a data file's journal is none).
fn is_coverage_name(name: &str) -> bool {
    name == "coverage.xml"
        || name == "coverage.json"
        || name == ".coverage"
        || (name.starts_with(".coverage.") && !name.ends_with("-journal"))
}
