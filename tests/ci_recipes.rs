//! The CI recipes of docs/sharding.md (GitLab, CircleCI, Buildkite) run as
//! their CI would run them: each block is read as YAML, its `pytest-mcp`
//! commands taken in order, and run on a small suite with the variables
//! that CI sets: the plan job once, the shard job once per parallel job
//! (GitLab counts from 1, the others from 0), the merge job once. The
//! merged report must pass with every shard back, the next plan must read
//! the run the merge recorded (with the shards' module fixtures told from
//! their tests), and the plan's `--shards N` must be the
//! job's parallelism. A flag a command does not take, a variable a CI
//! does not set or result files that overwrite each other fail here.
//!
//! Interpreter: `PYTEST_MCP_TEST_PYTHON`, else `.venv/bin/python`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use yaml_rust2::{Yaml, YamlLoader};

mod common;
use common::headline::{Verdict, start};
use common::support::{clean_command, test_python};

const BIN: &str = env!("CARGO_BIN_EXE_pytest-mcp");

/// A CI, told by the top-level key its configuration starts with.
struct Ci {
    name: &'static str,
    marker: &'static str,
    /// The parallel job's index and count variables, and where it counts from.
    index: &'static str,
    total: &'static str,
    first: usize,
    commit: &'static str,
}

const CIS: [Ci; 3] = [
    Ci {
        name: "GitLab",
        marker: "stages",
        index: "CI_NODE_INDEX",
        total: "CI_NODE_TOTAL",
        first: 1,
        commit: "CI_COMMIT_SHA",
    },
    Ci {
        name: "CircleCI",
        marker: "version",
        index: "CIRCLE_NODE_INDEX",
        total: "CIRCLE_NODE_TOTAL",
        first: 0,
        commit: "CIRCLE_SHA1",
    },
    Ci {
        name: "Buildkite",
        marker: "steps",
        index: "BUILDKITE_PARALLEL_JOB",
        total: "BUILDKITE_PARALLEL_JOB_COUNT",
        first: 0,
        commit: "BUILDKITE_COMMIT",
    },
];

