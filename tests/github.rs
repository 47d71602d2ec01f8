//! `--format github` through the binary: annotations on the lines where
//! tests failed (a real pytest run, pytest's and PHPUnit's JUnit), every
//! value escaped, without pytest's noise, at most ten `::error`, the job summary appended and kept
//! within GitHub's 1 MiB, and errors as one `::error` line.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::headline::{Verdict, before_counts, report_error, says, start};
use common::support;

const BIN: &str = env!("CARGO_BIN_EXE_pytest-mcp");
const MIB: usize = 1_048_576;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The binary with no GitHub variables of the caller's (a test run inside
/// GitHub Actions has them), then `vars`.
fn pytest_mcp(args: &[&str], vars: &[(&str, &Path)]) -> (Option<i32>, String, String) {
    let mut c = support::clean_command(Path::new(BIN));
    c.env_remove("GITHUB_WORKSPACE")
        .env_remove("GITHUB_STEP_SUMMARY")
        .current_dir(repo())
        .args(args);
    for (k, v) in vars {
        c.env(k, v);
    }
    output(c)
}

fn output(mut c: Command) -> (Option<i32>, String, String) {
    let out = c.output().expect("run pytest-mcp");
    (
        out.status.code(),
        String::from_utf8(out.stdout).expect("UTF-8"),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn errors(out: &str) -> Vec<&str> {
    out.lines().filter(|l| l.starts_with("::error ")).collect()
}

/// The 1-based line of `file` that holds `marker`.
fn line_of(file: &Path, marker: &str) -> usize {
    let text = std::fs::read_to_string(file).unwrap();
    1 + text
        .lines()
        .position(|l| l.contains(marker))
        .unwrap_or_else(|| panic!("{marker} not in {}", file.display()))
}

/// The annotation whose title names `test`.
fn annotation<'a>(out: &'a str, test: &str) -> &'a str {
    let found: Vec<&str> = errors(out)
        .into_iter()
        .filter(|l| l.split("::").nth(1).is_some_and(|p| p.contains(test)))
        .collect();
    assert_eq!(found.len(), 1, "{test} in\n{out}");
    found[0]
}

/// A command's properties are `key=value` pairs with nothing unescaped in
/// the values, and its message has no `%` that is not an escape.
fn assert_well_formed(line: &str) {
    let rest = line
        .strip_prefix("::error ")
        .or(line.strip_prefix("::notice "));
    let rest = rest.unwrap_or_else(|| panic!("not a command: {line}"));
    let (properties, message) = rest.split_once("::").expect("properties::message");
    for pair in properties.split(',') {
        let (key, value) = pair.split_once('=').expect("key=value");
        assert!(["file", "line", "title"].contains(&key), "{key} in {line}");
        assert!(!value.contains(':'), "{value} in {line}");
    }
    for text in [properties, message] {
        let unescaped = ["%25", "%0A", "%0D", "%3A", "%2C"]
            .iter()
            .fold(text.to_string(), |t, e| t.replace(e, ""));
        assert!(!unescaped.contains('%'), "a bare % in {line}");
    }
}

/// An annotation's message carries none of pytest's noise: no empty line,
/// no hint to rerun with `-v`, and its first line (what GitHub shows before
/// the annotation is opened) starts with words.
fn assert_without_noise(line: &str) {
    let message = line.splitn(3, "::").nth(2).expect("::command ...::message");
    for part in message.split("%0A") {
        assert!(!part.trim().is_empty(), "an empty line in {line}");
        assert!(
            !part.trim_start().starts_with("Use -v") && !part.contains(", use -v"),
            "a rerun hint in {line}"
        );
    }
    assert!(!message.starts_with(char::is_whitespace), "{line}");
}

