//! The action's history of runs (issue 32): the `history` step names the
//! cache keys, the cache steps restore the store before the report and
//! save it after, and the report step records each run once while every
//! rendering tells the failures as new, failing before or flaky.
//!
//! actions/cache cannot run here: `Cache` stands for it, with its rules
//! (a key is written once; a restore takes the exact key, else the newest
//! entry starting with each restore key in turn, from the scopes a run may
//! read: its own branch, the pull request's base branch, the default
//! branch). It is driven by the `with:` of action.yml's cache steps, read
//! and filled in as the runner would, so that the keys tested are the
//! action's.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use yaml_rust2::Yaml;

use super::gh_steps::outputs_of;
use super::{Run, action, expressions, repo, run_step, stdout, step, steps, text};

/// The history fixtures: `test_known` fails in each; `test_flip` passes in
/// `KNOWN` and fails in the others; `test_new` fails in `NEW` alone.
const KNOWN: &str = "tests/action/history/known.xml";
const NEW: &str = "tests/action/history/new.xml";
const KNOWN_AND_FLAKY: &str = "tests/action/history/known-and-flaky.xml";

const MAIN_SHA: &str = "aaaaaaa111111111111111111111111111111111";
const PR_SHA: &str = "bbbbbbb222222222222222222222222222222222";
const PR_NEXT_SHA: &str = "ccccccc333333333333333333333333333333333";
const LATER_SHA: &str = "ddddddd444444444444444444444444444444444";

/// One entry of the stand-in cache: the branch it was saved from, its key
/// and the file.
pub(super) struct Entry {
    scope: String,
    pub(super) key: String,
    pub(super) file: Vec<u8>,
}

/// The repository's Actions cache as actions/cache/restore and save see
/// it.
#[derive(Default)]
pub(super) struct Cache {
    entries: Vec<Entry>,
}

impl Cache {
    pub(super) fn restore(
        &self,
        scopes: &[&str],
        key: &str,
        restore_keys: &[String],
    ) -> Option<&Entry> {
        let exact = scopes
            .iter()
            .find_map(|s| self.entries.iter().find(|e| e.scope == *s && e.key == key));
        exact.or_else(|| {
            restore_keys.iter().find_map(|prefix| {
                scopes.iter().find_map(|s| {
                    let newest_first = self.entries.iter().rev();
                    newest_first
                        .filter(|e| e.scope == *s)
                        .find(|e| e.key.starts_with(prefix.as_str()))
                })
            })
        })
    }

    pub(super) fn save(&mut self, scope: &str, key: &str, file: Vec<u8>) {
        assert!(
            !self
                .entries
                .iter()
                .any(|e| e.scope == scope && e.key == key),
            "cache key {key} saved twice"
        );
        self.entries.push(Entry {
            scope: scope.to_string(),
            key: key.to_string(),
            file,
        });
    }
}

/// One job's run of the action: the event, the commit, the run.
struct Job<'a> {
    /// `GITHUB_REF_NAME`: `main`, or `7/merge` for pull request 7.
    branch: &'a str,
    /// The pull request's base branch.
    base: Option<&'a str>,
    sha: &'a str,
    run_id: &'a str,
    attempt: &'a str,
    with: Vec<(&'a str, &'a str)>,
}

/// What a job left: each step's run, and the cache key it restored.
struct Done {
    history: Run,
    report: Run,
    fail_on: Run,
    restored: Option<String>,
}

impl Done {
    /// The report for people (the comment's and `markdown-file`'s).
    fn markdown(&self) -> String {
        fs::read_to_string(self.report.temp.path().join("pytest-mcp-report.md")).unwrap()
    }

    /// The saved store's number of runs.
    fn runs_kept(&self) -> i64 {
        let file = self
            .history
            .temp
            .path()
            .join("pytest-mcp-history/history.sqlite");
        let db = rusqlite::Connection::open(&file).unwrap();
        db.query_row("SELECT count(*) FROM runs", [], |r| r.get(0))
            .unwrap()
    }
}

/// `${{ steps.ID.outputs.NAME }}` in `value` replaced by `outputs` (empty
/// when not given), as the runner fills in a `with:`.
fn fill_in(value: &str, outputs: &BTreeMap<String, String>) -> String {
    let mut filled = value.to_string();
    for expr in expressions(value) {
        let given = outputs.get(&expr).cloned().unwrap_or_default();
        filled = filled.replace(&format!("${{{{ {expr} }}}}"), &given);
    }
    filled
}

