//! The action in a sharded suite's three jobs (docs/github-action.md,
//! "Sharded suites"): the documented workflow plans with `shards`, runs a
//! matrix of `run --plan --shard K` and merges with `plan`; the plan job's
//! steps and the merge job's, run with bash as the runner runs them
//! against a real small pytest project and the stand-in Actions cache of
//! `history`, make a plan (from nothing, then from the history the merge
//! job saved, the default branch's alone), merge the shards (one of them
//! empty) and pass; with a shard's results withheld the merge job fails
//! and names the tests that were not run.
//!
//! Interpreter: `PYTEST_MCP_TEST_PYTHON`, else `.venv/bin/python`.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use yaml_rust2::Yaml;

use super::gh_steps::outputs_of;
use super::history::{Cache, event_file, with_value};
use super::readme::readme_workflows;
use super::{Run, VERSION, repo, run_step, stdout, text};

const BIN: &str = env!("CARGO_BIN_EXE_pytest-mcp");
/// More shards than the project has tests: one is empty.
const SHARDS: usize = 5;
const MAIN_MERGE_KEY: &str = "pytest-mcp-history:report::main:101-1";

fn test_python() -> PathBuf {
    let python = std::env::var_os("PYTEST_MCP_TEST_PYTHON")
        .filter(|p| !p.is_empty())
        .map_or_else(|| repo().join(".venv/bin/python"), PathBuf::from);
    assert!(
        python.is_file(),
        "{}: set PYTEST_MCP_TEST_PYTHON",
        python.display()
    );
    python
}

/// Four passing tests in two modules.
fn project(root: &Path) {
    fs::create_dir_all(root.join("tests")).unwrap();
    fs::write(root.join("pytest.ini"), "[pytest]\n").unwrap();
    let a =
        "import time\n\n\ndef test_slow():\n    time.sleep(0.2)\n\n\ndef test_quick():\n    pass\n";
    fs::write(root.join("tests/test_a.py"), a).unwrap();
    let b = "def test_one():\n    pass\n\n\ndef test_two():\n    pass\n";
    fs::write(root.join("tests/test_b.py"), b).unwrap();
}

/// One job of a workflow run: its branch (`7/merge` for pull request 7
/// into `base`), its id in the workflow and the run's id.
struct Job<'a> {
    branch: &'a str,
    base: Option<&'a str>,
    id: &'a str,
    run_id: &'a str,
}

fn runner_env(job: &Job, event: &Path, project: &Path) -> Vec<(&'static str, OsString)> {
    let name = if job.base.is_some() {
        "pull_request"
    } else {
        "push"
    };
    let mut env: Vec<(&'static str, OsString)> = vec![
        ("GITHUB_EVENT_NAME", name.into()),
        ("GITHUB_EVENT_PATH", event.into()),
        ("GITHUB_REF_NAME", job.branch.into()),
        ("GITHUB_JOB", job.id.into()),
        ("GITHUB_RUN_ID", job.run_id.into()),
        ("GITHUB_RUN_ATTEMPT", "1".into()),
        (
            "GITHUB_SHA",
            "aaaaaaa111111111111111111111111111111111".into(),
        ),
        ("GITHUB_WORKSPACE", project.into()),
        ("PYTEST_MCP_PYTHON", test_python().into()),
    ];
    if let Some(base) = job.base {
        env.push(("GITHUB_BASE_REF", base.into()));
    }
    env
}

/// What a job of the action left: each step's run (kept: its temporary
/// directory holds the files), the outputs, the cache key restored.
struct Done {
    runs: BTreeMap<String, Run>,
    outputs: BTreeMap<String, String>,
    restored: Option<String>,
}

impl Done {
    fn step(&mut self, id: &str, with: &[(&str, &str)], env: &[(&str, &OsStr)]) {
        let pairs: Vec<(&str, &str)> = self
            .outputs
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let run = run_step(id, with, &pairs, env);
        self.outputs.extend(outputs_of(id, &run));
        self.runs.insert(id.to_string(), run);
    }

    fn status(&self, id: &str) -> Option<i32> {
        self.runs[id].output.status.code()
    }

    fn log(&self, id: &str) -> String {
        stdout(&self.runs[id])
    }

    fn output(&self, name: &str) -> &str {
        self.outputs
            .get(name)
            .unwrap_or_else(|| panic!("no output {name}: {:?}", self.outputs))
    }
}

