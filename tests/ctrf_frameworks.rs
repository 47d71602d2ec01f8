//! CTRF from other frameworks through `pytest-mcp report`, and hostile
//! CTRF through the CLI.
//!
//! `tests/fixtures/ctrf/playwright.json` follows ctrf-io's
//! playwright-ctrf-json-reporter: a test's `name` is its title, its
//! `suite` the project, the file and the describe blocks; `filePath` is
//! absolute (Playwright's `location.file`), `line` the test's line, the
//! failure's place is in the JavaScript stack of `trace` (`at fn
//! (file:line:col)` or `at file:line:col`); messages may carry ANSI
//! colours; `retries` counts the earlier attempts, `retryAttempts` lists
//! them (with or without an `attempt` number), `flaky` marks a pass after
//! failed attempts; a timeout is `failed` with the `rawStatus` `timedOut`.
//! The same title in two projects is two tests. Jest's shape is
//! `tests/fixtures/ctrf/jest.json` (its Markdown and JSON counts are in
//! `tests/ctrf_in.rs`). `tests/fixtures/ctrf/gotest.json` follows ctrf-io's
//! go-ctrf-json-reporter: no `reportFormat`, `suite` the package path as
//! one string, `name` the test (`TestTotal/rounds_to_cents` for a
//! subtest), `message` the test's raw `go test` output (`=== RUN`, the
//! `file_test.go:21: ...` lines, `--- FAIL`), no `trace` and no `line`.
//! `tests/fixtures/ctrf/jest-reporter.json` follows ctrf-io's
//! jest-ctrf-json-reporter itself (where `jest.json` is tidier): `name` is
//! Jest's full name (the describe blocks and the title, spaced), `suite`
//! one string, the file's name then the describe blocks (`totals.test.js >
//! cart > totals`), `filePath` absolute, the stack's lines trimmed (or the
//! whole failure, colours and `\r\n` kept), `retries` and `flaky` with no
//! `retryAttempts`, Jest's `todo` as `other`.
//!
//! The hostile cases add to `tests/hostile.rs`'s (which checks every format
//! never crashes on CTRF of the wrong shape): the exact place each
//! refusal names, a 50 MB message, and 10,000 levels of nesting.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

mod common;
use common::headline::{Counts, Verdict, before_counts, line, run_failed, says};
use common::support::{clean_command, section};

const PLAYWRIGHT: &str = "tests/fixtures/ctrf/playwright.json";
const JEST: &str = "tests/fixtures/ctrf/jest.json";
const CART: &str = "chromium › cart.spec.ts › cart › totals › shows the total with tax";
const TIMEOUT: &str = "chromium › cart.spec.ts › cart › checks out";
const LOGIN: &str = "chromium › login.spec.ts › login › logs in";
const JEST_REPORTER: &str = "tests/fixtures/ctrf/jest-reporter.json";
const GOTEST: &str = "tests/fixtures/ctrf/gotest.json";
const GO_SUBTEST: &str = "github.com/acme/shop/cart › TestTotal/rounds_to_cents";

struct Answer {
    status: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

/// `pytest-mcp report <file> --format <format>`, from the repository.
fn report(file: &Path, format: &str) -> Answer {
    let started = Instant::now();
    let output = clean_command(Path::new(env!("CARGO_BIN_EXE_pytest-mcp")))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("report")
        .arg(file)
        .args(["--format", format])
        .output()
        .expect("run pytest-mcp");
    Answer {
        status: output.status.code(),
        stdout: String::from_utf8(output.stdout).expect("UTF-8 answer"),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        elapsed: started.elapsed(),
    }
}

/// The answer of a report that must be read (exit 0).
fn read(file: &str, format: &str) -> String {
    let answer = report(Path::new(file), format);
    assert_eq!(answer.status, Some(0), "{file}: {}", answer.stderr);
    answer.stdout
}

/// The `<details>` block of a failure in `--format gfm`, by its test id.
fn gfm_failure<'a>(gfm: &'a str, id: &str) -> &'a str {
    let start = gfm
        .find(&format!("<code>{id}</code></summary>"))
        .unwrap_or_else(|| panic!("no failure {id:?} in:\n{gfm}"));
    let rest = &gfm[start..];
    &rest[..rest.find("</details>").unwrap_or(rest.len())]
}