/// A `with:` value of the step `id`, filled in.
pub(super) fn with_value(id: &str, name: &str, outputs: &BTreeMap<String, String>) -> String {
    let action = action();
    fill_in(text(&step(&action, id)["with"][name], name), outputs)
}

/// The runner's variables of `job`: a push to its branch, or a pull
/// request's run; `main` is the default branch.
fn runner_env(job: &Job, event: &Path) -> Vec<(&'static str, OsString)> {
    let name = if job.base.is_some() {
        "pull_request"
    } else {
        "push"
    };
    let mut env: Vec<(&'static str, OsString)> = vec![
        ("GITHUB_EVENT_NAME", name.into()),
        ("GITHUB_EVENT_PATH", event.into()),
        ("GITHUB_REF_NAME", job.branch.into()),
        ("GITHUB_JOB", "test".into()),
        ("GITHUB_RUN_ID", job.run_id.into()),
        ("GITHUB_RUN_ATTEMPT", job.attempt.into()),
        ("GITHUB_SHA", job.sha.into()),
    ];
    if let Some(base) = job.base {
        env.push(("GITHUB_BASE_REF", base.into()));
    }
    env
}

/// An event whose repository's default branch is `main`.
pub(super) fn event_file(dir: &Path) -> PathBuf {
    let path = dir.join("event.json");
    fs::write(&path, r#"{"repository": {"default_branch": "main"}}"#).unwrap();
    path
}

/// The history, restore, report, save and fail-on steps of `job`, one
/// after the other, the cache steps played by `cache` as actions/cache
/// plays them with the `with:` and `if:` of action.yml.
fn run_job(cache: &mut Cache, job: &Job) -> Done {
    let events = tempfile::tempdir().unwrap();
    let env = runner_env(job, &event_file(events.path()));
    let env: Vec<(&str, &std::ffi::OsStr)> = env.iter().map(|(k, v)| (*k, v.as_os_str())).collect();
    let mut outputs = BTreeMap::from([(
        "steps.install.outputs.bin".to_string(),
        env!("CARGO_BIN_EXE_pytest-mcp").to_string(),
    )]);
    let run = |id: &str, outputs: &BTreeMap<String, String>| {
        let pairs: Vec<(&str, &str)> = outputs
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let done = run_step(id, &job.with, &pairs, &env);
        assert!(
            done.output.status.success() || id == "fail-on",
            "{id}: {}",
            stdout(&done)
        );
        done
    };

    let history = run("history", &outputs);
    outputs.extend(outputs_of("history", &history));
    let mut restored = None;
    // The restore step's `if: steps.history.outputs.key != ''`.
    if outputs
        .get("steps.history.outputs.key")
        .is_some_and(|k| !k.is_empty())
    {
        let key = with_value("history-restore", "key", &outputs);
        let restore_keys: Vec<String> = with_value("history-restore", "restore-keys", &outputs)
            .lines()
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty())
            .collect();
        let mut scopes = vec![job.branch];
        scopes.extend(job.base);
        scopes.push("main");
        if let Some(entry) = cache.restore(&scopes, &key, &restore_keys) {
            let path = PathBuf::from(with_value("history-restore", "path", &outputs));
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, &entry.file).unwrap();
            restored = Some(entry.key.clone());
            outputs.insert(
                "steps.history-restore.outputs.cache-matched-key".to_string(),
                entry.key.clone(),
            );
        }
    }
    let report = run("report", &outputs);
    outputs.extend(outputs_of("report", &report));
    if outputs
        .get("steps.report.outputs.history-recorded")
        .map(String::as_str)
        == Some("true")
    {
        let path = with_value("history-save", "path", &outputs);
        let key = with_value("history-save", "key", &outputs);
        cache.save(job.branch, &key, fs::read(&path).unwrap());
    }
    let fail_on = run("fail-on", &outputs);
    Done {
        history,
        report,
        fail_on,
        restored,
    }
}

