//! Judging a change by what ran (`run --coverage`, docs/coverage.md): the
//! working tree against a git revision (staged, unstaged and untracked
//! files), each changed line of the project's Python source looked up in
//! the data coverage.py wrote while the tests ran. git says what changed;
//! coverage.py, in the project's own interpreter
//! (`command/pytest_mcp_coverage.py`), what counts and what ran: its
//! parser knows statements, multi-line ones and the lines the project's
//! settings exclude.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use std::collections::BTreeMap;

use crate::model::coverage::{ChangeCoverage, FileState};
use crate::runner::command::Python;
use crate::sources::coverage_data::{self, DataKind, Measured};
use crate::sources::coverage_judge::{self, Change};
use crate::sources::git_diff::{self, ChangedLines};

/// The script that judges the changed lines, written beside the data.
const JUDGE: &str = include_str!("command/pytest_mcp_coverage.py");

/// Whether coverage.py is importable by `python`; else the sentence that
/// says how to install it.
pub fn missing(python: &Python, root: &Path) -> Option<String> {
    // Found, not imported: importing coverage.py costs the run 0.1-0.2 s.
    let found = "import importlib.util as u, sys; sys.exit(u.find_spec('coverage') is None)";
    let ok = Command::new(&python.path)
        .args(["-c", found])
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let shown = python.path.display();
    (!ok).then(|| {
        format!("needs coverage.py, which is not installed for {shown}: install it with `{shown} -m pip install coverage`")
    })
}

/// The change against `base` judged by the data files under `data` (the
/// base name each process's file was written with).
pub fn judge(python: &Python, root: &Path, data: &Path, base: &str) -> ChangeCoverage {
    let changed = match changed_lines(root, base) {
        Ok((changed, _)) => changed,
        Err(why) => return ChangeCoverage::unjudged(base, why),
    };
    let input = serde_json::json!({"data": data, "changed": changed.files});
    let dir = data.parent().unwrap_or(data);
    match run_judge(python, root, dir, &input, base) {
        Ok(judged) => judged,
        Err(why) => ChangeCoverage::unjudged(base, why),
    }
}

/// A coverage file given to `report --coverage`: its name as given and
/// its bytes.
pub struct DataFile {
    pub name: String,
    pub bytes: Vec<u8>,
    pub path: std::path::PathBuf,
}

/// The change against `base` judged by coverage.py's files as a project
/// keeps them (`report --coverage`): coverage.xml and coverage.json read
/// here ([`coverage_judge`]); `.coverage` data files combined and judged by
/// coverage.py in `python` (it alone knows their statements), in a private
/// temporary directory. `Err` says which file is no coverage data, or that
/// coverage.py is missing; a change git cannot give is the answer's note.
pub fn judge_files(
    python: &Python,
    root: &Path,
    files: &[DataFile],
    baseline: &[DataFile],
    base: &str,
) -> Result<ChangeCoverage, String> {
    let before = reports(baseline, "--baseline-coverage")?;
    let mut judged = judge_now(python, root, files, base)?;
    if let (Some(before), Some(since)) = (before, &judged.1) {
        let root_text = root_text(root);
        let states: Vec<FileState> = judged
            .0
            .measured
            .iter()
            .map(|now| {
                let text =
                    git(root, &["show", &format!("{since}:./{}", now.path)]).unwrap_or_default();
                coverage_judge::state_in(&before, &now.path, &text, &root_text)
            })
            .collect();
        crate::model::coverage::compare(&mut judged.0, &states, "the base's coverage");
    }
    Ok(judged.0)
}

/// The reports among `files` (coverage.xml, coverage.json) as one; none
/// without files; `Err` for a file that is none, or a data file.
fn reports(files: &[DataFile], flag: &str) -> Result<Option<Measured>, String> {
    if files.is_empty() {
        return Ok(None);
    }
    let mut measured = Measured::default();
    for f in files {
        let read = match coverage_data::sniff(&f.bytes) {
            Ok(DataKind::Cobertura) => coverage_data::cobertura(&f.bytes),
            Ok(DataKind::Json) => coverage_data::json(&f.bytes),
            Ok(DataKind::DataFile) => Err(format!(
                "{flag} takes coverage.xml or coverage.json (`coverage xml` writes one from a .coverage file)"
            )),
            Err(e) => Err(e),
        };
        measured.add(read.map_err(|e| format!("{}: {e}", f.name))?);
    }
    Ok(Some(measured))
}

/// The project's root as an absolute path with `/` between its parts.
fn root_text(root: &Path) -> String {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    root.to_string_lossy().replace('\\', "/")
}