/// `run --format github` on a real project in a subdirectory of the
/// repository: each failure annotated on the line where it failed — an
/// assertion, a raise inside a helper of another module, a failing fixture
/// — with paths from the repository root; the failing line is not the
/// test's `def`; ten `::error` of the sixteen groups, then a notice; the
/// GitHub rendering (`--format gfm`) appended to the job summary after what was there.
#[test]
fn run_annotates_the_failing_lines_and_appends_the_summary() {
    let tmp = tempfile::tempdir().unwrap();
    let workspace = tmp.path().join("repo");
    let project = workspace.join("proj");
    support::copy_tree(&repo().join("tests/projects/github_annotations"), &project);
    let summary = tmp.path().join("summary.md");
    std::fs::write(&summary, "# Lint\n\nall clean\n").unwrap();
    let python = support::test_python();
    let (code, out, stderr) = pytest_mcp(
        &[
            "run",
            "--root",
            project.to_str().unwrap(),
            "--python",
            python.to_str().unwrap(),
            "--format",
            "github",
        ],
        &[
            ("GITHUB_WORKSPACE", &workspace),
            ("GITHUB_STEP_SUMMARY", &summary),
        ],
    );
    assert_eq!(code, Some(1), "{out}\n{stderr}");
    assert!(says(&out, Verdict::Failure), "{out}");
    let checkout = project.join("tests/test_checkout.py");
    let cases = [
        (
            "test_total_rounds",
            "proj/tests/test_checkout.py",
            line_of(&checkout, "# crash: assertion"),
        ),
        (
            "test_discount_too_big",
            "proj/shop/pricing.py",
            line_of(&project.join("shop/pricing.py"), "# crash: helper"),
        ),
        (
            "test_cart_has_apples",
            "proj/tests/test_checkout.py",
            line_of(&checkout, "# crash: fixture"),
        ),
        (
            "test_escapes",
            "proj/tests/test_checkout.py",
            line_of(&checkout, "# crash: escapes"),
        ),
    ];
    for (test, file, line) in cases {
        let a = annotation(&out, test);
        assert!(
            a.starts_with(&format!("::error file={file},line={line},title=")),
            "{a}"
        );
        let def = line_of(&checkout, &format!("def {test}("));
        assert_ne!(line, def, "{test}: the crash line is not the def line");
    }
    assert!(annotation(&out, "test_cart_has_apples").contains("title=ERROR at setup%3A"));
    assert!(annotation(&out, "test_escapes").contains(
        "test_escapes[a%2Cb%3Ac%25]::AssertionError: assert '50%25 off, a:b\\nsecond line' == 'a,b:c%25'%0A"
    ));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(errors(&out).len(), 10, "{out}");
    assert_eq!(lines.len(), 12, "the header, ten errors, a notice:\n{out}");
    assert_eq!(
        lines[11],
        "::notice title=pytest-mcp::6 more failure groups (6 tests) are not annotated (GitHub shows 10 error annotations per step): the job summary lists them all"
    );
    for line in &lines[1..] {
        assert_well_formed(line);
        assert_without_noise(line);
    }
    assert_summary_appended(&summary);
}

/// The job summary: what was there, then the GitHub rendering (`--format
/// gfm`) with every group in `<details>`.
fn assert_summary_appended(summary: &Path) {
    let text = std::fs::read_to_string(summary).unwrap();
    assert!(
        text.starts_with(&format!(
            "# Lint\n\nall clean\n\n## {}{}",
            start(Verdict::Failure),
            before_counts()
        )),
        "{text}"
    );
    for section in [
        "<code>tests/test_checkout.py::test_total_rounds</code></summary>\n",
        "<code>tests/test_stock.py::test_shelf_11</code></summary>\n",
    ] {
        assert!(text.contains(section), "{section} in\n{text}");
    }
}