/// A push to main, then a pull request: its first run, a re-run of the
/// same commit, a new commit. The pull request starts from main's history
/// and each run from the one before; a test failing all along is `failing
/// for N runs, since` main's commit, one that passed and then failed on the
/// re-run's commit is flaky, one that passed on the commit before and fails
/// now is new. `fail-on: new` passes while the failures are known or flaky
/// and fails on a new one. Each job records its run once, and main's
/// history never sees the pull request's runs.
/// A push to main: the history step and the report, with `fail-on: new`.
fn push(sha: &'static str, run_id: &'static str, files: &'static str) -> Job<'static> {
    Job {
        branch: "main",
        base: None,
        sha,
        run_id,
        attempt: "1",
        with: vec![("files", files), ("fail-on", "new")],
    }
}

/// A pull request's job into main, at one attempt of its run.
fn pull_request(
    sha: &'static str,
    run_id: &'static str,
    attempt: &'static str,
    files: &'static str,
) -> Job<'static> {
    Job {
        branch: "7/merge",
        base: Some("main"),
        sha,
        run_id,
        attempt,
        with: vec![("files", files), ("fail-on", "new")],
    }
}

const MAIN_KEY: &str = "pytest-mcp-history:test::main:101-1";
const FIRST_KEY: &str = "pytest-mcp-history:test::7/merge:202-1";

/// Main's first run: no history, so every failure is new.
fn main_starts_the_history(cache: &mut Cache) {
    let main = run_job(cache, &push(MAIN_SHA, "101", KNOWN));
    assert_eq!(main.restored, None);
    let out = stdout(&main.report);
    assert!(
        out.contains("History of runs: none restored, this run starts one"),
        "{out}"
    );
    assert!(
        !main.markdown().contains("failing for"),
        "{}",
        main.markdown()
    );
    assert_eq!(main.runs_kept(), 1);
    assert_eq!(
        main.fail_on.output.status.code(),
        Some(1),
        "no history: new"
    );
}

/// The pull request's first run starts from main's history.
fn the_pull_request_starts_from_mains(cache: &mut Cache) {
    let first = run_job(cache, &pull_request(PR_SHA, "202", "1", KNOWN));
    assert_eq!(first.restored.as_deref(), Some(MAIN_KEY));
    let out = stdout(&first.report);
    assert!(
        out.contains(&format!("History of runs: restored from cache {MAIN_KEY}")),
        "{out}"
    );
    let markdown = first.markdown();
    assert!(
        markdown.contains("failing for 2 runs, since aaaaaaa"),
        "{markdown}"
    );
    assert_eq!(
        first.runs_kept(),
        2,
        "recorded once, whatever the renderings"
    );
    assert_eq!(
        first.fail_on.output.status.code(),
        Some(0),
        "{}",
        stdout(&first.fail_on)
    );
}

/// A re-run of the same commit: test_flip fails where it passed.
fn a_rerun_tells_the_flip_flaky(cache: &mut Cache) {
    let rerun = run_job(cache, &pull_request(PR_SHA, "202", "2", KNOWN_AND_FLAKY));
    assert_eq!(rerun.restored.as_deref(), Some(FIRST_KEY));
    let markdown = rerun.markdown();
    assert!(
        markdown.contains("failing for 3 runs, since aaaaaaa"),
        "{markdown}"
    );
    assert!(
        markdown.contains("flaky, failed 1 of the last 3 runs"),
        "{markdown}"
    );
    assert_eq!(
        rerun.report.summary, markdown,
        "the job summary tells them too"
    );
    let annotations = stdout(&rerun.report);
    assert!(
        annotations.contains("(flaky%2C failed 1 of the last 3 runs)"),
        "{annotations}"
    );
    assert_eq!(rerun.runs_kept(), 3);
    assert!(rerun.report.github_output.ends_with("fail-on-status=0\n"));
    assert_eq!(rerun.fail_on.output.status.code(), Some(0));
    assert_eq!(stdout(&rerun.fail_on), "");
}

/// Without the history the same results hold new failures.
fn without_the_history_they_are_new(cache: &mut Cache) {
    let mut alone = pull_request(PR_SHA, "202", "3", KNOWN_AND_FLAKY);
    alone.with.push(("history", "false"));
    let alone = run_job(cache, &alone);
    assert_eq!(alone.history.github_output, "");
    assert_eq!(alone.restored, None);
    assert!(!alone.markdown().contains("flaky, failed"));
    assert!(alone.report.github_output.ends_with("fail-on-status=1\n"));
    assert_eq!(alone.fail_on.output.status.code(), Some(1));
}

