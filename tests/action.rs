//! `action.yml`, the GitHub Action: a valid composite action (every `run`
//! step has a shell, every expression names an input, a step or an output
//! that exists, no expression is pasted into a script), pinned to the
//! crate's version; the README's workflows pass exactly its inputs, read
//! its outputs and show the fork pattern; its report step, run with bash as
//! the runner runs it, expands globs and writes the report in GitHub's
//! rendering, the step output and the job summary; the baseline and comment
//! steps run against a stand-in `gh` (`gh_steps`, tests/action/gh); the
//! history of runs is restored, recorded once and saved across jobs with a
//! stand-in for the Actions cache (`history`); the coverage inputs become
//! `report`'s flags, the base chosen by the event (`coverage`); and
//! actionlint passes on all of it (`lint`).

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fs;
use std::path::PathBuf;
use std::process::{Command, Output};

use yaml_rust2::{Yaml, YamlLoader};

const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The inputs issues 17, 21 and 32 ask for.
const REQUIRED_INPUTS: &[&str] = &[
    "files",
    "baseline",
    "max-chars",
    "annotations",
    "summary",
    "fail-on",
    "comment",
    "comment-key",
    "github-token",
    "pr-number",
    "baseline-artifact",
    "history",
    "history-runs",
    "history-key",
];
/// The outputs of the actions action.yml uses that its expressions read.
const USED_ACTION_OUTPUTS: &[(&str, &[&str])] = &[(
    "actions/cache/restore@",
    &["cache-hit", "cache-primary-key", "cache-matched-key"],
)];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn load(text: &str, what: &str) -> Yaml {
    let mut docs = YamlLoader::load_from_str(text).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(docs.len(), 1, "{what}: one YAML document");
    docs.remove(0)
}

fn action() -> Yaml {
    load(
        &fs::read_to_string(repo().join("action.yml")).unwrap(),
        "action.yml",
    )
}

fn text<'a>(node: &'a Yaml, what: &str) -> &'a str {
    node.as_str()
        .unwrap_or_else(|| panic!("{what}: expected a string, got {node:?}"))
}

fn keys(node: &Yaml, what: &str) -> BTreeSet<String> {
    node.as_hash()
        .unwrap_or_else(|| panic!("{what}: expected a mapping, got {node:?}"))
        .keys()
        .map(|k| text(k, what).to_string())
        .collect()
}

fn steps(action: &Yaml) -> &Vec<Yaml> {
    action["runs"]["steps"]
        .as_vec()
        .expect("runs.steps is a list")
}

fn step<'a>(action: &'a Yaml, id: &str) -> &'a Yaml {
    steps(action)
        .iter()
        .find(|s| s["id"].as_str() == Some(id))
        .unwrap_or_else(|| panic!("action.yml has no step with id {id}"))
}