/// The action's steps in `job` as the runner runs them with `with`: the
/// history step, the restore (played by `cache`), then the plan step when
/// `shards` plans, else the report and the save; the fail-on step last.
fn run_action(cache: &mut Cache, job: &Job, project: &Path, with: &[(&str, &str)]) -> Done {
    let events = tempfile::tempdir().unwrap();
    let env = runner_env(job, &event_file(events.path()), project);
    let env: Vec<(&str, &OsStr)> = env.iter().map(|(k, v)| (*k, v.as_os_str())).collect();
    let bin = ("steps.install.outputs.bin".to_string(), BIN.to_string());
    let mut done = Done {
        runs: BTreeMap::new(),
        outputs: BTreeMap::from([bin]),
        restored: None,
    };
    done.step("history", with, &env);
    assert_eq!(done.status("history"), Some(0), "{}", done.log("history"));
    if done
        .outputs
        .get("steps.history.outputs.key")
        .is_some_and(|k| !k.is_empty())
    {
        let key = with_value("history-restore", "key", &done.outputs);
        let restore_keys: Vec<String> =
            with_value("history-restore", "restore-keys", &done.outputs)
                .lines()
                .map(|l| l.trim().to_string())
                .filter(|l| !l.is_empty())
                .collect();
        let mut scopes = vec![job.branch];
        scopes.extend(job.base);
        scopes.push("main");
        if let Some(entry) = cache.restore(&scopes, &key, &restore_keys) {
            let path = PathBuf::from(with_value("history-restore", "path", &done.outputs));
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, &entry.file).unwrap();
            done.restored = Some(entry.key.clone());
            let matched = "steps.history-restore.outputs.cache-matched-key".to_string();
            done.outputs.insert(matched, entry.key.clone());
        }
    }
    // The plan and report steps' `if:`.
    if with
        .iter()
        .any(|(k, v)| *k == "shards" && !["", "0"].contains(v))
    {
        done.step("plan", with, &env);
    } else {
        done.step("report", with, &env);
    }
    // The save step's `if:` (a plan job never records, so never saves).
    let recorded = done.outputs.get("steps.report.outputs.history-recorded");
    if recorded.map(String::as_str) == Some("true") {
        let path = with_value("history-save", "path", &done.outputs);
        let key = with_value("history-save", "key", &done.outputs);
        cache.save(job.branch, &key, fs::read(&path).unwrap());
    }
    done.step("fail-on", with, &env);
    done
}

/// The plan job: `shards` and the merge job's history.
fn plan_job(cache: &mut Cache, job: &Job, project: &Path) -> (Done, Value) {
    let shards = SHARDS.to_string();
    let with = [("shards", shards.as_str()), ("history-job", "report")];
    let done = run_action(cache, job, project, &with);
    assert_eq!(done.status("plan"), Some(0), "{}", done.log("plan"));
    assert_eq!(done.status("fail-on"), Some(0), "{}", done.log("fail-on"));
    let file = done.output("steps.plan.outputs.plan-file");
    let plan: Value = serde_json::from_str(&fs::read_to_string(file).unwrap()).unwrap();
    (done, plan)
}

/// The merge job over the shards' results under `shards`.
fn merge_job(cache: &mut Cache, job: &Job, project: &Path, shards: &Path, plan: &str) -> Done {
    let files = shards.to_str().unwrap();
    let with = [("files", files), ("plan", plan), ("fail-on", "failures")];
    let done = run_action(cache, job, project, &with);
    assert_eq!(done.status("report"), Some(0), "{}", done.log("report"));
    done
}

/// The shards' tests in the plan.
fn planned(plan: &Value) -> Vec<Vec<String>> {
    let shards = plan["shards"].as_array().expect("shards");
    shards
        .iter()
        .map(|s| {
            let tests = s["tests"].as_array().expect("tests");
            tests
                .iter()
                .map(|t| t.as_str().unwrap().to_string())
                .collect()
        })
        .collect()
}

/// Each shard job's step: `pytest-mcp run --plan FILE --shard K`, its
/// results (`--results`) into `project/shards/K/`.
fn run_shards(project: &Path, plan: &str) {
    for k in 1..=SHARDS {
        let dir = project.join(format!("shards/{k}"));
        fs::create_dir_all(&dir).unwrap();
        let mut command = Command::new(BIN);
        for var in [
            "GITHUB_ACTIONS",
            "GITHUB_STEP_SUMMARY",
            "PYTEST_ADDOPTS",
            "PYTEST_MCP_PYTHON",
        ] {
            command.env_remove(var);
        }
        let out = command
            .current_dir(project)
            .args([
                "run",
                "--plan",
                plan,
                "--shard",
                &k.to_string(),
                "--no-history",
            ])
            .arg("--results")
            .arg(dir.join("shard.json"))
            .arg("--python")
            .arg(test_python())
            .output()
            .expect("run a shard");
        let said = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(0),
            "shard {k} passes (an empty one too): {said}"
        );
    }
}

fn main_job<'a>(id: &'a str, run_id: &'a str) -> Job<'a> {
    Job {
        branch: "main",
        base: None,
        id,
        run_id,
    }
}

