//! Terminal escapes and control characters never reach what pytest-mcp
//! writes (issue 13, item 3).
//!
//! A coloured assertion message (rich, pytest-clarity, colorama, or
//! `--color=yes` in a project's `addopts`), coloured captured output, a
//! collection error and a warning with escapes, read from a
//! pytest-json-report JSON, a pytest JUnit XML (which writes ESC as `#x1B`)
//! and a JUnit XML of another framework (character references and raw
//! bytes), rendered in every format: no escape sequence and no control
//! character other than line feed and tab in the output, except inside
//! `json_report`, which is pytest-json-report's own document; the words
//! stay. Test ids are never rewritten: JSON gives them back exactly, the
//! other formats show their control characters as visible escapes. Then
//! the same through `pytest-mcp run` on a real project with
//! `addopts = --color=yes` (`tests/projects/ansi_colors/`).
//!
//! The inputs are written here, with every control character spelled as an
//! escape, so that this file holds none.

use pytest_mcp::frontend::dispatch;
use std::path::{Path, PathBuf};

use pytest_mcp::frontend::report::{self, Input};
use pytest_mcp::model::Run;
use pytest_mcp::request::OutputFormat;
use serde_json::{Value, json};

mod common;
use common::support;
use support::{copy_tree, run_pytest_mcp};

const RED: &str = "\u{1b}[31m";
const BOLD: &str = "\u{1b}[1m";
const YELLOW: &str = "\u{1b}[38;5;226m";
const RESET: &str = "\u{1b}[0m";
/// An OSC 8 hyperlink around the word `docs`.
const LINK: &str = "\u{1b}]8;;https://example.org\u{1b}\\docs\u{1b}]8;;\u{1b}\\";

/// The words of the coloured assertion message, which must survive.
const MESSAGE: &str = "AssertionError: expected 3";

/// The characters no output may hold outside `json_report`: every control
/// character (C0, DEL, C1) but line feed and tab.
fn forbidden(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// Fails with the offending character and what is around it.
fn assert_no_controls(what: &str, text: &str) {
    if let Some((i, c)) = text.char_indices().find(|(_, c)| forbidden(*c)) {
        let before: String = text[..i].chars().rev().take(80).collect();
        let before: String = before.chars().rev().collect();
        let after: String = text[i..].chars().take(80).collect();
        panic!("{what}: control character {c:?} at byte {i}: {before:?} + {after:?}");
    }
}

/// What is left of a colour code whose ESC alone was dropped, or of
/// pytest's spelling of ESC, must not be there either.
fn assert_no_remnants(what: &str, text: &str) {
    for remnant in [
        "[31m",
        "[1m",
        "[0m",
        "[38;5;226m",
        "#x1B",
        "]8;;",
        "&#x1B;",
        "&#27;",
    ] {
        assert!(
            !text.contains(remnant),
            "{what}: {remnant:?} left in:\n{text}"
        );
    }
}

/// Every string of a JSON value, with where it is.
fn strings<'v>(value: &'v Value, path: String, out: &mut Vec<(String, &'v str)>) {
    match value {
        Value::String(s) => out.push((path, s)),
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                strings(v, format!("{path}[{i}]"), out);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                strings(v, format!("{path}.{k}"), out);
            }
        }
        _ => {}
    }
}

/// Checks an ADR-006 JSON answer: every string but those in `json_report`
/// (and the ids in `skip_keys`) is clean. Returns the answer.
fn check_json(what: &str, text: &str, skip_keys: &[&str]) -> Value {
    // JSON writes C0 controls as `\u00XX` escapes, DEL and C1 as they are:
    // those may only be in json_report, checked below, after parsing.
    assert!(
        !text.chars().any(|c| forbidden(c) && c < '\u{7f}'),
        "{what}: a raw C0 control character"
    );
    let mut value: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{what}: {e}"));
    if let Some(map) = value.as_object_mut() {
        map.remove("json_report");
    }
    let mut found = Vec::new();
    strings(&value, String::new(), &mut found);
    assert!(!found.is_empty(), "{what}: no strings at all");
    for (path, s) in found {
        if skip_keys.iter().any(|k| path.ends_with(k)) {
            continue;
        }
        assert_no_controls(&format!("{what} {path}"), s);
        assert_no_remnants(&format!("{what} {path}"), s);
    }
    serde_json::from_str(text).expect("parsed above")
}

