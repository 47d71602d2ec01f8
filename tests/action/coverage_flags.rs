//! The `report` command lines the coverage inputs make: the report step
//! run with a stand-in `pytest-mcp` that records them, in git repositories
//! made here as actions/checkout leaves them (a pull request's merge
//! commit two deep and one deep, its head, a push), so that each event
//! gets the base docs/github-action.md says, and bad inputs are refused.

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use super::super::{Run, stdout};
use super::{commit, git, run_report_in};

/// A stand-in `pytest-mcp`: each call's arguments, tab-separated on a line,
/// appended to `$STUB_CALLS`; the file of `-o FILE` gets one line.
const STUB: &str = r#"#!/usr/bin/env bash
{ printf '%s\t' "$@"; echo; } >> "$STUB_CALLS"
while [ $# -gt 0 ]; do
  if [ "$1" = -o ]; then echo report > "$2"; fi
  shift
done
"#;

/// A repository as GitHub has it for a pull request: `main` (two commits),
/// the pull request's branch off its first, and the merge commit GitHub
/// makes of both (`refs/pull/N/merge`: main's head its first parent).
struct Origin {
    dir: tempfile::TempDir,
    first: String,
    main: String,
    head: String,
    merge: String,
}

impl Origin {
    fn new() -> Origin {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("origin");
        fs::create_dir(&root).unwrap();
        git(&root, &["init", "-q", "-b", "main"]);
        let first = commit(
            &root,
            "calc.py",
            "def add(a, b):\n    return a + b\n",
            "first",
        );
        let main = commit(&root, "README.md", "calc\n", "main moves on");
        git(&root, &["checkout", "-q", "-b", "feature", &first]);
        let head = commit(
            &root,
            "calc.py",
            "def add(a, b):\n    return b + a\n",
            "feature",
        );
        git(&root, &["checkout", "-q", "--detach", &main]);
        git(&root, &["merge", "-q", "--no-ff", "-m", "merge", "feature"]);
        let merge = git(&root, &["rev-parse", "HEAD"]);
        git(&root, &["update-ref", "refs/pull/7/merge", &merge]);
        git(&root, &["checkout", "-q", "main"]);
        Origin {
            dir,
            first,
            main,
            head,
            merge,
        }
    }

    /// A clone of `reference`, `depth` commits deep (0: all its history),
    /// checked out as actions/checkout does it (`fetch-depth`), with the
    /// files a test job leaves behind.
    fn checkout(&self, name: &str, reference: &str, depth: usize) -> PathBuf {
        let root = self.dir.path().join(name);
        fs::create_dir(&root).unwrap();
        git(&root, &["init", "-q"]);
        let url = format!("file://{}", self.dir.path().join("origin").display());
        let depth = format!("--depth={depth}");
        let mut fetch = vec!["fetch", "-q", &url, reference];
        if depth != "--depth=0" {
            fetch.push(&depth);
        }
        git(&root, &fetch);
        git(&root, &["checkout", "-q", "--detach", "FETCH_HEAD"]);
        for file in [
            "junit.xml",
            ".coverage.shard-1",
            ".coverage.shard-2",
            "base/coverage.xml",
        ] {
            let path = root.join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "").unwrap();
        }
        root
    }
}

/// The stand-in's calls when the report step runs in `dir`: each call's
/// arguments, `report` first.
fn stand_in_calls(
    dir: &Path,
    with: &[(&str, &str)],
    event: Option<(&str, &str)>,
) -> (Run, Vec<Vec<String>>) {
    let bin_dir = tempfile::tempdir().unwrap();
    let bin = bin_dir.path().join("pytest-mcp");
    fs::write(&bin, STUB).unwrap();
    let log = bin_dir.path().join("calls");
    fs::write(&log, "").unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&bin, fs::Permissions::from_mode(0o755)).unwrap();
    let event_file = bin_dir.path().join("event.json");
    let mut env: Vec<(&str, &OsStr)> = vec![("STUB_CALLS", log.as_os_str())];
    if let Some((name, payload)) = event {
        fs::write(&event_file, payload).unwrap();
        env.push(("GITHUB_EVENT_NAME", OsStr::new(name)));
        env.push(("GITHUB_EVENT_PATH", event_file.as_os_str()));
    }
    let run = run_report_in(dir, &bin, with, &env);
    let calls = fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| {
            l.split('\t')
                .filter(|a| !a.is_empty())
                .map(String::from)
                .collect()
        })
        .collect();
    (run, calls)
}

