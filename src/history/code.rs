//! What the code was when a run ran, so that two runs can be told to have
//! run the same code (a flip between them is then flakiness, not a change).
//!
//! In a git work tree: the commit, and a hash of the uncommitted changes to
//! tracked files (`git diff HEAD`) and of the untracked Python sources and
//! pytest configuration files. Outside git: a hash of the project's Python
//! sources and pytest configuration files. Files the run writes itself
//! (reports, logs, the history store) are neither, so they do not make
//! every run "other code".

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use sha2::{Digest, Sha256};

/// What the code was.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Code {
    /// The git commit checked out, when known.
    pub commit: Option<String>,
    /// A hash naming the code: equal for runs of the same code. `None`
    /// when nothing could be read.
    pub id: Option<String>,
}

impl Code {
    /// The code of a CI run: the commit it checked out, and nothing else
    /// (the workspace is that commit).
    pub fn commit(sha: &str) -> Code {
        Code {
            commit: Some(sha.to_string()),
            id: Some(format!("commit {sha}")),
        }
    }
}

/// Files hashed outside git, at most: a tree larger than this is named by
/// the first ones found (a project is rarely this large; a home directory
/// is).
const MAX_FILES: usize = 20_000;
/// Bytes of one file hashed, at most: a larger file is named by its size.
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// The code in `dir`, leaving out `skip` (the history store).
pub fn identify(dir: &Path, skip: &Path) -> Code {
    // One call: the work tree's top, then the commit (none without one).
    let head = git(dir, &["rev-parse", "--show-toplevel", "HEAD"]).and_then(|out| {
        let text = String::from_utf8_lossy(&out).into_owned();
        let mut lines = text.lines();
        let top = PathBuf::from(lines.next()?);
        let commit = lines.next()?.trim().to_string();
        Some((top, commit))
    });
    // A project in a folder git ignores (a copy under `target/`, a
    // scratch checkout) is not that repository's code: git sees none of
    // its edits, so it is named as a project outside git.
    let head = head.filter(|_| git(dir, &["check-ignore", "-q", "."]).is_none());
    match head {
        Some((top, commit)) => {
            let mut hash = Sha256::new();
            hash.update(commit.as_bytes());
            if let Some(diff) = git(
                dir,
                &["diff", "HEAD", "--no-ext-diff", "--no-textconv", "--binary"],
            ) {
                hash.update(&diff);
            }
            let untracked = git(
                dir,
                &[
                    "ls-files",
                    "-z",
                    "--others",
                    "--exclude-standard",
                    "--full-name",
                ],
            )
            .unwrap_or_default();
            let files: Vec<PathBuf> = untracked
                .split(|b| *b == 0)
                .filter(|name| !name.is_empty())
                .map(|name| top.join(String::from_utf8_lossy(name).as_ref()))
                .filter(|p| is_source(p) && p != skip)
                .take(MAX_FILES)
                .collect();
            hash_files(&mut hash, &top, &files);
            Code {
                commit: Some(commit),
                id: Some(hex(&hash.finalize()[..16])),
            }
        }
        None => {
            let mut files = Vec::new();
            walk(dir, &mut files);
            files.retain(|p| p != skip);
            files.sort();
            let mut hash = Sha256::new();
            hash_files(&mut hash, dir, &files);
            Code {
                commit: None,
                id: Some(hex(&hash.finalize()[..16])),
            }
        }
    }
}

/// `git -C dir args`: its output when it succeeded.
fn git(dir: &Path, args: &[&str]) -> Option<Vec<u8>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout)
}

/// A Python source or a file that configures pytest.
fn is_source(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.ends_with(".py")
        || name.ends_with(".pyi")
        || matches!(
            name,
            "pytest.ini" | ".pytest.ini" | "pyproject.toml" | "setup.cfg" | "tox.ini"
        )
}

/// Folders that hold no code of the project's own.
fn skipped_dir(dir: &Path) -> bool {
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.starts_with('.')
        || matches!(
            name,
            "__pycache__" | "node_modules" | "site-packages" | "build" | "dist" | "target"
        )
        || name.ends_with(".egg-info")
        || dir.join("pyvenv.cfg").exists()
}

/// The sources under `dir`, at most [`MAX_FILES`].
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            if out.len() >= MAX_FILES {
                return;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() && !skipped_dir(&path) {
                todo.push(path);
            } else if kind.is_file() && is_source(&path) {
                out.push(path);
            }
        }
    }
}

/// Each file's path (relative to `base`) and contents into `hash`.
fn hash_files(hash: &mut Sha256, base: &Path, files: &[PathBuf]) {
    for path in files {
        let shown = path.strip_prefix(base).unwrap_or(path);
        hash.update(shown.to_string_lossy().as_bytes());
        hash.update([0]);
        match fs::metadata(path) {
            Ok(m) if m.len() <= MAX_FILE_BYTES => {
                if let Ok(bytes) = fs::read(path) {
                    hash.update(&bytes);
                }
            }
            Ok(m) => hash.update(m.len().to_le_bytes()),
            Err(_) => {}
        }
        hash.update([0]);
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests;
