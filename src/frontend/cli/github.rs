//! `--format github` on the command line: where the annotations' paths
//! lead, and the job summary, the only I/O of that format.
//!
//! **Paths** (`render::github`'s documentation says what the renderer does
//! with them). The repository root is `GITHUB_WORKSPACE`, else the
//! working directory. `run` knows where pytest ran: `--root`, whose
//! directory relative to the repository is put before pytest's paths
//! (pytest's paths are relative to its rootdir, which is `--root` unless
//! a pytest.ini or pyproject.toml above it says otherwise); a `--root`
//! outside the repository gives absolute paths. `report` cannot know where
//! the files were written: their paths are taken as relative to the
//! repository root, or to `--path-prefix DIR`.
//!
//! **Links** (`--format gfm` and the job summary). `path:line` links to
//! the file at the commit: `--link-base URL`, else
//! `$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/blob/$GITHUB_SHA/` when the three
//! are set (GitHub Actions), else no links. Relative paths get the same
//! prefix as the annotations' paths.
//!
//! **Job summary.** When `GITHUB_STEP_SUMMARY` names a file, the GitHub
//! rendering (`--format gfm`, `render::gfm`) is appended to it, after a blank line when the file already has text.
//! GitHub refuses a step's summary over 1 MiB, so what is appended keeps
//! the file within [`STEP_SUMMARY_BYTES`]: the report is shortened the way
//! `--max-chars` shortens it, in bytes. A summary that cannot be written is
//! a warning on stderr, not a failure: the annotations were.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::render::gfm;
use crate::render::github::Options;

/// GitHub's limit on a step's summary: 1 MiB.
pub const STEP_SUMMARY_BYTES: usize = 1_048_576;

/// Room a summary needs to say anything (a header line and a note).
const MIN_ROOM: usize = 200;

/// The repository root: `GITHUB_WORKSPACE`, else the working directory.
fn repository() -> Option<PathBuf> {
    std::env::var_os("GITHUB_WORKSPACE")
        .filter(|w| !w.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .map(|p| p.canonicalize().unwrap_or(p))
}

/// `GITHUB_STEP_SUMMARY`'s file, when it is set.
pub fn step_summary() -> Option<PathBuf> {
    std::env::var_os("GITHUB_STEP_SUMMARY")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
}

/// The annotations' options for `run` in the project at `root` (absolute).
pub fn options_for_root(root: &Path) -> Options {
    let repository = repository();
    let prefix = match repository.as_deref().map(|r| root.strip_prefix(r)) {
        Some(Ok(inside)) => slashed(inside),
        _ => slashed(root),
    };
    Options {
        path_prefix: prefix,
        workspace: repository.map(|r| slashed(&r)),
        step_summary: step_summary().is_some(),
    }
}

/// The annotations' options for `report`: paths as the files give them,
/// under `prefix` when one is given.
pub fn options_for_files(prefix: Option<&str>) -> Options {
    Options {
        path_prefix: prefix.unwrap_or_default().to_string(),
        workspace: repository().map(|r| slashed(&r)),
        step_summary: step_summary().is_some(),
    }
}

/// Where `path:line` links lead: `link_base` when given, else the
/// commit's tree on GitHub when the workflow's variables say which.
fn link_base(given: Option<&str>) -> Option<String> {
    if let Some(base) = given.filter(|b| !b.is_empty()) {
        return Some(base.to_string());
    }
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let server = var("GITHUB_SERVER_URL")?;
    let repository = var("GITHUB_REPOSITORY")?;
    let sha = var("GITHUB_SHA")?;
    Some(format!(
        "{}/{}/blob/{}/",
        server.trim_end_matches('/'),
        repository.trim_matches('/'),
        sha.trim()
    ))
}

/// The GitHub rendering's options: links from `link_base` (or the
/// workflow's variables), paths as the annotations' ([`Options`]).
pub fn gfm_options(annotations: &Options, given_base: Option<&str>) -> gfm::Options {
    gfm::Options {
        link_base: link_base(given_base),
        path_prefix: annotations.path_prefix.clone(),
        workspace: annotations.workspace.clone(),
    }
}

fn slashed(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// Appends `render(max_bytes)` to the job summary, when there is one:
/// `render` must give at most `max_bytes` bytes (an empty text appends
/// nothing). Problems are warnings on stderr.
pub fn append_summary(render: impl FnOnce(usize) -> String) {
    let Some(path) = step_summary() else {
        return;
    };
    if let Err(e) = append_within(&path, STEP_SUMMARY_BYTES, render) {
        eprintln!(
            "pytest-mcp: warning: cannot append the report to GITHUB_STEP_SUMMARY ({}): {e}",
            path.display()
        );
    }
}

/// Appends `render(room)` to `path`, `room` being what keeps the file
/// within `limit` bytes (a blank line first when it has text already).
fn append_within(
    path: &Path,
    limit: usize,
    render: impl FnOnce(usize) -> String,
) -> Result<(), String> {
    let existing = match std::fs::metadata(path) {
        Ok(m) => usize::try_from(m.len()).unwrap_or(usize::MAX),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
        Err(e) => return Err(e.to_string()),
    };
    let separator = if existing > 0 { "\n" } else { "" };
    let room = limit.saturating_sub(existing + separator.len());
    if room < MIN_ROOM {
        return Err(format!(
            "the file already holds {existing} bytes, GitHub takes at most {limit}"
        ));
    }
    let text = render(room);
    if text.is_empty() {
        return Ok(());
    }
    if text.len() > room {
        return Err(format!(
            "the report takes {} bytes, {room} are left",
            text.len()
        ));
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| e.to_string())?;
    file.write_all(separator.as_bytes())
        .and_then(|()| file.write_all(text.as_bytes()))
        .and_then(|()| file.flush())
        .map_err(|e| e.to_string())
}

/// Cuts `text` to at most `max_bytes` bytes at a line's end (a character's,
/// when the first line is longer), saying so: for texts that have no budget
/// of their own (an error's Markdown).
pub fn cut_to(text: String, max_bytes: usize) -> String {
    if text.len() <= max_bytes {
        return text;
    }
    const NOTE: &str = "\n> Cut to fit GitHub's limit on a job summary\n";
    let keep = max_bytes.saturating_sub(NOTE.len());
    let mut end = keep;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let end = text[..end].rfind('\n').map_or(end, |n| n + 1);
    format!("{}{NOTE}", &text[..end].trim_end_matches('\n'))
}

#[cfg(test)]
mod tests;