/// Every `${{ ... }}` expression in `text`, trimmed.
fn expressions(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${{") {
        let end = rest[start..].find("}}").expect("an expression is closed") + start;
        found.push(rest[start + 3..end].trim().to_string());
        rest = &rest[end + 2..];
    }
    found
}

/// Every string anywhere under `node`.
fn strings(node: &Yaml, out: &mut Vec<String>) {
    match node {
        Yaml::String(s) => out.push(s.clone()),
        Yaml::Array(items) => items.iter().for_each(|i| strings(i, out)),
        Yaml::Hash(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

#[test]
fn action_yml_is_a_composite_action() {
    let action = action();
    assert_eq!(
        keys(&action, "action.yml"),
        [
            "name",
            "description",
            "author",
            "branding",
            "inputs",
            "outputs",
            "runs"
        ]
        .map(String::from)
        .into(),
        "action.yml's top-level keys"
    );
    text(&action["name"], "name");
    text(&action["description"], "description");
    assert_eq!(text(&action["runs"]["using"], "runs.using"), "composite");
    let steps = steps(&action);
    assert!(steps.len() >= 2, "install and report steps");
    let mut ids = BTreeSet::new();
    for (i, step) in steps.iter().enumerate() {
        let what = format!("runs.steps[{i}]");
        let has_run = !step["run"].is_badvalue();
        assert_ne!(has_run, !step["uses"].is_badvalue(), "{what}: run xor uses");
        if has_run {
            // A composite action's run step must name its shell.
            assert_eq!(text(&step["shell"], &what), "bash", "{what}: shell");
            let script = text(&step["run"], &what);
            assert!(
                expressions(script).is_empty(),
                "{what}: expressions pasted into the script (pass them through env): {script}"
            );
        }
        if let Some(id) = step["id"].as_str() {
            assert!(ids.insert(id.to_string()), "{what}: id {id} twice");
        }
    }
}

#[test]
fn the_inputs_exist_have_defaults_and_are_all_used() {
    let action = action();
    let inputs = keys(&action["inputs"], "inputs");
    for name in REQUIRED_INPUTS {
        assert!(inputs.contains(*name), "input {name} missing: {inputs:?}");
    }
    for name in &inputs {
        let input = &action["inputs"][name.as_str()];
        text(&input["description"], name);
        let required = input["required"].as_bool().unwrap_or(false);
        assert_eq!(
            required,
            input["default"].is_badvalue(),
            "input {name}: required exactly when it has no default"
        );
    }
    assert_eq!(action["inputs"]["files"]["default"].as_str(), Some(""));

    let mut all = Vec::new();
    strings(&action["runs"], &mut all);
    strings(&action["outputs"], &mut all);
    let used: BTreeSet<String> = all
        .iter()
        .flat_map(|s| expressions(s))
        .filter_map(|e| e.strip_prefix("inputs.").map(String::from))
        .collect();
    assert_eq!(
        used, inputs,
        "inputs referenced by the steps vs inputs declared"
    );
}

#[test]
fn every_step_output_referenced_is_written_by_that_step() {
    let action = action();
    let mut all = Vec::new();
    strings(&action["runs"], &mut all);
    strings(&action["outputs"], &mut all);
    let mut all: Vec<String> = all.iter().flat_map(|s| expressions(s)).collect();
    // A step's `if` is an expression with or without `${{ }}`.
    all.extend(steps(&action).iter().filter_map(|s| {
        let condition = s["if"].as_str()?;
        Some(
            expressions(condition)
                .pop()
                .unwrap_or_else(|| condition.to_string()),
        )
    }));
    let mut checked = 0;
    for expr in &all {
        // Every name with a dot is an input or a step's output; the rest
        // are literals and functions (`'true'`, `cancelled()`).
        let names = expr
            .split(|c: char| !(c.is_ascii_alphanumeric() || "._-".contains(c)))
            .filter(|t| t.contains('.'));
        for name in names {
            let Some(rest) = name.strip_prefix("steps.") else {
                assert!(
                    name.starts_with("inputs."),
                    "unexpected name {name} in {expr}"
                );
                continue;
            };
            let (id, output) = rest.split_once(".outputs.").expect("steps.ID.outputs.NAME");
            let step = step(&action, id);
            if let Some(uses) = step["uses"].as_str() {
                let (_, outputs) = USED_ACTION_OUTPUTS
                    .iter()
                    .find(|(action, _)| uses.starts_with(action))
                    .unwrap_or_else(|| panic!("step {id}: outputs of {uses} unknown"));
                assert!(outputs.contains(&output), "{uses} has no output {output}");
            } else {
                let script = coverage::with_scripts(text(&step["run"], id));
                assert!(
                    script.contains(&format!("echo \"{output}="))
                        && script.contains(">> \"$GITHUB_OUTPUT\""),
                    "step {id} never writes output {output}"
                );
            }
            checked += 1;
        }
    }
    assert!(
        checked >= 10,
        "the report step's binary, the history's file and keys, the action's output"
    );
    for name in keys(&action["outputs"], "outputs") {
        text(&action["outputs"][name.as_str()]["description"], &name);
        text(&action["outputs"][name.as_str()]["value"], &name);
    }
}

#[test]
fn the_action_installs_its_own_version() {
    let action = action();
    let install = step(&action, "install");
    let pinned = text(&install["env"]["PYTEST_MCP_VERSION"], "PYTEST_MCP_VERSION");
    assert_eq!(
        pinned, VERSION,
        "action.yml installs a version other than Cargo.toml's"
    );
    let script = text(&install["run"], "install");
    assert!(
        script.contains("\"mcp-server-pytest==$PYTEST_MCP_VERSION\""),
        "the install step must pin the distribution: {script}"
    );
    let pyproject = fs::read_to_string(repo().join("pyproject.toml")).unwrap();
    assert!(pyproject.contains("name = \"mcp-server-pytest\""));
}

/// A step of the action run as the runner runs a `shell: bash` step
/// (`bash --noprofile --norc -eo pipefail FILE`), from the repository root
/// (also `GITHUB_ACTION_PATH`, the action's checkout, for its scripts),
/// with `RUNNER_TEMP`, `GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY` in `temp`,
/// its `env` evaluated with `with` (else the inputs' defaults) and
/// `outputs` (earlier steps' outputs, `steps.ID.outputs.NAME`; one not given
/// is empty, as GitHub evaluates it). The `GITHUB_*` variables of the
/// environment the tests run in are removed; `extra_env` sets the ones a
/// test needs.
struct Run {
    output: Output,
    github_output: String,
    summary: String,
    temp: tempfile::TempDir,
}

/// The variables of a runner that change what a step does.
const RUNNER_VARIABLES: &[&str] = &[
    "GITHUB_SERVER_URL",
    "GITHUB_REPOSITORY",
    "GITHUB_SHA",
    "GITHUB_BASE_REF",
    "GITHUB_EVENT_PATH",
    "GITHUB_WORKFLOW_REF",
    "GITHUB_WORKFLOW",
    "GITHUB_WORKSPACE",
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "GITHUB_EVENT_NAME",
    "GITHUB_REF_NAME",
    "GITHUB_JOB",
    "GITHUB_RUN_ID",
    "GITHUB_RUN_ATTEMPT",
];

fn run_step(
    id: &str,
    with: &[(&str, &str)],
    outputs: &[(&str, &str)],
    extra_env: &[(&str, &std::ffi::OsStr)],
) -> Run {
    let action = action();
    let step = step(&action, id);
    let temp = tempfile::tempdir().unwrap();
    let script = temp.path().join("step.sh");
    fs::write(&script, text(&step["run"], "run")).unwrap();
    let (github_output, summary) = (temp.path().join("output"), temp.path().join("summary"));
    fs::write(&github_output, "").unwrap();
    fs::write(&summary, "").unwrap();
    let mut command = Command::new("bash");
    command
        .args(["--noprofile", "--norc", "-eo", "pipefail"])
        .arg(&script)
        .current_dir(repo());
    for name in RUNNER_VARIABLES {
        command.env_remove(name);
    }
    command
        .env("GITHUB_ACTION_PATH", repo())
        .env("RUNNER_TEMP", temp.path())
        .env("GITHUB_OUTPUT", &github_output)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .envs(extra_env.iter().copied());
    for (name, value) in step["env"].as_hash().expect("the step's env") {
        let value = text(value, "env");
        let value = if value.contains("${{") {
            evaluate(&action, value, with, outputs)
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

fn run_report_step(with: &[(&str, &str)]) -> Run {
    let bin = [(
        "steps.install.outputs.bin",
        env!("CARGO_BIN_EXE_pytest-mcp"),
    )];
    run_step("report", with, &bin, &[])
}

/// `${{ inputs.NAME }}` and `${{ steps.ID.outputs.NAME }}`, the only
/// expressions expected in a step's env.
fn evaluate(action: &Yaml, value: &str, with: &[(&str, &str)], outputs: &[(&str, &str)]) -> String {
    let expr = expressions(value);
    assert_eq!(expr.len(), 1, "one expression per env value: {value}");
    assert_eq!(
        value,
        format!("${{{{ {} }}}}", expr[0]),
        "the value is the expression alone"
    );
    if expr[0].starts_with("steps.") {
        let given = outputs.iter().find(|(e, _)| *e == expr[0]);
        return given.map_or_else(String::new, |(_, v)| v.to_string());
    }
    let name = expr[0].strip_prefix("inputs.").expect("an input");
    if let Some((_, given)) = with.iter().find(|(n, _)| *n == name) {
        return given.to_string();
    }
    let default = &action["inputs"][name]["default"];
    text(default, name).to_string()
}

fn report_cli(args: &[&str]) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pytest-mcp"));
    for name in RUNNER_VARIABLES {
        command.env_remove(name);
    }
    let out = command
        .current_dir(repo())
        .arg("report")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `report --format gfm` of `args` within `max_chars`: the comment file's
/// rendering (the `max-chars` input) or the job summary's (1,000,000).
fn gfm(args: &[&str], max_chars: usize) -> String {
    let max_chars = max_chars.to_string();
    let mut all = args.to_vec();
    all.extend(["--format", "gfm", "--max-chars", &max_chars]);
    report_cli(&all)
}

/// The job summary's budget in characters (action.yml).
const SUMMARY_CHARS: usize = 1_000_000;

fn stdout(run: &Run) -> String {
    String::from_utf8_lossy(&run.output.stdout).into_owned()
        + &String::from_utf8_lossy(&run.output.stderr)
}

const ONE_FAILURE: &str = "tests/fixtures/pytest/one_failure";

#[path = "action/coverage.rs"]
mod coverage;
#[path = "action/gh_steps.rs"]
mod gh_steps;
#[path = "action/history.rs"]
mod history;
#[path = "action/lint.rs"]
mod lint;
#[path = "action/readme.rs"]
mod readme;
#[path = "action/shards.rs"]
mod shards;

#[test]
fn the_report_step_writes_the_markdown_file_its_output_and_the_summary() {
    // Two globs on two lines, one of them `**`.
    let files = format!("{ONE_FAILURE}/*.json\ntests/**/one_failure/junit-xunit1.xml");
    let run = run_report_step(&[("files", &files), ("annotations", "false")]);
    assert!(run.output.status.success(), "{}", stdout(&run));
    let markdown = run.temp.path().join("pytest-mcp-report.md");
    assert_eq!(
        run.github_output,
        format!("markdown-file={}\n", markdown.display()),
        "the step output"
    );
    let paths = [
        format!("{ONE_FAILURE}/report.json"),
        format!("{ONE_FAILURE}/junit-xunit1.xml"),
    ];
    let args = paths.each_ref().map(String::as_str);
    let expected = gfm(&args, 65536);
    assert_ne!(
        expected,
        report_cli(&args),
        "GitHub's rendering, not the agent's"
    );
    assert_eq!(fs::read_to_string(&markdown).unwrap(), expected);
    assert_eq!(run.summary, gfm(&args, SUMMARY_CHARS), "the job summary");
}

#[test]
fn summary_false_leaves_the_job_summary_alone_and_max_chars_is_passed() {
    let files = "tests/fixtures/pytest/many_failures/report.json";
    let run = run_report_step(&[
        ("files", files),
        ("annotations", "false"),
        ("summary", "false"),
        ("max-chars", "2000"),
    ]);
    assert!(run.output.status.success(), "{}", stdout(&run));
    assert_eq!(run.summary, "");
    let markdown = fs::read_to_string(run.temp.path().join("pytest-mcp-report.md")).unwrap();
    assert_eq!(markdown, gfm(&[files], 2000));
    assert!(markdown.chars().count() <= 2000, "{}", markdown.len());
    assert_ne!(
        markdown,
        gfm(&[files], 65536),
        "the budget changed the report"
    );
}

#[test]
fn the_baseline_globs_become_baseline_flags() {
    let run = run_report_step(&[
        ("files", "tests/fixtures/pytest/mixed/report.json"),
        ("baseline", "tests/fixtures/pytest/all_pass/*.json"),
        ("annotations", "false"),
    ]);
    assert!(run.output.status.success(), "{}", stdout(&run));
    let expected = gfm(
        &[
            "--baseline",
            "tests/fixtures/pytest/all_pass/report.json",
            "tests/fixtures/pytest/mixed/report.json",
        ],
        SUMMARY_CHARS,
    );
    assert_ne!(
        expected,
        gfm(&["tests/fixtures/pytest/mixed/report.json"], SUMMARY_CHARS),
        "the baseline changes the report"
    );
    assert_eq!(run.summary, expected);
}

#[test]
fn no_matching_file_is_an_error_and_a_bad_switch_is_refused() {
    let run = run_report_step(&[("files", "nothing/**/*.xml"), ("annotations", "false")]);
    assert!(!run.output.status.success());
    let out = stdout(&run);
    assert!(
        out.contains("::warning title=pytest-mcp::no file matches nothing/**/*.xml"),
        "{out}"
    );
    assert!(
        out.contains("::error title=pytest-mcp::no result file matches"),
        "{out}"
    );
    assert_eq!(run.github_output, "", "no output without a report");

    let run = run_report_step(&[("files", ONE_FAILURE), ("summary", "yes")]);
    assert!(!run.output.status.success());
    assert!(stdout(&run).contains("input summary must be true or false, not 'yes'"));
}

/// `fail-on`: the report step decides (its `fail-on-status` output) and the
/// last step fails, so that everything is written and the comment sent
/// before the action fails; `new` counts only the failures the baseline
/// did not have.
#[test]
fn fail_on_fails_the_last_step_after_everything_is_written() {
    let action = action();
    let ids: Vec<&str> = steps(&action)
        .iter()
        .filter_map(|s| s["id"].as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "install",
            "baseline",
            "history",
            "history-restore",
            "plan",
            "report",
            "comment",
            "history-save",
            "fail-on"
        ],
        "the steps' order"
    );

    let files = format!("{ONE_FAILURE}/junit-xunit1.xml");
    let run = run_report_step(&[
        ("files", &files),
        ("annotations", "false"),
        ("fail-on", "failures"),
    ]);
    assert!(run.output.status.success(), "{}", stdout(&run));
    let markdown = run.temp.path().join("pytest-mcp-report.md");
    assert_eq!(
        run.github_output,
        format!("markdown-file={}\nfail-on-status=1\n", markdown.display())
    );
    assert_eq!(run.summary, gfm(&[&files], SUMMARY_CHARS));
    let with = [("fail-on", "failures")];
    let status = [("steps.report.outputs.fail-on-status", "1")];
    let last = run_step("fail-on", &with, &status, &[]);
    assert_eq!(last.output.status.code(), Some(1), "{}", stdout(&last));
    assert_eq!(
        stdout(&last),
        "::error title=pytest-mcp::the results hold failures (fail-on: failures)\n"
    );

    let passing = run_report_step(&[
        ("files", "tests/fixtures/pytest/all_pass/junit-xunit1.xml"),
        ("annotations", "false"),
        ("fail-on", "failures"),
    ]);
    assert!(passing.output.status.success(), "{}", stdout(&passing));
    assert!(passing.github_output.ends_with("fail-on-status=0\n"));
    for status in ["0", ""] {
        let outputs = [("steps.report.outputs.fail-on-status", status)];
        let last = run_step("fail-on", &with, &outputs, &[]);
        assert!(last.output.status.success(), "{}", stdout(&last));
        assert_eq!(stdout(&last), "");
    }

    // `new`: failures the baseline did not have; anything else is refused.
    let after = "tests/fixtures/baseline/after.xml";
    for (baseline, status) in [("tests/fixtures/baseline/before.xml", 1), (after, 0)] {
        let run = run_report_step(&[
            ("files", after),
            ("baseline", baseline),
            ("annotations", "false"),
            ("fail-on", "new"),
        ]);
        assert!(run.output.status.success(), "{}", stdout(&run));
        let expected = format!("fail-on-status={status}\n");
        assert!(
            run.github_output.ends_with(&expected),
            "{}",
            run.github_output
        );
    }
    let outputs = [("steps.report.outputs.fail-on-status", "1")];
    let last = run_step("fail-on", &[("fail-on", "new")], &outputs, &[]);
    assert_eq!(last.output.status.code(), Some(1), "{}", stdout(&last));
    assert_eq!(
        stdout(&last),
        "::error title=pytest-mcp::the results hold new failures (fail-on: new)\n"
    );
    let run = run_report_step(&[("files", after), ("fail-on", "everything")]);
    assert_eq!(run.output.status.code(), Some(1));
    assert!(stdout(&run).contains("input fail-on must be failures, errors, new or never"));
}

/// The install step with the wheel scripts/wheel-check.sh built in place of
/// the package index (pip's `PIP_NO_INDEX`, `PIP_FIND_LINKS`): it installs
/// `mcp-server-pytest==<the action's version>`, so the wheel's version must
/// be the action's; then the report step runs with the installed command.
/// Ignored by a plain `cargo test` (no wheel); scripts/wheel-check.sh runs
/// it with `PYTEST_MCP_WHEEL_DIR`.
#[test]
#[ignore = "needs the wheel: scripts/wheel-check.sh runs it"]
fn the_install_step_installs_the_wheel_and_the_report_step_runs_it() {
    let wheels = std::env::var("PYTEST_MCP_WHEEL_DIR")
        .expect("PYTEST_MCP_WHEEL_DIR: the directory holding the wheel");
    let pip = [("PIP_NO_INDEX", "1"), ("PIP_FIND_LINKS", wheels.as_str())];
    let pip = pip.map(|(k, v)| (k, std::ffi::OsStr::new(v)));
    let install = run_step("install", &[], &[], &pip);
    assert!(install.output.status.success(), "{}", stdout(&install));
    let bin = install
        .temp
        .path()
        .join(format!("pytest-mcp-{VERSION}/bin/pytest-mcp"));
    assert_eq!(install.github_output, format!("bin={}\n", bin.display()));
    assert!(
        stdout(&install).contains(&format!("pytest-mcp {VERSION}")),
        "the step prints the installed version: {}",
        stdout(&install)
    );

    let files = format!("{ONE_FAILURE}/junit-xunit1.xml");
    let with = [("files", files.as_str()), ("annotations", "false")];
    let bin = [("steps.install.outputs.bin", bin.to_str().unwrap())];
    let report = run_step("report", &with, &bin, &[]);
    assert!(report.output.status.success(), "{}", stdout(&report));
    assert_eq!(report.summary, gfm(&[&files], SUMMARY_CHARS));
}

/// `annotations: true` (the default): the report step prints one `::error`
/// per failure group on the crash line, as `report --format github` does,
/// and the job summary still holds the report once.
#[test]
fn annotations_are_printed_on_the_failing_lines() {
    let files = format!("{ONE_FAILURE}/report.json");
    let run = run_report_step(&[("files", &files)]);
    assert!(run.output.status.success(), "{}", stdout(&run));
    let out = String::from_utf8_lossy(&run.output.stdout).into_owned();
    let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("::error ")).collect();
    let expected = report_cli(&[&files, "--format", "github"]);
    let expected_errors: Vec<&str> = expected
        .lines()
        .filter(|l| l.starts_with("::error "))
        .collect();
    assert!(!errors.is_empty(), "no annotation in:\n{out}");
    assert_eq!(errors, expected_errors);
    assert!(
        errors
            .iter()
            .all(|e| e.contains("file=") && e.contains(",line=")),
        "{errors:?}"
    );
    let markdown = gfm(&[&files], SUMMARY_CHARS);
    assert_eq!(run.summary, markdown, "the summary holds the report once");
}

/// In a workflow run, the report's `path:line` are links to the file at
/// the commit: the command reads the runner's `GITHUB_SERVER_URL`,
/// `GITHUB_REPOSITORY` and `GITHUB_SHA` itself.
#[test]
fn the_report_links_to_the_files_at_the_commit() {
    let files = format!("{ONE_FAILURE}/report.json");
    let bin = [(
        "steps.install.outputs.bin",
        env!("CARGO_BIN_EXE_pytest-mcp"),
    )];
    let sha = "0123456789abcdef0123456789abcdef01234567";
    let runner = [
        ("GITHUB_SERVER_URL", OsStr::new("https://github.com")),
        ("GITHUB_REPOSITORY", OsStr::new("octo/shop")),
        ("GITHUB_SHA", OsStr::new(sha)),
    ];
    let with = [("files", files.as_str()), ("annotations", "false")];
    let run = run_step("report", &with, &bin, &runner);
    assert!(run.output.status.success(), "{}", stdout(&run));
    let link = format!("(https://github.com/octo/shop/blob/{sha}/tests/test_calc.py#L17)");
    let markdown = fs::read_to_string(run.temp.path().join("pytest-mcp-report.md")).unwrap();
    assert!(markdown.contains(&link), "{markdown}");
    assert!(run.summary.contains(&link), "{}", run.summary);
    assert!(
        !gfm(&[&files], SUMMARY_CHARS).contains("https://"),
        "no link outside a workflow run"
    );
}