/// Another framework's JUnit: the case's `file`, made relative to the
/// repository, and the line its failure text gives for that file (27, not
/// the method's line 22), else the case's `line`; pytest's JUnit alone
/// gives the same crash lines as a run, under `--path-prefix`.
#[test]
fn report_uses_the_junit_file_and_the_failing_line() {
    let workspace = Path::new("/home/runner/work/warehouse/warehouse");
    let (code, out, stderr) = pytest_mcp(
        &[
            "report",
            "--format",
            "github",
            "tests/fixtures/junit/phpunit_lines.xml",
        ],
        &[("GITHUB_WORKSPACE", workspace)],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let placed: Vec<&str> = errors(&out)
        .iter()
        .map(|l| l.split(",title=").next().unwrap())
        .collect();
    assert_eq!(
        placed,
        [27, 44, 52, 58].map(|n| format!("::error file=tests/Unit/StockTest.php,line={n}")),
        "{out}"
    );
    let (code, _, _) = pytest_mcp(
        &[
            "report",
            "-f",
            "github",
            "--fail-on",
            "failures",
            "tests/fixtures/junit/phpunit_lines.xml",
        ],
        &[],
    );
    assert_eq!(code, Some(1));

    let junit = "tests/fixtures/pytest/github_annotations/junit-xunit1.xml";
    let (_, out, _) = pytest_mcp(
        &[
            "report",
            "--format",
            "github",
            "--path-prefix",
            "backend",
            junit,
        ],
        &[],
    );
    let project = repo().join("tests/projects/github_annotations");
    let checkout = project.join("tests/test_checkout.py");
    for (test, file, line) in [
        (
            "test_total_rounds",
            "backend/tests/test_checkout.py",
            line_of(&checkout, "# crash: assertion"),
        ),
        (
            "test_discount_too_big",
            "backend/shop/pricing.py",
            line_of(&project.join("shop/pricing.py"), "# crash: helper"),
        ),
        (
            "test_cart_has_apples",
            "backend/tests/test_checkout.py",
            line_of(&checkout, "# crash: fixture"),
        ),
    ] {
        let a = annotation(&out, test);
        assert!(
            a.starts_with(&format!("::error file={file},line={line},")),
            "{a}"
        );
    }
}

/// A JUnit file of `n` failures whose messages are 250 two-byte
/// characters each and differ in words: `n` groups, a Markdown report of
/// fewer characters than bytes.
fn wide_failures(n: usize) -> String {
    let mut xml = String::from("<testsuite name=\"wide\">\n");
    for i in 0..n {
        let word: String = format!("{i:x}")
            .chars()
            .map(|c| char::from(b'g' + (c as u8 % 16)))
            .collect();
        let message = format!("{word} {}", "é".repeat(250));
        xml.push_str(&format!(
            "<testcase classname=\"wide\" name=\"case_{i}\"><failure message=\"{message}\">{message}</failure></testcase>\n"
        ));
    }
    xml.push_str("</testsuite>\n");
    xml
}

/// The job summary stays within 1 MiB counted in bytes, whatever was in it
/// before: a report of fewer characters than that but more bytes is
/// shortened, not cut off; `--max-chars` bounds it further; a full file is
/// left alone, with a warning.
#[test]
fn the_step_summary_is_bounded_in_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("wide.xml");
    std::fs::write(&input, wide_failures(2_200)).unwrap();
    let input = input.to_str().unwrap();
    let summary = tmp.path().join("summary.md");
    let before = "x".repeat(100_000) + "\n";
    std::fs::write(&summary, &before).unwrap();
    let (code, out, stderr) = pytest_mcp(
        &["report", "--format", "github", input],
        &[("GITHUB_STEP_SUMMARY", &summary)],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(errors(&out).len(), 10);
    let text = std::fs::read_to_string(&summary).unwrap();
    let added = text
        .strip_prefix(&format!("{before}\n"))
        .expect("appended after a blank line");
    assert!(text.len() <= MIB, "{} bytes", text.len());
    assert!(
        added.starts_with(&format!(
            "## {}{}",
            start(Verdict::Failure),
            before_counts()
        )),
        "{}",
        support::head(added, 200)
    );
    assert!(added.contains("Shortened to fit "), "said so");
    // The whole report has fewer characters than the room left, but more
    // bytes than 1 MiB: a budget in characters alone would have let it in.
    let room = MIB - before.len() - 1;
    let (_, full, _) = pytest_mcp(
        &[
            "report",
            "--format",
            "gfm",
            "--max-chars",
            "100000000",
            input,
        ],
        &[],
    );
    assert!(
        full.chars().count() < room,
        "{} characters",
        full.chars().count()
    );
    assert!(full.len() > MIB, "{} bytes", full.len());

    let small = tmp.path().join("small.md");
    let (_, _, _) = pytest_mcp(
        &["report", "--format", "github", "--max-chars", "5000", input],
        &[("GITHUB_STEP_SUMMARY", &small)],
    );
    let text = std::fs::read_to_string(&small).unwrap();
    assert!(
        text.chars().count() <= 5_000 && text.chars().count() > 4_000,
        "{}",
        text.len()
    );

    let full_file = tmp.path().join("full.md");
    std::fs::write(&full_file, "y".repeat(MIB - 10)).unwrap();
    let (code, out, stderr) = pytest_mcp(
        &["report", "--format", "github", input],
        &[("GITHUB_STEP_SUMMARY", &full_file)],
    );
    assert_eq!(code, Some(0));
    assert_eq!(
        errors(&out).len(),
        10,
        "the annotations are written all the same"
    );
    assert!(
        stderr.contains("warning: cannot append the report to GITHUB_STEP_SUMMARY"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::metadata(&full_file).unwrap().len() as usize,
        MIB - 10
    );
}

/// Errors in github format are one `::error` line the log shows, with the
/// usual exit status; `report` puts its error in the job summary too.
#[test]
fn errors_are_one_error_command() {
    let tmp = tempfile::tempdir().unwrap();
    let summary = tmp.path().join("summary.md");
    let (code, out, _) = pytest_mcp(
        &["report", "--format", "github", "no/such/file.xml"],
        &[("GITHUB_STEP_SUMMARY", &summary)],
    );
    assert_eq!(code, Some(2));
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(
        out.starts_with(&format!(
            "::error title=pytest-mcp report::{}%0A- no/such/file.xml: cannot read the file: ",
            report_error("the input file could not be read as test results")
        )),
        "{out}"
    );
    let text = std::fs::read_to_string(&summary).unwrap();
    assert!(
        text.starts_with(&format!(
            "## {}",
            report_error("the input file could not be read")
        )),
        "{text}"
    );

    let (code, out, _) = pytest_mcp(&["run", "--format", "github", "--timeout", "0"], &[]);
    assert_eq!(code, Some(4));
    assert_eq!(
        out,
        "::error title=pytest-mcp%3A invalid parameters::Invalid params: timeout must be between 1 and 86400 seconds (received 0)\n"
    );
}
