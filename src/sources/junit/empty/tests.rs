use super::read_empty_case;

/// The element's length, when it is read here.
fn len(text: &[u8]) -> Option<usize> {
    read_empty_case(std::str::from_utf8(text).ok()?).map(|(_, len)| len)
}

#[test]
fn an_empty_case_is_read_with_its_attributes() {
    let case = r#"<testcase classname="a.B" name='t[1]' time="0.1" name="x" />"#;
    let (attrs, read) = read_empty_case(case).unwrap();
    assert_eq!(read, case.len());
    assert_eq!(attrs.classname.as_deref(), Some("a.B"));
    // The first value of a name stands.
    assert_eq!(attrs.name.as_deref(), Some("t[1]"));
    assert_eq!(attrs.time.as_deref(), Some("0.1"));
    assert_eq!(attrs.file, None);
    let more = format!("{case}<testcase/>");
    assert_eq!(len(more.as_bytes()), Some(case.len()));
    assert_eq!(len(b"<testcase/>"), Some(11));
    assert_eq!(len(b"<testcase\n\ta=\"1\"\r\n/>"), Some(20));
    assert_eq!(len("<testcase name=\"caf\u{e9}\"/>".as_bytes()), Some(24));
    // References are resolved as quick-xml's reading resolves them.
    let (attrs, _) = read_empty_case(r#"<testcase name="a &amp; b&#10;c"/>"#).unwrap();
    assert_eq!(attrs.name.as_deref(), Some("a & b\nc"));
}

#[test]
fn anything_else_is_left_to_quick_xml() {
    for text in [
        &b"<testcase>"[..],
        b"<testcase a=\"1\">",
        b"<testcases/>",
        b"<testcase\x0ca=\"1\"/>",
        b"<testcase a=\"1\"b=\"2\"/>",
        b"<testcase a=1/>",
        b"<testcase a/>",
        // The first `>` is inside a value: quick-xml finds the end.
        b"<testcase a=\"x > y\"/>",
        b"<testcase a=\"1\" /",
        b"<testcase a=\"1",
        b"<testcase a=\"1\" / >",
        b"<x:testcase a=\"1\"/>",
        b" <testcase/>",
        b"",
    ] {
        assert_eq!(len(text), None, "{}", String::from_utf8_lossy(text));
    }
}

/// `text` with every empty `<testcase .../>` written `<testcase ...>
/// </testcase>`, which quick-xml reads as a start and an end tag.
fn without_empty_cases(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("<testcase") {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        // The first `>` outside quotes, as quick-xml finds it.
        let mut quote = None;
        let end = rest.char_indices().find(|&(_, c)| match quote {
            Some(q) if c == q => {
                quote = None;
                false
            }
            Some(_) => false,
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                false
            }
            None => c == '>',
        });
        let Some((end, _)) = end else { break };
        match rest[..end].strip_suffix('/') {
            Some(open) => {
                out.push_str(open);
                out.push_str("></testcase>");
            }
            None => out.push_str(&rest[..=end]),
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

#[test]
fn every_fixture_reads_the_same_with_its_cases_read_by_quick_xml() {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "xml") {
                out.push(path);
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    walk(&root.join("tests/fixtures"), &mut files);
    walk(&root.join("golden"), &mut files);
    let mut compared = 0;
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let spelled_out = without_empty_cases(&text);
        for passing_as_counts in [false, true] {
            let options = crate::sources::ReadOptions {
                passing_as_counts,
                ..crate::sources::ReadOptions::default()
            };
            let read = |t: &str| crate::sources::junit::parse_with(t.as_bytes(), "r.xml", options);
            if let (Ok(fast), Ok(slow)) = (read(&text), read(&spelled_out)) {
                assert_eq!(fast, slow, "{}", file.display());
                compared += 1;
            }
        }
    }
    assert!(compared > 50, "only {compared} fixtures compared");
}
