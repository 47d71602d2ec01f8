//! The GitHub rendering (`--format gfm`) as GitHub shows it: every
//! `expected.gfm` golden rendered by `cmarkgfm` (GitHub's cmark-gfm, its
//! extensions on, raw HTML let through) and its HTML checked by
//! `tests/gfm/check_html.py` (see there): failures' message and source
//! lines inside `<pre>`, only allowed elements and links, the hostile
//! strings as literal text, no mention or issue reference outside code,
//! no `<details>` opened or closed by a test. The check fails on the agent
//! Markdown of the hostile fixture, which is what it is for.
//!
//! Interpreter: `PYTEST_MCP_TEST_PYTHON` (with `cmarkgfm`, pinned in
//! requirements-dev.txt).

use pytest_mcp::frontend::report;
use std::path::{Path, PathBuf};
use std::process::Command;

use pytest_mcp::frontend::report::Input;
use pytest_mcp::render;
use pytest_mcp::request::OutputFormat;

mod common;
use common::headline::{Verdict, before_counts, every_start, report_error, run_failed, start};

/// `report`'s refusal of one unreadable file says this after its verdict.
const UNREADABLE: &str = "the input file could not be read as test results";
use common::support;

// The benchmarks' generator of large inputs (the testkit crate).
use pytest_mcp_testkit::inputs;

/// What a test writes into a PR comment to take it over.
const HOSTILE: &[&str] = &[
    "<script>alert(1)</script>",
    "</details>",
    "@octocat",
    "#1",
    "#12",
    "**bold**",
    "|",
    "````",
    "<Cart with 5 item(s)>",
    "__init__",
    "[1-2]",
    "[1-2](https://evil.example)",
    "<img src=x onerror=alert(1)>",
    "## All tests passed",
    "## All tests passed ```",
    "&amp;",
    "<b>",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn out_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gfm-check");
    std::fs::create_dir_all(&dir).expect("create gfm-check");
    dir
}

fn read_list(path: &Path) -> Vec<Input> {
    std::fs::read_to_string(path)
        .expect("list of inputs")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|rel| Input {
            name: rel.to_string(),
            contents: std::fs::read(root().join(rel)).map_err(|e| e.to_string()),
        })
        .collect()
}

/// The agent Markdown of `inputs`, whole and uncollapsed: its failure
/// sections say what every failure's lines are.
fn agent_markdown(inputs: &[Input], name: &str) -> PathBuf {
    let text = match report::read_run(inputs, report::Reading::for_format(OutputFormat::Markdown)) {
        Ok(run) => render::markdown::render(&run),
        // A scenario of unreadable files: its answer is the error, which
        // the GitHub rendering tells in a code block.
        Err(errors) => {
            pytest_mcp::frontend::respond::unreadable(&errors, inputs.len(), OutputFormat::Markdown)
                .into_text()
        }
    };
    let path = out_dir().join(format!("{name}.md"));
    std::fs::write(&path, text).expect("write the agent Markdown");
    path
}

