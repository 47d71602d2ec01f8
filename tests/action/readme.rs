//! The action's reference (docs/github-action.md, which the README links)
//! against action.yml: its workflows
//! (every ```yaml block with `jobs`) use the action at this version's tag
//! with exactly its inputs, read only its outputs, comment and compare with
//! the base branch, and show the fork pattern; its tables list exactly the
//! inputs (with their defaults) and the outputs.

use std::collections::BTreeMap;
use std::fs;

use yaml_rust2::Yaml;

use super::{VERSION, action, expressions, keys, load, repo, text};

/// The action's reference, docs/github-action.md (the README links it).
fn readme_section() -> String {
    fs::read_to_string(repo().join("docs/github-action.md"))
        .expect("docs/github-action.md, the action's reference")
}

/// Every ```yaml block of the README's "GitHub Action" section that is a
/// workflow (it has `jobs`), with its text.
pub(super) fn readme_workflows() -> Vec<(String, Yaml)> {
    let section = readme_section();
    let workflows: Vec<(String, Yaml)> = section
        .split("```yaml\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap().to_string())
        .map(|b| {
            let yaml = load(&b, "README workflow");
            (b, yaml)
        })
        .filter(|(_, yaml)| !yaml["jobs"].is_badvalue())
        .collect();
    assert!(
        !workflows.is_empty(),
        "no workflow in the GitHub Action section"
    );
    workflows
}

/// Every step of every job of `workflow`.
fn workflow_steps(workflow: &Yaml) -> Vec<&Yaml> {
    let jobs = workflow["jobs"].as_hash().expect("jobs");
    jobs.values()
        .flat_map(|j| j["steps"].as_vec().expect("steps").iter())
        .collect()
}

fn repository() -> String {
    let pyproject = fs::read_to_string(repo().join("pyproject.toml")).unwrap();
    let line = pyproject
        .lines()
        .find(|l| l.starts_with("Repository = "))
        .expect("pyproject.toml has a Repository URL");
    let url = line.trim_start_matches("Repository = ").trim_matches('"');
    url.strip_prefix("https://github.com/")
        .expect("a GitHub repository")
        .to_string()
}

#[test]
fn the_readme_workflows_pass_exactly_the_actions_inputs() {
    let action = action();
    let inputs = keys(&action["inputs"], "inputs");
    let outputs = keys(&action["outputs"], "outputs");
    let uses = format!("{}@v{VERSION}", repository());
    let mut checked = 0;
    for (source, workflow) in readme_workflows() {
        let steps = workflow_steps(&workflow);
        let ours = steps.iter().filter(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with(&repository()))
        });
        for report in ours {
            checked += 1;
            assert_eq!(
                text(&report["uses"], "uses"),
                uses,
                "the action at this version's tag"
            );
            let with = keys(&report["with"], "with");
            assert!(
                with.is_subset(&inputs),
                "with: {with:?} is not among the inputs {inputs:?}"
            );
            for name in &inputs {
                if action["inputs"][name.as_str()]["required"].as_bool() == Some(true) {
                    assert!(
                        with.contains(name),
                        "the workflow leaves out required input {name}"
                    );
                }
            }
            // Whatever reads the action's outputs names one it has.
            if let Some(id) = report["id"].as_str() {
                for expr in expressions(&source) {
                    if let Some(output) = expr.strip_prefix(&format!("steps.{id}.outputs.")) {
                        assert!(
                            outputs.contains(output),
                            "{output} is not an output of the action"
                        );
                    }
                }
            }
        }
    }
    assert!(
        checked >= 2,
        "the action is used in the workflow and the fork pattern"
    );
}