/// Every text of the run (not ids, not `json_report`) is clean.
fn assert_run_clean(what: &str, run: &Run) {
    let mut texts: Vec<&str> = Vec::new();
    for t in &run.tests {
        texts.extend(
            [t.message(), t.traceback(), t.stdout(), t.stderr(), t.log()]
                .into_iter()
                .flatten(),
        );
        texts.extend(t.reruns().iter().filter_map(|a| a.message.as_deref()));
    }
    for e in &run.collection_errors {
        texts.extend(
            [
                e.error_type.as_deref(),
                Some(&e.message),
                e.traceback.as_deref(),
            ]
            .into_iter()
            .flatten(),
        );
    }
    for w in &run.warnings {
        texts.extend(
            [Some(w.message.as_str()), w.category.as_deref()]
                .into_iter()
                .flatten(),
        );
    }
    texts.extend(run.notes.iter().map(String::as_str));
    texts.extend(run.text_output.as_deref());
    assert!(!texts.is_empty(), "{what}: no text in the run");
    for text in texts {
        assert_no_controls(&format!("{what}: the run"), text);
        assert_no_remnants(&format!("{what}: the run"), text);
    }
}

/// Reads `files` as `pytest-mcp report` does for `format`: the run and the
/// text it prints.
fn report_of(files: &[(&str, String)], format: OutputFormat) -> (Run, String) {
    let inputs: Vec<Input> = files
        .iter()
        .map(|(name, contents)| Input {
            name: name.to_string(),
            contents: Ok(contents.clone().into_bytes()),
        })
        .collect();
    let text = report::RenderOnly::read(&inputs, format)
        .expect("the inputs are read")
        .render(&dispatch::Style::report(pytest_mcp::budget::Budget::chars(
            report::DEFAULT_MAX_CHARS,
        )))
        .text;
    // The model with every test, for what no renderer shows.
    let run = report::read_run(&inputs, report::Reading::for_format(format))
        .expect("the inputs are read");
    (run, text)
}

// ---------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------

/// The crash message pytest-json-report records for the coloured assert.
fn coloured_message() -> String {
    format!("AssertionError: {RED}AssertionError: {BOLD}expected 3{RESET}\nassert (1 + 2) == 4")
}