#[test]
fn playwright_gfm_shows_each_failure_with_its_message_and_place() {
    let gfm = read(PLAYWRIGHT, "gfm");
    assert!(
        gfm.starts_with(&format!(
            "## {}\n",
            line(
                Verdict::Failure,
                None,
                Counts {
                    total: 7,
                    failed: 2,
                    skipped: 2,
                    flaky: 1,
                    ..Counts::default()
                }
            )
        )),
        "{gfm}"
    );
    // The place is the stack's frame in the test's file, not the page
    // object's frame above it; the ANSI colours are gone.
    let cart = gfm_failure(&gfm, CART);
    assert!(
        cart.contains("Failed at `/home/ci/shop/tests/cart.spec.ts:21`."),
        "{cart}"
    );
    assert!(
        cart.contains("Error: expect(locator).toHaveText(expected) failed\n"),
        "{cart}"
    );
    assert!(cart.contains("Received: \"$10.19\""), "{cart}");
    assert!(cart.contains("[warn] slow network: 1200ms"), "{cart}");
    assert!(!cart.contains('\u{1b}'), "{cart}");
    // A timeout has no stack: its place is the test's line.
    let timeout = gfm_failure(&gfm, TIMEOUT);
    assert!(
        timeout.contains("Failed at `/home/ci/shop/tests/cart.spec.ts:30`."),
        "{timeout}"
    );
    assert!(
        timeout.contains("Test timeout of 30000ms exceeded.\n  Rerun: failed all 3 attempts\n"),
        "{timeout}"
    );
    assert!(
        gfm.contains(&format!(
            "- `{LOGIN}` passed after 1 failed attempt, first: `Error: page.goto: \
             net::ERR_CONNECTION_REFUSED at http://localhost:3000/login` at \
             `/home/ci/shop/tests/login.spec.ts:9`\n"
        )),
        "{gfm}"
    );
    assert!(gfm.contains("- 2 × `(no reason given)`\n"), "{gfm}");
    assert!(gfm.trim_end().ends_with("Sources: CTRF"), "{gfm}");
}

/// Each of the JSON summary's counts named is the one wanted.
fn assert_counts(summary: &Value, counts: &[(&str, i64)]) {
    for (key, want) in counts {
        assert_eq!(summary[key], *want, "summary.{key} in {summary}");
    }
}

#[test]
fn playwright_json_counts_and_ids() {
    let value: Value = serde_json::from_str(&read(PLAYWRIGHT, "json")).expect("JSON");
    let summary = &value["summary"];
    assert_counts(
        summary,
        &[
            ("total", 7),
            ("passed", 3),
            ("failed", 2),
            ("skipped", 2),
            ("errors", 0),
            ("xfailed", 0),
            ("xpassed", 0),
            ("flaky", 1),
        ],
    );
    // The summary's stop - start (the tests' durations would sum to
    // 38.719 s: the workers ran side by side and between tests).
    assert_eq!(summary["duration"], 42.0, "{summary}");
    let outcomes: Vec<(&str, &str)> = value["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| {
            let id = t["node_id"].as_str().expect("id");
            (id, t["outcome"].as_str().expect("outcome"))
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            ("chromium › home.spec.ts › home page › has title", "passed"),
            ("firefox › home.spec.ts › home page › has title", "passed"),
            (CART, "failed"),
            (TIMEOUT, "failed"),
            (LOGIN, "passed"),
            (
                "webkit › cart.spec.ts › cart › pays with a voucher",
                "skipped"
            ),
            (
                "chromium › receipt.spec.ts › exports the receipt",
                "skipped"
            ),
        ]
    );
}

#[test]
fn jest_gfm_shows_each_failure_with_its_message_and_place() {
    let gfm = read(JEST, "gfm");
    assert!(
        gfm.starts_with(&format!(
            "## {}\n",
            line(
                Verdict::Failure,
                None,
                Counts {
                    total: 8,
                    failed: 2,
                    skipped: 2,
                    flaky: 1,
                    ..Counts::default()
                }
            )
        )),
        "{gfm}"
    );
    let rounds = gfm_failure(&gfm, "cart › totals › rounds to cents");
    assert!(
        rounds.contains("Failed at `src/cart/totals.test.js:21`."),
        "{rounds}"
    );
    assert!(rounds.contains("Expected: 10.2\n"), "{rounds}");
    assert!(!rounds.contains("jest-circus"), "{rounds}");
    let login = gfm_failure(&gfm, "api › login › rejects an unknown user");
    assert!(
        login.contains("Failed at `src/api/login.test.ts:34`."),
        "{login}"
    );
    assert!(
        login.contains("TypeError: Cannot read properties of undefined (reading 'id')"),
        "{login}"
    );
    assert!(
        gfm.contains("- 1 × `(no reason given)`\n- 1 × `pending`\n"),
        "{gfm}"
    );
}

