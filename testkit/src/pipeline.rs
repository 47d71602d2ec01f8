//! What the fuzz targets drive, shared with the regression tests.
//!
//! The fuzz crate (`fuzz/`) and `tests/fuzz_regressions.rs` in the main
//! crate both use this module of the testkit crate, so a saved crashing
//! input replays through exactly the code the fuzzer ran. It uses only the
//! crate's public API plus `serde_json`, `quick-xml` and `tempfile`.
//!
//! Besides "no panic", every step checks what the crate promises about its
//! output: JSON renderings are JSON, JUnit renderings are well-formed XML that
//! our own reader reads back with the same number of cases, CTRF renderings
//! read back with as many entries, and Markdown held
//! to a budget stays within it.

use pytest_mcp::frontend::dispatch;
use pytest_mcp::render::view::Compared;
use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

use pytest_mcp::budget::{Budget, MIN_TOKENS};
use pytest_mcp::frontend::report::{self, Input, RenderOnly};
use pytest_mcp::frontend::respond;
use pytest_mcp::model::Run;
use pytest_mcp::request::{
    DiscoverTestsRequest, ExecuteTestsRequest, OutputFormat, ToolRequest, ValidationError,
};
use pytest_mcp::runner::params::Root;
use pytest_mcp::sources::merge::merge;
use pytest_mcp::sources::{self, ParseError, ReadOptions};
use serde_json::Value;

/// Markdown budgets tried on every run: none left, smaller than the header,
/// a few lines, a screenful and GitHub's comment limit.
const BUDGETS: [usize; 6] = [0, 1, 40, 300, 4_000, report::DEFAULT_MAX_CHARS];

/// Bytes as JUnit XML: the reader called directly, then the `report`
/// pipeline (sniffing, merging, every rendering). Returns what the direct
/// reader said.
pub fn junit(data: &[u8]) -> Result<Run, ParseError> {
    let direct = sources::junit::parse(data, "fuzz.xml");
    split_reads_agree(data, &direct);
    after_read(data, "fuzz.xml", &direct);
    direct
}

/// A large file is read in parts on several threads, cut at `<testcase`s:
/// cut at each of the first cases, and at two, the read must be exactly the
/// one-thread read, result or error.
fn split_reads_agree(data: &[u8], direct: &Result<Run, ParseError>) {
    let cases: Vec<usize> = data
        .windows(9)
        .enumerate()
        .filter(|(_, w)| w == b"<testcase")
        .map(|(i, _)| i)
        .skip(1)
        .take(4)
        .collect();
    let options = ReadOptions::default();
    let mut cuts: Vec<Vec<usize>> = cases.iter().map(|&c| vec![c]).collect();
    cuts.push(cases.iter().take(2).copied().collect());
    for cut in &cuts {
        let (split, _) = sources::junit::parse_cut(data, "fuzz.xml", options, cut);
        assert_eq!(&split, direct, "read cut at {cut:?}");
    }
}

/// Bytes as pytest-json-report JSON: the reader called directly (with and
/// without the raw document kept), then the `report` pipeline. Returns what
/// the direct reader said without the raw document.
pub fn json_report(data: &[u8]) -> Result<Run, ParseError> {
    let direct = sources::json_report::parse(data, "fuzz.json", false);
    let kept = sources::json_report::parse(data, "fuzz.json", true);
    // The one difference allowed: a number past f64's range in a value the
    // reader skips unread is refused only when the document is kept to be
    // written back (serde_json cannot write it), with its place.
    let out_of_range = matches!(&kept, Err(e) if e.message.contains("number out of range"));
    assert!(
        direct.is_ok() == kept.is_ok() || (direct.is_ok() && out_of_range),
        "keeping the raw document changed whether the file reads: {direct:?} / {kept:?}"
    );
    if let Ok(run) = &kept {
        assert!(run.json_report.is_some(), "the raw document was not kept");
        check_run(run);
    }
    after_read(data, "fuzz.json", &direct);
    direct
}