/// Runs the checker on `gfm`; its exit status and output.
fn check(
    name: &str,
    gfm: &Path,
    agent: &Path,
    link_base: Option<&str>,
    literals: &[&str],
) -> (bool, String) {
    let spec = serde_json::json!({
        "gfm": gfm,
        "agent_markdown": agent,
        "link_base": link_base,
        "literals": literals,
        "headlines": every_start(),
    });
    let spec_path = out_dir().join(format!("{name}.json"));
    std::fs::write(&spec_path, spec.to_string()).expect("write the spec");
    let output = Command::new(support::test_python())
        .arg(root().join("tests/gfm/check_html.py"))
        .arg(&spec_path)
        .output()
        .expect("run the checker");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

fn scenario(name: &str) -> (PathBuf, Vec<Input>, Option<String>) {
    let dir = root().join("golden").join(name);
    let link_base = std::fs::read_to_string(dir.join("link_base"))
        .ok()
        .map(|s| s.trim().to_string());
    (
        dir.join("expected.gfm"),
        read_list(&dir.join("inputs")),
        link_base,
    )
}

#[test]
fn every_gfm_golden_renders_safely_on_github() {
    let mut failures = Vec::new();
    let mut goldens = 0;
    for entry in std::fs::read_dir(root().join("golden")).expect("list golden/") {
        let dir = entry.expect("entry").path();
        let name = dir.file_name().expect("name").to_string_lossy().to_string();
        if !dir.join("expected.gfm").is_file() || !dir.join("inputs").is_file() {
            continue;
        }
        goldens += 1;
        let (gfm, inputs, link_base) = scenario(&name);
        let agent = agent_markdown(&inputs, &name);
        let literals = if name == "gfm_hostile" { HOSTILE } else { &[] };
        let (ok, output) = check(&name, &gfm, &agent, link_base.as_deref(), literals);
        println!("{output}");
        if !ok {
            failures.push(output);
        }
    }
    assert!(goldens >= 5, "only {goldens} expected.gfm goldens");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The golden of a run told against the history of runs
/// (tests/history_golden.rs), against its agent Markdown golden: the
/// failing-before and flaky marks, the Flaky section with the flaky
/// failures' code blocks.
#[test]
fn the_history_golden_renders_safely_on_github() {
    let dir = root().join("golden/history");
    let (ok, output) = check(
        "history",
        &dir.join("expected.gfm"),
        &dir.join("expected.md"),
        None,
        &[],
    );
    println!("{output}");
    assert!(ok, "{output}");
    assert!(output.contains(": 3 failure sections checked"), "{output}");
}

/// The goldens of how runs end (tests/endings_golden.rs): a run that
/// failed with every test passed, its reason in a code block; a crash and
/// an interruption, their Markdown in one.
#[test]
fn the_endings_goldens_render_safely_on_github() {
    let mut failures = Vec::new();
    for name in ["exit_reason", "os_exit", "pytest_exit"] {
        let dir = root().join("golden/endings").join(name);
        let (ok, output) = check(
            name,
            &dir.join("expected.gfm"),
            &dir.join("expected.md"),
            None,
            &[],
        );
        println!("{output}");
        if !ok {
            failures.push(output);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The 100,000-case golden, against the run it was made from (generated
/// into cargo's target folder as `tests/golden.rs` does).
#[test]
fn the_100000_case_golden_renders_safely_on_github() {
    let (xml, _) = inputs::big_reports(
        &PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gfm-check-inputs"),
        100_000,
    );
    let input = Input {
        name: "junit-100000.xml".into(),
        contents: std::fs::read(&xml).map_err(|e| e.to_string()),
    };
    let agent = agent_markdown(&[input], "gfm_100000_cases");
    let gfm = root().join("golden/gfm_100000_cases/expected.gfm");
    let (ok, output) = check("gfm_100000_cases", &gfm, &agent, None, &[]);
    assert!(ok, "{output}");
    assert!(output.contains(": 3 failure sections checked"), "{output}");
}

/// The check can fail: the agent Markdown of the hostile fixture, read by
/// GitHub as it is (what the job summary was before), lets an image, a
/// mention and a fake heading through.
#[test]
fn the_check_fails_on_the_agent_markdown_of_the_hostile_fixture() {
    let (_, inputs, link_base) = scenario("gfm_hostile");
    let agent = agent_markdown(&inputs, "gfm_hostile");
    let md = root().join("golden/gfm_hostile/expected.md");
    let (ok, output) = check(
        "hostile_agent_markdown",
        &md,
        &agent,
        link_base.as_deref(),
        HOSTILE,
    );
    println!("{output}");
    assert!(!ok, "the check passed the agent Markdown:\n{output}");
    for problem in [
        "element <img> is not allowed",
        "mention outside code",
        "a heading that is not ours",
        "no failure of the agent Markdown is shown in full",
    ] {
        assert!(output.contains(problem), "{problem} not found in\n{output}");
    }
}

const BIN: &str = env!("CARGO_BIN_EXE_pytest-mcp");

/// `pytest-mcp ARGS` in the repository with `vars` set (GitHub's
/// variables removed first): exit status and standard output.
fn pytest_mcp(args: &[&str], vars: &[(&str, &str)]) -> (Option<i32>, String) {
    let mut c = support::clean_command(Path::new(BIN));
    for var in [
        "GITHUB_SERVER_URL",
        "GITHUB_REPOSITORY",
        "GITHUB_SHA",
        "GITHUB_WORKSPACE",
        "GITHUB_STEP_SUMMARY",
    ] {
        c.env_remove(var);
    }
    c.current_dir(root()).args(args).envs(vars.iter().copied());
    let out = c.output().expect("run pytest-mcp");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// `report --format gfm`: links from GitHub's variables, or from
/// `--link-base` (which wins), none without either; `-o`, `--max-chars`
/// and `--baseline` as for Markdown; an unreadable file is the Markdown
/// error in a code block, exit status 2.
#[test]
fn report_gfm_links_sizes_and_errors() {
    let mixed = "tests/fixtures/pytest/mixed/junit-xunit1.xml";
    let actions = [
        ("GITHUB_SERVER_URL", "https://github.com"),
        ("GITHUB_REPOSITORY", "octo/shop"),
        ("GITHUB_SHA", "0123abc"),
    ];
    let (code, out) = pytest_mcp(&["report", "--format", "gfm", mixed], &actions);
    assert_eq!(code, Some(0));
    assert!(
        out.starts_with(&format!(
            "## {}{}{}",
            start(Verdict::Failure),
            before_counts(),
            run_failed(30, 5)
        )),
        "{out}"
    );
    assert!(
        out.contains("(https://github.com/octo/shop/blob/0123abc/tests/test_catalog.py#L54)"),
        "{out}"
    );
    let base = "https://example.org/tree/v1/";
    let (_, out) = pytest_mcp(
        &["report", "--format", "gfm", "--link-base", base, mixed],
        &actions,
    );
    assert!(
        out.contains("(https://example.org/tree/v1/tests/test_catalog.py#L54)"),
        "{out}"
    );
    let (_, out) = pytest_mcp(&["report", "--format", "gfm", mixed], &[]);
    assert!(!out.contains("](http"), "{out}");
    assert!(
        out.contains("Failed at `tests/test_catalog.py:54`."),
        "{out}"
    );

    let written = out_dir().join("comment.md");
    let written_str = written.to_str().expect("UTF-8 path");
    let (code, out) = pytest_mcp(
        &[
            "report",
            "--format",
            "gfm",
            "--max-chars",
            "1000",
            "-o",
            written_str,
            "--baseline",
            "tests/fixtures/baseline/before.xml",
            "tests/fixtures/baseline/after.xml",
        ],
        &[],
    );
    assert_eq!((code, out.as_str()), (Some(0), ""));
    let text = std::fs::read_to_string(&written).expect("the comment file");
    assert!(text.chars().count() <= 1000, "{}", text.chars().count());
    assert!(text.contains("| Change |"), "{text}");
    assert!(
        text.contains("tests/test_cart.py::test_total"),
        "the new failure: {text}"
    );
    assert!(text.contains("Shortened to fit 1,000 characters"), "{text}");

    let (code, out) = pytest_mcp(&["report", "--format", "gfm", "no/such.xml"], &[]);
    assert_eq!(code, Some(2));
    assert!(
        out.starts_with(&format!(
            "## {}\n\n```text\n{}",
            report_error(UNREADABLE),
            report_error("")
        )),
        "{out}"
    );
}

/// `run --format gfm` on a real project: the GitHub rendering, pytest's
/// exit status; a refused parameter is its Markdown line in a code block.
#[test]
fn run_gfm_answers_in_github_markdown() {
    let project = root().join("tests/projects/one_failure");
    let python = support::test_python();
    let (code, out) = pytest_mcp(
        &[
            "run",
            "--format",
            "gfm",
            "--root",
            project.to_str().expect("UTF-8 path"),
            "--python",
            python.to_str().expect("UTF-8 path"),
            "--link-base",
            "https://github.com/o/r/blob/s/",
        ],
        &[],
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.starts_with(&format!(
            "## {}{}",
            start(Verdict::Failure),
            before_counts()
        )),
        "{out}"
    );
    assert!(
        out.contains("<details open>\n<summary><strong>FAILED</strong>"),
        "{out}"
    );
    assert!(out.contains("](https://github.com/o/r/blob/s/"), "{out}");
    assert!(
        out.contains("Rerun the failures: pytest-mcp run --last-failed"),
        "{out}"
    );

    let (code, out) = pytest_mcp(&["run", "--format", "gfm", "--timeout", "0"], &[]);
    assert_eq!(code, Some(4));
    assert!(
        out.starts_with("## Invalid params: timeout must be"),
        "{out}"
    );
    assert!(out.contains("\n```text\nInvalid params: timeout"), "{out}");
}