fn recipes() -> Vec<Yaml> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/sharding.md");
    let text = std::fs::read_to_string(path).expect("docs/sharding.md");
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match (&mut current, line.trim_end()) {
            (None, "```yaml") => current = Some(String::new()),
            (Some(block), "```") => {
                let docs = YamlLoader::load_from_str(block).expect("a recipe is YAML");
                blocks.extend(docs);
                current = None;
            }
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

/// Every string of a YAML document, in document order.
fn strings(yaml: &Yaml, out: &mut Vec<String>) {
    match yaml {
        Yaml::String(s) => out.push(s.clone()),
        Yaml::Array(items) => items.iter().for_each(|i| strings(i, out)),
        Yaml::Hash(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// The value of every `parallel` or `parallelism` key.
fn parallelism(yaml: &Yaml, out: &mut Vec<i64>) {
    match yaml {
        Yaml::Array(items) => items.iter().for_each(|i| parallelism(i, out)),
        Yaml::Hash(map) => {
            for (k, v) in map {
                match (k.as_str(), v.as_i64()) {
                    (Some("parallel" | "parallelism"), Some(n)) => out.push(n),
                    _ => parallelism(v, out),
                }
            }
        }
        _ => {}
    }
}

/// `$NAME` replaced by its value in `vars` (a name it does not hold stays,
/// and the command will fail on it).
fn expand(word: &str, vars: &BTreeMap<&str, String>) -> String {
    let mut out = word.to_string();
    // Longest names first: CIRCLE_NODE_INDEX before a shorter prefix.
    let mut names: Vec<_> = vars.keys().collect();
    names.sort_by_key(|n| std::cmp::Reverse(n.len()));
    for name in names {
        out = out.replace(&format!("${name}"), &vars[name]);
    }
    out
}

fn pytest_mcp(root: &Path, command: &str, vars: &BTreeMap<&str, String>) -> Output {
    let words: Vec<String> = command
        .split_whitespace()
        .skip(1)
        .map(|w| expand(w, vars))
        .collect();
    let mut c = clean_command(Path::new(BIN));
    c.current_dir(root).args(&words);
    if matches!(words.first().map(String::as_str), Some("plan" | "run")) {
        c.arg("--python").arg(test_python());
    }
    for ci in &CIS {
        c.env_remove(ci.index).env_remove(ci.total);
    }
    c.env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY");
    c.envs(vars.iter().map(|(k, v)| (*k, v.as_str())));
    c.output().expect("run pytest-mcp")
}

fn suite(root: &Path) {
    std::fs::create_dir_all(root.join("tests")).expect("tests/");
    std::fs::write(root.join("pytest.ini"), "[pytest]\n").expect("pytest.ini");
    for m in 0..5 {
        let body = format!(
            "import time\n\nimport pytest\n\n\n@pytest.fixture(scope=\"module\")\ndef db():\n    time.sleep(0.2)\n\n\n@pytest.mark.parametrize(\"v\", range({}))\ndef test_case(db, v):\n    assert v >= 0\n",
            3 + m
        );
        std::fs::write(root.join(format!("tests/test_mod_{m}.py")), body).expect("a module");
    }
}

fn text(out: &Output) -> String {
    format!(
        "status {:?}\n{}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The recipe's plan, shard and merge commands run once through; the
/// merge's answer is returned.
fn pipeline(ci: &Ci, commands: &[String], shards: usize, root: &Path) -> Output {
    let mut vars = BTreeMap::from([(ci.commit, "0123abc".to_string())]);
    let mut merged = None;
    for command in commands {
        let sub = command.split_whitespace().nth(1).unwrap_or_default();
        if sub == "run" {
            for index in ci.first..ci.first + shards {
                vars.insert(ci.index, index.to_string());
                vars.insert(ci.total, shards.to_string());
                let out = pytest_mcp(root, command, &vars);
                assert_eq!(
                    out.status.code(),
                    Some(0),
                    "{}: {command}\n{}",
                    ci.name,
                    text(&out)
                );
            }
            vars.remove(ci.index);
            vars.remove(ci.total);
            continue;
        }
        let out = pytest_mcp(root, command, &vars);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {command}\n{}",
            ci.name,
            text(&out)
        );
        if sub == "report" {
            merged = Some(out);
        }
    }
    merged.unwrap_or_else(|| panic!("{}: the recipe has no merge job", ci.name))
}

#[test]
fn every_ci_recipe_plans_runs_every_shard_and_merges() {
    let recipes = recipes();
    for ci in &CIS {
        let recipe = recipes
            .iter()
            .find(|r| !r[ci.marker].is_badvalue())
            .unwrap_or_else(|| panic!("docs/sharding.md has no {} recipe", ci.name));
        let mut all = Vec::new();
        strings(recipe, &mut all);
        let commands: Vec<String> = all
            .into_iter()
            .filter(|s| s.starts_with("pytest-mcp "))
            .collect();
        let subs: Vec<&str> = commands
            .iter()
            .filter_map(|c| c.split_whitespace().nth(1))
            .collect();
        assert_eq!(subs, ["plan", "run", "report"], "{}", ci.name);
        assert!(
            commands[1].contains(&format!("${}", ci.index)),
            "{}: each shard's results file is its own: {}",
            ci.name,
            commands[1]
        );
        let mut counts = Vec::new();
        parallelism(recipe, &mut counts);
        let planned = commands[0]
            .split_whitespace()
            .skip_while(|w| *w != "--shards")
            .nth(1)
            .and_then(|n| n.parse::<i64>().ok());
        assert_eq!(
            counts,
            planned.into_iter().collect::<Vec<_>>(),
            "{}",
            ci.name
        );
        let shards = counts[0] as usize;

        let dir = tempfile::tempdir().expect("tempdir");
        suite(dir.path());
        let first = pipeline(ci, &commands, shards, dir.path());
        let said = text(&first);
        assert!(
            said.contains(&format!("all {shards} came back")),
            "{}: {said}",
            ci.name
        );
        assert!(
            said.contains(&start(Verdict::Success)),
            "{}: {said}",
            ci.name
        );

        // The next pipeline plans from the run the merge recorded.
        let out = pytest_mcp(dir.path(), &commands[0], &BTreeMap::new());
        let plan: serde_json::Value = serde_json::from_slice(
            &std::fs::read(dir.path().join("plan.json")).expect("plan.json"),
        )
        .expect("a plan");
        assert_eq!(plan["basis"]["runs"], 1, "{}: {}", ci.name, text(&out));
        assert_eq!(plan["basis"]["estimated"], 0, "{}: {}", ci.name, text(&out));
        // The shards kept pytest-json-report's phases: the module fixtures
        // are told from their tests.
        let shared = plan["basis"]["shared_setup"].as_f64().unwrap_or_default();
        assert!(shared > 0.5, "{}: {}", ci.name, text(&out));
    }
}

#[test]
fn results_that_cannot_be_kept_are_said() {
    let dir = tempfile::tempdir().expect("tempdir");
    suite(dir.path());
    std::fs::write(dir.path().join("plain"), "").expect("a plain file");
    let out = pytest_mcp(
        dir.path(),
        "pytest-mcp run --no-history --results plain/shard.json",
        &BTreeMap::new(),
    );
    let said = text(&out);
    assert!(said.contains(&start(Verdict::Success)), "{said}");
    assert!(
        said.contains("cannot keep the results in plain/shard.json"),
        "{said}"
    );
}