/// A pytest-json-report document: a failure with a coloured message,
/// traceback, stdout (CRLF, a progress bar's lone CRs), stderr (a
/// hyperlink, BEL, DEL, C1 controls) and log; a flaky test whose failed
/// attempt was coloured; a coloured skip reason; a setup error; a
/// collection error and a warning with escapes.
fn json_report() -> String {
    let root = "/home/user/project";
    let longrepr = format!(
        "def test_coloured_failure():\n        print(\"...\")\n>       assert 1 + 2 == 4, f\"{{RED}}AssertionError: {{BOLD}}expected 3{{RESET}}\"\nE       AssertionError: {RED}AssertionError: {BOLD}expected 3{RESET}\nE       assert (1 + 2) == 4\n\ntests/test_colors.py:15: AssertionError"
    );
    let passed = json!({"duration": 0.0001, "outcome": "passed"});
    let doc = json!({
        "created": 1795413138.0,
        "duration": 0.12,
        "exitcode": 1,
        "root": root,
        "environment": {},
        "summary": {"failed": 1, "passed": 1, "skipped": 1, "error": 1, "rerun": 1, "total": 4, "collected": 4},
        "collectors": [
            {"nodeid": "", "outcome": "passed", "result": []},
            {
                "nodeid": "tests/test_broken.py",
                "outcome": "failed",
                "longrepr": format!("ImportError while importing test module '{root}/tests/test_broken.py'.\nHint: make sure your test modules/packages have valid Python names.\nTraceback:\ntests/test_broken.py:1: in <module>\n    import colourama\nE   ModuleNotFoundError: {RED}No module named 'colourama'{RESET}"),
                "result": []
            }
        ],
        "tests": [
            {
                "nodeid": "tests/test_colors.py::test_coloured_failure",
                "lineno": 9,
                "outcome": "failed",
                "keywords": [],
                "setup": passed,
                "call": {
                    "duration": 0.001,
                    "outcome": "failed",
                    "crash": {"path": format!("{root}/tests/test_colors.py"), "lineno": 15, "message": coloured_message()},
                    "traceback": [{"path": "tests/test_colors.py", "lineno": 15, "message": "AssertionError"}],
                    "stdout": format!("{RED}stdout in red{RESET}\r\nsecond line\rprogress 50%\rprogress 100%\n"),
                    "stderr": format!("see {LINK}\u{7} bell\u{7f} del\u{85} next line\u{9b}32mC1 green\u{9b}0m\u{0} nul\n"),
                    "log": [{"name": "colours", "levelname": "WARNING", "msg": format!("{RED}log record{RESET}")}],
                    "longrepr": longrepr
                },
                "teardown": passed
            },
            {
                "nodeid": "tests/test_colors.py::test_flaky",
                "lineno": 20,
                "outcome": "rerun",
                "keywords": [],
                "setup": passed,
                "call": {
                    "duration": 0.001,
                    "outcome": "failed",
                    "crash": {"path": format!("{root}/tests/test_colors.py"), "lineno": 22, "message": format!("{RED}RuntimeError: first attempt{RESET}")},
                    "longrepr": format!("E   {RED}RuntimeError: first attempt{RESET}")
                },
                "teardown": passed
            },
            {
                "nodeid": "tests/test_colors.py::test_flaky",
                "lineno": 20,
                "outcome": "passed",
                "keywords": [],
                "setup": passed,
                "call": passed,
                "teardown": passed
            },
            {
                "nodeid": "tests/test_colors.py::test_skipped",
                "lineno": 25,
                "outcome": "skipped",
                "keywords": [],
                "setup": {
                    "duration": 0.0001,
                    "outcome": "skipped",
                    "longrepr": format!("('{root}/tests/test_colors.py', 27, 'Skipped: {YELLOW}needs a database{RESET}')")
                },
                "teardown": passed
            },
            {
                "nodeid": "tests/test_colors.py::test_setup_error",
                "lineno": 30,
                "outcome": "error",
                "keywords": [],
                "setup": {
                    "duration": 0.001,
                    "outcome": "failed",
                    "crash": {"path": format!("{root}/tests/conftest.py"), "lineno": 4, "message": format!("{BOLD}RuntimeError: fixture broke{RESET}")},
                    "longrepr": format!("@pytest.fixture\n    def db():\n>       raise RuntimeError(\"...\")\nE       {BOLD}RuntimeError: fixture broke{RESET}\n\ntests/conftest.py:4: RuntimeError")
                },
                "teardown": passed
            }
        ],
        "warnings": [
            {"message": format!("{RED}a coloured warning{RESET}"), "category": "UserWarning", "when": "runtest", "filename": format!("{root}/tests/test_colors.py"), "lineno": 14}
        ]
    });
    serde_json::to_string_pretty(&doc).expect("a JSON document")
}

/// The same failures as pytest writes them in JUnit XML: ESC is not a
/// character XML can hold, so pytest spells it `#x1B` (`bin_xml_escape`);
/// a CR in captured output comes as a character reference.
fn pytest_junit() -> String {
    let esc = |s: &str| s.replace('\u{1b}', "#x1B");
    let message = esc(&coloured_message()).replace('\n', "&#10;");
    format!(
        r#"<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" errors="2" failures="1" skipped="1" tests="5" time="0.120" timestamp="2026-11-23T05:52:18.514053+00:00" hostname="ci"><testcase classname="" name="tests.test_broken" time="0.000"><error message="collection failure">ImportError while importing test module '/home/user/project/tests/test_broken.py'.
Traceback:
tests/test_broken.py:1: in &lt;module&gt;
    import colourama
E   ModuleNotFoundError: {red}No module named 'colourama'{reset}</error></testcase><testcase classname="tests.test_colors" name="test_coloured_failure" time="0.001"><failure message="{message}">def test_coloured_failure():
&gt;       assert 1 + 2 == 4
E       AssertionError: {red}AssertionError: {bold}expected 3{reset}
E       assert (1 + 2) == 4

tests/test_colors.py:15: AssertionError</failure><system-out>--------------------------------- Captured Out ---------------------------------
{red}stdout in red{reset}&#13;
second line&#13;progress 50%&#13;progress 100%
</system-out><system-err>--------------------------------- Captured Err ---------------------------------
see {link} bell #x07
</system-err></testcase><testcase classname="tests.test_colors" name="test_flaky" time="0.001" /><testcase classname="tests.test_colors" name="test_skipped" time="0.000"><skipped type="pytest.skip" message="{yellow}needs a database{reset}">/home/user/project/tests/test_colors.py:27: {yellow}needs a database{reset}</skipped></testcase><testcase classname="tests.test_colors" name="test_setup_error" time="0.001"><error message="failed on setup with &quot;{bold}RuntimeError: fixture broke{reset}&quot;">@pytest.fixture
    def db():
&gt;       raise RuntimeError("...")
E       {bold}RuntimeError: fixture broke{reset}

tests/conftest.py:4: RuntimeError</error></testcase></testsuite></testsuites>"#,
        red = esc(RED),
        bold = esc(BOLD),
        yellow = esc(YELLOW),
        reset = esc(RESET),
        link = esc(LINK),
    )
}

