//! A file read in parts on several threads ([`super`]) must give
//! exactly what one thread gives, results or error: every fixture of every
//! dialect, and documents written to trip the guess, cut at every case and
//! at every pair of cases.

use std::path::{Path, PathBuf};

use crate::sources::ReadOptions;
use crate::sources::junit::{parse_cut, parse_with};

/// Every `.xml` under the repository's fixtures and goldens.
fn fixture_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "xml") {
                out.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    walk(&root.join("tests/fixtures"), &mut files);
    walk(&root.join("golden"), &mut files);
    files.sort();
    files
}

const PYTEST_HEAD: &str = r#"<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" errors="1" failures="2" skipped="1" tests="9" time="0.7">"#;

/// Documents made to trip the guess at a cut, each a case for one rule.
fn tricky_documents() -> Vec<(&'static str, String)> {
    let case = |n: usize, time: &str| {
        format!(
            "<testcase classname=\"tests.test_a\" name=\"test_p[{n}]\" file=\"tests/test_a.py\" line=\"{n}\" time=\"{time}\" />\n"
        )
    };
    let mut plain = String::from(PYTEST_HEAD);
    for n in 0..8 {
        // Times whose sum depends on the order they are added in.
        plain.push_str(&case(n, ["0.1", "0.2", "0.3", "1e-17", "3.3"][n % 5]));
    }
    plain.push_str(r#"<testcase classname="tests.test_a" name="test_f" time="0.4"><failure message="boom">trace &amp; more</failure><system-out>out</system-out></testcase>"#);
    // pytest's second report of one test (failed, then errored in teardown).
    plain.push_str(r#"<testcase classname="tests.test_a" name="test_f" time="0.1"><error message="failed on teardown with &quot;x&quot;">td</error></testcase>"#);
    plain.push_str(r#"<testcase classname="tests.test_a" name="test_s" time="0"><skipped message="why" type="pytest.skip">s</skipped></testcase>"#);
    plain.push_str(&case(9, "0.25"));
    plain.push_str("</testsuite></testsuites>");
    let nameless = format!(
        "<testsuites><testsuite name=\"S\" time=\"1.5\">{}<testcase classname=\"C\" time=\"0.1\"><failure/></testcase>{}</testsuite><testsuite name=\"T\" time=\"0.3\">{}</testsuite></testsuites>",
        "<testcase classname=\"C\" time=\"0.1\"/>".repeat(4),
        "<testcase classname=\"C\"/>".repeat(3),
        "<testcase/>".repeat(2),
    );
    let reruns = "<testsuite name=\"R\"><testcase classname=\"k\" name=\"t\"><failure message=\"1\"/></testcase><testcase classname=\"k\" name=\"t\"><failure message=\"2\"/></testcase><testcase classname=\"k\" name=\"t\"/><testcase classname=\"k\" name=\"t\"/><testcase classname=\"k\" name=\"u\" time=\"2\"><error/></testcase><testcase classname=\"k\" name=\"u\" time=\"3\"/></testsuite>".to_string();
    let hidden = format!(
        "{PYTEST_HEAD}{}<!-- <testcase name=\"in a comment\"/> --><testcase classname=\"a\" name=\"t2\"><system-out><![CDATA[<testcase name=\"in CDATA\"/>]]></system-out></testcase><testcase classname=\"a\" name=\"t3\"><testcase classname=\"a\" name=\"nested\"/></testcase><x:testsuite xmlns:x=\"u\" name=\"pytest\"><testcase classname=\"a\" name=\"t4\"/></x:testsuite><failure message=\"suite level\"/>{}</testsuite></testsuites>",
        case(0, "0.5"),
        case(1, "0.5"),
    );
    let broken = |tail: &str| format!("{PYTEST_HEAD}{}{}{tail}", case(0, "1"), case(1, "1"));
    vec![
        ("plain pytest", plain),
        ("nameless cases in two suites", nameless),
        ("reruns", reruns),
        (
            "cases hidden in comments, CDATA, a case and a namespaced suite",
            hidden,
        ),
        ("truncated", broken(&case(2, "1"))),
        (
            "a mismatched end tag",
            broken("</testcase></testsuite></testsuites>"),
        ),
        (
            "a stray end tag",
            broken("</testsuite></testsuites></testsuites>"),
        ),
        (
            "an unknown entity",
            broken("<testcase name=\"&nope;\"/></testsuite></testsuites>"),
        ),
        ("cut at the end", broken("<testcase")),
    ]
}

/// Offsets of every `<testcase` after the first.
fn case_offsets(text: &[u8]) -> Vec<usize> {
    memchr::memmem::find_iter(text, b"<testcase")
        .skip(1)
        .collect()
}

/// Reads `text` cut at every case and every pair of cases (for up to 40
/// cases), in both reading modes, and checks each read against the one
/// thread's. Returns how many parts were taken.
fn check_every_cut(label: &str, text: &[u8]) -> usize {
    let offsets = case_offsets(text);
    let mut taken = 0;
    for passing_as_counts in [false, true] {
        let options = ReadOptions {
            passing_as_counts,
            ..ReadOptions::default()
        };
        let serial = parse_with(text, "f.xml", options);
        let mut check = |cuts: &[usize]| {
            let (split, parts) = parse_cut(text, "f.xml", options, cuts);
            assert_eq!(split, serial, "{label}, cut at {cuts:?}");
            taken += parts;
        };
        for (i, &a) in offsets.iter().enumerate() {
            check(&[a]);
            if offsets.len() <= 40 {
                for &b in &offsets[i + 1..] {
                    check(&[a, b]);
                }
            }
        }
    }
    taken
}

/// Exhaustive (every pair of cuts of every small fixture: about a minute
/// in a debug build), so out of the quick check: `scripts/test.sh` runs it
/// with the other ignored tests.
#[test]
#[ignore = "exhaustive, about a minute; scripts/test.sh runs it"]
fn every_fixture_cut_at_every_case_reads_as_one_thread_does() {
    let files = fixture_files();
    assert!(files.len() > 40, "fixtures not found: {files:?}");
    let mut taken = 0;
    for file in &files {
        let text = std::fs::read(file).unwrap_or_default();
        taken += check_every_cut(&file.display().to_string(), &text);
    }
    // Most cuts of a pytest report or a suite of cases are taken: the
    // check above compared real split reads, not fallbacks.
    assert!(taken > 1000, "only {taken} parts were taken");
}

#[test]
fn documents_made_to_trip_the_guess_read_as_one_thread_does() {
    for (label, text) in tricky_documents() {
        check_every_cut(label, text.as_bytes());
    }
}

#[test]
fn a_plain_pytest_report_is_taken_at_every_cut_but_a_second_report() {
    let (_, text) = &tricky_documents()[0];
    // pytest's second report of `test_f` folds into the first: a part
    // starting there is not taken (the one-thread read takes over).
    let second = text.rfind(r#"<testcase classname="tests.test_a" name="test_f""#);
    let offsets = case_offsets(text.as_bytes());
    for &cut in &offsets {
        let (_, taken) = parse_cut(text.as_bytes(), "f.xml", ReadOptions::default(), &[cut]);
        assert_eq!(taken, usize::from(Some(cut) != second), "cut at {cut}");
    }
    let others: Vec<usize> = offsets.into_iter().filter(|&c| Some(c) != second).collect();
    let (_, taken) = parse_cut(text.as_bytes(), "f.xml", ReadOptions::default(), &others);
    assert_eq!(taken, others.len());
}

#[test]
fn a_large_file_reads_the_same_on_any_number_of_threads() {
    let mut text = String::from(PYTEST_HEAD);
    let mut n = 0;
    while text.len() < 5 << 20 {
        let status = match n % 97 {
            0 => "<failure message=\"m\">t</failure>",
            1 => "<skipped message=\"s\"/>",
            _ => "",
        };
        text.push_str(&format!(
            "<testcase classname=\"tests.test_m{}.TestC\" name=\"test_c[{n}]\" file=\"tests/test_m.py\" line=\"{n}\" time=\"0.00{}\">{status}</testcase>\n",
            n / 1000,
            n % 7,
        ));
        n += 1;
    }
    text.push_str("</testsuite></testsuites>");
    for passing_as_counts in [false, true] {
        let options = |threads| ReadOptions {
            passing_as_counts,
            threads,
            ..ReadOptions::default()
        };
        let one = parse_with(text.as_bytes(), "big.xml", options(1));
        for threads in [2, 3, 4] {
            let many = parse_with(text.as_bytes(), "big.xml", options(threads));
            assert_eq!(many, one, "{threads} threads");
        }
        let middle = [text.len() / 3, text.len() * 2 / 3];
        let (cut, taken) = parse_cut(text.as_bytes(), "big.xml", options(1), &middle);
        assert_eq!((cut, taken), (one, 2));
    }
}
