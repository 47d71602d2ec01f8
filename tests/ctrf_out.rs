//! CTRF out (`--format ctrf`): the document is strictly valid CTRF, counts
//! as the JSON report does, and reads back to the run it came from.
//!
//! - Round trip: for every golden scenario that reads (JUnit of every
//!   dialect, pytest-json-report with its JUnit, shards, reruns) and every
//!   result file of our fixtures alone, the Markdown of the run converted
//!   to CTRF and read back equals the Markdown of the run, but for the
//!   `> Sources:` line (which names CTRF then). The few that hold what
//!   CTRF has no place for are listed with the reason.
//! - Reference validation: the CTRF of the golden scenarios that pin one
//!   (`expected.ctrf.json`) and of `report --format ctrf` is checked with
//!   npm `ctrf`'s `validateStrict` (tests/ctrf/, pinned to 0.3.0 and
//!   installed by `scripts/setup.sh`). Without Node or the package
//!   installed, that test prints one line saying why and passes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pytest_mcp::budget::Budget;
use pytest_mcp::frontend::dispatch::{self, Style, Subject};
use pytest_mcp::frontend::report::{self, Input, Reading};
use pytest_mcp::model::Run;
use pytest_mcp::request::OutputFormat;
use serde_json::Value;

mod common;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every golden scenario with an `inputs` list, in name order.
fn scenarios() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root().join("golden"))
        .expect("golden/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("inputs").is_file())
        .collect();
    out.sort();
    out
}

fn inputs(scenario: &Path) -> Vec<Input> {
    let list = std::fs::read_to_string(scenario.join("inputs")).expect("inputs");
    list.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|rel| Input {
            name: rel.to_string(),
            contents: std::fs::read(root().join(rel)).map_err(|e| e.to_string()),
        })
        .collect()
}

/// The whole agent Markdown of a run, without its `> Sources:` line.
fn markdown(run: &Run) -> String {
    let text = dispatch::output(
        Subject::run(run),
        OutputFormat::Markdown,
        &Style::report(Budget::NONE),
    )
    .text;
    text.lines()
        .filter(|l| !l.starts_with("> Sources:"))
        .collect::<Vec<_>>()
        .join("\n")
        .trim_end()
        .to_string()
}

/// A CTRF document read back as `report` reads a file.
fn read_back(ctrf: &str) -> Run {
    let input = [Input {
        name: "converted.ctrf.json".into(),
        contents: Ok(ctrf.as_bytes().to_vec()),
    }];
    match report::read_run(&input, Reading::for_format(OutputFormat::Markdown)) {
        Ok(run) => run,
        Err(e) => panic!("our CTRF does not read back: {e:?}\n{ctrf}"),
    }
}

/// Scenarios whose Markdown CTRF cannot carry, and why.
const NOT_ROUND_TRIPPED: &[(&str, &str)] = &[
    (
        "budget_step1_no_output",
        "captured log records: CTRF has stdout and stderr only",
    ),
    (
        "pytest_captured_output",
        "captured log records: CTRF has stdout and stderr only",
    ),
    (
        "pytest_subtests",
        "failed subtests: CTRF has one entry per test and no subtests",
    ),
    (
        "pytest_subtests_pytest_files",
        "failed subtests: CTRF has one entry per test and no subtests",
    ),
    (
        "pytest_warnings",
        "pytest's warnings: CTRF has no place for them",
    ),
];

/// The Markdown of `inputs` read directly and through CTRF, when they
/// read: `None` when they do not, else the difference, if any.
fn round_trip(inputs: &[Input]) -> Option<Option<String>> {
    let run = report::read_run(inputs, Reading::for_format(OutputFormat::Ctrf)).ok()?;
    let ctrf = dispatch::whole(&run, OutputFormat::Ctrf);
    let back = read_back(&ctrf);
    let (want, got) = (markdown(&run), markdown(&back));
    Some((want != got).then(|| {
        similar::TextDiff::from_lines(&want, &got)
            .unified_diff()
            .header("inputs", "CTRF")
            .to_string()
    }))
}

#[test]
fn markdown_of_ctrf_equals_markdown_of_the_inputs() {
    let mut compared = Vec::new();
    let mut failures = Vec::new();
    for scenario in scenarios() {
        let name = scenario.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if NOT_ROUND_TRIPPED.iter().any(|(n, _)| *n == name) {
            continue;
        }
        let Some(diff) = round_trip(&inputs(&scenario)) else {
            continue;
        };
        failures.extend(diff.map(|d| format!("{name}:\n{d}")));
        compared.push(name.to_string());
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        compared.len(),
        failures.join("\n")
    );
    assert!(compared.len() >= 40, "only {} compared", compared.len());
}