/// A new commit: test_new fails where it passed (new); test_flip fails
/// again: known to flip on the commit before, and its outcome did not
/// change with the code, so it is still flaky (docs/flaky.md).
fn a_new_commit_tells_the_new_failure(cache: &mut Cache) {
    let pushed = run_job(cache, &pull_request(PR_NEXT_SHA, "203", "1", NEW));
    let markdown = pushed.markdown();
    assert!(
        markdown.contains("failing for 4 runs, since aaaaaaa"),
        "{markdown}"
    );
    assert!(
        markdown.contains("flaky, failed 2 of the last 4 runs"),
        "{markdown}"
    );
    assert!(markdown.contains("1 test (new)"), "{markdown}");
    assert!(pushed.report.github_output.ends_with("fail-on-status=1\n"));
    assert_eq!(pushed.fail_on.output.status.code(), Some(1));
    assert_eq!(
        stdout(&pushed.fail_on),
        "::error title=pytest-mcp::the results hold new failures (fail-on: new)\n"
    );
    assert_eq!(pushed.runs_kept(), 4);
}

/// Main's next push starts from main's own history, not the pull
/// request's.
fn main_goes_on_from_its_own(cache: &mut Cache) {
    let later = run_job(cache, &push(LATER_SHA, "303", KNOWN));
    assert_eq!(later.restored.as_deref(), Some(MAIN_KEY));
    assert!(
        later
            .markdown()
            .contains("failing for 2 runs, since aaaaaaa")
    );
    assert_eq!(later.runs_kept(), 2);
    let keys: Vec<&str> = cache.entries.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            MAIN_KEY,
            FIRST_KEY,
            "pytest-mcp-history:test::7/merge:202-2",
            "pytest-mcp-history:test::7/merge:203-1",
            "pytest-mcp-history:test::main:303-1",
        ]
    );
}

#[test]
fn failures_are_told_against_the_runs_before_and_fail_on_new_ignores_known_ones() {
    let mut cache = Cache::default();
    main_starts_the_history(&mut cache);
    the_pull_request_starts_from_mains(&mut cache);
    a_rerun_tells_the_flip_flaky(&mut cache);
    without_the_history_they_are_new(&mut cache);
    a_new_commit_tells_the_new_failure(&mut cache);
    main_goes_on_from_its_own(&mut cache);
}

/// The history step alone: its outputs for a push, and for a pull request
/// with a `history-key`, a base branch with a comma (no key may hold one)
/// and the default branch from the event.
#[test]
fn the_history_step_names_the_store_and_the_cache_keys() {
    let events = tempfile::tempdir().unwrap();
    let event = event_file(events.path());
    let job = Job {
        branch: "main",
        base: None,
        sha: MAIN_SHA,
        run_id: "101",
        attempt: "1",
        with: vec![],
    };
    let env = runner_env(&job, &event);
    let env: Vec<(&str, &std::ffi::OsStr)> = env.iter().map(|(k, v)| (*k, v.as_os_str())).collect();
    let run = run_step("history", &[], &[], &env);
    assert!(run.output.status.success(), "{}", stdout(&run));
    let file = run.temp.path().join("pytest-mcp-history/history.sqlite");
    assert_eq!(
        run.github_output,
        format!(
            "file={}\nkey=pytest-mcp-history:test::main:101-1\n\
             restore-branch=pytest-mcp-history:test::main:\nrestore-base=\n\
             restore-default=pytest-mcp-history:test::main:\n",
            file.display()
        )
    );

    let job = Job {
        branch: "7/merge",
        base: Some("release,1"),
        sha: PR_SHA,
        run_id: "202",
        attempt: "2",
        with: vec![],
    };
    let env = runner_env(&job, &event);
    let env: Vec<(&str, &std::ffi::OsStr)> = env.iter().map(|(k, v)| (*k, v.as_os_str())).collect();
    let run = run_step("history", &[("history-key", "py3.12")], &[], &env);
    assert!(run.output.status.success(), "{}", stdout(&run));
    let outputs: BTreeMap<String, String> = outputs_of("history", &run).into_iter().collect();
    let output = |name: &str| outputs[&format!("steps.history.outputs.{name}")].clone();
    assert_eq!(
        output("key"),
        "pytest-mcp-history:test:py3.12:7/merge:202-2"
    );
    assert_eq!(
        output("restore-branch"),
        "pytest-mcp-history:test:py3.12:7/merge:"
    );
    assert_eq!(
        output("restore-base"),
        "pytest-mcp-history:test:py3.12:release%2C1:"
    );
    assert_eq!(
        output("restore-default"),
        "pytest-mcp-history:test:py3.12:main:"
    );

    // A workflow_run (or pull_request_target) run's cache is the base
    // branch's: no history, a notice.
    let mut env = env;
    env.push(("GITHUB_EVENT_NAME", std::ffi::OsStr::new("workflow_run")));
    let run = run_step("history", &[], &[], &env);
    assert!(run.output.status.success(), "{}", stdout(&run));
    assert_eq!(run.github_output, "");
    assert!(
        stdout(&run).starts_with(
            "::notice title=pytest-mcp::no history of runs in a workflow_run workflow"
        )
    );
}

