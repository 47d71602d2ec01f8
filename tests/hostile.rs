//! Hostile results files through `pytest-mcp report`, the real binary, in
//! every output format: malformed and truncated XML, deep nesting, entity
//! expansion and external entities, bytes that are not UTF-8, JSON of the
//! wrong shape, and a file of tens of MB (hundreds with
//! `PYTEST_MCP_HUGE_MB`; SECURITY.md has the command and its last result).
//!
//! Every answer must be a report (exit 0) or a clear refusal that names the
//! file (exit 2) - never a panic, never a hang, always valid UTF-8 - and
//! nothing outside the file may ever be read. Library-level cut-and-mangle
//! fuzzing over the corpus is in `tests/corpus.rs`; cargo-fuzz targets are in
//! `fuzz/`.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pytest_mcp::request::OutputFormat;
use serde_json::Value;

mod common;
use common::headline::run_failed;
use common::support;
use support::{head, reader};

const BIN: &str = env!("CARGO_BIN_EXE_pytest-mcp");
/// Longest one `report` may take on a small hostile file (a hang fails).
const DEADLINE: Duration = Duration::from_secs(60);
/// Every output format's `--format` name: each hostile file goes through
/// them all.
fn formats() -> impl Iterator<Item = &'static str> {
    OutputFormat::all().iter().map(|f| f.cli_name())
}

struct Answer {
    status: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
    elapsed: Duration,
    /// Peak resident set of the binary in KiB (`/usr/bin/time -v`), when measured.
    peak_kib: Option<u64>,
}

fn finish(mut child: Child, started: Instant, deadline: Duration, what: &str) -> Answer {
    let out = reader(child.stdout.take().expect("stdout"));
    let err = reader(child.stderr.take().expect("stderr"));
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if started.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {deadline:?} (killed)");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Answer {
        status: status.code(),
        stdout: out.join().expect("stdout reader"),
        stderr: String::from_utf8_lossy(&err.join().expect("stderr reader")).into_owned(),
        elapsed: started.elapsed(),
        peak_kib: None,
    }
}

/// `pytest-mcp report --format <format> <file>`.
fn report(file: &Path, format: &str) -> Answer {
    let started = Instant::now();
    let child = Command::new(BIN)
        .args(["report", "--format", format])
        .arg(file)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start pytest-mcp");
    finish(
        child,
        started,
        DEADLINE,
        &format!("report {}", file.display()),
    )
}

/// What every answer must be, whatever the input: a report or a refusal
/// naming the file, valid UTF-8, no panic. Returns problems found.
fn check_sane(file: &Path, format: &str, answer: &Answer) -> Vec<String> {
    let what = format!("{} ({format})", file.display());
    let mut problems = Vec::new();
    if answer.stderr.contains("panicked") || answer.status == Some(101) {
        problems.push(format!("{what}: panic: {}", answer.stderr));
    }
    let Ok(text) = std::str::from_utf8(&answer.stdout) else {
        problems.push(format!("{what}: the answer is not valid UTF-8"));
        return problems;
    };
    match answer.status {
        Some(0) => {
            let named = <OutputFormat as clap::ValueEnum>::from_str(format, false).ok();
            let ok = match named {
                Some(OutputFormat::Markdown | OutputFormat::Gfm) => !text.trim().is_empty(),
                Some(OutputFormat::Json) => {
                    serde_json::from_str::<Value>(text).is_ok_and(|v| v["summary"].is_object())
                }
                Some(OutputFormat::Ctrf) => serde_json::from_str::<Value>(text)
                    .is_ok_and(|v| v["results"]["summary"].is_object()),
                Some(OutputFormat::Html) => text.contains("<html") || text.contains("<!DOCTYPE"),
                Some(OutputFormat::Junit) => quick_xml_is_well_formed(text),
                // The headline, then one workflow command a line.
                Some(OutputFormat::Github) => text
                    .lines()
                    .skip(1)
                    .all(|l| l.starts_with("::") || l.is_empty()),
                None => false,
            };
            if !ok {
                problems.push(format!(
                    "{what}: exit 0 but not a {format} report: {}",
                    head(text, 600)
                ));
            }
        }
        Some(2) => {
            let name = file.display().to_string();
            if !answer.stderr.contains(&name) {
                problems.push(format!(
                    "{what}: refusal does not name the file: {}",
                    answer.stderr
                ));
            }
            if format == "json" {
                let refused = serde_json::from_str::<Value>(text).is_ok_and(|v| {
                    v["error"]["code"] == -32602 && v["error"]["data"]["errors"].is_array()
                });
                if !refused {
                    problems.push(format!(
                        "{what}: JSON refusal is not ADR-007: {}",
                        head(text, 600)
                    ));
                }
            }
        }
        other => problems.push(format!("{what}: exit {other:?}: {}", answer.stderr)),
    }
    problems
}