fn pr_job<'a>(id: &'a str, run_id: &'a str) -> Job<'a> {
    Job {
        branch: "7/merge",
        base: Some("main"),
        id,
        run_id,
    }
}

/// Main's first plan (no history), its shards and its merge, whose history
/// times the next plan; a pull request plans from main's history, never
/// from the one its own merge job saved.
#[test]
fn the_plan_job_the_shards_and_the_merge_job_pass_and_time_the_next_plan() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    project(root);
    let mut cache = Cache::default();
    let (first, plan) = plan_job(&mut cache, &main_job("plan", "101"), root);
    assert_eq!(first.restored, None);
    assert!(
        first.log("plan").contains("every test counts alike"),
        "{}",
        first.log("plan")
    );
    let shards = planned(&plan);
    assert_eq!(shards.len(), SHARDS);
    assert_eq!(shards.iter().map(Vec::len).sum::<usize>(), 4, "{plan:#}");
    assert!(shards.iter().any(Vec::is_empty), "an empty shard: {plan:#}");
    let plan_file = first.output("steps.plan.outputs.plan-file").to_string();
    run_shards(root, &plan_file);

    let merge = merge_job(
        &mut cache,
        &main_job("report", "101"),
        root,
        &root.join("shards"),
        &plan_file,
    );
    assert_eq!(merge.status("fail-on"), Some(0), "{}", merge.log("fail-on"));
    let markdown = fs::read_to_string(merge.output("steps.report.outputs.markdown-file")).unwrap();
    assert!(markdown.contains('4'), "{markdown}");
    assert!(!markdown.contains("Not run"), "{markdown}");

    let (next, plan) = plan_job(&mut cache, &main_job("plan", "102"), root);
    assert_eq!(next.restored.as_deref(), Some(MAIN_MERGE_KEY));
    assert!(
        next.log("plan").contains("the default branch's history"),
        "{}",
        next.log("plan")
    );
    assert_eq!(
        plan["basis"]["runs"], 1,
        "the merged run's durations: {plan:#}"
    );
    assert_eq!(plan["basis"]["estimated"], 0, "every test timed: {plan:#}");

    // A pull request's merged run is saved in its own scope...
    let pr_plan = next.output("steps.plan.outputs.plan-file").to_string();
    let pr_merge = merge_job(
        &mut cache,
        &pr_job("report", "202"),
        root,
        &root.join("shards"),
        &pr_plan,
    );
    assert_eq!(pr_merge.restored.as_deref(), Some(MAIN_MERGE_KEY));
    // ...and its next plan is still made from main's.
    let (pr_next, _) = plan_job(&mut cache, &pr_job("plan", "203"), root);
    assert_eq!(pr_next.restored.as_deref(), Some(MAIN_MERGE_KEY));
}

/// A shard whose results did not come back: the report names its tests
/// and the action fails in its last step.
#[test]
fn a_lost_shard_fails_the_merge_job_naming_its_tests() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    project(root);
    let mut cache = Cache::default();
    let (plan_done, plan) = plan_job(&mut cache, &main_job("plan", "101"), root);
    let plan_file = plan_done.output("steps.plan.outputs.plan-file").to_string();
    run_shards(root, &plan_file);
    let (k, lost) = planned(&plan)
        .into_iter()
        .enumerate()
        .find(|(_, tests)| !tests.is_empty())
        .expect("a shard with tests");
    fs::remove_dir_all(root.join(format!("shards/{}", k + 1))).unwrap();

    let merge = merge_job(
        &mut cache,
        &main_job("report", "101"),
        root,
        &root.join("shards"),
        &plan_file,
    );
    let log = merge.log("report");
    let markdown = fs::read_to_string(merge.output("steps.report.outputs.markdown-file")).unwrap();
    for test in &lost {
        // An annotation, titled as GitHub escapes a property.
        let title = format!("title=ERROR%3A {}::Not run", test.replace(':', "%3A"));
        assert!(log.contains(&title), "the log names {test}: {log}");
        assert!(
            markdown.contains(test.as_str()),
            "the report names {test}: {markdown}"
        );
    }
    assert_ne!(
        merge.status("fail-on"),
        Some(0),
        "a lost shard fails the action"
    );
    assert!(
        merge.log("fail-on").contains("planned tests were not run"),
        "{}",
        merge.log("fail-on")
    );
    assert_eq!(merge.output("steps.report.outputs.not-run"), "true");
    assert_eq!(
        merge.output("steps.report.outputs.history-recorded"),
        "true",
        "the run is recorded and saved all the same"
    );
}

