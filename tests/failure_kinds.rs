//! Failures of the kinds real suites meet, told right in the default
//! Markdown (tests/projects/failure_kinds): a chained exception shows the
//! exception raised with its own frames first, then its cause with the
//! cause's place; a frame repeated by a recursion is listed once with a
//! count; `pytest.fail(..., pytrace=False)` says its message once; an
//! ExceptionGroup lists each member with its place; a doctest says what it
//! ran, expected and got; a missing fixture keeps what it shows; a
//! pytest-timeout timeout is its limit and the test's line, under 120
//! tokens, the threads' stacks left out; and no path is absolute.
//!
//! Subtests (pytest's `subtests` fixture, unittest's `subTest`) are named
//! parts of their test, under its id: each failed one with its parameters,
//! its message and its place, in the Markdown, the JSON, the GitHub
//! rendering and the HTML page; failures counted as pytest's closing line
//! counts them; no progress letter of pytest's in the captured output.

mod common;

use std::path::Path;
use std::sync::OnceLock;

use common::support::{clean_command, project_copy, run_pytest_mcp, test_python};
use pytest_mcp_testkit::tokens::count_tokens;
use serde_json::Value;

/// The failure section of `id` in `md`: from its heading to the next.
fn section<'a>(md: &'a str, id: &str) -> &'a str {
    // The heading ends with the id, or the id and its line: `(line 28)`.
    let start = md
        .match_indices(&format!(": {id}"))
        .map(|(i, _)| i)
        .find(|&i| {
            let after = &md[i + id.len() + 2..];
            after.starts_with('\n') || after.starts_with(" (line ")
        })
        .unwrap_or_else(|| panic!("no section for {id} in:\n{md}"));
    let rest = &md[start..];
    let end = rest[1..].find("\n### ").map_or(rest.len(), |i| i + 1);
    &rest[..end]
}

/// The agent Markdown of a run of the project, made once for every test.
fn answer() -> &'static str {
    static MD: OnceLock<String> = OnceLock::new();
    MD.get_or_init(|| {
        let (_dir, root) = project_copy("failure_kinds");
        let (status, md) = run_pytest_mcp(&root, &["--no-history"]);
        assert_eq!(status, Some(1), "{md}");
        md
    })
}

#[test]
fn a_chained_exception_shows_the_raised_frames_then_its_cause() {
    let md = answer();
    let chained = section(md, "tests/test_kinds.py::test_chained");
    // The test's own line in the heading, then the frame that raised.
    let lines: Vec<&str> = chained.lines().map(str::trim).collect();
    assert!(
        lines[0].ends_with("::test_chained (line 28)")
            && lines
                .iter()
                .filter(|l| l.starts_with("at "))
                .eq(["at tests/test_kinds.py:17"].iter()),
        "the raised exception's frames, in order:\n{chained}"
    );
    assert!(
        chained.contains(
            "caused by FileNotFoundError: [Errno 2] No such file or directory: '/nonexistent/app.toml' (at tests/test_kinds.py:9)"
        ),
        "the cause with its place:\n{chained}"
    );
    assert!(!chained.contains("at tests/test_kinds.py:9\n"), "{chained}");
    let handling = section(md, "tests/test_kinds.py::test_raised_while_handling");
    assert!(
        handling.contains("while handling ValueError: invalid literal for int() with base 10: 'eighty' (at tests/test_kinds.py:22)"),
        "{handling}"
    );
}

#[test]
fn a_recursion_lists_its_repeated_frame_once_with_a_count() {
    let recursion = section(answer(), "tests/test_kinds.py::test_recursion");
    let repeated: Vec<&str> = recursion
        .lines()
        .filter(|l| l.contains("at tests/test_kinds.py:36"))
        .collect();
    assert_eq!(repeated.len(), 1, "{recursion}");
    assert!(repeated[0].contains(" (×"), "{recursion}");
}

#[test]
fn an_exception_group_lists_each_member_with_its_place() {
    let group = section(answer(), "tests/test_kinds.py::test_group");
    assert!(
        group.contains("\n  1: ValueError: negative: -1 (at tests/test_kinds.py:"),
        "{group}"
    );
    assert!(group.contains("\n  2: KeyError: 'missing'\n"), "{group}");
    assert!(
        group.starts_with(": tests/test_kinds.py::test_group (line 65)\n"),
        "{group}"
    );
}

#[test]
fn no_path_is_absolute() {
    let md = answer();
    let root = std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).expect("root");
    assert!(
        !md.contains("/tmp/") && !md.contains(&*root.to_string_lossy()),
        "no absolute path:\n{md}"
    );
}

#[test]
fn a_doctest_says_what_it_ran_expected_and_got() {
    let doctest = section(answer(), "shop/calc.py::shop.calc.total");
    // Its place once, in the heading: not again in the message.
    for line in [
        "shop.calc.total (line 4)\nDocTestFailure\n",
        "  > total([1, 2])\n",
        "  Expected: 4\n",
        "  Got: 3\n",
    ] {
        assert!(doctest.contains(line), "{line:?} in:\n{doctest}");
    }
}

