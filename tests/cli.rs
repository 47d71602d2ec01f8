//! The `report` command end to end: the real binary, its exit status, where
//! its output goes, and its errors.

use pytest_mcp::frontend::dispatch;
use std::path::PathBuf;
use std::process::{Command, Output};

mod common;
use common::headline::{Verdict, report_error, says};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn report(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pytest-mcp"))
        .current_dir(root())
        .arg("report")
        .args(args)
        .output()
        .expect("run pytest-mcp")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn failing_tests_still_exit_zero_and_print_markdown() {
    let out = report(&["tests/fixtures/pytest/one_failure/junit-xunit1.xml"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(says(&stdout, Verdict::Failure), "{stdout}");
    assert!(stdout.contains("### FAILED: tests/test_calc.py::test_discount_fractional"));
    assert!(out.stderr.is_empty());
}

#[test]
fn json_format_is_parseable_and_has_the_summary() {
    let out = report(&[
        "--format",
        "json",
        "tests/fixtures/pytest/mixed/report.json",
        "tests/fixtures/pytest/mixed/junit-xunit1.xml",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(value["summary"]["total"], 30);
    assert!(value["json_report"].is_object());
}

#[test]
fn broken_xml_names_the_file_line_and_column_and_exits_2() {
    let file = "tests/fixtures/junit/truncated_cdata.xml";
    let out = report(&[file]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(file) && stderr.contains("line 13, column 17"),
        "{stderr}"
    );
    assert!(text(&out.stdout).starts_with(&report_error("")));
}

#[test]
fn every_bad_file_is_listed_and_json_errors_are_adr007() {
    let out = report(&[
        "--format",
        "json",
        "tests/fixtures/broken/truncated-report.json",
        "no/such/file.xml",
        "src",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(value["error"]["code"], -32602);
    assert_eq!(value["error"]["data"]["field"], "files");
    let errors = value["error"]["data"]["errors"].as_array().expect("errors");
    assert_eq!(errors.len(), 3);
    assert!(
        errors[2]["detail"]
            .as_str()
            .unwrap()
            .contains("is a directory")
    );
    assert_eq!(text(&out.stderr).lines().count(), 3);
}

#[test]
fn output_file_receives_the_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Its directories are made: a CI job's `-o results/shard-2.xml`.
    let target = dir.path().join("results/summary.md");
    let out = report(&[
        "tests/fixtures/pytest/all_pass/junit-xunit1.xml",
        "-o",
        target.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let written = std::fs::read_to_string(&target).expect("written");
    assert!(says(&written, Verdict::Success), "{written}");
}

#[test]
fn unwritable_output_is_an_error() {
    // Under a plain file: no directory can be made there, even by root.
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("plain");
    std::fs::write(&file, "").expect("write");
    let target = file.join("x.md");
    let out = report(&[
        "tests/fixtures/pytest/all_pass/junit-xunit1.xml",
        "-o",
        target.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!("cannot write {}", target.display())),
        "{stderr}"
    );
}

#[test]
fn no_files_is_a_usage_error_with_help() {
    let out = report(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("FILE"));
}

#[test]
fn directories_and_globs_expand_to_their_result_files() {
    // A directory: every .xml and .json under it (here one project's report
    // and its two JUnit files: the xunit2 run's tests add to the union).
    let out = report(&["--format", "json", "tests/fixtures/pytest/one_failure"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(value["summary"]["total"].as_u64().unwrap() >= 5);
    // A quoted glob over shards.
    let out = report(&[
        "--format",
        "json",
        "tests/fixtures/pytest/*/junit-xunit1.xml",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(value["summary"]["total"].as_u64().unwrap() > 100);
    // A glob that matches nothing is an error naming it.
    let out = report(&["tests/fixtures/pytest/*/nothing-*.xml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("matches no files"));
}

#[test]
fn fail_on_gates_the_exit_status() {
    let failing = "tests/fixtures/pytest/one_failure/junit-xunit1.xml";
    let passing = "tests/fixtures/pytest/all_pass/junit-xunit1.xml";
    assert_eq!(report(&[failing]).status.code(), Some(0));
    assert_eq!(
        report(&["--fail-on", "failures", failing]).status.code(),
        Some(1)
    );
    assert_eq!(
        report(&["--fail-on", "errors", failing]).status.code(),
        Some(0)
    );
    assert_eq!(
        report(&["--fail-on", "failures", passing]).status.code(),
        Some(0)
    );
    let errors = "tests/fixtures/pytest/setup_teardown/junit-xunit1.xml";
    assert_eq!(
        report(&["--fail-on", "errors", errors]).status.code(),
        Some(1)
    );
}

#[test]
fn baseline_puts_new_failures_first() {
    let out = report(&[
        "tests/fixtures/baseline/after.xml",
        "--baseline",
        "tests/fixtures/baseline/before.xml",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let md = text(&out.stdout);
    let second = md.lines().nth(1).unwrap_or("");
    assert!(
        second.starts_with("Compared with the baseline: 1 new failure, 1 fixed"),
        "{md}"
    );
    let new = md
        .find("### NEW FAILURES (1)")
        .expect("new failures section");
    let first_failure = md.find("### FAILED:").expect("failure sections");
    assert!(new < first_failure, "new failures come first:\n{md}");
    // A baseline that cannot be read is an input error like any other.
    let out = report(&[
        "tests/fixtures/baseline/after.xml",
        "--baseline",
        "no/such.xml",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no/such.xml"));
}

/// `--baseline` takes one file, so the file after it is a FILE to report,
/// not a second baseline (issue 13: it used to swallow every file after it
/// and then complain that FILE was missing).
#[test]
fn baseline_before_the_files_takes_one_value() {
    let flag_first = report(&[
        "--baseline",
        "tests/fixtures/baseline/before.xml",
        "tests/fixtures/baseline/after.xml",
    ]);
    assert_eq!(
        flag_first.status.code(),
        Some(0),
        "{}",
        text(&flag_first.stderr)
    );
    let md = text(&flag_first.stdout);
    assert!(
        md.lines()
            .nth(1)
            .unwrap_or("")
            .starts_with("Compared with the baseline: 1 new failure, 1 fixed"),
        "{md}"
    );
    // The same report as with the flag after the files.
    let flag_last = report(&[
        "tests/fixtures/baseline/after.xml",
        "--baseline",
        "tests/fixtures/baseline/before.xml",
    ]);
    assert_eq!(md, text(&flag_last.stdout));
}

#[test]
fn baseline_repeated_compares_with_all_its_files() {
    let baseline_ids = |files: &[&str]| -> serde_json::Value {
        let mut args = vec!["--format", "json", "tests/fixtures/baseline/after.xml"];
        for f in files {
            args.extend(["--baseline", f]);
        }
        let out = report(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        value["baseline"].clone()
    };
    let one = baseline_ids(&["tests/fixtures/baseline/before.xml"]);
    let two = baseline_ids(&[
        "tests/fixtures/baseline/before.xml",
        "tests/fixtures/pytest/one_failure/junit-xunit1.xml",
    ]);
    let removed = |v: &serde_json::Value| -> Vec<String> {
        v["removed"]
            .as_array()
            .expect("removed")
            .iter()
            .map(|id| id.as_str().expect("id").to_string())
            .collect()
    };
    assert_eq!(removed(&one), ["tests/test_legacy.py::test_old_api"]);
    // The second baseline file's tests are in the baseline too: none of
    // them is in the current run, so each is reported as removed.
    let removed_two = removed(&two);
    assert_eq!(removed_two.len(), 1 + 5, "{removed_two:?}");
    assert!(removed_two.contains(&"tests/test_calc.py::test_discount_fractional".to_string()));
    assert_eq!(one["new_failures"], two["new_failures"]);
}

#[test]
fn report_help_says_how_to_give_several_baselines() {
    let out = report(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    // clap wraps the text to the terminal's width: compare it unwrapped.
    let help = text(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        help.contains("repeat the flag for several")
            && help.contains("--baseline a.xml --baseline b.json"),
        "{help}"
    );
}

/// A pytest JUnit report of `cases` cases, one in 50 failing.
fn large_pytest_junit(cases: usize) -> Vec<u8> {
    let mut xml = String::from(
        r#"<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" time="12.5">"#,
    );
    for n in 0..cases {
        let status = if n % 50 == 7 {
            r#"<failure message="assert 1 == 2">def test(): assert 1 == 2</failure>"#
        } else {
            ""
        };
        xml.push_str(&format!(
            "<testcase classname=\"tests.test_m{}\" name=\"test_c[{n}]\" file=\"tests/test_m.py\" line=\"{n}\" time=\"0.0{}\">{status}</testcase>\n",
            n / 500,
            n % 9
        ));
    }
    xml.push_str("</testsuite></testsuites>");
    xml.into_bytes()
}

/// A file of some megabytes is read in place (mapped) and cut into parts
/// read on every core: its report is the same, byte for byte, as on one
/// thread and as the library's over the same bytes held in memory; cut
/// short, it is refused at the same line and column.
#[test]
fn a_large_file_reports_the_same_on_every_core_as_on_one() {
    use pytest_mcp::frontend::report::{self, DEFAULT_MAX_CHARS, Input, RenderOnly};
    use pytest_mcp::request::OutputFormat;
    let dir = tempfile::tempdir().expect("tempdir");
    let xml = large_pytest_junit(30_000);
    assert!(xml.len() > 3 << 20, "{} bytes", xml.len());
    let path = dir.path().join("big.xml");
    std::fs::write(&path, &xml).expect("write");
    let file = path.to_str().expect("utf-8 path");
    for format in OutputFormat::all().iter().map(|f| f.cli_name()) {
        let all = report(&["--format", format, file]);
        let one = report(&["--format", format, "--threads", "1", file]);
        assert_eq!(all.status.code(), Some(0), "{}", text(&all.stderr));
        assert!(
            all.stdout == one.stdout,
            "{format}: every core and one differ"
        );
    }
    let input = Input {
        name: file.to_string(),
        contents: Ok(xml.clone()),
    };
    let budget = report::cli_budget(OutputFormat::Markdown, None, DEFAULT_MAX_CHARS);
    let library = RenderOnly::read(&[input], OutputFormat::Markdown)
        .expect("read")
        .render(&dispatch::Style::report(budget))
        .text;
    assert_eq!(text(&report(&[file]).stdout), library);

    std::fs::write(&path, &xml[..xml.len() * 2 / 3]).expect("write");
    let cut = Input {
        name: file.to_string(),
        contents: Ok(xml[..xml.len() * 2 / 3].to_vec()),
    };
    let e = &report::read_run(&[cut], report::Reading::for_format(OutputFormat::Markdown))
        .expect_err("truncated")[0];
    let out = report(&[file]);
    assert_eq!(out.status.code(), Some(2));
    let at = format!("line {}, column {}", e.line, e.column);
    assert!(
        text(&out.stderr).contains(&at),
        "{at}: {}",
        text(&out.stderr)
    );
}

/// `pytest-mcp --help` is the front door: its description names every
/// command it lists, every kind of file `report` reads and every
/// `--format` it prints.
#[test]
fn top_help_names_every_command_input_and_output() {
    use clap::ValueEnum;
    use pytest_mcp::request::OutputFormat;
    use pytest_mcp::sources::InputFormat;

    let out = Command::new(env!("CARGO_BIN_EXE_pytest-mcp"))
        .arg("--help")
        .output()
        .expect("run pytest-mcp");
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    let (description, rest) = help.split_once("Usage:").expect("a usage line");
    let commands: Vec<&str> = rest
        .split_once("Commands:")
        .expect("a list of commands")
        .1
        .lines()
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .collect();
    assert!(commands.len() >= 5, "{commands:?}");
    for command in commands {
        assert!(
            description.contains(&format!("`{command}`")),
            "the description leaves out `{command}`:\n{description}"
        );
    }
    let flat = description.split_whitespace().collect::<Vec<_>>().join(" ");
    for &input in InputFormat::all() {
        assert!(
            flat.contains(&input.to_string()),
            "{input} missing:\n{flat}"
        );
    }
    let formats = flat
        .split_once("--format ")
        .expect("the description names --format")
        .1;
    for format in OutputFormat::value_variants() {
        let name = format
            .to_possible_value()
            .expect("a name")
            .get_name()
            .to_string();
        let named = formats
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|word| word == name);
        assert!(named, "--format {name} missing:\n{flat}");
    }
}