/// Bytes as CTRF JSON: the reader called directly, then the `report`
/// pipeline. Besides what every reader promises: a file `sources::sniff`
/// calls CTRF reads exactly as the direct call does, and the streaming
/// reader agrees with the whole document read first (the input as a JSON
/// value written back out, where it is JSON a value holds: a key given
/// twice keeps the last, as the reader's fallback does). Returns what the
/// direct reader said.
pub fn ctrf(data: &[u8]) -> Result<Run, ParseError> {
    let options = ReadOptions::default();
    let direct = sources::ctrf::parse_with(data, "fuzz.ctrf.json", options);
    if sources::sniff(data) == Ok(sources::InputFormat::Ctrf) {
        let sniffed = sources::read(data, "fuzz.ctrf.json", options);
        assert_eq!(
            sniffed, direct,
            "the sniffing reader reads CTRF differently"
        );
    }
    if let Ok(value) =
        serde_json::from_slice::<Value>(data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data))
    {
        let whole = serde_json::to_vec(&value).unwrap_or_default();
        let again = sources::ctrf::parse_with(&whole, "fuzz.ctrf.json", options);
        match (&direct, &again) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "streamed and whole reads differ"),
            (a, b) => assert_eq!(
                a.is_ok(),
                b.is_ok(),
                "streamed and whole reads differ: {a:?} / {b:?}"
            ),
        }
    }
    after_read(data, "fuzz.ctrf.json", &direct);
    direct
}

fn after_read(data: &[u8], name: &str, direct: &Result<Run, ParseError>) {
    if let Ok(run) = direct {
        check_run(run);
        // The same run twice: a JSON report merged with itself, or two shards.
        check_run(&merge(vec![run.clone(), run.clone()]));
    }
    // Through `report`, which sniffs the format itself.
    let inputs = [Input {
        name: name.to_string(),
        contents: Ok(data.to_vec()),
    }];
    for format in [OutputFormat::Markdown, OutputFormat::Json] {
        match report::read_run(&inputs, report::Reading::for_format(format)) {
            Ok(run) => {
                assert!(
                    sources::read(data, name, ReadOptions::default()).is_ok(),
                    "report reads the file, the sniffing reader does not"
                );
                check_run(&run);
                if format == OutputFormat::Markdown {
                    same_markdown_with_passing_counted(&inputs, &run);
                }
            }
            Err(errors) => {
                assert!(!errors.is_empty(), "an error without errors");
                for &f in OutputFormat::all() {
                    let text = respond::unreadable(&errors, inputs.len(), f).into_text();
                    if f == OutputFormat::Json {
                        json_text(&text);
                    }
                }
            }
        }
    }
}

/// `report`'s Markdown of one file counts plain passing tests instead of
/// listing them: the text must be what the full list gives.
fn same_markdown_with_passing_counted(inputs: &[Input], full: &Run) {
    let lean = RenderOnly::read(inputs, OutputFormat::Markdown)
        .unwrap_or_else(|e| panic!("read with every test listed, not with passes counted: {e:?}"));
    assert_eq!(full.counts(), lean.counts());
    for max in BUDGETS {
        let budget = Budget::chars(max);
        assert_eq!(
            dispatch::output(
                dispatch::Subject::run(full),
                OutputFormat::Markdown,
                &dispatch::Style::report(budget)
            ),
            lean.render(&dispatch::Style::report(budget)),
            "Markdown within {max} characters differs with passing tests counted"
        );
    }
}

/// Renders a run every way the crate can and checks each rendering.
pub fn check_run(run: &Run) {
    let counts = run.counts();
    assert_eq!(
        counts.total,
        counts.passed + counts.failed + counts.skipped + counts.errors
    );
    for &format in OutputFormat::all() {
        let text = dispatch::whole(run, format);
        check_rendering(run, format, &text);
        let text = dispatch::output(
            dispatch::Subject::run(run),
            format,
            &dispatch::Style::report(Budget::chars(300)),
        )
        .text;
        check_rendering(run, format, &text);
        // The smallest token budget a request may ask for: JSON stays JSON.
        let text = dispatch::output(
            dispatch::Subject::run(run),
            format,
            &dispatch::Style::report(Budget::tokens(MIN_TOKENS)),
        )
        .text;
        check_rendering(run, format, &text);
    }
    for max in BUDGETS {
        let budget = Budget::chars(max);
        for text in [
            dispatch::output(
                dispatch::Subject::run(run),
                OutputFormat::Markdown,
                &dispatch::Style::report(budget),
            )
            .text,
            dispatch::output(
                dispatch::Subject::run(run),
                OutputFormat::Markdown,
                &dispatch::Style::within(budget),
            )
            .text,
        ] {
            let chars = text.chars().count();
            assert!(
                chars <= max.max(2),
                "Markdown held to {max} characters has {chars}:\n{text}"
            );
        }
    }
    // Compared with itself and with an empty baseline.
    for baseline in [run, &Run::default()] {
        for &format in OutputFormat::all() {
            let text = dispatch::output(
                dispatch::Subject::Run {
                    run,
                    compared: Some(&Compared::of(run, baseline)),
                },
                format,
                &dispatch::Style::report(Budget::chars(500)),
            )
            .text;
            if format == OutputFormat::Json {
                json_text(&text);
            }
        }
    }
}