fn owned(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// The coverage flags of one call: what follows the result file.
fn flags_of(call: &[String]) -> Vec<String> {
    call.iter()
        .filter(|a| {
            ["--coverage=", "--base=", "--baseline-coverage="]
                .iter()
                .any(|f| a.starts_with(f))
        })
        .cloned()
        .collect()
}

const PULL_REQUEST: &str = r#"{"pull_request": {"number": 7, "base": {"ref": "main"}}}"#;

/// A pull request's run: actions/checkout's merge commit, two deep. The
/// comment's, the summary's and the annotations' renderings get every data
/// file the globs match, `--base=HEAD^1` and the baseline's files, each
/// flag with its value after `=`, after the result files; the `fail-on`
/// check none. One deep, `HEAD^1` is not there: a warning says why.
#[test]
fn a_pull_requests_renderings_get_its_coverage_against_the_merge_commits_first_parent() {
    let origin = Origin::new();
    let with = [
        ("files", "junit.xml"),
        ("coverage", ".coverage.*\n"),
        ("coverage-baseline", "base/*.xml"),
        ("fail-on", "failures"),
    ];
    let checkout = origin.checkout("two", "refs/pull/7/merge", 2);
    assert_eq!(git(&checkout, &["rev-parse", "HEAD^1"]), origin.main);
    let (run, calls) = stand_in_calls(&checkout, &with, Some(("pull_request", PULL_REQUEST)));
    assert!(run.output.status.success(), "{}", stdout(&run));
    let temp = run.temp.path();
    let coverage = [
        "--coverage=.coverage.shard-1",
        "--coverage=.coverage.shard-2",
        "--base=HEAD^1",
        "--baseline-coverage=base/coverage.xml",
    ];
    let rendering = |tail: &[&str]| {
        let mut call = owned(&["report", "junit.xml"]);
        call.extend(owned(&coverage));
        call.extend(owned(tail));
        call
    };
    let markdown = temp.join("pytest-mcp-report.md").display().to_string();
    let summary = temp.join("pytest-mcp-summary.md").display().to_string();
    assert_eq!(
        calls,
        [
            rendering(&["--format", "gfm", "--max-chars", "65536", "-o", &markdown]),
            rendering(&["--format", "gfm", "--max-chars", "1000000", "-o", &summary]),
            rendering(&["--format", "github"]),
            owned(&["report", "junit.xml", "--fail-on", "failures"]),
        ]
    );
    let out = stdout(&run);
    assert!(
        out.contains("Change coverage: against HEAD^1 (by the pull_request event)"),
        "{out}"
    );
    assert!(!out.contains("::warning"), "{out}");
    assert_eq!(run.summary, "report\n");

    let shallow = origin.checkout("one", "refs/pull/7/merge", 1);
    let (run, calls) = stand_in_calls(&shallow, &with, Some(("pull_request", PULL_REQUEST)));
    assert!(run.output.status.success(), "{}", stdout(&run));
    assert_eq!(flags_of(&calls[0]), coverage, "the report still gets them");
    assert!(
        stdout(&run).contains("::warning title=pytest-mcp::coverage-base HEAD^1 is not in this checkout: give actions/checkout fetch-depth: 2"),
        "{}",
        stdout(&run)
    );
}

/// The `--base` the renderings get, and the step's log.
fn base_of(dir: &Path, with: &[(&str, &str)], event: Option<(&str, &str)>) -> (String, String) {
    let (run, calls) = stand_in_calls(dir, with, event);
    assert!(run.output.status.success(), "{}", stdout(&run));
    assert_eq!(calls.len(), 2, "the comment's and the summary's renderings");
    let flags = flags_of(&calls[0]);
    assert_eq!(flags, flags_of(&calls[1]));
    assert_eq!(flags[0], "--coverage=base/coverage.xml");
    let base = flags[1].strip_prefix("--base=").expect("--base");
    (base.to_string(), stdout(&run))
}

/// The base each event gets when `coverage-base` is empty, and the input
/// when it is not.
#[test]
fn the_base_follows_the_event_unless_coverage_base_is_given() {
    let origin = Origin::new();
    let with = [
        ("files", "junit.xml"),
        ("coverage", "base/coverage.xml"),
        ("annotations", "false"),
    ];

    // The pull request's head checked out (one parent): the event's base.
    let head = origin.checkout("head", "refs/heads/feature", 0);
    assert_eq!(git(&head, &["rev-parse", "HEAD"]), origin.head);
    let event = format!(
        r#"{{"pull_request": {{"number": 7, "base": {{"ref": "main", "sha": "{}"}}}}}}"#,
        origin.first
    );
    let (base, out) = base_of(&head, &with, Some(("pull_request", event.as_str())));
    assert_eq!(base, origin.first, "{out}");
    assert!(!out.contains("::warning"), "{out}");

    // A push: the branch's tip before it; a new branch's (zeros): HEAD.
    let pushed = origin.checkout("push", "refs/heads/main", 0);
    let push = |before: &str| {
        format!(
            r#"{{"ref": "refs/heads/main", "before": "{before}", "after": "{}"}}"#,
            origin.main
        )
    };
    let (base, out) = base_of(&pushed, &with, Some(("push", push(&origin.first).as_str())));
    assert_eq!(base, origin.first, "{out}");
    assert!(
        out.contains(&format!("against {} (by the push event)", origin.first)),
        "{out}"
    );
    let (base, _) = base_of(
        &pushed,
        &with,
        Some(("push", push(&"0".repeat(40)).as_str())),
    );
    assert_eq!(base, "HEAD");
    for event in [
        None,
        Some(("workflow_dispatch", "{}")),
        Some(("pull_request_target", PULL_REQUEST)),
    ] {
        assert_eq!(base_of(&pushed, &with, event).0, "HEAD", "{event:?}");
    }

    // Given, it wins over the event's; git must know it.
    let given = [with.as_slice(), &[("coverage-base", "main~1")]].concat();
    let merge = origin.checkout("merge", "refs/pull/7/merge", 3);
    assert_eq!(git(&merge, &["rev-parse", "HEAD"]), origin.merge);
    let (base, out) = base_of(&merge, &given, Some(("pull_request", PULL_REQUEST)));
    assert_eq!(base, "main~1");
    assert!(
        out.contains("Change coverage: against main~1 (coverage-base)"),
        "{out}"
    );
    assert!(
        out.contains("::warning title=pytest-mcp::coverage-base main~1 is not in this checkout"),
        "{out}"
    );
    let given = [with.as_slice(), &[("coverage-base", origin.first.as_str())]].concat();
    let (base, out) = base_of(&merge, &given, None);
    assert_eq!(base, origin.first);
    assert!(!out.contains("::warning"), "{out}");
}

/// No `coverage`: no flag, as before the input existed; globs that match
/// nothing: a warning and no flag; not a git checkout: a warning; a
/// `coverage-base` git would read as an option: refused, nothing run.
#[test]
fn no_coverage_data_is_a_warning_and_a_bad_base_is_refused() {
    let origin = Origin::new();
    let checkout = origin.checkout("pr", "refs/pull/7/merge", 2);
    let event = Some(("pull_request", PULL_REQUEST));
    let (run, calls) = stand_in_calls(&checkout, &[("files", "junit.xml")], event);
    assert!(run.output.status.success(), "{}", stdout(&run));
    assert_eq!(calls.len(), 3);
    assert!(calls.iter().all(|c| flags_of(c).is_empty()), "{calls:?}");
    assert!(!stdout(&run).contains("Change coverage"));

    let with = [
        ("files", "junit.xml"),
        ("coverage", "shards/**/.coverage.*\nnothing/*.json"),
    ];
    let (run, calls) = stand_in_calls(&checkout, &with, event);
    assert!(run.output.status.success(), "{}", stdout(&run));
    assert!(calls.iter().all(|c| flags_of(c).is_empty()), "{calls:?}");
    let out = stdout(&run);
    assert!(
        out.contains("::warning title=pytest-mcp::no file matches shards/**/.coverage.*"),
        "{out}"
    );
    assert!(
        out.contains("::warning title=pytest-mcp::no coverage data matches 'shards/**/.coverage.* nothing/*.json': no change coverage"),
        "{out}"
    );

    let plain = tempfile::tempdir().unwrap();
    fs::write(plain.path().join("coverage.xml"), "").unwrap();
    let with = [("files", "junit.xml"), ("coverage", "coverage.xml")];
    let (run, calls) = stand_in_calls(plain.path(), &with, None);
    assert!(run.output.status.success(), "{}", stdout(&run));
    assert_eq!(
        flags_of(&calls[0]),
        ["--coverage=coverage.xml", "--base=HEAD"]
    );
    assert!(stdout(&run).contains("::warning title=pytest-mcp::no git checkout here"));

    for bad in [
        "--output=/tmp/x",
        "-h",
        "main..evil",
        "a b",
        "HEAD\n--all",
        "x\u{1b}",
    ] {
        let with = [
            ("files", "junit.xml"),
            ("coverage", ".coverage.*"),
            ("coverage-base", bad),
        ];
        let (run, calls) = stand_in_calls(&checkout, &with, event);
        assert_eq!(run.output.status.code(), Some(1), "{bad}: {}", stdout(&run));
        assert!(
            stdout(&run).contains("input coverage-base must be a git revision"),
            "{bad}"
        );
        assert!(calls.is_empty(), "{bad}: {calls:?}");
    }
}