/// [`judge_files`] before any comparison, with the commit the change was
/// taken from (none when git could not give the change).
fn judge_now(
    python: &Python,
    root: &Path,
    files: &[DataFile],
    base: &str,
) -> Result<(ChangeCoverage, Option<String>), String> {
    let mut kinds = Vec::new();
    for f in files {
        kinds.push(coverage_data::sniff(&f.bytes).map_err(|e| format!("{}: {e}", f.name))?);
    }
    let data_files = kinds.iter().filter(|k| **k == DataKind::DataFile).count();
    if data_files > 0 && data_files < files.len() {
        return Err("--coverage: give either coverage.py's data files (.coverage) or its reports (coverage.xml, coverage.json), not both".into());
    }
    if data_files > 0 {
        if let Some(why) = missing(python, root) {
            return Err(format!(
                "reading .coverage data files {why} (or give coverage.xml)"
            ));
        }
    }
    let change = GitChange::start(root, base);
    // Data files are coverage.py's to read; reports are read here.
    let measured = match data_files {
        0 => reports(files, "--coverage")?.unwrap_or_default(),
        _ => Measured::default(),
    };
    let (changed, since) = match change.finish(root, base) {
        Ok(found) => found,
        Err(why) => return Ok((ChangeCoverage::unjudged(base, why), None)),
    };
    if data_files > 0 {
        let dir =
            tempfile::tempdir().map_err(|e| format!("cannot make a temporary directory: {e}"))?;
        let paths: Vec<&Path> = files.iter().map(|f| f.path.as_path()).collect();
        let input = serde_json::json!({"files": paths, "changed": changed.files});
        let judged = run_judge(python, root, dir.path(), &input, base)
            .unwrap_or_else(|why| ChangeCoverage::unjudged(base, why));
        return Ok((judged, Some(since)));
    }
    let texts: BTreeMap<String, String> = changed
        .files
        .keys()
        .filter(|p| coverage_judge::is_source(p))
        .filter_map(|p| Some((p.clone(), std::fs::read_to_string(root.join(p)).ok()?)))
        .collect();
    let root_text = root_text(root);
    let change = Change {
        base,
        changed: &changed,
        texts: &texts,
        root: &root_text,
    };
    Ok((coverage_judge::judge(&change, &measured), Some(since)))
}

/// Runs the judge script, written into `dir`, on `input`.
fn run_judge(
    python: &Python,
    root: &Path,
    dir: &Path,
    input: &serde_json::Value,
    base: &str,
) -> Result<ChangeCoverage, String> {
    let script = dir.join("pytest_mcp_coverage.py");
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&script, JUDGE))
        .map_err(|e| {
            format!("cannot write coverage's judge into the private temporary directory ({e})")
        })?;
    let mut child = Command::new(&python.path)
        .arg(&script)
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            format!(
                "cannot start {} to read coverage's data: {e}",
                python.path.display()
            )
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        // A failed write shows as the script's own failure below.
        let _ = stdin.write_all(input.to_string().as_bytes());
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("coverage's data could not be read: {e}"))?;
    match ChangeCoverage::from_judged(base, &out.stdout) {
        Some(judged) => Ok(judged),
        None => Err(format!(
            "coverage's data could not be read: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("no answer")
        )),
    }
}

/// The lines of the project's files (relative to `root`) changed in the
/// working tree against `base`, untracked files whole; and the commit they
/// were compared with (where HEAD left `base`).
fn changed_lines(root: &Path, base: &str) -> Result<(ChangedLines, String), String> {
    GitChange::start(root, base).finish(root, base)
}

/// git asked for a change: the diff and the untracked files at once, so
/// that `report --coverage` reads its reports while git works.
struct GitChange {
    since: String,
    diff: std::io::Result<std::process::Child>,
    untracked: std::io::Result<std::process::Child>,
}

impl GitChange {
    fn start(root: &Path, base: &str) -> GitChange {
        // A branch's change is what it did since it left `base`: the work
        // tree against their merge base (`base` itself when HEAD descends
        // from it), so that what `base` gained meanwhile is no change of
        // the branch's.
        let since = match base {
            "HEAD" => base.to_string(),
            _ => git(root, &["merge-base", base, "HEAD"])
                .map_or(base.to_string(), |f| f.trim().to_string()),
        };
        // Prefixes given: a user's diff.noprefix or mnemonicPrefix would
        // name the files otherwise. --relative: paths from `root`, and only
        // its files, as `ls-files` names the untracked ones.
        let diff_args = [
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--relative",
            "-U0",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            &since,
            "--",
        ];
        let diff = spawn_git(root, &diff_args);
        let untracked = spawn_git(root, &["ls-files", "--others", "--exclude-standard", "-z"]);
        GitChange {
            since,
            diff,
            untracked,
        }
    }

    fn finish(self, root: &Path, base: &str) -> Result<(ChangedLines, String), String> {
        let outside = |e: &str| e.to_ascii_lowercase().contains("not a git repository");
        let diff = finish_git(self.diff).map_err(|e| match outside(&e) {
            true => format!(
                "{} is not in a git work tree: no change to judge",
                root.display()
            ),
            false => format!(
                "git cannot compare the working tree with `{base}`: {}",
                e.trim()
            ),
        })?;
        let mut changed = git_diff::changed_lines(&diff);
        let untracked = finish_git(self.untracked).unwrap_or_default();
        for path in untracked.split('\0').filter(|p| !p.is_empty()) {
            let lines = std::fs::read(root.join(path)).map_or(0, |b| line_count(&b));
            changed.add_untracked(path, u32::try_from(lines).unwrap_or(u32::MAX));
        }
        Ok((changed, self.since))
    }
}

/// Lines of a file's text: its newlines, and a last line with none.
fn line_count(bytes: &[u8]) -> usize {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
    newlines + usize::from(!bytes.is_empty() && !bytes.ends_with(b"\n"))
}

/// `git -C root args` started, its output read by [`finish_git`].
fn spawn_git(root: &Path, args: &[&str]) -> std::io::Result<std::process::Child> {
    Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
}

/// A started git's output, or the first line it said on failing.
fn finish_git(child: std::io::Result<std::process::Child>) -> Result<String, String> {
    let out = child
        .and_then(std::process::Child::wait_with_output)
        .map_err(|e| format!("git could not be started: {e}"))?;
    match out.status.success() {
        true => Ok(String::from_utf8_lossy(&out.stdout).into_owned()),
        false => Err(String::from_utf8_lossy(&out.stderr)
            .lines()
            .next()
            .unwrap_or("")
            .to_string()),
    }
}

/// `git -C root args`: its output, or what it said on failing.
fn git(root: &Path, args: &[&str]) -> Result<String, String> {
    finish_git(spawn_git(root, args))
}