/// Jest's file without any `line`: each failure's place is still its stack
/// frame in the test's file, in the agent Markdown and in gfm.
#[test]
fn jest_without_lines_says_where_each_failure_is_from_its_stack() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(JEST).expect("jest.json")).expect("JSON");
    for test in doc["results"]["tests"].as_array_mut().expect("tests") {
        test.as_object_mut().expect("test").remove("line");
    }
    let file = dir.path().join("jest-no-lines.json");
    std::fs::write(&file, doc.to_string()).expect("write");
    let file = file.to_str().expect("UTF-8 path");
    let md = read(file, "markdown");
    let rounds = section(&md, "### FAILED: cart › totals › rounds to cents\n");
    assert!(
        rounds.contains("at Object.<anonymous> (src/cart/totals.test.js:21:30)"),
        "{rounds}"
    );
    let login = section(&md, "### FAILED: api › login › rejects an unknown user\n");
    assert!(login.contains("(src/api/login.test.ts:34:12)"), "{login}");
    let gfm = read(file, "gfm");
    for (id, place) in [
        (
            "cart › totals › rounds to cents",
            "src/cart/totals.test.js:21",
        ),
        (
            "api › login › rejects an unknown user",
            "src/api/login.test.ts:34",
        ),
    ] {
        let failure = gfm_failure(&gfm, id);
        assert!(
            failure.contains(&format!("Failed at `{place}`.")),
            "{failure}"
        );
    }
}