/// A JUnit XML of another framework (Surefire's dialect) with colour codes
/// as character references in attributes and as raw bytes in text: not
/// well-formed XML 1.0, but what colouring test runners leave.
fn foreign_junit() -> String {
    let reference = |s: &str| s.replace('\u{1b}', "&#x1B;");
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="com.example.ColourTest" tests="2" failures="1" skipped="1" errors="0" time="0.05">
  <testcase name="coloured" classname="com.example.ColourTest" time="0.01">
    <failure message="{ref_red}AssertionError: {ref_bold}expected 3{ref_reset}" type="java.lang.AssertionError">{RED}java.lang.AssertionError: {BOLD}expected 3{RESET}
	at com.example.ColourTest.coloured(ColourTest.java:12)</failure>
    <system-out>{RED}stdout in red{RESET}&#13;
progress&#13;done</system-out>
    <system-err>&#27;[1mstderr bold&#27;[0m</system-err>
  </testcase>
  <testcase name="later" classname="com.example.ColourTest" time="0.0">
    <skipped message="{ref_yellow}not today{ref_reset}"/>
  </testcase>
</testsuite>
"#,
        ref_red = reference(RED),
        ref_bold = reference(BOLD),
        ref_reset = reference(RESET),
        ref_yellow = reference(YELLOW),
    )
}

// ---------------------------------------------------------------------------
// report: every source in every format
// ---------------------------------------------------------------------------

/// Renders `files` in every format and checks each output; returns the
/// Markdown and the JSON answer for closer looks.
fn every_format_is_clean(files: &[(&str, String)]) -> (String, Value) {
    let mut markdown = String::new();
    let mut answer = Value::Null;
    for &format in OutputFormat::all() {
        let (run, text) = report_of(files, format);
        let what = format!("{} as {format:?}", files[0].0);
        assert!(
            text.contains(MESSAGE),
            "{what}: the message's words are lost:\n{text}"
        );
        match format {
            OutputFormat::Json => answer = check_json(&what, &text, &[]),
            OutputFormat::Ctrf => {
                check_json(&what, &text, &[]);
            }
            OutputFormat::Markdown
            | OutputFormat::Html
            | OutputFormat::Junit
            | OutputFormat::Github
            | OutputFormat::Gfm => {
                assert_no_controls(&what, &text);
                assert_no_remnants(&what, &text);
            }
        }
        if format == OutputFormat::Markdown {
            markdown = text;
        }
        // Nor in what no renderer shows (warnings, for one).
        assert_run_clean(&what, &run);
    }
    (markdown, answer)
}