#[test]
fn bad_shards_and_history_job_are_refused() {
    let run = run_step("plan", &[("shards", "four")], &[], &[]);
    assert!(!run.output.status.success());
    assert!(
        stdout(&run).contains("input shards must be a number from 1 to 10000"),
        "{}",
        stdout(&run)
    );
    for bad in ["10001", "00", "-1"] {
        let run = run_step("plan", &[("shards", bad)], &[], &[]);
        assert!(!run.output.status.success(), "{bad}: {}", stdout(&run));
    }
    let run = run_step("history", &[("history-job", "a:b")], &[], &[]);
    assert!(!run.output.status.success());
    assert!(
        stdout(&run).contains("input history-job must be a job's id"),
        "{}",
        stdout(&run)
    );
}

/// The jobs of the documented sharded workflow, by the inputs their use of
/// the action passes.
fn documented_jobs() -> (Yaml, String, String, String) {
    let workflow = readme_workflows()
        .into_iter()
        .map(|(_, w)| w)
        .find(|w| w["name"].as_str() == Some("sharded tests"))
        .expect("docs/github-action.md: the sharded workflow (linted with the others)");
    let jobs = workflow["jobs"].as_hash().expect("jobs");
    let with_input = |input: &str| {
        jobs.iter()
            .find(|(_, j)| {
                let steps = j["steps"].as_vec().expect("steps");
                steps.iter().any(|s| !s["with"][input].is_badvalue())
            })
            .map(|(id, _)| text(id, "job").to_string())
            .unwrap_or_else(|| panic!("no job passes {input}"))
    };
    let (plan, merge) = (with_input("shards"), with_input("plan"));
    let test = jobs
        .iter()
        .find(|(_, j)| !j["strategy"]["matrix"]["shard"].is_badvalue())
        .map(|(id, _)| text(id, "job").to_string())
        .expect("a matrix of shards");
    (workflow, plan, test, merge)
}

/// The action's step (the one passing `input`) of `job`.
fn action_step<'a>(workflow: &'a Yaml, job: &str, input: &str) -> &'a Yaml {
    let steps = workflow["jobs"][job]["steps"].as_vec().expect("steps");
    steps
        .iter()
        .find(|s| !s["with"][input].is_badvalue())
        .expect("the action")
}

/// Plan, matrix, merge: the plan job names the merge job's history and
/// uploads its plan-file; the matrix has a job per shard, each running its
/// shard of the plan with this version; the merge job reports with the plan
/// after every shard, whatever they did.
#[test]
fn the_documented_workflow_plans_runs_the_shards_and_merges() {
    let (workflow, plan, test, merge) = documented_jobs();
    let jobs = &workflow["jobs"];
    let planner = action_step(&workflow, &plan, "shards");
    assert_eq!(text(&planner["with"]["history-job"], "history-job"), merge);
    let shards = planner["with"]["shards"]
        .as_i64()
        .expect("shards: a number");
    let id = text(&planner["id"], "id");
    let steps = jobs[plan.as_str()]["steps"].as_vec().unwrap();
    let upload = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-artifact@"))
        })
        .expect("the plan is uploaded");
    assert_eq!(
        text(&upload["with"]["path"], "path"),
        format!("${{{{ steps.{id}.outputs.plan-file }}}}")
    );
    let artifact = text(&upload["with"]["name"], "name");

    let matrix: Vec<i64> = jobs[test.as_str()]["strategy"]["matrix"]["shard"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().expect("a shard's number"))
        .collect();
    assert_eq!(
        matrix,
        (1..=shards).collect::<Vec<_>>(),
        "a job per shard, from 1"
    );
    assert_eq!(jobs[test.as_str()]["needs"].as_str(), Some(plan.as_str()));
    let mut scripts = Vec::new();
    super::strings(&jobs[test.as_str()]["steps"], &mut scripts);
    let scripts = scripts.join("\n");
    assert!(
        scripts.contains("pytest-mcp run --plan plan.json --shard \"$SHARD\""),
        "{scripts}"
    );
    assert!(
        scripts.contains(&format!("mcp-server-pytest=={VERSION}")),
        "{scripts}"
    );
    assert!(scripts.contains(&format!("name: {artifact}")) || scripts.contains(artifact));

    let merger = action_step(&workflow, &merge, "plan");
    assert_eq!(text(&merger["with"]["plan"], "plan"), "plan.json");
    assert!(!merger["with"]["files"].is_badvalue(), "the shards' files");
    assert!(
        merger["with"]["history-job"].is_badvalue(),
        "its own history"
    );
    let needs: Vec<&str> = jobs[merge.as_str()]["needs"]
        .as_vec()
        .unwrap()
        .iter()
        .filter_map(Yaml::as_str)
        .collect();
    assert_eq!(needs, [plan.as_str(), test.as_str()]);
    let condition = text(&jobs[merge.as_str()]["if"], "if");
    assert!(
        condition.contains("!cancelled()"),
        "after failing shards too: {condition}"
    );
}