#[test]
fn a_missing_fixture_keeps_what_it_shows() {
    let fixture = section(
        answer(),
        "tests/test_kinds.py::test_needs_a_fixture_no_one_defined",
    );
    assert!(
        fixture.contains("fixture 'database' not found"),
        "{fixture}"
    );
    assert!(
        fixture.contains("file tests/test_kinds.py, line "),
        "{fixture}"
    );
}

#[test]
fn a_timeout_is_its_limit_and_the_tests_line_under_120_tokens() {
    let timeout = section(answer(), "tests/test_kinds.py::test_hangs");
    assert!(timeout.contains("Timeout (>1.0s)"), "{timeout}");
    assert!(
        timeout.contains("  > time.sleep(5)\n"),
        "the test's own line:\n{timeout}"
    );
    assert!(!timeout.contains("Stack of"), "{timeout}");
    let tokens = count_tokens(timeout);
    assert!(tokens < 120, "{tokens} tokens:\n{timeout}");
}

#[test]
fn a_failure_without_traceback_says_its_message_once() {
    let failed = section(answer(), "tests/test_kinds.py::test_fail_without_traceback");
    assert_eq!(
        failed.matches("the service answered 503").count(),
        1,
        "said once:\n{failed}"
    );
}

/// What pytest itself said of a plain run of the project: its console
/// output, and the pytest-json-report and JUnit XML (xunit1) files it
/// wrote, made once.
struct Pytest {
    output: String,
    json_report: Vec<u8>,
    junit: Vec<u8>,
}

fn pytest() -> &'static Pytest {
    static PYTEST: OnceLock<Pytest> = OnceLock::new();
    PYTEST.get_or_init(|| {
        let (dir, root) = project_copy("failure_kinds");
        let (json, xml) = (dir.path().join("report.json"), dir.path().join("junit.xml"));
        let out = clean_command(&test_python())
            .current_dir(&root)
            .args([
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "-o",
                "junit_family=xunit1",
            ])
            .arg(format!("--junitxml={}", xml.display()))
            .args([
                "--json-report",
                &format!("--json-report-file={}", json.display()),
            ])
            .output()
            .expect("run pytest");
        let output = String::from_utf8_lossy(&out.stdout).into_owned();
        let read = |p: &Path| std::fs::read(p).unwrap_or_else(|e| panic!("{e}: {output}"));
        Pytest {
            json_report: read(&json),
            junit: read(&xml),
            output,
        }
    })
}

/// The number before `word` in pytest's closing line (`12 failed, 2
/// passed, 1 error in 1.41s`).
fn closing_count(output: &str, word: &str) -> usize {
    let line = output
        .lines()
        .rev()
        .find(|l| l.starts_with('=') && l.contains(" in "))
        .unwrap_or_else(|| panic!("no closing line in:\n{output}"));
    let words: Vec<&str> = line.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    words
        .windows(2)
        .find(|w| w[1] == word)
        .and_then(|w| w[0].parse().ok())
        .unwrap_or(0)
}

/// The failed count of the agent Markdown's status line (`— 15 run, 12
/// failed (4 subtests), 1 error`).
fn status_failed(md: &str) -> usize {
    let first = md.lines().next().unwrap_or_default();
    let after = first.split(" run, ").nth(1).unwrap_or_default();
    after
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no failed count in {first:?}"))
}

/// `pytest-mcp report` of `files` (written into a temporary directory) in
/// `format`.
fn report(files: &[(&str, &[u8])], format: &str) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cmd = clean_command(Path::new(env!("CARGO_BIN_EXE_pytest-mcp")));
    cmd.args(["report", "--format", format]);
    for (name, bytes) in files {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write");
        cmd.arg(path);
    }
    let out = cmd.output().expect("run pytest-mcp report");
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// A line of nothing but pytest's progress letter for a failed subtest.
fn progress_letters(text: &str) -> Option<&str> {
    text.lines().find(|l| {
        let l = l.trim();
        !l.is_empty() && l.chars().all(|c| c == 'u')
    })
}

const SIZES: &str = "tests/test_subtests.py::test_sizes";
const PARITY: &str = "tests/test_subtests.py::TestParity::test_even";

#[test]
fn subtests_are_named_parts_of_their_test() {
    let md = answer();
    let sizes = section(md, SIZES);
    for line in [
        "contains 2 failed subtests\n",
        "  subtest [size] (i=2): AssertionError: i=2 too big\n",
        "    at tests/test_subtests.py:15\n",
        "    checking size 2\n",
        "  subtest [size] (i=3): ValueError: i=3 is odd\n",
        "    at tests/test_subtests.py:14\n",
        "    > raise ValueError(f\"i={i} is odd\")\n",
    ] {
        assert!(sizes.contains(line), "{line:?} in:\n{sizes}");
    }
    assert!(
        !sizes.contains("(i=0)") && !sizes.contains("(i=1)"),
        "{sizes}"
    );
    let parity = section(md, PARITY);
    for line in [
        "contains 2 failed subtests\n",
        "  subtest [parity] (n=1): AssertionError: 1 != 0 : 1 is odd\n",
        "    at tests/test_subtests.py:28\n",
        "  subtest [parity] (n=3): AssertionError: 1 != 0 : 3 is odd\n",
    ] {
        assert!(parity.contains(line), "{line:?} in:\n{parity}");
    }
    assert!(!parity.contains("Captured stdout"), "{parity}");
    assert_eq!(progress_letters(md), None, "{md}");
    assert!(!md.contains("test_every_subtest_passes"), "{md}");

    let pytest = &pytest().output;
    assert_eq!(
        status_failed(md),
        closing_count(pytest, "failed"),
        "{md}\n{pytest}"
    );
    assert!(
        md.lines()
            .next()
            .is_some_and(|l| l.contains(" failed (4 subtests)")),
        "{md}"
    );
}