#[test]
fn a_json_report_with_colours_comes_out_clean_in_every_format() {
    let (markdown, answer) = every_format_is_clean(&[("report.json", json_report())]);
    for words in [
        "second line",
        "progress 50%",
        "progress 100%",
        "see docs",
        "log record",
        "needs a database",
        "fixture broke",
        "No module named 'colourama'",
    ] {
        assert!(markdown.contains(words), "{words:?} lost:\n{markdown}");
    }
    // CRLF is LF; a lone CR is a line break: every state of the bar shows.
    assert!(markdown.contains("stdout in red\n"), "{markdown}");
    assert!(
        markdown.contains("second line\n  progress 50%\n  progress 100%\n"),
        "{markdown}"
    );

    let tests = answer["tests"].as_array().expect("tests");
    let failed = tests
        .iter()
        .find(|t| t["outcome"] == "failed")
        .expect("the failure");
    assert_eq!(
        failed["message"],
        "AssertionError: AssertionError: expected 3\nassert (1 + 2) == 4"
    );
    assert!(
        failed["traceback"]
            .as_str()
            .is_some_and(|tb| tb.contains("E       AssertionError: AssertionError: expected 3\n")),
        "{failed}"
    );
    let flaky = tests
        .iter()
        .find(|t| t["node_id"] == "tests/test_colors.py::test_flaky")
        .expect("the flaky test");
    assert!(
        flaky["message"]
            .as_str()
            .is_some_and(|m| m.contains("RuntimeError: first attempt")),
        "{flaky}"
    );
    let error = &answer["collection_errors"][0];
    assert_eq!(error["message"], "No module named 'colourama'", "{error}");
    assert_eq!(error["error_type"], "ModuleNotFoundError", "{error}");

    // json_report is pytest-json-report's own document, untouched.
    let inputs = [Input {
        name: "report.json".into(),
        contents: Ok(json_report().into_bytes()),
    }];
    let run =
        report::read_run(&inputs, report::Reading::for_format(OutputFormat::Json)).expect("read");
    let raw = run.json_report.as_ref().expect("kept for JSON").to_value();
    assert_eq!(
        raw["tests"][0]["call"]["crash"]["message"],
        coloured_message()
    );
    assert_eq!(
        run.warnings[0].message, "a coloured warning",
        "the warning is read clean"
    );
    let json_text = dispatch::output(
        dispatch::Subject::run(&run),
        OutputFormat::Json,
        &dispatch::Style::report(pytest_mcp::budget::Budget::NONE),
    )
    .text;
    assert!(
        json_text.contains(r"\u001b[31mAssertionError"),
        "json_report lost its escapes"
    );
}

#[test]
fn a_pytest_junit_xml_with_pytests_spelling_of_esc_comes_out_clean() {
    let (markdown, answer) = every_format_is_clean(&[("junit.xml", pytest_junit())]);
    for words in [
        "progress 50%",
        "see docs bell",
        "needs a database",
        "fixture broke",
    ] {
        assert!(markdown.contains(words), "{words:?} lost:\n{markdown}");
    }
    let error = &answer["collection_errors"][0];
    assert_eq!(error["message"], "No module named 'colourama'", "{error}");
    let failed = answer["tests"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["outcome"] == "failed"))
        .expect("the failure");
    assert_eq!(
        failed["message"],
        "AssertionError: AssertionError: expected 3\nassert (1 + 2) == 4"
    );
}

#[test]
fn a_foreign_junit_xml_with_colour_codes_comes_out_clean() {
    let (markdown, answer) =
        every_format_is_clean(&[("TEST-com.example.ColourTest.xml", foreign_junit())]);
    for words in [
        "stdout in red",
        "progress\n",
        "done",
        "stderr bold",
        "not today",
    ] {
        assert!(markdown.contains(words), "{words:?} lost:\n{markdown}");
    }
    let failed = answer["tests"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["outcome"] == "failed"))
        .expect("the failure");
    assert_eq!(failed["message"], MESSAGE);
}

#[test]
fn merged_sources_stay_clean() {
    every_format_is_clean(&[
        ("report.json", json_report()),
        ("junit.xml", pytest_junit()),
        ("TEST-com.example.ColourTest.xml", foreign_junit()),
    ]);
}

