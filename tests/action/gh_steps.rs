//! The action's baseline and comment steps, run with bash as the runner
//! runs them, against the stand-in `gh` of tests/action/gh first on PATH:
//! which calls they make, what they send, and that a refused call (a fork's
//! read-only token) is a warning and never a failed step. GitHub itself is
//! not called: the fixtures stand for its answers.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use super::{ONE_FAILURE, SUMMARY_CHARS, gfm, repo, run_report_step, run_step, stdout};

/// The repository the runner names in `GITHUB_REPOSITORY`.
const REPOSITORY: &str = "octo/shop";
/// The marker of the default `comment-key`, the body's first line.
const MARKER: &str = "<!-- pytest-mcp comment-key=pytest-mcp -->";

fn fixture(name: &str) -> PathBuf {
    repo().join("tests/action").join(name)
}

/// The stand-in's state: the calls it logged and the bodies it was sent.
struct Gh {
    dir: tempfile::TempDir,
    env: Vec<(&'static str, OsString)>,
}

impl Gh {
    /// `env`: the runner's variables and the stand-in's `FAKE_GH_*`
    /// settings; PATH, `FAKE_GH_DIR` and `GITHUB_REPOSITORY` are added.
    fn new(env: &[(&'static str, &OsStr)]) -> Gh {
        let dir = tempfile::tempdir().unwrap();
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![fixture("")];
        paths.extend(std::env::split_paths(&path));
        let mut all = vec![
            ("PATH", std::env::join_paths(paths).unwrap()),
            ("FAKE_GH_DIR", dir.path().as_os_str().to_owned()),
            ("GITHUB_REPOSITORY", REPOSITORY.into()),
        ];
        all.extend(env.iter().map(|(k, v)| (*k, v.to_os_string())));
        Gh { dir, env: all }
    }

    fn env(&self) -> Vec<(&str, &OsStr)> {
        self.env.iter().map(|(k, v)| (*k, v.as_os_str())).collect()
    }

    /// Every call, its arguments joined by spaces.
    fn calls(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.path().join("calls"))
            .unwrap_or_default()
            .lines()
            .map(String::from)
            .collect()
    }

    /// The `n`th comment body sent (1-based).
    fn body(&self, n: usize) -> String {
        std::fs::read_to_string(self.dir.path().join(format!("body-{n}")))
            .unwrap_or_else(|e| panic!("no body {n} was sent: {e}"))
    }
}

fn os(path: &Path) -> &OsStr {
    path.as_os_str()
}

/// A comment file as the report step writes it: the marker of `key`, then
/// the report.
fn comment_file(dir: &Path, key: &str) -> PathBuf {
    let path = dir.join("comment.md");
    let body = format!("<!-- pytest-mcp comment-key={key} -->\n## Tests\n\nreport body\n");
    std::fs::write(&path, body).unwrap();
    path
}

/// The comment step with `comment_file` as the report step's output.
fn comment_step(gh: &Gh, comment_file: &Path, with: &[(&str, &str)]) -> super::Run {
    let file = comment_file.to_str().unwrap();
    let outputs = [("steps.report.outputs.comment-file", file)];
    run_step("comment", with, &outputs, &gh.env())
}

fn pull_request_event() -> PathBuf {
    fixture("event-pull-request.json")
}

/// No comment starts with the marker (one quotes it, another has another
/// key, over two pages): the step creates one on the event's pull request.
#[test]
fn a_comment_is_created_when_none_has_the_marker() {
    let (event, comments) = (pull_request_event(), fixture("comments-unmarked.json"));
    let gh = Gh::new(&[
        ("GITHUB_EVENT_PATH", os(&event)),
        ("FAKE_GH_COMMENTS", os(&comments)),
    ]);
    let temp = tempfile::tempdir().unwrap();
    let file = comment_file(temp.path(), "pytest-mcp");
    let run = comment_step(&gh, &file, &[]);
    assert!(run.output.status.success(), "{}", stdout(&run));
    assert_eq!(
        gh.calls(),
        vec![
            format!("api --paginate repos/{REPOSITORY}/issues/7/comments"),
            format!(
                "api --method POST repos/{REPOSITORY}/issues/7/comments -F body=@{}",
                file.display()
            ),
        ]
    );
    assert_eq!(gh.body(1), std::fs::read_to_string(&file).unwrap());
    assert!(stdout(&run).contains("Commented on pull request #7"));
}

/// The first comment that starts with the marker (on the second page) is
/// updated, the others are left alone; another key finds its own comment.
#[test]
fn the_marked_comment_is_updated() {
    let (event, comments) = (pull_request_event(), fixture("comments-marked.json"));
    let gh = Gh::new(&[
        ("GITHUB_EVENT_PATH", os(&event)),
        ("FAKE_GH_COMMENTS", os(&comments)),
    ]);
    let temp = tempfile::tempdir().unwrap();
    let file = comment_file(temp.path(), "pytest-mcp");
    let run = comment_step(&gh, &file, &[]);
    assert!(run.output.status.success(), "{}", stdout(&run));
    let update = format!(
        "api --method PATCH repos/{REPOSITORY}/issues/comments/42 -F body=@{}",
        file.display()
    );
    assert_eq!(gh.calls()[1..], [update]);
    assert_eq!(gh.body(1), std::fs::read_to_string(&file).unwrap());

    let lint = tempfile::tempdir().unwrap();
    let file = comment_file(lint.path(), "pytest-mcp-lint");
    let run = comment_step(&gh, &file, &[]);
    assert!(run.output.status.success(), "{}", stdout(&run));
    let calls = gh.calls();
    assert!(
        calls[3].starts_with(&format!(
            "api --method PATCH repos/{REPOSITORY}/issues/comments/13 "
        )),
        "{calls:?}"
    );
}

/// The report step writes the comment file (the marker, then the report in
/// GitHub's rendering, within `max-chars` together) and the comment step
/// sends exactly that.
#[test]
fn the_comment_is_the_report_with_the_marker() {
    let files = format!("{ONE_FAILURE}/report.json");
    let run = run_report_step(&[
        ("files", &files),
        ("annotations", "false"),
        ("comment", "true"),
        ("max-chars", "2000"),
    ]);
    assert!(run.output.status.success(), "{}", stdout(&run));
    let markdown = run.temp.path().join("pytest-mcp-report.md");
    let comment = run.temp.path().join("pytest-mcp-comment.md");
    assert_eq!(
        run.github_output,
        format!(
            "markdown-file={}\ncomment-file={}\n",
            markdown.display(),
            comment.display()
        )
    );
    let report = gfm(&[&files], 2000 - MARKER.len() - 1);
    assert_eq!(std::fs::read_to_string(&markdown).unwrap(), report);
    let body = std::fs::read_to_string(&comment).unwrap();
    assert_eq!(body, format!("{MARKER}\n{report}"));
    assert!(body.chars().count() <= 2000, "{}", body.chars().count());
    assert_eq!(run.summary, gfm(&[&files], SUMMARY_CHARS));

    let (event, comments) = (pull_request_event(), fixture("comments-unmarked.json"));
    let gh = Gh::new(&[
        ("GITHUB_EVENT_PATH", os(&event)),
        ("FAKE_GH_COMMENTS", os(&comments)),
    ]);
    let sent = comment_step(&gh, &comment, &[]);
    assert!(sent.output.status.success(), "{}", stdout(&sent));
    assert_eq!(gh.body(1), body);
}

/// `comment: false` (no comment file) and a push event call nothing; a
/// push event says why there is no comment; `pr-number` names the pull
/// request when the event does not, and must be a number.
#[test]
fn outside_a_pull_request_nothing_is_called() {
    let (push, comments) = (
        fixture("event-push.json"),
        fixture("comments-unmarked.json"),
    );
    let gh = Gh::new(&[
        ("GITHUB_EVENT_PATH", os(&push)),
        ("FAKE_GH_COMMENTS", os(&comments)),
    ]);
    let outputs: [(&str, &str); 0] = [];
    let run = run_step("comment", &[], &outputs, &gh.env());
    assert!(run.output.status.success(), "{}", stdout(&run));
    assert_eq!(stdout(&run), "", "comment: false says nothing");

    let temp = tempfile::tempdir().unwrap();
    let file = comment_file(temp.path(), "pytest-mcp");
    let run = comment_step(&gh, &file, &[]);
    assert!(run.output.status.success(), "{}", stdout(&run));
    assert_eq!(
        stdout(&run),
        "::notice title=pytest-mcp::not a pull request (and no pr-number input): no comment\n"
    );
    assert_eq!(gh.calls(), Vec::<String>::new(), "gh is never called");

    let run = comment_step(&gh, &file, &[("pr-number", "7; rm -rf ~")]);
    assert_eq!(run.output.status.code(), Some(1), "{}", stdout(&run));
    assert!(stdout(&run).contains("pr-number must be a pull request's number"));
    assert_eq!(gh.calls(), Vec::<String>::new());

    let run = comment_step(&gh, &file, &[("pr-number", "12")]);
    assert!(run.output.status.success(), "{}", stdout(&run));
    let calls = gh.calls();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert!(calls[1].starts_with(&format!(
        "api --method POST repos/{REPOSITORY}/issues/12/comments "
    )));
}

/// A read-only token (a pull request from a fork): the refused call is a
/// warning naming the fix, and the step succeeds.
#[test]
fn a_refused_comment_is_a_warning_and_not_a_failure() {
    let (event, comments) = (pull_request_event(), fixture("comments-unmarked.json"));
    let temp = tempfile::tempdir().unwrap();
    let file = comment_file(temp.path(), "pytest-mcp");
    for (fail, what, calls) in [
        (
            "api --method POST *",
            "cannot comment on pull request #7",
            2,
        ),
        (
            "api --paginate *",
            "cannot list the comments on pull request #7",
            1,
        ),
    ] {
        let gh = Gh::new(&[
            ("GITHUB_EVENT_PATH", os(&event)),
            ("FAKE_GH_COMMENTS", os(&comments)),
            ("FAKE_GH_FAIL", OsStr::new(fail)),
        ]);
        let run = comment_step(&gh, &file, &[]);
        assert_eq!(run.output.status.code(), Some(0), "{}", stdout(&run));
        let out = stdout(&run);
        let warning = format!(
            "::warning title=pytest-mcp::{what}: HTTP 403: Resource not accessible by integration"
        );
        assert!(out.starts_with(&warning), "{out}");
        assert!(out.contains("workflow_run pattern"), "{out}");
        assert_eq!(out.lines().count(), 1, "one warning: {out}");
        assert_eq!(gh.calls().len(), calls, "{:?}", gh.calls());
    }
}

/// The runner's variables of a pull request's run of `tests.yml`.
fn pull_request_run(gh_env: &[(&'static str, &OsStr)]) -> Vec<(&'static str, OsString)> {
    let mut env: Vec<(&'static str, OsString)> = vec![
        ("GITHUB_BASE_REF", "main".into()),
        (
            "GITHUB_WORKFLOW_REF",
            format!("{REPOSITORY}/.github/workflows/tests.yml@refs/pull/7/merge").into(),
        ),
    ];
    env.extend(gh_env.iter().map(|(k, v)| (*k, v.to_os_string())));
    env
}

fn baseline_gh(env: &[(&'static str, OsString)]) -> Gh {
    let env: Vec<(&'static str, &OsStr)> = env.iter().map(|(k, v)| (*k, v.as_os_str())).collect();
    Gh::new(&env)
}

const BEFORE: &str = "tests/fixtures/baseline/before.xml";
const AFTER: &str = "tests/fixtures/baseline/after.xml";

/// The latest successful run of this workflow on the base branch that is
/// not a pull request's (a fork's branch may bear the base branch's name)
/// is found, its artifact downloaded, and the report step compares with it:
/// new failures first.
#[test]
fn the_baseline_comes_from_the_base_branchs_latest_successful_run() {
    let (runs, artifact) = (fixture("runs.json"), repo().join(BEFORE));
    let gh = baseline_gh(&pull_request_run(&[
        ("FAKE_GH_RUNS", os(&runs)),
        ("FAKE_GH_ARTIFACT", os(&artifact)),
    ]));
    let outputs: [(&str, &str); 0] = [];
    let with = [("baseline-artifact", "test-results")];
    let run = run_step("baseline", &with, &outputs, &gh.env());
    assert!(run.output.status.success(), "{}", stdout(&run));
    let dir = run.temp.path().join("pytest-mcp-baseline");
    assert_eq!(
        gh.calls(),
        vec![
            format!(
                "run list --repo {REPOSITORY} --branch main --workflow tests.yml --status success --limit 20 --json databaseId,event"
            ),
            format!(
                "run download 123456789 --repo {REPOSITORY} --name test-results --dir {}",
                dir.display()
            ),
        ]
    );
    assert_eq!(run.github_output, format!("dir={}\n", dir.display()));
    assert!(dir.join("before.xml").is_file());

    let bin = env!("CARGO_BIN_EXE_pytest-mcp");
    let dir = dir.to_str().unwrap();
    let outputs = [
        ("steps.install.outputs.bin", bin),
        ("steps.baseline.outputs.dir", dir),
    ];
    let with = [("files", AFTER), ("annotations", "false")];
    let report = run_step("report", &with, &outputs, &[]);
    assert!(report.output.status.success(), "{}", stdout(&report));
    let compared = gfm(&["--baseline", dir, AFTER], SUMMARY_CHARS);
    assert_eq!(report.summary, compared);
    assert_ne!(compared, gfm(&[AFTER], SUMMARY_CHARS), "it compares");
    let new = compared.find("test_total").expect("the new failure");
    let still = compared
        .find("test_coupon")
        .expect("the failure already there");
    assert!(new < still, "new failures first:\n{compared}");
}

/// `base-branch` and `baseline-workflow` name them outside a pull request
/// (a `workflow_run` workflow); nothing found (no run, or only pull
/// requests' runs) is a notice, a refused call a warning; the step succeeds
/// and the report has no comparison.
#[test]
fn no_baseline_is_a_notice_or_a_warning_never_a_failure() {
    let (none, runs) = (fixture("runs-none.json"), fixture("runs.json"));
    let artifact = repo().join(BEFORE);
    let outputs: [(&str, &str); 0] = [];
    let artifact_input = ("baseline-artifact", "test-results");

    let gh = baseline_gh(&pull_request_run(&[("FAKE_GH_RUNS", os(&none))]));
    let run = run_step("baseline", &[artifact_input], &outputs, &gh.env());
    assert!(run.output.status.success(), "{}", stdout(&run));
    assert_eq!(
        stdout(&run),
        "::notice title=pytest-mcp::no successful run of tests.yml on main: no baseline comparison\n"
    );
    assert_eq!(gh.calls().len(), 1);
    assert_eq!(run.github_output, "");

    let gh = baseline_gh(&pull_request_run(&[
        ("FAKE_GH_RUNS", os(&runs)),
        ("FAKE_GH_ARTIFACT", os(&artifact)),
        ("FAKE_GH_FAIL", OsStr::new("run download *")),
    ]));
    let run = run_step("baseline", &[artifact_input], &outputs, &gh.env());
    assert_eq!(run.output.status.code(), Some(0), "{}", stdout(&run));
    assert!(
        stdout(&run).starts_with(
            "::warning title=pytest-mcp::cannot download artifact test-results of run 123456789 (tests.yml on main): HTTP 403: Resource not accessible by integration"
        ),
        "{}",
        stdout(&run)
    );
    assert_eq!(run.github_output, "");

    // No pull request, no base-branch input: nothing is called.
    let gh = Gh::new(&[("FAKE_GH_RUNS", os(&runs))]);
    let run = run_step("baseline", &[artifact_input], &outputs, &gh.env());
    assert!(run.output.status.success(), "{}", stdout(&run));
    assert!(stdout(&run).starts_with("::notice title=pytest-mcp::no base branch"));
    assert_eq!(gh.calls(), Vec::<String>::new());
    // No baseline-artifact input: nothing at all.
    let run = run_step("baseline", &[], &outputs, &gh.env());
    assert_eq!(stdout(&run), "");
    assert_eq!(gh.calls(), Vec::<String>::new());

    // Named by the inputs.
    let gh = Gh::new(&[
        ("FAKE_GH_RUNS", os(&runs)),
        ("FAKE_GH_ARTIFACT", os(&artifact)),
    ]);
    let with = [
        artifact_input,
        ("base-branch", "develop"),
        ("baseline-workflow", "ci.yml"),
    ];
    let run = run_step("baseline", &with, &outputs, &gh.env());
    assert!(run.output.status.success(), "{}", stdout(&run));
    assert!(
        gh.calls()[0].starts_with(&format!(
            "run list --repo {REPOSITORY} --branch develop --workflow ci.yml "
        )),
        "{:?}",
        gh.calls()
    );
}

/// `KEY=value` lines of a step's `GITHUB_OUTPUT` as the expressions later
/// steps read them (`steps.ID.outputs.KEY`).
pub(super) fn outputs_of(id: &str, run: &super::Run) -> Vec<(String, String)> {
    run.github_output
        .lines()
        .map(|l| {
            let (key, value) = l.split_once('=').expect("KEY=value");
            (format!("steps.{id}.outputs.{key}"), value.to_string())
        })
        .collect()
}

/// The action's steps after install, one after the other as the runner
/// runs them on a pull request, each reading the outputs the earlier ones
/// wrote: the base branch's results are downloaded, the report compares
/// with them, the comment is updated with it, and `fail-on` then fails.
#[test]
fn the_steps_run_in_order_on_a_pull_request() {
    let (event, comments, runs) = (
        pull_request_event(),
        fixture("comments-marked.json"),
        fixture("runs.json"),
    );
    let artifact = repo().join(BEFORE);
    let gh = baseline_gh(&pull_request_run(&[
        ("GITHUB_EVENT_PATH", os(&event)),
        ("FAKE_GH_COMMENTS", os(&comments)),
        ("FAKE_GH_RUNS", os(&runs)),
        ("FAKE_GH_ARTIFACT", os(&artifact)),
    ]));
    let with = [
        ("files", AFTER),
        ("annotations", "false"),
        ("comment", "true"),
        ("baseline-artifact", "test-results"),
        ("fail-on", "failures"),
    ];
    let mut outputs = vec![(
        "steps.install.outputs.bin".to_string(),
        env!("CARGO_BIN_EXE_pytest-mcp").to_string(),
    )];
    let mut kept = Vec::new();
    for id in ["baseline", "report", "comment", "fail-on"] {
        let given: Vec<(&str, &str)> = outputs
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let run = run_step(id, &with, &given, &gh.env());
        let expected = if id == "fail-on" { 1 } else { 0 };
        assert_eq!(
            run.output.status.code(),
            Some(expected),
            "{id}: {}",
            stdout(&run)
        );
        outputs.extend(outputs_of(id, &run));
        kept.push(run);
    }
    let dir = kept[0].temp.path().join("pytest-mcp-baseline");
    let compared = gfm(
        &["--baseline", dir.to_str().unwrap(), AFTER],
        65536 - MARKER.len() - 1,
    );
    assert_eq!(gh.body(1), format!("{MARKER}\n{compared}"));
    let calls = gh.calls();
    assert_eq!(calls.len(), 4, "{calls:?}");
    assert!(
        calls[3].starts_with(&format!(
            "api --method PATCH repos/{REPOSITORY}/issues/comments/42 "
        )),
        "{calls:?}"
    );
}

/// Without `GITHUB_WORKFLOW_REF` (GitHub Enterprise Server before 3.9) the
/// workflow is named by `GITHUB_WORKFLOW`, which `gh run list` takes too.
#[test]
fn the_workflow_is_named_by_its_name_without_its_ref() {
    let (runs, artifact) = (fixture("runs.json"), repo().join(BEFORE));
    let gh = Gh::new(&[
        ("GITHUB_BASE_REF", OsStr::new("main")),
        ("GITHUB_WORKFLOW", OsStr::new("tests")),
        ("FAKE_GH_RUNS", os(&runs)),
        ("FAKE_GH_ARTIFACT", os(&artifact)),
    ]);
    let outputs: [(&str, &str); 0] = [];
    let with = [("baseline-artifact", "test-results")];
    let run = run_step("baseline", &with, &outputs, &gh.env());
    assert!(run.output.status.success(), "{}", stdout(&run));
    assert!(
        gh.calls()[0].starts_with(&format!(
            "run list --repo {REPOSITORY} --branch main --workflow tests "
        )),
        "{:?}",
        gh.calls()
    );
}

/// A runner without `gh` (a self-hosted one): a warning, and the step
/// succeeds.
#[test]
fn a_runner_without_gh_gets_a_warning() {
    let temp = tempfile::tempdir().unwrap();
    let file = comment_file(temp.path(), "pytest-mcp");
    let event = pull_request_event();
    let gh = Gh::new(&[("GITHUB_EVENT_PATH", os(&event))]);
    let mut env = gh.env();
    // The system's directories alone: no stand-in, and no gh there.
    let path = OsStr::new("/usr/bin:/bin");
    assert!(!Path::new("/usr/bin/gh").exists() && !Path::new("/bin/gh").exists());
    env.push(("PATH", path));
    let outputs = [("steps.report.outputs.comment-file", file.to_str().unwrap())];
    let run = run_step("comment", &[], &outputs, &env);
    assert!(run.output.status.success(), "{}", stdout(&run));
    assert_eq!(
        stdout(&run),
        "::warning title=pytest-mcp::gh not found on this runner: no comment\n"
    );
    let with = [
        ("baseline-artifact", "test-results"),
        ("base-branch", "main"),
    ];
    let run = run_step("baseline", &with, &[], &env);
    assert!(run.output.status.success(), "{}", stdout(&run));
    assert_eq!(
        stdout(&run),
        "::warning title=pytest-mcp::gh not found on this runner: no baseline comparison\n"
    );
    assert_eq!(gh.calls(), Vec::<String>::new());
}

/// Writes `text` as a stand-in's fixture file in `dir`.
fn fixture_in(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Only `comment-author`'s comment with the marker is updated: a
/// stranger's copy of the marker (even earlier) is left alone, and when
/// only a stranger's has it a comment of our own is created. A body edited
/// on GitHub's site (CRLF line ends) is still found.
#[test]
fn only_the_authors_marked_comment_is_updated() {
    let temp = tempfile::tempdir().unwrap();
    let event = pull_request_event();
    let file = comment_file(temp.path(), "pytest-mcp");
    let bot = "github-actions[bot]";
    let lists = [
        (
            format!(
                r#"[{{"id": 5, "user": {{"login": "mallory"}}, "body": "{MARKER}\nAll tests passed"}}, {{"id": 9, "user": {{"login": "{bot}"}}, "body": "{MARKER}\r\nold"}}]"#
            ),
            Some(9),
        ),
        (
            format!(r#"[{{"id": 5, "user": {{"login": "mallory"}}, "body": "{MARKER}\nx"}}]"#),
            None,
        ),
    ];
    for (i, (list, updated)) in lists.into_iter().enumerate() {
        let comments = fixture_in(temp.path(), &format!("comments-{i}.json"), &list);
        let gh = Gh::new(&[
            ("GITHUB_EVENT_PATH", os(&event)),
            ("FAKE_GH_COMMENTS", os(&comments)),
        ]);
        let run = comment_step(&gh, &file, &[]);
        assert!(run.output.status.success(), "{}", stdout(&run));
        let sent = &gh.calls()[1];
        match updated {
            Some(id) => assert!(
                sent.starts_with(&format!(
                    "api --method PATCH repos/{REPOSITORY}/issues/comments/{id} "
                )),
                "{sent}"
            ),
            None => assert!(sent.starts_with("api --method POST "), "{sent}"),
        }
    }
}

/// What gh says that is not a list of comments, and a refusal that is not
/// a token's (a body over GitHub's limit: 422), are warnings too; only a
/// 403 points to the fork pattern.
#[test]
fn odd_answers_are_warnings_and_the_fork_hint_needs_a_403() {
    let temp = tempfile::tempdir().unwrap();
    let event = pull_request_event();
    let file = comment_file(temp.path(), "pytest-mcp");
    let junk = fixture_in(temp.path(), "junk.json", "<html>502 Bad Gateway</html>\n");
    let gh = Gh::new(&[
        ("GITHUB_EVENT_PATH", os(&event)),
        ("FAKE_GH_COMMENTS", os(&junk)),
    ]);
    let run = comment_step(&gh, &file, &[]);
    assert!(run.output.status.success(), "{}", stdout(&run));
    let out = stdout(&run);
    assert!(
        out.starts_with("::warning title=pytest-mcp::cannot read gh's list of the comments"),
        "{out}"
    );
    assert!(!out.contains("read-only token"), "{out}");
    assert_eq!(gh.calls().len(), 1, "nothing is sent after junk");

    // The stand-in refuses with a 403: the hint is there.
    let comments = fixture("comments-unmarked.json");
    let gh = Gh::new(&[
        ("GITHUB_EVENT_PATH", os(&event)),
        ("FAKE_GH_COMMENTS", os(&comments)),
        ("FAKE_GH_FAIL", OsStr::new("api --method POST *")),
    ]);
    let run = comment_step(&gh, &file, &[]);
    assert!(run.output.status.success());
    assert!(stdout(&run).contains("read-only token"), "{}", stdout(&run));
}

/// `head-sha` (the workflow_run pattern): the pull request is commented on
/// only when its head is that commit; otherwise a warning and nothing
/// sent. A head-sha that is no commit id is refused by the report step.
#[test]
fn head_sha_must_be_the_pull_requests_head() {
    let temp = tempfile::tempdir().unwrap();
    let file = comment_file(temp.path(), "pytest-mcp");
    let comments = fixture("comments-unmarked.json");
    let ours = "0123456789abcdef0123456789abcdef01234567";
    let theirs = "fedcba9876543210fedcba9876543210fedcba98";
    for (head, commented) in [(ours, true), (theirs, false)] {
        let gh = Gh::new(&[
            ("FAKE_GH_COMMENTS", os(&comments)),
            ("FAKE_GH_HEAD_SHA", OsStr::new(head)),
        ]);
        let run = comment_step(&gh, &file, &[("pr-number", "8"), ("head-sha", ours)]);
        assert!(run.output.status.success(), "{}", stdout(&run));
        let calls = gh.calls();
        assert_eq!(
            calls[0],
            format!("api repos/{REPOSITORY}/pulls/8 --jq .head.sha")
        );
        let sent = calls.iter().any(|c| c.starts_with("api --method"));
        assert_eq!(sent, commented, "{head}: {calls:?}");
        if !commented {
            assert!(stdout(&run).contains("not at head-sha"), "{}", stdout(&run));
        }
    }
    // The links of the report point at that commit.
    let files = format!("{ONE_FAILURE}/report.json");
    let bin = [(
        "steps.install.outputs.bin",
        env!("CARGO_BIN_EXE_pytest-mcp"),
    )];
    let with = [
        ("files", files.as_str()),
        ("head-sha", ours),
        ("annotations", "false"),
    ];
    let repository = [("GITHUB_REPOSITORY", OsStr::new(REPOSITORY))];
    let run = run_step("report", &with, &bin, &repository);
    assert!(run.output.status.success(), "{}", stdout(&run));
    let link = format!("](https://github.com/{REPOSITORY}/blob/{ours}/");
    let report = std::fs::read_to_string(run.temp.path().join("pytest-mcp-report.md")).unwrap();
    assert!(report.contains(&link), "{report}");
    let run = run_report_step(&[("files", &files), ("head-sha", "main; echo")]);
    assert_eq!(run.output.status.code(), Some(1), "{}", stdout(&run));
    assert!(stdout(&run).contains("head-sha must be"));
}
