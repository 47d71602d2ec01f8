//! Failures of the kinds real suites meet, told right in the default
//! Markdown (tests/projects/failure_kinds): a chained exception shows the
//! exception raised with its own frames first, then its cause with the
//! cause's place; a frame repeated by a recursion is listed once with a
//! count; `pytest.fail(..., pytrace=False)` says its message once; an
//! ExceptionGroup lists each member with its place; a doctest says what it
//! ran, expected and got; a missing fixture keeps what it shows; a
//! pytest-timeout timeout is its limit and the test's line, under 120
//! tokens, the threads' stacks left out; and no path is absolute.

mod common;

use common::support::{project_copy, run_pytest_mcp};
use pytest_mcp_testkit::tokens::count_tokens;

/// The failure section of `id` in `md`: from its heading to the next.
fn section<'a>(md: &'a str, id: &str) -> &'a str {
    let start = md
        .find(&format!(": {id}\n"))
        .unwrap_or_else(|| panic!("no section for {id} in:\n{md}"));
    let rest = &md[start..];
    let end = rest[1..].find("\n### ").map_or(rest.len(), |i| i + 1);
    &rest[..end]
}

fn answer() -> String {
    let (_dir, root) = project_copy("failure_kinds");
    let (status, md) = run_pytest_mcp(&root, &["--no-history"]);
    assert_eq!(status, Some(1), "{md}");
    md
}

#[test]
fn each_kind_of_failure_is_told_right() {
    let md = answer();

    let chained = section(&md, "tests/test_kinds.py::test_chained");
    let lines: Vec<&str> = chained.lines().map(str::trim).collect();
    let at = |l: &str| lines.iter().position(|x| *x == l);
    let (test, raise) = (
        at("at tests/test_kinds.py:28"),
        at("at tests/test_kinds.py:17"),
    );
    assert!(
        test.is_some() && test < raise,
        "the raised exception's frames, in order:\n{chained}"
    );
    assert!(
        chained.contains(
            "caused by FileNotFoundError: [Errno 2] No such file or directory: '/nonexistent/app.toml' (at tests/test_kinds.py:9)"
        ),
        "the cause with its place:\n{chained}"
    );
    assert!(!chained.contains("at tests/test_kinds.py:9\n"), "{chained}");

    let handling = section(&md, "tests/test_kinds.py::test_raised_while_handling");
    assert!(
        handling.contains("while handling ValueError: invalid literal for int() with base 10: 'eighty' (at tests/test_kinds.py:22)"),
        "{handling}"
    );

    let recursion = section(&md, "tests/test_kinds.py::test_recursion");
    let repeated: Vec<&str> = recursion
        .lines()
        .filter(|l| l.contains("at tests/test_kinds.py:36"))
        .collect();
    assert_eq!(repeated.len(), 1, "{recursion}");
    assert!(repeated[0].contains(" (×"), "{recursion}");

    let group = section(&md, "tests/test_kinds.py::test_group");
    assert!(
        group.contains("\n  1: ValueError: negative: -1 (at tests/test_kinds.py:"),
        "{group}"
    );
    assert!(group.contains("\n  2: KeyError: 'missing'\n"), "{group}");
    assert!(group.contains("\n  at tests/test_kinds.py:"), "{group}");
    let root = std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).expect("root");
    assert!(
        !md.contains("/tmp/") && !md.contains(&*root.to_string_lossy()),
        "no absolute path:\n{md}"
    );

    let doctest = section(&md, "shop/calc.py::shop.calc.total");
    for line in [
        "  at shop/calc.py:4\n",
        "  > total([1, 2])\n",
        "  Expected: 4\n",
        "  Got: 3\n",
    ] {
        assert!(doctest.contains(line), "{line:?} in:\n{doctest}");
    }
    let fixture = section(
        &md,
        "tests/test_kinds.py::test_needs_a_fixture_no_one_defined",
    );
    assert!(
        fixture.contains("fixture 'database' not found"),
        "{fixture}"
    );
    assert!(
        fixture.contains("file tests/test_kinds.py, line "),
        "{fixture}"
    );

    let timeout = section(&md, "tests/test_kinds.py::test_hangs");
    assert!(timeout.contains("Timeout (>1.0s)"), "{timeout}");
    assert!(
        timeout.contains("  > time.sleep(5)\n"),
        "the test's own line:\n{timeout}"
    );
    assert!(!timeout.contains("Stack of"), "{timeout}");
    let tokens = count_tokens(timeout);
    assert!(tokens < 120, "{tokens} tokens:\n{timeout}");

    let failed = section(&md, "tests/test_kinds.py::test_fail_without_traceback");
    assert_eq!(
        failed.matches("the service answered 503").count(),
        1,
        "said once:\n{failed}"
    );
}