fn check_rendering(run: &Run, format: OutputFormat, text: &str) {
    match format {
        OutputFormat::Json => {
            json_text(text);
        }
        OutputFormat::Junit => {
            well_formed(text);
            let back = sources::junit::parse(text.as_bytes(), "rendered.xml")
                .unwrap_or_else(|e| panic!("our reader refuses our JUnit: {e}\n{text}"));
            // Cases that share an id may be read back as one test with
            // earlier attempts (pytest's failed-then-teardown-error pair,
            // retries); the count is only kept for distinct ids.
            let mut ids = std::collections::HashSet::new();
            let distinct = run
                .tests
                .iter()
                .map(|t| t.node_id.as_str())
                .chain(run.collection_errors.iter().map(|e| e.file.as_str()))
                .all(|id| ids.insert(id));
            // Failed subtests are counted as pytest counts them, and our
            // JUnit writes a test with subtests as one failed case: tests
            // (and collection errors) are what must survive.
            let (want, got) = (run.counts(), back.counts());
            let cases =
                |c: pytest_mcp::model::Counts| c.total - c.subtests_failed + c.collection_errors;
            assert!(
                !distinct || cases(want) == cases(got),
                "cases lost or gained in the JUnit round trip:\n{text}"
            );
        }
        OutputFormat::Ctrf => {
            json_text(text);
            let back =
                sources::ctrf::parse_with(text.as_bytes(), "rendered.json", ReadOptions::default())
                    .unwrap_or_else(|e| panic!("our reader refuses our CTRF: {e}\n{text}"));
            // One entry per test and per collection error, each read back.
            let entries = |r: &Run| r.tests.len() + r.collection_errors.len();
            assert_eq!(
                entries(run),
                entries(&back),
                "CTRF entries lost or gained:\n{text}"
            );
        }
        OutputFormat::Github => workflow_commands(text),
        OutputFormat::Markdown | OutputFormat::Html | OutputFormat::Gfm => {}
    }
}

/// GitHub's annotations: the header line, then only workflow commands
/// (no text of a test starts a line), at most ten `::error`.
fn workflow_commands(text: &str) {
    assert!(!text.contains('\r'), "a carriage return in {text:?}");
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default();
    // The headline (its words are the view's, pinned by the goldens).
    assert!(
        !header.trim().is_empty() && !header.starts_with("::"),
        "not a header: {header}"
    );
    let mut errors = 0;
    for line in lines {
        if line.starts_with("::error ") {
            errors += 1;
        } else {
            assert!(
                line.starts_with("::notice "),
                "not a command: {line}\n{text}"
            );
        }
    }
    assert!(errors <= 10, "{errors} ::error lines:\n{text}");
}

fn json_text(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("rendered JSON is not JSON: {e}\n{text}"))
}

fn well_formed(xml: &str) {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut depth = 0usize;
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Start(_)) => depth += 1,
            Ok(quick_xml::events::Event::End(_)) => depth -= 1,
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!(
                "rendered JUnit is not well-formed at {}: {e}\n{xml}",
                reader.buffer_position()
            ),
        }
    }
    assert_eq!(depth, 0, "rendered JUnit leaves elements open:\n{xml}");
}

/// The project root the parameter target checks paths against: a temporary
/// directory made once, with a test file, a package directory and a symlink
/// pointing out of it.
pub fn root() -> &'static Root {
    static ROOT: OnceLock<(tempfile::TempDir, Root)> = OnceLock::new();
    let (_, root) = ROOT.get_or_init(|| {
        let dir = tempfile::Builder::new()
            .prefix("pytest-mcp-fuzz-root")
            .tempdir()
            .expect("a temporary directory for the fuzz root");
        make_project(dir.path());
        let root = Root::new(dir.path()).expect("the fuzz root resolves");
        (dir, root)
    });
    root
}

