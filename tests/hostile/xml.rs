//! XML built to hurt a parser: nesting a hundred thousand deep, entities
//! that would expand or read files (and a FIFO that would block).

use super::*;

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
        for format in formats() {
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
        for format in formats() {
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
        for format in formats() {
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