/// Each result file of our fixtures alone: every JUnit dialect, and each
/// file of every pytest run (its JSON report, xunit1 and xunit2).
#[test]
fn markdown_of_ctrf_equals_markdown_of_each_fixture() {
    let mut files: Vec<PathBuf> = Vec::new();
    let junit = root().join("tests/fixtures/junit");
    for entry in std::fs::read_dir(&junit).expect("junit fixtures") {
        files.push(entry.expect("entry").path());
    }
    for run in std::fs::read_dir(root().join("tests/fixtures/pytest")).expect("pytest fixtures") {
        let run = run.expect("entry").path();
        for file in ["report.json", "junit-xunit1.xml", "junit-xunit2.xml"] {
            files.push(run.join(file));
        }
    }
    files.sort();
    let named = files.iter().filter(|f| f.is_file()).filter_map(|file| {
        let name = file
            .strip_prefix(root())
            .unwrap_or(file)
            .display()
            .to_string();
        let skipped = NOT_ROUND_TRIPPED_FILES
            .iter()
            .any(|(n, _)| name.ends_with(n));
        (!skipped).then(|| (name, file.clone()))
    });
    let compared = assert_each_round_trips(named);
    assert!(compared >= 60, "only {compared} compared");
}

/// Each file read alone round-trips ([`round_trip`]); a file that does
/// not read is passed over. Panics with every difference; returns how
/// many files were compared.
fn assert_each_round_trips(files: impl Iterator<Item = (String, PathBuf)>) -> usize {
    let mut compared = 0;
    let mut failures = Vec::new();
    for (name, file) in files {
        let input = [Input {
            name: name.clone(),
            contents: std::fs::read(&file).map_err(|e| e.to_string()),
        }];
        let Some(diff) = round_trip(&input) else {
            continue;
        };
        failures.extend(diff.map(|d| format!("{name}:\n{d}")));
        compared += 1;
    }
    assert!(
        failures.is_empty(),
        "{} of {compared} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    compared
}

/// Every file of the shared JUnit corpus, when it is beside the
/// repository (`../shared/junit-corpus`; one line says so when it is not).
#[test]
fn markdown_of_ctrf_equals_markdown_of_each_corpus_file() {
    let Some(files) = common::support::corpus_files() else {
        return;
    };
    let named = files.into_iter().map(|f| (f.display().to_string(), f));
    let compared = assert_each_round_trips(named);
    assert!(compared >= 40, "only {compared} corpus files compared");
}

/// Fixture files whose Markdown CTRF cannot carry, and why.
const NOT_ROUND_TRIPPED_FILES: &[(&str, &str)] = &[
    (
        "pytest/captured_output/report.json",
        "captured log records: CTRF has stdout and stderr only",
    ),
    (
        "pytest/warnings/report.json",
        "pytest's warnings: CTRF has no place for them",
    ),
];

/// The scenario's input files, as `report`'s arguments.
fn input_args(scenario: &str) -> Vec<String> {
    inputs(&root().join("golden").join(scenario))
        .into_iter()
        .map(|i| i.name)
        .collect()
}

/// What `pytest-mcp report --format FORMAT FILES` prints, as JSON.
fn report(format: &str, files: &[String]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_pytest-mcp"))
        .current_dir(root())
        .args(["report", "--format", format])
        .args(files)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .expect("run pytest-mcp");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

/// `report --format ctrf` counts as `--format json` does: errors are
/// failures, xfails skips, xpasses passes, collection errors failed
/// entries of their own; every entry is counted once.
#[test]
fn report_format_ctrf_counts_as_the_json_report() {
    for scenario in [
        "pytest_mixed",
        "pytest_reruns",
        "pytest_collection_errors",
        "pytest_setup_teardown",
        "pytest_xfail_xpass",
        "surefire_flaky",
    ] {
        let files = input_args(scenario);
        let (ctrf, json) = (report("ctrf", &files), report("json", &files));
        let s = &ctrf["results"]["summary"];
        let j = &json["summary"];
        let n = |v: &Value, k: &str| {
            v[k].as_u64()
                .unwrap_or_else(|| panic!("{scenario}: no {k} in {v}"))
        };
        let collection_errors = json["collection_errors"].as_array().map_or(0, Vec::len) as u64;
        let entries = ctrf["results"]["tests"].as_array().map_or(0, Vec::len) as u64;
        assert_eq!(
            n(s, "tests"),
            n(j, "total") + collection_errors,
            "{scenario}"
        );
        assert_eq!(n(s, "tests"), entries, "{scenario}");
        assert_eq!(n(s, "passed"), n(j, "passed"), "{scenario}");
        assert_eq!(
            n(s, "failed"),
            n(j, "failed") + n(j, "errors") + collection_errors,
            "{scenario}"
        );
        assert_eq!(n(s, "skipped"), n(j, "skipped"), "{scenario}");
        assert_eq!(n(s, "flaky"), n(j, "flaky"), "{scenario}");
        assert_eq!((n(s, "pending"), n(s, "other")), (0, 0), "{scenario}");
        assert_eq!(
            ctrf["results"]["tool"]["name"],
            if scenario.starts_with("pytest") {
                "pytest"
            } else {
                "JUnit XML"
            }
        );
    }
}

/// A test that passed after a failed attempt is `flaky`, its attempt
/// listed with the words it failed with.
#[test]
fn a_flaky_test_keeps_its_failed_attempts() {
    let ctrf = report("ctrf", &input_args("pytest_reruns"));
    let tests = ctrf["results"]["tests"].as_array().expect("tests");
    let flip = tests
        .iter()
        .find(|t| t["name"] == "tests/test_retry.py::test_flip")
        .expect("the flaky test");
    assert_eq!(
        (&flip["status"], &flip["flaky"]),
        (&"passed".into(), &true.into())
    );
    assert_eq!(flip["retries"], 1);
    // pytest's reports of this run do not keep the attempt's message.
    assert_eq!(
        flip["retryAttempts"],
        serde_json::json!([{"attempt": 1, "status": "failed"}])
    );
    let real = tests
        .iter()
        .find(|t| t["name"] == "tests/test_retry.py::test_real_failure")
        .expect("the failing test");
    assert!(real.get("flaky").is_none(), "{real}");
    let ctrf = report("ctrf", &input_args("surefire_flaky"));
    let mail = &ctrf["results"]["tests"][0];
    assert_eq!(
        mail["name"],
        "org.example.mail.SmtpRelayTest#sendsWelcomeMail"
    );
    assert_eq!(mail["flaky"], true);
    assert_eq!(mail["retryAttempts"][0]["status"], "failed");
    assert_eq!(
        mail["retryAttempts"][0]["message"],
        "\nExpected: is <250>\n     but: was <421>"
    );
}

/// Why the reference validator cannot run here, if it cannot: no Node, or
/// npm `ctrf` 0.3.0 not installed in tests/ctrf (`scripts/setup.sh` does
/// it with npm). The test never installs anything: no network.
fn missing_validator() -> Option<String> {
    let node = Command::new("node").arg("--version").output();
    if !node.is_ok_and(|o| o.status.success()) {
        return Some("node is not installed".into());
    }
    let package = root().join("tests/ctrf/node_modules/ctrf/package.json");
    let Ok(text) = std::fs::read_to_string(&package) else {
        return Some("npm ctrf is not installed in tests/ctrf/node_modules".into());
    };
    let version = serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| v["version"].as_str().map(str::to_string));
    (version.as_deref() != Some("0.3.0"))
        .then(|| format!("tests/ctrf/node_modules has ctrf {version:?}, not the pinned 0.3.0"))
}

/// tests/ctrf/validate.mjs on these files.
fn validate(files: &[PathBuf]) -> Output {
    Command::new("node")
        .arg(root().join("tests/ctrf/validate.mjs"))
        .args(files)
        .output()
        .expect("run node")
}

/// Every golden CTRF document and `report --format ctrf` of pytest's mixed
/// and rerun runs pass the reference implementation's `validateStrict`;
/// a broken document does not (the validator is really asked).
#[test]
fn the_reference_implementation_finds_our_ctrf_strictly_valid() {
    if let Some(why) = missing_validator() {
        println!(
            "ctrf_out: SKIPPED validation with npm ctrf: {why} (bash scripts/setup.sh installs it with npm)"
        );
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let mut files: Vec<PathBuf> = scenarios()
        .iter()
        .map(|s| s.join("expected.ctrf.json"))
        .filter(|f| f.is_file())
        // Unreadable inputs print the Markdown error, not a document.
        .filter(|f| std::fs::read(f).is_ok_and(|b| b.starts_with(b"{")))
        .collect();
    files.push(root().join("golden/history/expected.ctrf.json"));
    for scenario in ["pytest_mixed", "pytest_reruns"] {
        let path = dir.path().join(format!("{scenario}.ctrf.json"));
        let doc = report("ctrf", &input_args(scenario));
        std::fs::write(&path, doc.to_string()).expect("write");
        files.push(path);
    }
    assert!(files.len() >= 14, "only {} documents", files.len());
    let out = validate(&files);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        said.lines().filter(|l| l.starts_with("valid: ")).count(),
        files.len()
    );
    let mut broken = report("ctrf", &input_args("pytest_reruns"));
    broken["results"]["tests"][0]["status"] = "flaky".into();
    let path = dir.path().join("broken.ctrf.json");
    std::fs::write(&path, broken.to_string()).expect("write");
    let out = validate(&[path]);
    assert!(
        !out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Ids come back exactly as they went, whatever their shape: pytest's
/// (parameters holding `::` or ` › `), Jest's (an empty title), JUnit's
/// `Class#method` and `suite > name`, and text with spaces and marks.
#[test]
fn odd_ids_come_back_as_they_were() {
    use pytest_mcp::model::{Outcome, TestResult};
    let ids = [
        "tests/test_a.py::TestX::test_y[a::b › c]",
        "tests/test_a.py::test_z[ ]",
        "cart › totals › rounds to cents",
        "cart › ",
        " › lonely",
        "org.example.FooTest#bar",
        "Suite X > does a thing",
        "Übung 3: Größe — 東京 ✓",
        "tests/test_mod.py",
    ];
    let run = Run {
        tests: ids
            .iter()
            .map(|id| TestResult::new(*id, Outcome::Passed))
            .collect(),
        ..Run::default()
    };
    let back = read_back(&dispatch::whole(&run, OutputFormat::Ctrf));
    let got: Vec<&str> = back.tests.iter().map(|t| t.node_id.as_str()).collect();
    assert_eq!(got, ids);
}

/// `run --format ctrf` on a real pytest run: pytest's exit status, and
/// the document as `report` writes it (errors with their phase).
#[test]
fn run_format_ctrf_writes_the_run_as_ctrf() {
    let (_dir, root) = common::support::project_copy("setup_teardown");
    let (code, text) = common::support::run_pytest_mcp(&root, &["--format", "ctrf"]);
    assert_eq!(code, Some(1), "{text}");
    let doc: Value = serde_json::from_str(&text).expect("CTRF is JSON");
    assert_eq!(doc["reportFormat"], "CTRF");
    assert_eq!(doc["results"]["tool"]["name"], "pytest");
    let tests = doc["results"]["tests"].as_array().expect("tests");
    let raw = |word: &str| tests.iter().filter(|t| t["rawStatus"] == word).count();
    assert_eq!(
        (raw("setup_failed"), raw("teardown_failed")),
        (3, 2),
        "{text}"
    );
    assert_eq!(doc["results"]["summary"]["failed"], 5, "{text}");
}

/// `run --retries 2 --format ctrf` through pytest-rerunfailures: the test
/// that fails only on its first attempt is `flaky: true`, its failed
/// attempt and what it said in `retryAttempts`; the real failure lists
/// both earlier attempts; the counts are the JSON answer's; and the
/// reference implementation finds the document strictly valid.
#[test]
fn a_run_with_retries_gives_its_flaky_test_and_attempts() {
    let (_dir, root) = common::support::project_copy("retries");
    let args = ["--retries", "2", "--no-history", "--format"];
    let (code, text) = common::support::run_pytest_mcp(&root, &[&args[..], &["ctrf"]].concat());
    assert_eq!(code, Some(1), "{text}");
    let doc: Value = serde_json::from_str(&text).expect("CTRF is JSON");
    let tests = doc["results"]["tests"].as_array().expect("tests");
    let test = |name: &str| -> &Value {
        let id = format!("tests/test_flaky.py::{name}");
        tests.iter().find(|t| t["name"] == id.as_str()).expect(name)
    };
    let flip = test("test_flip");
    assert_eq!(
        (&flip["status"], &flip["flaky"]),
        (&"passed".into(), &true.into())
    );
    let attempts = flip["retryAttempts"].as_array().expect("attempts");
    assert_eq!(attempts.len(), 1, "{flip}");
    assert_eq!(
        (&attempts[0]["attempt"], &attempts[0]["status"]),
        (&1.into(), &"failed".into())
    );
    let said = attempts[0]["message"].as_str().unwrap_or_default();
    assert!(said.contains("connection refused on first try"), "{flip}");
    let failure = test("test_real_failure");
    assert_eq!(failure["status"], "failed");
    assert_eq!(failure["retryAttempts"].as_array().map(Vec::len), Some(2));

    let (_, json) = common::support::run_pytest_mcp(&root, &[&args[..], &["json"]].concat());
    let json: Value = serde_json::from_str(&json).expect("JSON");
    let (ours, theirs) = (&doc["results"]["summary"], &json["summary"]);
    for (ctrf_key, json_key) in [
        ("tests", "total"),
        ("passed", "passed"),
        ("failed", "failed"),
    ] {
        assert_eq!(
            ours[ctrf_key], theirs[json_key],
            "{ctrf_key} in {ours} / {theirs}"
        );
    }
    assert_eq!((&ours["flaky"], &theirs["flaky"]), (&1.into(), &1.into()));

    if let Some(why) = missing_validator() {
        println!("ctrf_out: SKIPPED validation with npm ctrf: {why}");
        return;
    }
    let path = root.join("retries.ctrf.json");
    std::fs::write(&path, &text).expect("write");
    let out = validate(&[path]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
