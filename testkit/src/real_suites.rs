//! Real libraries from the Python package index, their own test suites
//! with bugs injected (issue 33): what `tests/real_suites.rs` checks the
//! default Markdown answer on, and what the perf harness's `suites` section
//! measures against pytest's own output.
//!
//! Each [`Suite`] is an sdist pinned with its hash in
//! `requirements-suites.txt` (which `scripts/setup.sh` downloads into
//! `.suites/`), how its tests run, and one to three realistic one-line
//! [`Bug`]s that make 3 to 15 of its tests fail. [`prepare`] extracts the
//! sdist (with the `tar` command) into a folder and applies the bugs, each
//! of which must match its file exactly once.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A realistic one-line bug: `old` replaced by `new` in `file` (relative to
/// the extracted sdist's root), where `old` occurs exactly once.
pub struct Bug {
    /// What the bug is, for the report (BENCHMARKS.md says it too).
    pub what: &'static str,
    pub file: &'static str,
    pub old: &'static str,
    pub new: &'static str,
}

/// A library's test suite with its bugs.
pub struct Suite {
    /// The distribution's name, also the folder the harness extracts into.
    pub name: &'static str,
    pub version: &'static str,
    /// The sdist's file name in `.suites/`.
    pub sdist: &'static str,
    /// Relative to the root: put on `PYTHONPATH` (a `src/` layout), or
    /// `None` when the package is at the root.
    pub pythonpath: Option<&'static str>,
    /// Tests pytest runs (all of them, as its own configuration says).
    pub tests: usize,
    /// Tests failing with [`Suite::bugs`] applied.
    pub failing: usize,
    pub bugs: &'static [Bug],
}

/// The suites, in the order the table lists them.
pub const SUITES: &[Suite] = &[
    Suite {
        name: "inflection",
        version: "0.5.1",
        sdist: "inflection-0.5.1.tar.gz",
        pythonpath: None,
        tests: 455,
        failing: 9,
        bugs: &[
            // One root cause, eight parametrized cases, and no assertion:
            // the empty separator reaches `re` as the pattern `{2,}`.
            Bug {
                what: "parameterize: an empty separator is no longer skipped (re.error in 8 cases)",
                file: "inflection/__init__.py",
                old: "    if separator:\n",
                new: "    if separator is not None:\n",
            },
            Bug {
                what: "dasherize: only the first underscore is replaced",
                file: "inflection/__init__.py",
                old: "return word.replace('_', '-')",
                new: "return word.replace('_', '-', 1)",
            },
        ],
    },
    Suite {
        name: "toolz",
        version: "1.2.0",
        sdist: "toolz-1.2.0.tar.gz",
        pythonpath: None,
        tests: 193,
        failing: 9,
        bugs: &[
            Bug {
                what: "partition_all: `//` for `%` (LookupError raised in 2 tests)",
                file: "toolz/itertoolz.py",
                old: "end = len(seq) % n",
                new: "end = len(seq) // n",
            },
            Bug {
                what: "tail: off by one (`last` too)",
                file: "toolz/itertoolz.py",
                old: "return seq[-n:]",
                new: "return seq[-n + 1:]",
            },
            Bug {
                what: "update_in: the membership test inverted (KeyError, TypeError in 5 tests of 3 classes)",
                file: "toolz/dicttoolz.py",
                old: "    if k in d:\n        inner[k] = func(d[k])",
                new: "    if k not in d:\n        inner[k] = func(d[k])",
            },
        ],
    },
    Suite {
        name: "isodate",
        version: "0.7.2",
        sdist: "isodate-0.7.2.tar.gz",
        pythonpath: Some("src"),
        tests: 280,
        failing: 6,
        bugs: &[
            Bug {
                what: "build_tzinfo: a negative offset's minutes lose their sign",
                file: "src/isodate/isotzinfo.py",
                old: "return FixedOffset(tzsign * tzhour, tzsign * tzmin, tzname)",
                new: "return FixedOffset(tzsign * tzhour, tzmin, tzname)",
            },
            Bug {
                what: "strftime %P: a fraction of a second keeps its trailing zeros",
                file: "src/isodate/isostrf.py",
                old: "ret.append((\"%d.%06d\" % (seconds, usecs)).rstrip(\"0\"))",
                new: "ret.append(\"%d.%06d\" % (seconds, usecs))",
            },
            Bug {
                what: "max_days_in_month: the 400-year leap rule dropped",
                file: "src/isodate/duration.py",
                old: "if ((year % 400) == 0) or ((year % 100) != 0) and ((year % 4) == 0):",
                new: "if ((year % 100) != 0) and ((year % 4) == 0):",
            },
        ],
    },
];

/// Where `scripts/setup.sh` puts the sdists: `<repo>/.suites/`.
pub fn sdists_dir() -> PathBuf {
    crate::repo().join(".suites")
}

/// Extracts `suite`'s sdist into `dest` (emptied first; the sdist's
/// top folder is stripped) and applies its bugs. The error says what is
/// missing or what did not apply.
pub fn prepare(suite: &Suite, dest: &Path) -> Result<(), String> {
    let sdist = sdists_dir().join(suite.sdist);
    if !sdist.is_file() {
        return Err(format!(
            "{} is missing: run `bash scripts/setup.sh`, which downloads the sdists of requirements-suites.txt into .suites/",
            sdist.display()
        ));
    }
    extract(&sdist, dest)?;
    for bug in suite.bugs {
        apply(dest, bug)?;
    }
    Ok(())
}

/// `tar -xzf sdist --strip-components=1 -C dest`, into an emptied `dest`.
pub fn extract(sdist: &Path, dest: &Path) -> Result<(), String> {
    if dest.exists() {
        std::fs::remove_dir_all(dest).map_err(|e| format!("empty {}: {e}", dest.display()))?;
    }
    std::fs::create_dir_all(dest).map_err(|e| format!("create {}: {e}", dest.display()))?;
    let out = Command::new("tar")
        .arg("-xzf")
        .arg(sdist)
        .arg("--strip-components=1")
        .arg("-C")
        .arg(dest)
        .output()
        .map_err(|e| format!("run tar: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "tar -xzf {} failed ({}): {}",
            sdist.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

/// Applies one bug under `root`: its `old` text must occur exactly once.
pub fn apply(root: &Path, bug: &Bug) -> Result<(), String> {
    let path = root.join(bug.file);
    let text =
        std::fs::read_to_string(&path).map_err(|e| format!("read {}: {e}", path.display()))?;
    let found = text.matches(bug.old).count();
    if found != 1 {
        return Err(format!(
            "{}: {:?} occurs {found} times, not once",
            bug.file, bug.old
        ));
    }
    std::fs::write(&path, text.replacen(bug.old, bug.new, 1))
        .map_err(|e| format!("write {}: {e}", path.display()))
}

/// The environment pytest (alone or under `pytest-mcp run`) needs for the
/// suite extracted at `root`: its `PYTHONPATH` (absolute), if any.
///
/// No bug touches isodate's `tests/test_date.py`: its cases are a set
/// holding `None`, whose hash (so the cases' order, so their ids:
/// `expected4`) changes from run to run on Python 3.11 whatever
/// `PYTHONHASHSEED` says.
pub fn environment(suite: &Suite, root: &Path) -> Vec<(&'static str, OsString)> {
    suite
        .pythonpath
        .map(|dir| ("PYTHONPATH", root.join(dir).into_os_string()))
        .into_iter()
        .collect()
}