fn quick_xml_is_well_formed(text: &str) -> bool {
    let mut reader = quick_xml::Reader::from_str(text);
    let mut depth = 0i64;
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Start(_)) => depth += 1,
            Ok(quick_xml::events::Event::End(_)) => depth -= 1,
            Ok(quick_xml::events::Event::Eof) => return depth == 0,
            Ok(_) => {}
            Err(_) => return false,
        }
    }
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write input");
    path
}

fn assert_no_problems(problems: Vec<String>) {
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

// ---------------------------------------------------------------------------
// Malformed and truncated XML
// ---------------------------------------------------------------------------

/// Clearly broken documents: each must be refused (exit 2) with a line and
/// column, in every format.
const BROKEN_XML: &[(&str, &str)] = &[
    (
        "mismatched-end",
        r#"<testsuite><testcase classname="c" name="a"></testsuite>"#,
    ),
    (
        "unclosed-tag-at-eof",
        r#"<testsuite name="s"><testcase classname="c" name="a""#,
    ),
    (
        "unterminated-quote",
        "<testsuite><testcase classname='c name='a'/></testsuite>",
    ),
    ("end-without-start", "<testsuite></testcase></testsuite>"),
    (
        "unterminated-comment",
        "<testsuite><!-- never closed <testcase name=\"a\"/>",
    ),
    (
        "unterminated-cdata",
        "<testsuite><testcase name=\"a\"><failure><![CDATA[ no end",
    ),
    ("lone-lt", "<"),
];

#[test]
fn broken_xml_is_refused_with_a_location_in_every_format() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut problems = Vec::new();
    for (name, xml) in BROKEN_XML {
        let file = write(dir.path(), &format!("{name}.xml"), xml.as_bytes());
        for format in formats() {
            let answer = report(&file, format);
            problems.extend(check_sane(&file, format, &answer));
            if answer.status != Some(2) {
                problems.push(format!(
                    "{name} ({format}): exit {:?}, expected 2",
                    answer.status
                ));
            } else if !answer.stderr.contains("line ") {
                problems.push(format!("{name} ({format}): no line in {}", answer.stderr));
            }
        }
    }
    assert_no_problems(problems);
}

/// Oddities a lenient reader may accept: a report or a refusal, never a
/// panic; the answer stays sane either way.
const ODD_XML: &[(&str, &str)] = &[
    (
        "two-roots",
        r#"<testsuite><testcase classname="c" name="a"/></testsuite><testsuite/>"#,
    ),
    (
        "duplicate-attribute",
        r#"<testsuite><testcase classname="c" name="a" name="b"/></testsuite>"#,
    ),
    (
        "char-ref-zero",
        r#"<testsuite><testcase classname="c" name="a"><failure message="&#0;">&#0;</failure></testcase></testsuite>"#,
    ),
    (
        "char-ref-huge",
        r#"<testsuite><testcase classname="c" name="a"><failure message="&#xFFFFFFFFFF;">&#99999999999999999999;</failure></testcase></testsuite>"#,
    ),
    (
        "char-ref-surrogate",
        r#"<testsuite><testcase classname="c" name="&#xD800;"/></testsuite>"#,
    ),
    ("no-root-only-prolog", r#"<?xml version="1.0"?>"#),
    (
        "bad-prolog",
        r#"<?xml version="9.9" encoding="EBCDIC"?><testsuite/>"#,
    ),
    (
        "utf16-claim",
        "<?xml version=\"1.0\" encoding=\"UTF-16\"?><testsuite><testcase classname=\"c\" name=\"a\"/></testsuite>",
    ),
    (
        "nul-bytes",
        "<testsuite>\0<testcase classname=\"c\" name=\"a\u{0}b\"/>\0</testsuite>",
    ),
    (
        "processing-instructions",
        "<?evil rm -rf /?><testsuite><?x y?><testcase classname=\"c\" name=\"a\"/></testsuite>",
    ),
    (
        "attributes-without-values",
        "<testsuite tests failures><testcase classname name/></testsuite>",
    ),
    (
        "negative-and-nan-times",
        r#"<testsuite time="NaN"><testcase classname="c" name="a" time="-1e309"/><testcase classname="c" name="b" time="inf"/></testsuite>"#,
    ),
    (
        "huge-counts",
        r#"<testsuite tests="99999999999999999999999" failures="-5"><testcase classname="c" name="a" line="99999999999999999999"/></testsuite>"#,
    ),
    (
        "empty-names",
        r#"<testsuite><testcase/><testcase classname="" name=""/></testsuite>"#,
    ),
];

#[test]
fn odd_xml_gives_a_report_or_a_clear_refusal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut problems = Vec::new();
    for (name, xml) in ODD_XML {
        let file = write(dir.path(), &format!("{name}.xml"), xml.as_bytes());
        for format in formats() {
            problems.extend(check_sane(&file, format, &report(&file, format)));
        }
    }
    assert_no_problems(problems);
}

