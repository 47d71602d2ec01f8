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

use serde_json::Value;

mod common;
use common::support;
use support::{head, reader};

const BIN: &str = env!("CARGO_BIN_EXE_pytest-mcp");
/// Longest one `report` may take on a small hostile file (a hang fails).
const DEADLINE: Duration = Duration::from_secs(60);
const FORMATS: [&str; 4] = ["markdown", "json", "html", "junit"];

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
            let ok = match format {
                "markdown" => text.starts_with("Test "),
                "json" => {
                    serde_json::from_str::<Value>(text).is_ok_and(|v| v["summary"].is_object())
                }
                "html" => text.contains("<html") || text.contains("<!DOCTYPE"),
                "junit" => quick_xml_is_well_formed(text),
                _ => false,
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
        for format in FORMATS {
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
        for format in FORMATS {
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
        for format in FORMATS {
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

#[test]
fn one_hundred_thousand_nested_elements() {
    const DEPTH: usize = 100_000;
    let dir = tempfile::tempdir().expect("tempdir");
    // Nested suites with one failing test at the bottom, and a failure
    // whose body nests unknown elements just as deep.
    let mut suites = String::with_capacity(DEPTH * 30);
    for _ in 0..DEPTH {
        suites.push_str("<testsuite name=\"s\">");
    }
    suites.push_str(r#"<testcase classname="deep.Deep" name="test_bottom"><failure message="at the bottom">boom</failure></testcase>"#);
    for _ in 0..DEPTH {
        suites.push_str("</testsuite>");
    }
    let mut body = String::from(
        r#"<testsuite name="s"><testcase classname="deep.Body" name="test_body"><failure message="deep body">"#,
    );
    for _ in 0..DEPTH {
        body.push_str("<x>");
    }
    body.push_str("text");
    for _ in 0..DEPTH {
        body.push_str("</x>");
    }
    body.push_str("</failure></testcase></testsuite>");
    // And unclosed: 100,000 opening tags, then EOF.
    let unclosed = "<testsuite>".repeat(DEPTH);

    let mut problems = Vec::new();
    for (name, xml, node) in [
        ("nested-suites", &suites, Some("deep.Deep#test_bottom")),
        ("nested-body", &body, Some("deep.Body#test_body")),
        ("unclosed", &unclosed, None),
    ] {
        let file = write(dir.path(), &format!("{name}.xml"), xml.as_bytes());
        for format in FORMATS {
            let answer = report(&file, format);
            println!(
                "{name} ({format}, {DEPTH} levels, {} bytes): exit {:?} in {:.2}s",
                xml.len(),
                answer.status,
                answer.elapsed.as_secs_f64()
            );
            problems.extend(check_sane(&file, format, &answer));
            if let (Some(node), "markdown") = (node, format) {
                let text = String::from_utf8_lossy(&answer.stdout);
                if answer.status != Some(0) || !text.contains(node) {
                    problems.push(format!(
                        "{name}: the failing test is not reported: {}",
                        head(&text, 600)
                    ));
                }
            }
            if node.is_none() && answer.status != Some(2) {
                problems.push(format!("{name} ({format}): unclosed elements accepted"));
            }
        }
    }
    assert_no_problems(problems);

    // JSON nested as deep: serde_json's recursion limit refuses it cleanly.
    let deep_json = format!("{}{}", "[".repeat(DEPTH), "]".repeat(DEPTH));
    let deep_object = format!(
        "{{\"tests\": [{{\"nodeid\": \"t.py::a\", \"outcome\": \"passed\", \"extra\": {}1{}}}]}}",
        "{\"a\":".repeat(DEPTH),
        "}".repeat(DEPTH)
    );
    // (An unknown field nested as deep may be skipped rather than refused.)
    let mut problems = Vec::new();
    for (name, json, must_refuse) in [
        ("nested-arrays", deep_json, true),
        ("nested-extra", deep_object, false),
    ] {
        let file = write(dir.path(), &format!("{name}.json"), json.as_bytes());
        for format in FORMATS {
            let answer = report(&file, format);
            problems.extend(check_sane(&file, format, &answer));
            if must_refuse && answer.status != Some(2) {
                problems.push(format!(
                    "{name} ({format}): exit {:?}, expected a refusal",
                    answer.status
                ));
            }
        }
    }
    assert_no_problems(problems);
}

// ---------------------------------------------------------------------------
// Entities: no expansion, nothing outside the file is ever read
// ---------------------------------------------------------------------------

/// A FIFO nobody writes to: a reader that opened it would block forever,
/// so an external entity that is followed turns into a hang (and the
/// DEADLINE fails the test) instead of passing unnoticed.
fn fifo(dir: &Path) -> PathBuf {
    let path = dir.join("trap.fifo");
    let status = Command::new("mkfifo").arg(&path).status().expect("mkfifo");
    assert!(status.success(), "mkfifo failed");
    path
}

#[test]
fn entities_never_expand_and_external_ones_are_never_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let secret = dir.path().join("secret.txt");
    let marker = format!(
        "SECRET-{}-{}",
        std::process::id(),
        Instant::now().elapsed().as_nanos()
    );
    std::fs::write(&secret, &marker).expect("secret");
    let trap = fifo(dir.path());
    let secret_url = format!("file://{}", secret.display());
    let trap_url = format!("file://{}", trap.display());
    let cases: Vec<(&str, String)> = vec![
        (
            "billion-laughs",
            r#"<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<testsuite name="&lol9;"><testcase classname="c&lol9;" name="test_&lol9;"><failure message="&lol9;">&lol9;</failure><system-out>&lol9;</system-out></testcase></testsuite>"#
                .to_string(),
        ),
        (
            "external-entity-file",
            format!(
                r#"<?xml version="1.0"?>
<!DOCTYPE r [ <!ENTITY xxe SYSTEM "{secret_url}"> <!ENTITY pw SYSTEM "file:///etc/passwd"> ]>
<testsuite name="&xxe;"><testcase classname="c" name="test_&xxe;"><failure message="&xxe; &pw;">&xxe; &pw;</failure><system-out>&xxe;</system-out></testcase></testsuite>"#
            ),
        ),
        (
            "external-entity-fifo",
            format!(
                r#"<!DOCTYPE r [ <!ENTITY trap SYSTEM "{trap_url}"> ]>
<testsuite><testcase classname="c" name="a"><failure message="&trap;">&trap;</failure></testcase></testsuite>"#
            ),
        ),
        (
            "parameter-entity",
            format!(
                r#"<!DOCTYPE r [ <!ENTITY % p SYSTEM "{trap_url}"> %p; <!ENTITY % q SYSTEM "{secret_url}"> %q; ]>
<testsuite><testcase classname="c" name="a"/></testsuite>"#
            ),
        ),
        (
            "external-dtd",
            format!(
                r#"<!DOCTYPE testsuite SYSTEM "{trap_url}">
<testsuite><testcase classname="c" name="a"/></testsuite>"#
            ),
        ),
        (
            "public-dtd",
            format!(
                r#"<!DOCTYPE testsuite PUBLIC "-//EVIL//DTD" "{secret_url}">
<testsuite><testcase classname="c" name="a"/></testsuite>"#
            ),
        ),
        (
            "xinclude",
            format!(
                r#"<testsuite xmlns:xi="http://www.w3.org/2001/XInclude"><testcase classname="c" name="a"><failure message="m"><xi:include href="{secret_url}" parse="text"/><xi:include href="{trap_url}" parse="text"/></failure></testcase></testsuite>"#
            ),
        ),
    ];
    let mut problems = Vec::new();
    for (name, xml) in &cases {
        let file = write(dir.path(), &format!("{name}.xml"), xml.as_bytes());
        for format in FORMATS {
            let answer = report(&file, format);
            problems.extend(check_sane(&file, format, &answer));
            let text = String::from_utf8_lossy(&answer.stdout);
            let all = format!("{text}{}", answer.stderr);
            if all.contains(&marker) {
                problems.push(format!("{name} ({format}): the secret file was read"));
            }
            if all.contains("root:x:0:0") {
                problems.push(format!("{name} ({format}): /etc/passwd was read"));
            }
            if all.contains("lollollol") {
                problems.push(format!("{name} ({format}): an entity was expanded"));
            }
            // A billion laughs expanded would be gigabytes; unexpanded, the
            // answer is about as long as the input.
            if text.len() > 64 * 1024 {
                problems.push(format!("{name} ({format}): answer of {} bytes", text.len()));
            }
        }
    }
    assert_no_problems(problems);
}

// ---------------------------------------------------------------------------
// Bytes that are not UTF-8
// ---------------------------------------------------------------------------

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
        for format in FORMATS {
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

#[test]
fn json_with_wrong_types_is_refused_or_read_never_a_crash() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases: &[(&str, &str)] = &[
        ("null", "null"),
        ("array", "[1, 2, 3]"),
        ("tests-string", r#"{"tests": "all of them"}"#),
        ("tests-object", r#"{"tests": {"nodeid": "a"}}"#),
        ("test-number", r#"{"tests": [5]}"#),
        (
            "nodeid-number",
            r#"{"tests": [{"nodeid": 5, "outcome": "passed"}]}"#,
        ),
        (
            "outcome-list",
            r#"{"tests": [{"nodeid": "a.py::t", "outcome": ["failed"]}]}"#,
        ),
        (
            "outcome-unknown",
            r#"{"tests": [{"nodeid": "a.py::t", "outcome": "exploded"}]}"#,
        ),
        (
            "duration-string",
            r#"{"duration": "long", "tests": [{"nodeid": "a.py::t", "outcome": "passed", "call": {"duration": "x"}}]}"#,
        ),
        (
            "duration-huge",
            r#"{"duration": 1e308, "tests": [{"nodeid": "a.py::t", "outcome": "passed", "call": {"duration": -1e308, "outcome": "passed"}}]}"#,
        ),
        (
            "number-overflow",
            r#"{"duration": 1e400, "exitcode": 99999999999999999999999, "tests": []}"#,
        ),
        ("exitcode-string", r#"{"exitcode": "1", "tests": []}"#),
        ("summary-list", r#"{"summary": [1], "tests": []}"#),
        ("collectors-string", r#"{"collectors": "x", "tests": []}"#),
        (
            "call-string",
            r#"{"tests": [{"nodeid": "a.py::t", "outcome": "failed", "call": "boom"}]}"#,
        ),
        (
            "crash-wrong",
            r#"{"tests": [{"nodeid": "a.py::t", "outcome": "failed", "call": {"outcome": "failed", "crash": {"path": 1, "lineno": "x", "message": []}}}]}"#,
        ),
        (
            "traceback-wrong",
            r#"{"tests": [{"nodeid": "a.py::t", "outcome": "failed", "call": {"outcome": "failed", "traceback": "x", "longrepr": {"a": 1}}}]}"#,
        ),
        (
            "keywords-wrong",
            r#"{"tests": [{"nodeid": "a.py::t", "outcome": "passed", "keywords": 7, "lineno": -3}]}"#,
        ),
        (
            "warnings-wrong",
            r#"{"warnings": [{"message": 1, "lineno": "x"}], "tests": []}"#,
        ),
        (
            "duplicate-keys",
            r#"{"tests": [], "tests": [{"nodeid": "a.py::t", "outcome": "passed"}]}"#,
        ),
        (
            "lone-surrogates",
            r#"{"tests": [{"nodeid": "a.py::t\udc80", "outcome": "failed", "call": {"outcome": "failed", "longrepr": "\ud800 \udfff"}}]}"#,
        ),
        ("trailing-garbage", r#"{"tests": []} {"tests": []}"#),
        (
            "truncated",
            r#"{"tests": [{"nodeid": "a.py::t", "outcome": "pass"#,
        ),
        (
            "escaped-nul",
            r#"{"tests": [{"nodeid": "a.py::t\u0000b", "outcome": "passed"}]}"#,
        ),
        // A byte-order mark, as Windows tools write it: still a report.
        (
            "bom",
            "\u{FEFF}{\"tests\": [{\"nodeid\": \"a.py::t\", \"outcome\": \"passed\"}]}",
        ),
    ];
    let mut problems = Vec::new();
    let mut refused = Vec::new();
    for (name, json) in cases {
        let file = write(dir.path(), &format!("{name}.json"), json.as_bytes());
        for format in FORMATS {
            let answer = report(&file, format);
            if format == "markdown" && answer.status == Some(2) {
                refused.push(*name);
            }
            problems.extend(check_sane(&file, format, &answer));
        }
    }
    println!("refused: {refused:?}");
    // Documents that are not a report at all must not pass for one.
    for name in [
        "null",
        "array",
        "tests-string",
        "truncated",
        "trailing-garbage",
    ] {
        if !refused.contains(&name) {
            problems.push(format!("{name}.json was accepted as a report"));
        }
    }
    // Well-formed reports must not be refused.
    for name in ["escaped-nul", "bom", "lone-surrogates"] {
        if refused.contains(&name) {
            problems.push(format!("{name}.json was refused"));
        }
    }
    assert_no_problems(problems);
}

/// CTRF of the wrong shape: refused with a location or read, in every
/// format, never a crash.
#[test]
fn ctrf_with_wrong_types_is_refused_or_read_never_a_crash() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ctrf = |results: &str| format!(r#"{{"reportFormat": "CTRF", "results": {results}}}"#);
    let test = |fields: &str| ctrf(&format!(r#"{{"tests": [{{{fields}}}]}}"#));
    let cases: Vec<(&str, String)> = vec![
        ("no-results", r#"{"reportFormat": "CTRF"}"#.to_string()),
        ("results-list", ctrf("[]")),
        ("tests-string", ctrf(r#"{"tests": "all"}"#)),
        ("test-number", ctrf(r#"{"tests": [5]}"#)),
        ("name-number", test(r#""name": 5, "status": "passed""#)),
        ("status-list", test(r#""name": "a", "status": ["failed"]"#)),
        ("truncated", test(r#""name": "a", "status": "pass"#)),
        (
            "odd-values",
            test(
                r#""name": "a", "status": "failed", "duration": -5, "line": -3,
                "retries": 1e300, "suite": {"a": 1}, "stdout": 7"#,
            ),
        ),
        (
            "odd-numbers",
            test(
                r#""name": "a", "status": "failed", "duration": 1e308, "line": 1e20,
                "retries": -2, "flaky": true, "retryAttempts": [{"attempt": -1}]"#,
            ),
        ),
        (
            "escaped-nul",
            test(r#""name": "a\u0000b", "status": "failed", "message": "\u001b[31mred""#),
        ),
        (
            "lone-surrogates",
            test(r#""name": "a\udc80", "status": "failed", "trace": "\ud800 x""#),
        ),
        (
            "bom",
            format!("\u{FEFF}{}", test(r#""name": "a", "status": "passed""#)),
        ),
        (
            "no-report-format",
            r#"{"results": {"tests": [{"name": "a", "status": "passed"}]}}"#.to_string(),
        ),
    ];
    let mut problems = Vec::new();
    let mut refused = Vec::new();
    for (name, json) in &cases {
        let file = write(dir.path(), &format!("{name}.json"), json.as_bytes());
        for format in FORMATS {
            let answer = report(&file, format);
            if format == "markdown" && answer.status == Some(2) {
                refused.push(*name);
                // What was expected: CTRF's shape, or JSON's syntax.
                if !answer.stderr.contains("CTRF") && !answer.stderr.contains("JSON") {
                    problems.push(format!("{name}.json: unclear: {}", answer.stderr));
                }
            }
            problems.extend(check_sane(&file, format, &answer));
        }
    }
    println!("refused: {refused:?}");
    for name in [
        "no-results",
        "results-list",
        "tests-string",
        "test-number",
        "name-number",
        "status-list",
        "truncated",
        "odd-values",
    ] {
        if !refused.contains(&name) {
            problems.push(format!("{name}.json was accepted as a report"));
        }
    }
    for name in [
        "odd-numbers",
        "escaped-nul",
        "lone-surrogates",
        "bom",
        "no-report-format",
    ] {
        if refused.contains(&name) {
            problems.push(format!("{name}.json was refused"));
        }
    }
    assert_no_problems(problems);
}

// ---------------------------------------------------------------------------
// Enormous input
// ---------------------------------------------------------------------------

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
            let expected = format!("{cases} run, {failures} failed");
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