/// The subtests of `id` in the ADR-006 JSON: each one's params and message.
fn json_subtests(json: &Value, id: &str) -> Vec<(Value, String)> {
    let tests = json["tests"].as_array().expect("tests");
    let test = tests
        .iter()
        .find(|t| t["node_id"] == id)
        .unwrap_or_else(|| panic!("no {id} in {json}"));
    let subtests = test["subtests"].as_array().cloned().unwrap_or_default();
    subtests
        .iter()
        .map(|s| {
            let message = s["message"].as_str().unwrap_or_default().to_string();
            (s["params"].clone(), message)
        })
        .collect()
}

#[test]
fn subtests_are_told_in_json_gfm_and_html() {
    let (_dir, root) = project_copy("failure_kinds");
    let (status, text) = run_pytest_mcp(&root, &["--no-history", "--format", "json"]);
    assert_eq!(status, Some(1), "{text}");
    let json: Value = serde_json::from_str(&text).expect("JSON");
    let pytest = &pytest().output;
    assert_eq!(
        json["summary"]["failed"],
        closing_count(pytest, "failed"),
        "{pytest}"
    );
    assert_eq!(
        json["summary"]["passed"],
        closing_count(pytest, "passed"),
        "{pytest}"
    );
    assert_eq!(json["summary"]["subtests_failed"], 4);
    let sizes = json_subtests(&json, SIZES);
    assert_eq!(sizes.len(), 2, "{sizes:?}");
    assert_eq!(sizes[0].0, serde_json::json!({"i": "2"}));
    assert!(
        sizes[0].1.starts_with("AssertionError: i=2 too big"),
        "{sizes:?}"
    );
    assert_eq!(sizes[1].0, serde_json::json!({"i": "3"}));
    assert_eq!(sizes[1].1, "ValueError: i=3 is odd");
    let parity = json_subtests(&json, PARITY);
    let params: Vec<&Value> = parity.iter().map(|(p, _)| p).collect();
    assert_eq!(
        params,
        [
            &serde_json::json!({"n": "1"}),
            &serde_json::json!({"n": "3"})
        ]
    );
    assert!(parity[1].1.ends_with(": 3 is odd"), "{parity:?}");
    let entry = |id: &str| {
        let tests = json["tests"].as_array().expect("tests");
        tests.iter().find(|t| t["node_id"] == id).cloned()
    };
    let sub = entry(SIZES).expect("test_sizes")["subtests"][1].clone();
    assert_eq!(
        (&sub["label"], &sub["file"], &sub["line"]),
        (
            &Value::from("[size] (i=3)"),
            &Value::from("tests/test_subtests.py"),
            &Value::from(14)
        )
    );

    // The GitHub rendering and the page, from the report the run kept.
    let kept = serde_json::to_vec(&json["json_report"]).expect("json_report");
    for format in ["gfm", "html"] {
        let out = report(&[("report.json", &kept)], format);
        for said in [
            "(i=2): AssertionError: i=2 too big",
            "(i=3): ValueError: i=3 is odd",
            "(n=1): AssertionError: 1 != 0 : 1 is odd",
            "(n=3): AssertionError: 1 != 0 : 3 is odd",
        ] {
            assert!(out.contains(said), "{format}: {said:?} in:\n{out}");
        }
    }
}

#[test]
fn subtests_read_from_pytests_own_files_are_counted_as_pytest_counts_them() {
    let pytest = pytest();
    let failed = closing_count(&pytest.output, "failed");
    // pytest's JUnit XML: a failure per failed subtest, unnamed.
    let md = report(&[("junit.xml", &pytest.junit)], "markdown");
    assert_eq!(status_failed(&md), failed, "{md}");
    for said in ["i=2 too big", "i=3 is odd", "1 is odd", "3 is odd"] {
        assert!(md.contains(said), "{said:?} in:\n{md}");
    }
    // With pytest-json-report's file, which keeps none of them (its test
    // of unittest's subTest captured pytest's progress letters).
    let both = [
        ("report.json", pytest.json_report.as_slice()),
        ("junit.xml", pytest.junit.as_slice()),
    ];
    let md = report(&both, "markdown");
    assert_eq!(status_failed(&md), failed, "{md}");
    let parity = section(&md, PARITY);
    assert!(parity.contains("3 is odd"), "{parity}");
    assert_eq!(progress_letters(&md), None, "{md}");
}