/// The pull request workflow reports after failing tests too, comments, and
/// uploads the results under the name its `baseline-artifact` asks for (so
/// the base branch's runs hold them).
#[test]
fn the_readme_workflow_comments_and_compares_with_the_base_branch() {
    let workflows = readme_workflows();
    let (_, workflow) = &workflows[0];
    let steps = workflow_steps(workflow);
    let report = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with(&repository()))
        })
        .expect("the first workflow uses the action");
    assert_eq!(
        text(&report["if"], "if"),
        "always()",
        "report after failing tests too"
    );
    assert_eq!(
        report["with"]["comment"].as_bool(),
        Some(true),
        "comment: true"
    );
    let artifact = text(&report["with"]["baseline-artifact"], "baseline-artifact");
    let upload = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-artifact@"))
        })
        .expect("the results are uploaded");
    assert_eq!(text(&upload["with"]["name"], "name"), artifact);
    assert_eq!(text(&upload["if"], "if"), "always()");
    let permissions = &workflow["permissions"];
    assert_eq!(text(&permissions["pull-requests"], "permissions"), "write");
    assert_eq!(
        text(&permissions["actions"], "permissions"),
        "read",
        "gh run list/download"
    );
}

/// The fork pattern: a `pull_request` workflow uploads the results and the
/// pull request's number; a `workflow_run` workflow, which may write, takes
/// them and runs the action with `comment: true` and `pr-number`.
#[test]
fn the_readme_documents_the_fork_pattern() {
    let workflows = readme_workflows();
    let commenter = workflows
        .iter()
        .map(|(_, w)| w)
        .find(|w| !w["on"]["workflow_run"].is_badvalue())
        .expect("a workflow_run workflow");
    let tested = commenter["on"]["workflow_run"]["workflows"][0]
        .as_str()
        .expect("workflow_run names the test workflow");
    let test = workflows
        .iter()
        .map(|(_, w)| w)
        .find(|w| w["name"].as_str() == Some(tested))
        .unwrap_or_else(|| panic!("no workflow named {tested}"));
    assert!(
        !test["on"]["pull_request"].is_badvalue(),
        "the test workflow runs on pull requests"
    );
    let uploads: Vec<&Yaml> = workflow_steps(test)
        .into_iter()
        .filter(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-artifact@"))
        })
        .collect();
    assert!(!uploads.is_empty(), "the test workflow uploads its results");
    assert_eq!(
        text(&commenter["permissions"]["pull-requests"], "permissions"),
        "write"
    );
    let steps = workflow_steps(commenter);
    let report = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with(&repository()))
        })
        .expect("the workflow_run workflow uses the action");
    assert_eq!(
        report["with"]["comment"].as_bool(),
        Some(true),
        "comment: true"
    );
    assert!(
        text(&report["with"]["pr-number"], "pr-number").contains("${{"),
        "pr-number comes from the uploaded artifact"
    );
    assert!(
        steps.iter().any(|s| s["uses"]
            .as_str()
            .is_some_and(|u| u.starts_with("actions/download-artifact@"))),
        "the results are downloaded"
    );
}

#[test]
fn the_readme_tables_list_exactly_the_inputs_and_outputs_with_their_defaults() {
    let action = action();
    let section = readme_section();
    let rows: BTreeMap<String, String> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .map(|l| {
            let (name, rest) = l.split_once("` | ").expect("| `name` | ... row");
            (
                name.to_string(),
                rest.split(" | ").next().unwrap().to_string(),
            )
        })
        .collect();
    let mut expected = BTreeMap::new();
    for name in keys(&action["inputs"], "inputs") {
        let default = match &action["inputs"][name.as_str()]["default"] {
            Yaml::BadValue => "(required)".to_string(),
            Yaml::String(s) if s.is_empty() => "`\"\"`".to_string(),
            value => format!("`{}`", text(value, &name)),
        };
        expected.insert(name, default);
    }
    for name in keys(&action["outputs"], "outputs") {
        let description = &rows.get(&name).cloned().unwrap_or_default();
        expected.insert(name, description.clone());
    }
    assert_eq!(rows, expected, "README tables vs action.yml");
}