#[test]
fn go_counts_ids_and_the_failures_place_in_gfm() {
    let value: Value = serde_json::from_str(&read(GOTEST, "json")).expect("JSON");
    let summary = &value["summary"];
    assert_counts(
        summary,
        &[("total", 5), ("passed", 2), ("failed", 2), ("skipped", 1)],
    );
    // The tests' durations summed: 10 + 920 ms.
    assert_eq!(summary["duration"], 0.93, "{summary}");
    let ids: Vec<&str> = value["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| t["node_id"].as_str().expect("id"))
        .collect();
    assert_eq!(
        ids,
        [
            "github.com/acme/shop/cart › TestAdd",
            GO_SUBTEST,
            "github.com/acme/shop/cart › TestTotal",
            "github.com/acme/shop/checkout › TestCheckout",
            "github.com/acme/shop/auth › TestLogin",
        ]
    );
    let gfm = read(GOTEST, "gfm");
    let failure = gfm_failure(&gfm, GO_SUBTEST);
    assert!(
        failure.contains("Failed at `cart/cart_test.go:21`."),
        "{failure}"
    );
    assert!(
        failure.contains("cart_test.go:21: total = 10.19, want 10.20"),
        "{failure}"
    );
}

/// go-ctrf-json-reporter's message is the test's whole output: the
/// failure is its `cart_test.go:21: ...` line, not `=== RUN ...`, and the
/// agent Markdown should say the line gfm finds (`cart/cart_test.go:21`),
/// not only the file.
#[test]
fn go_message_is_the_failure_not_the_run_framing() {
    let md = read(GOTEST, "markdown");
    let failure = section(&md, &format!("### FAILED: {GO_SUBTEST}"));
    assert!(
        failure.starts_with("\ncart_test.go:21: total = 10.19, want 10.20\n"),
        "{failure}"
    );
    assert!(!failure.contains("=== RUN"), "{failure}");
    assert!(failure.contains("cart/cart_test.go:21"), "{failure}");
}

#[test]
fn jest_reporter_counts_and_places() {
    let value: Value = serde_json::from_str(&read(JEST_REPORTER, "json")).expect("JSON");
    let summary = &value["summary"];
    assert_counts(
        summary,
        &[
            ("total", 5),
            ("passed", 2),
            ("failed", 2),
            ("skipped", 1),
            ("flaky", 1),
        ],
    );
    let md = read(JEST_REPORTER, "markdown");
    assert!(md.contains("\n- other (todo)\n"), "{md}");
    assert!(md.contains("passed after 2 failed attempts\n"), "{md}");
    // The colours and carriage returns of the raw failure are gone.
    assert!(!md.contains('\r') && !md.contains('\u{1b}'), "{md:?}");
    let gfm = read(JEST_REPORTER, "gfm");
    for place in [
        "Failed at `/home/ci/shop/src/cart/totals.test.js:21`.",
        "Failed at `/home/ci/shop/src/api/login.test.ts:34`.",
    ] {
        assert!(gfm.contains(place), "{place} in:\n{gfm}");
    }
}

/// The reporter's suite starts with the file's name, its test name with
/// the describe blocks: the id says each describe block once.
#[test]
fn jest_reporter_ids_say_each_describe_block_once() {
    let value: Value = serde_json::from_str(&read(JEST_REPORTER, "json")).expect("JSON");
    let ids: Vec<&str> = value["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| t["node_id"].as_str().expect("id"))
        .collect();
    assert_eq!(
        ids,
        [
            "totals.test.js › cart › totals › adds items",
            "totals.test.js › cart › totals › rounds to cents",
            "login.test.ts › login › rejects an unknown user",
            "net.test.js › connects to the socket",
            "reports.test.js › reports › paginates",
        ]
    );
}

// ---------------------------------------------------------------------------
// Hostile CTRF through the CLI
// ---------------------------------------------------------------------------

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path
}

/// A refusal: exit 2, the file named, with `said` on standard error, in
/// Markdown and in JSON (ADR-007's error), and no panic.
fn assert_refused(file: &Path, said: &str) {
    for format in ["markdown", "json"] {
        let answer = report(file, format);
        assert_eq!(answer.status, Some(2), "{format}: {}", answer.stderr);
        assert!(!answer.stderr.contains("panicked"), "{}", answer.stderr);
        let want = format!("{}: {said}", file.display());
        assert!(
            answer.stderr.contains(&want),
            "{want:?} in {}",
            answer.stderr
        );
        if format == "json" {
            let value: Value = serde_json::from_str(&answer.stdout).expect("JSON refusal");
            assert_eq!(value["error"]["code"], -32602, "{value}");
        }
    }
}

const HEAD: &str = "{\"reportFormat\": \"CTRF\",\n \"results\": ";

#[test]
fn wrong_types_are_refused_with_the_file_line_and_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = [
        (
            "tests-object.json",
            format!("{HEAD}{{\"tests\": {{}}}}}}"),
            "line 2, column 22: not a CTRF document: \"tests\": invalid type: map, expected a sequence",
        ),
        (
            "status-number.json",
            format!("{HEAD}{{\"tests\": [\n  {{\"name\": \"a\", \"status\": 3}}]}}}}"),
            "line 3, column 27: not a CTRF document: \"status\": invalid type: integer `3`, expected a string",
        ),
        (
            "duration-string.json",
            format!(
                "{HEAD}{{\"tests\": [\n  {{\"name\": \"a\", \"status\": \"passed\", \"duration\": \"x\"}}]}}}}"
            ),
            "line 3, column 51: not a CTRF document: \"duration\": invalid type: string \"x\", expected a number",
        ),
        (
            "no-results.json",
            "{\"reportFormat\": \"CTRF\",\n \"specVersion\": \"0.0.0\"}".to_string(),
            "not a CTRF document: the JSON object has no \"results\" object",
        ),
        (
            "no-tests.json",
            format!("{HEAD}{{\"summary\": {{\"tests\": 0}}}}}}"),
            "not a CTRF document: \"results\" has no \"tests\" list",
        ),
    ];
    for (name, text, said) in cases {
        assert_refused(&write(dir.path(), name, &text), said);
    }
}

/// serde's word for a JSON number is Rust's `f64`: the refusal should say
/// what the file should have, in JSON's words, and which key.
#[test]
fn a_wrong_typed_number_is_refused_in_jsons_words() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = format!(
        "{HEAD}{{\"tests\": [\n  {{\"name\": \"a\", \"status\": \"passed\", \"duration\": \"x\"}}]}}}}"
    );
    let file = write(dir.path(), "duration-string.json", &text);
    let answer = report(&file, "markdown");
    assert_eq!(answer.status, Some(2), "{}", answer.stderr);
    assert!(!answer.stderr.contains("f64"), "{}", answer.stderr);
    assert!(answer.stderr.contains("duration"), "{}", answer.stderr);
    assert!(answer.stderr.contains("a number"), "{}", answer.stderr);
}