/// A real pytest report cut at many points: each prefix is a report or a
/// refusal naming the file, in every format, through the binary.
#[test]
fn a_truncated_report_is_never_a_crash() {
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pytest/mixed/junit-xunit1.xml");
    let bytes = std::fs::read(&source).expect("fixture");
    let dir = tempfile::tempdir().expect("tempdir");
    let mut problems = Vec::new();
    let mut refused = 0;
    let cuts: Vec<usize> = (1..12).map(|i| bytes.len() * i / 12).collect();
    for cut in cuts {
        let file = write(dir.path(), &format!("cut-{cut}.xml"), &bytes[..cut]);
        for format in formats() {
            let answer = report(&file, format);
            refused += usize::from(answer.status == Some(2));
            problems.extend(check_sane(&file, format, &answer));
        }
    }
    assert_no_problems(problems);
    // Cut inside the document, most prefixes are not well-formed.
    assert!(refused > 0, "no truncated prefix was refused");
}

// ---------------------------------------------------------------------------
// Deep nesting
// ---------------------------------------------------------------------------

#[path = "hostile/xml.rs"]
mod xml;

#[test]
fn invalid_utf8_is_replaced_never_passed_through() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut xml = Vec::new();
    xml.extend_from_slice(
        b"<testsuite name=\"s\xff\xfe\"><testcase classname=\"c\xc3\x28\" name=\"test_\xe2\x82\">",
    );
    xml.extend_from_slice(b"<failure message=\"bad \xf0\x28\x8c\xbc bytes\">trace \xc0\xaf \xed\xa0\x80 end</failure>");
    xml.extend_from_slice(b"<system-out>\x80\x81\x82</system-out></testcase></testsuite>");
    let xml_file = write(dir.path(), "bad-utf8.xml", &xml);
    let mut json = Vec::new();
    json.extend_from_slice(b"{\"tests\": [{\"nodeid\": \"t.py::test_\xff\", \"outcome\": \"failed\", \"call\": {\"outcome\": \"failed\", \"longrepr\": \"E \xc3\x28\"}}]}");
    let json_file = write(dir.path(), "bad-utf8.json", &json);
    // Latin-1 declared and used: bytes >= 0x80 are not UTF-8 either.
    let latin1 = b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><testsuite><testcase classname=\"c\" name=\"caf\xe9\"><failure message=\"na\xefve\"/></testcase></testsuite>";
    let latin1_file = write(dir.path(), "latin1.xml", latin1);

    let mut problems = Vec::new();
    for file in [&xml_file, &json_file, &latin1_file] {
        for format in formats() {
            let answer = report(file, format);
            problems.extend(check_sane(file, format, &answer));
        }
    }
    // The XML is read, lossily, and says so.
    let answer = report(&xml_file, "markdown");
    let text = String::from_utf8_lossy(&answer.stdout);
    if answer.status != Some(0) || !text.contains('\u{FFFD}') || !text.contains("not UTF-8") {
        problems.push(format!(
            "bad-utf8.xml: not read lossily with a note: {}",
            head(&text, 600)
        ));
    }
    assert_no_problems(problems);
}

// ---------------------------------------------------------------------------
// JSON of the wrong shape
// ---------------------------------------------------------------------------

#[path = "hostile/json.rs"]
mod json;