fn make_project(dir: &Path) {
    std::fs::create_dir_all(dir.join("tests/pkg")).expect("mkdir");
    std::fs::write(dir.join("tests/test_a.py"), "def test_a(): pass\n").expect("write");
    std::fs::write(dir.join("tests/pkg/test_b.py"), "def test_b(): pass\n").expect("write");
    #[cfg(unix)]
    {
        let _ = std::os::unix::fs::symlink("/tmp", dir.join("out"));
        let _ = std::os::unix::fs::symlink("tests", dir.join("inside"));
    }
}

/// Raw MCP arguments: parsed as JSON when they are (else tried as a JSON
/// string value), then validated as `execute_tests` and `discover_tests`
/// arguments. Returns both answers.
pub fn params(data: &[u8]) -> Vec<Result<(), ValidationError>> {
    let root = root();
    let default = Duration::from_secs(300);
    let mut values = Vec::new();
    match serde_json::from_slice::<Value>(data) {
        Ok(v) => values.push(v),
        // Not JSON: the text as a string value, and as the only node id /
        // path / pattern / marker expression.
        Err(_) => {
            let text = String::from_utf8_lossy(data).into_owned();
            values.push(Value::String(text.clone()));
            values.push(serde_json::json!({ "node_ids": [text.clone()], "markers": text.clone(), "keywords": text.clone() }));
            values.push(serde_json::json!({ "path": text.clone(), "pattern": text }));
        }
    }
    let mut answers = Vec::new();
    for v in &values {
        let run = ExecuteTestsRequest::from_json(v).and_then(|r| r.validate(root, default));
        if let Ok(p) = &run {
            run_rules_hold(p);
        }
        if let Err(e) = &run {
            error_is_sane(e);
        }
        answers.push(run.map(|_| ()));
        let discover = DiscoverTestsRequest::from_json(v).and_then(|r| r.validate(root, default));
        if let Ok(p) = &discover {
            if let Some(path) = &p.path {
                path_rules_hold(path, path);
            }
            if let Some(pattern) = &p.pattern {
                text_rules_hold(pattern);
                assert!(
                    !pattern.contains('/'),
                    "accepted a pattern with a directory: {pattern:?}"
                );
            }
        }
        if let Err(e) = &discover {
            error_is_sane(e);
        }
        answers.push(discover.map(|_| ()));
    }
    answers
}

/// What a validated run request promises (README, Safety).
fn run_rules_hold(p: &pytest_mcp::runner::params::RunParams) {
    for id in &p.node_ids {
        path_rules_hold(id, id.split("::").next().unwrap_or_default());
    }
    for expr in [&p.markers, &p.keywords].into_iter().flatten() {
        text_rules_hold(expr.trim_start());
    }
    assert!((-2..=2).contains(&p.verbosity));
    assert!(p.timeout >= Duration::from_secs(1) && p.timeout <= Duration::from_secs(86_400));
    assert!(matches!(
        p.format,
        OutputFormat::Markdown | OutputFormat::Json
    ));
}

/// An accepted node id or path: plain text rules, and its file part names
/// something inside the root without `..`.
fn path_rules_hold(value: &str, file: &str) {
    text_rules_hold(value);
    assert!(
        !file.split('/').any(|c| c == ".."),
        "accepted '..' in {value:?}"
    );
    let root = root().path();
    let resolved = root
        .join(file)
        .canonicalize()
        .unwrap_or_else(|e| panic!("accepted {value:?}, which does not resolve: {e}"));
    assert!(
        resolved.starts_with(root),
        "accepted {value:?}, which leaves the root"
    );
}

fn text_rules_hold(text: &str) {
    assert!(!text.is_empty(), "accepted an empty value");
    assert!(
        !text.starts_with('-'),
        "accepted {text:?}, which reads as an option"
    );
    assert!(
        !text.chars().any(char::is_control),
        "accepted a control character in {text:?}"
    );
}

fn error_is_sane(e: &ValidationError) {
    let message = e.to_string();
    assert!(message.starts_with("Invalid params: "), "{message}");
    // (The field may be empty: an unknown key "" is named as it was sent.)
    assert!(!e.detail.is_empty(), "{e:?}");
    // The renderings of a refusal the server sends.
    let _ = respond::invalid(e, OutputFormat::Markdown).into_text();
    json_text(&respond::invalid(e, OutputFormat::Json).into_text());
}