/// A 50 MB failure message: read whole (the JSON answer keeps it), the
/// Markdown answer stays small, in bounded time (debug build, shared
/// machine).
#[test]
fn a_50_mb_message_is_read_in_bounded_time() {
    const MB: usize = 50;
    let dir = tempfile::tempdir().expect("tempdir");
    let message = format!("AssertionError: {}", "x".repeat(MB * 1024 * 1024));
    let doc = serde_json::json!({
        "reportFormat": "CTRF",
        "results": {"tests": [
            {"name": "tests/test_big.py::test_big", "status": "failed", "message": message},
            {"name": "tests/test_big.py::test_small", "status": "passed", "duration": 3},
        ]},
    });
    let file = write(dir.path(), "huge-message.json", &doc.to_string());
    let answer = report(&file, "markdown");
    assert_eq!(answer.status, Some(0), "{}", answer.stderr);
    assert!(
        answer.elapsed < Duration::from_secs(60),
        "{:?}",
        answer.elapsed
    );
    assert!(
        says(&answer.stdout, Verdict::Failure) && answer.stdout.len() < 8 * 1024,
        "{} bytes: {}",
        answer.stdout.len(),
        &answer.stdout[..answer.stdout.len().min(400)]
    );
    assert!(
        answer
            .stdout
            .contains(&format!("{}{}\n", before_counts(), run_failed(2, 1))),
        "{}",
        &answer.stdout[..200]
    );
    assert!(
        answer
            .stdout
            .contains("### FAILED: tests/test_big.py::test_big\nAssertionError: xxx"),
        "{}",
        &answer.stdout[..400]
    );
    let answer = report(&file, "json");
    assert_eq!(answer.status, Some(0), "{}", answer.stderr);
    assert!(
        answer.elapsed < Duration::from_secs(60),
        "{:?}",
        answer.elapsed
    );
    let value: Value = serde_json::from_str(&answer.stdout).expect("JSON");
    assert_eq!(
        value["tests"][0]["message"].as_str().map(str::len),
        Some(message.len())
    );
}

/// 10,000 levels of nesting: a key the reader skips is skipped, however
/// deep; a key it reads nested that deep is refused with its place.
#[test]
fn nesting_10000_deep_is_skipped_or_refused_never_a_crash() {
    const DEPTH: usize = 10_000;
    let dir = tempfile::tempdir().expect("tempdir");
    let arrays = format!("{}{}", "[".repeat(DEPTH), "]".repeat(DEPTH));
    let objects = format!("{}1{}", "{\"a\": ".repeat(DEPTH), "}".repeat(DEPTH));
    let test = |extra: &str| {
        format!("{HEAD}{{\"tests\": [{{\"name\": \"t\", \"status\": \"passed\", {extra}}}]}}}}")
    };
    let skipped = [
        ("deep-extra.json", test(&format!("\"extra\": {objects}"))),
        ("deep-steps.json", test(&format!("\"steps\": {arrays}"))),
        (
            "deep-top.json",
            format!("{HEAD}{{\"tests\": []}}, \"extra\": {arrays}}}"),
        ),
    ];
    for (name, text) in &skipped {
        let file = write(dir.path(), name, text);
        let answer = report(&file, "json");
        assert_eq!(answer.status, Some(0), "{name}: {}", answer.stderr);
        assert!(
            answer.elapsed < Duration::from_secs(20),
            "{name}: {:?}",
            answer.elapsed
        );
        let value: Value = serde_json::from_str(&answer.stdout).expect("JSON");
        let total = if *name == "deep-top.json" { 0 } else { 1 };
        assert_eq!(value["summary"]["total"], total, "{name}");
    }
    let file = write(
        dir.path(),
        "deep-suite.json",
        &test(&format!("\"suite\": {arrays}")),
    );
    assert_refused(&file, "line 2, column");
    let answer = report(&file, "markdown");
    assert!(
        answer.stderr.contains("nests too deeply"),
        "{}",
        answer.stderr
    );
    let file = write(
        dir.path(),
        "deep-message.json",
        &test(&format!("\"message\": {arrays}")),
    );
    assert_refused(&file, "line 2, column");
}