/// Size of the enormous report in MB: `PYTEST_MCP_HUGE_MB`, else a size the
/// debug build reads within the suite's time.
fn huge_mb() -> u64 {
    std::env::var("PYTEST_MCP_HUGE_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(32)
}

/// Writes a pytest-style JUnit file of about `mb` MB: many test cases, one
/// in 50 failing with a traceback, one in 10 with captured output. Returns
/// (cases, failures).
fn write_huge(path: &Path, mb: u64) -> (u64, u64) {
    let file = std::fs::File::create(path).expect("create");
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let target = mb * 1024 * 1024;
    let mut written = 0u64;
    let mut cases = 0u64;
    let mut failures = 0u64;
    let put = |out: &mut BufWriter<std::fs::File>, s: &str| {
        out.write_all(s.as_bytes()).expect("write");
        s.len() as u64
    };
    written += put(
        &mut out,
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><testsuites><testsuite name=\"pytest\">\n",
    );
    let traceback =
        "    def test_x():\n>       assert compute() == 42\nE       assert 41 == 42\n".repeat(20);
    let captured = "log line with some words in it\n".repeat(30);
    while written < target {
        let n = cases;
        let file = n / 200;
        let mut case = format!(
            "<testcase classname=\"tests.test_mod{file}\" name=\"test_case_{n}[param-{n}]\" file=\"tests/test_mod{file}.py\" line=\"{}\" time=\"0.{:03}\">",
            n % 1000,
            n % 1000
        );
        if n % 50 == 7 {
            failures += 1;
            case.push_str(&format!(
                "<failure message=\"assert 41 == 42 in case {n}\">{traceback}tests/test_mod{file}.py:{}: AssertionError</failure>",
                n % 1000
            ));
        }
        if n % 10 == 3 {
            case.push_str(&format!("<system-out>{captured}</system-out>"));
        }
        case.push_str("</testcase>\n");
        written += put(&mut out, &case);
        cases += 1;
    }
    put(&mut out, "</testsuite></testsuites>\n");
    out.flush().expect("flush");
    (cases, failures)
}

/// `report` under `/usr/bin/time -v` for its peak resident set.
fn measured_report(file: &Path, format: &str, deadline: Duration) -> Answer {
    let time = Path::new("/usr/bin/time");
    let stats = tempfile::NamedTempFile::new().expect("time output");
    let started = Instant::now();
    let wrapped = time.is_file();
    let mut command = if wrapped {
        let mut c = Command::new(time);
        c.arg("-v").arg("-o").arg(stats.path()).arg(BIN);
        c
    } else {
        Command::new(BIN)
    };
    let child = command
        .args(["report", "--format", format])
        .arg(file)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start pytest-mcp");
    let mut answer = finish(child, started, deadline, "enormous report");
    if wrapped {
        let text = std::fs::read_to_string(stats.path()).unwrap_or_default();
        answer.peak_kib = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
            .and_then(|v| v.trim().parse().ok());
    }
    answer
}

/// A JUnit file of `PYTEST_MCP_HUGE_MB` MB (32 by default) is read in
/// bounded time and memory, and every failure is counted. Bounds are
/// generous (a slow, shared machine and the debug build) and only catch
/// what does not scale: time under a minute plus 1 s per MB; peak memory
/// under 12x the file plus 200 MB (measured: Markdown about 4x, JSON about
/// 8x, as the JSON answer holds every test and its traceback).
#[test]
fn an_enormous_junit_file_in_bounded_time_and_memory() {
    let mb = huge_mb();
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("huge.xml");
    let started = Instant::now();
    let (cases, failures) = write_huge(&file, mb);
    let size = std::fs::metadata(&file).expect("size").len();
    println!(
        "enormous: wrote {:.0} MB ({cases} test cases, {failures} failing) in {:.1}s",
        size as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    let deadline = Duration::from_secs(60 + mb);
    let mut problems = Vec::new();
    for format in ["json", "markdown"] {
        let answer = measured_report(&file, format, deadline);
        println!(
            "enormous ({format}): {:.0} MB read in {:.1}s, peak RSS {:?} KiB ({:.1}x the file), answer {} bytes",
            size as f64 / 1e6,
            answer.elapsed.as_secs_f64(),
            answer.peak_kib,
            answer
                .peak_kib
                .map_or(0.0, |k| k as f64 * 1024.0 / size as f64),
            answer.stdout.len()
        );
        problems.extend(check_sane(&file, format, &answer));
        if answer.status != Some(0) {
            problems.push(format!(
                "{format}: exit {:?}: {}",
                answer.status, answer.stderr
            ));
            continue;
        }
        if let Some(peak) = answer.peak_kib {
            let limit = 12 * size / 1024 + 200 * 1024;
            if peak > limit {
                problems.push(format!("{format}: peak RSS {peak} KiB over {limit} KiB"));
            }
        }
        if format == "json" {
            let value: Value = serde_json::from_slice(&answer.stdout).unwrap_or_default();
            let summary = &value["summary"];
            if summary["total"] != cases || summary["failed"] != failures {
                problems.push(format!(
                    "json: summary {summary}, expected {cases} tests, {failures} failed"
                ));
            }
        } else {
            let text = String::from_utf8_lossy(&answer.stdout);
            let expected = run_failed(
                usize::try_from(cases).expect("a count"),
                usize::try_from(failures).expect("a count"),
            );
            if !text.lines().next().unwrap_or("").contains(&expected) {
                problems.push(format!(
                    "markdown header lacks {expected:?}: {}",
                    head(&text, 600)
                ));
            }
        }
    }
    assert_no_problems(problems);
}