/// Inputs that are not what they must be are refused before anything runs.
#[test]
fn the_history_inputs_are_checked() {
    for (with, error) in [
        (
            ("history", "yes"),
            "input history must be true or false, not 'yes'",
        ),
        (
            ("history-runs", "1"),
            "input history-runs must be a number from 2 to 1000, not '1'",
        ),
        (("history-runs", "1001"), "from 2 to 1000, not '1001'"),
        (
            ("history-runs", "x[$(id)]"),
            "from 2 to 1000, not 'x[$(id)]'",
        ),
        (
            ("history-key", "a:b"),
            "input history-key must be at most 64 letters",
        ),
    ] {
        let run = run_step("history", &[with], &[], &[]);
        assert_eq!(run.output.status.code(), Some(1), "{with:?}");
        assert!(stdout(&run).contains(error), "{with:?}: {}", stdout(&run));
        assert_eq!(run.github_output, "");
    }
    let run = run_step("history", &[("history-runs", "1000")], &[], &[]);
    assert!(
        stdout(&run).contains("no GITHUB_REF_NAME"),
        "{}",
        stdout(&run)
    );
}

/// action.yml's cache steps: the store is restored after the history step
/// named it and before the report, saved after the comment (whatever the
/// comment did) and before `fail-on` fails the action, under the keys the
/// history step wrote, with actions/cache pinned by its major version as
/// the other actions of this repository are.
#[test]
fn the_store_is_restored_before_the_report_and_saved_after() {
    let action = action();
    let ids: Vec<&str> = steps(&action)
        .iter()
        .filter_map(|s| s["id"].as_str())
        .collect();
    let at = |id: &str| ids.iter().position(|i| *i == id).unwrap();
    assert!(at("history") < at("history-restore") && at("history-restore") < at("report"));
    assert!(at("comment") < at("history-save") && at("history-save") < at("fail-on"));

    let restore = step(&action, "history-restore");
    let save = step(&action, "history-save");
    let uses = |s: &Yaml| text(&s["uses"], "uses").to_string();
    let (restore_uses, save_uses) = (uses(restore), uses(save));
    let major = restore_uses
        .strip_prefix("actions/cache/restore@v")
        .expect("actions/cache/restore");
    assert!(
        major.chars().all(|c| c.is_ascii_digit()) && !major.is_empty(),
        "{restore_uses}"
    );
    assert_eq!(save_uses, format!("actions/cache/save@v{major}"));
    let docs = fs::read_to_string(repo().join("docs/github-action.md")).unwrap();
    assert!(docs.contains(&restore_uses), "the docs name the version");

    assert_eq!(
        text(&restore["if"], "if"),
        "steps.history.outputs.key != ''"
    );
    assert_eq!(
        text(&save["if"], "if"),
        "${{ !cancelled() && steps.report.outputs.history-recorded == 'true' }}"
    );
    for s in [restore, save] {
        assert_eq!(
            text(&s["with"]["path"], "path"),
            "${{ steps.history.outputs.file }}"
        );
        assert_eq!(
            text(&s["with"]["key"], "key"),
            "${{ steps.history.outputs.key }}"
        );
    }
    assert_eq!(
        text(&restore["with"]["restore-keys"], "restore-keys"),
        "${{ steps.history.outputs.restore-branch }}\n\
         ${{ steps.history.outputs.restore-base }}\n\
         ${{ steps.history.outputs.restore-default }}\n"
    );
    // Every rendering gets the history; only the first records into the
    // store that is saved.
    let script = text(&step(&action, "report")["run"], "report");
    let calls: Vec<&str> = script
        .lines()
        .filter(|l| l.contains("\"$PYTEST_MCP\" report"))
        .collect();
    assert_eq!(calls.len(), 5, "{calls:?}");
    assert!(
        calls.iter().all(|c| c.contains("\"${history[@]}\"")),
        "{calls:?}"
    );
    let agains = script.lines().filter(|l| l.trim() == "again").count();
    assert_eq!(
        agains,
        calls.len() - 1,
        "a fresh copy before each call after the first"
    );
}