/// Ids are never rewritten (they are fed back to pytest): JSON gives them
/// back exactly, escaped as JSON escapes them; Markdown and HTML show
/// `\u{1b}`, JUnit pytest's `#x1B`. No raw control byte in any of them.
#[test]
fn ids_with_control_characters_are_kept_in_json_and_shown_escaped_elsewhere() {
    let id = "tests/t\u{1b}[31mx.py::test_a[\u{1b}[1mbold\u{7}\u{85}]";
    let doc = json!({
        "duration": 0.1,
        "exitcode": 1,
        "root": "/p",
        "collectors": [{"nodeid": "tests/b\u{1b}[0mroken.py", "outcome": "failed", "longrepr": "E   ImportError: x"}],
        "tests": [{
            "nodeid": id,
            "lineno": 3,
            "outcome": "failed",
            "setup": {"duration": 0.0, "outcome": "passed"},
            "call": {"duration": 0.0, "outcome": "failed", "crash": {"message": MESSAGE}},
            "teardown": {"duration": 0.0, "outcome": "passed"}
        }],
        "warnings": []
    })
    .to_string();
    let files = [("ids.json", doc)];
    for &format in OutputFormat::all() {
        let (run, text) = report_of(&files, format);
        assert_eq!(run.tests[0].node_id, id, "the model keeps the id");
        let what = format!("ids as {format:?}");
        assert!(text.contains(MESSAGE), "{what}:\n{text}");
        match format {
            OutputFormat::Json => {
                let answer = check_json(&what, &text, &["node_id", ".file"]);
                assert_eq!(answer["tests"][0]["node_id"], id);
                assert_eq!(
                    answer["collection_errors"][0]["file"],
                    "tests/b\u{1b}[0mroken.py"
                );
            }
            OutputFormat::Junit => {
                assert_no_controls(&what, &text);
                assert!(text.contains("t#x1B[31mx"), "{what}:\n{text}");
            }
            OutputFormat::Ctrf => {
                // Ids are names as they are (JSON escapes the ESC).
                let answer = check_json(&what, &text, &[".name", ".filePath", ".suite[0]"]);
                let names: Vec<&Value> = answer["results"]["tests"]
                    .as_array()
                    .map(|t| t.iter().map(|t| &t["name"]).collect())
                    .unwrap_or_default();
                assert!(names.contains(&&Value::from(id)), "{what}:\n{text}");
                assert!(
                    names.contains(&&Value::from("tests/b\u{1b}[0mroken.py")),
                    "{what}:\n{text}"
                );
            }
            OutputFormat::Markdown
            | OutputFormat::Html
            | OutputFormat::Github
            | OutputFormat::Gfm => {
                assert_no_controls(&what, &text);
                assert!(text.contains(r"t\u{1b}[31mx.py"), "{what}:\n{text}");
                assert!(text.contains(r"b\u{1b}[0mroken.py"), "{what}:\n{text}");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// run: a real pytest with --color=yes
// ---------------------------------------------------------------------------

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `tests/projects/<name>` copied into a temporary directory.
fn project(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("escapes-it-")
        .tempdir()
        .expect("temporary directory");
    let root = dir.path().join(name);
    copy_tree(&repo().join("tests/projects").join(name), &root);
    (dir, root)
}

/// `pytest-mcp run --format <format>` on the project: exit status and
/// standard output.
fn run(root: &Path, format: &str) -> (Option<i32>, String) {
    run_pytest_mcp(root, &["--format", format])
}

#[test]
fn a_real_run_with_color_yes_comes_out_clean() {
    let (_dir, root) = project("ansi_colors");

    let (status, answer) = run(&root, "json");
    assert_eq!(status, Some(1), "{answer}");
    let answer = check_json("run --format json", &answer, &[]);
    assert_eq!(answer["summary"]["failed"], 1, "{answer}");
    let failed = answer["tests"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["outcome"] == "failed"))
        .expect("the failure");
    assert!(
        failed["message"]
            .as_str()
            .is_some_and(|m| m.contains(MESSAGE)),
        "{failed}"
    );
    // pytest's console output was coloured (--color=yes): cleaned too.
    let console = answer["text_output"].as_str().expect("text_output");
    assert!(console.contains("short test summary info"), "{console}");
    assert!(console.contains(MESSAGE), "{console}");
    // pytest-json-report's own document keeps what pytest recorded.
    let raw = answer["json_report"]["tests"].to_string();
    assert!(raw.contains(r"\u001b[31m"), "json_report: {raw}");

    let (status, markdown) = run(&root, "markdown");
    assert_eq!(status, Some(1), "{markdown}");
    assert_no_controls("run --format markdown", &markdown);
    assert_no_remnants("run --format markdown", &markdown);
    for words in [MESSAGE, "stdout in red", "log record", "needs a database"] {
        assert!(markdown.contains(words), "{words:?} lost:\n{markdown}");
    }
}
