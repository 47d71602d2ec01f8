//! The HTML page (`pytest_mcp::render::html`): structure, escaping, no
//! external resources, and a real rendering in headless Chromium.
//!
//! The Chromium test needs Debian's `chromium` package at /usr/bin/chromium
//! (`apt-get install chromium`). Without it the test fails, unless
//! `PYTEST_MCP_SKIP_CHROMIUM=1` is set (for machines without a browser);
//! it never passes silently. A screenshot of the rendered page is left in
//! `target/tmp/html-report-mixed.png` for a look.

use std::collections::BTreeSet;
use std::fs::File;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use pytest_mcp::frontend::report::{Input, build_run};
use pytest_mcp::model::Run;
use pytest_mcp::render::{html, markdown};
use pytest_mcp::request::Format;
use pytest_mcp::sources::junit;

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMIUM_TIMEOUT: Duration = Duration::from_secs(60);

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The run of a pytest fixture, from its JSON report and xunit1 JUnit XML.
fn fixture_run(name: &str) -> Run {
    let dir = root().join("tests/fixtures/pytest").join(name);
    let inputs: Vec<Input> = ["report.json", "junit-xunit1.xml"]
        .iter()
        .map(|file| Input {
            name: file.to_string(),
            contents: std::fs::read(dir.join(file)).map_err(|e| e.to_string()),
        })
        .collect();
    build_run(&inputs, Format::Markdown)
        .unwrap_or_else(|e| panic!("fixture {name} does not read: {e:?}"))
}

fn page_of(run: &Run, title: &str) -> String {
    html::render(&markdown::render(run), title)
}

/// What pulldown-cmark writes for text: `&`, `<`, `>` escaped.
fn text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The ids a reader must find: failing and erroring tests, and files that
/// did not collect.
fn problem_ids(run: &Run) -> Vec<String> {
    let mut ids: Vec<String> = run
        .tests
        .iter()
        .filter(|t| t.is_problem())
        .map(|t| t.node_id.clone())
        .collect();
    ids.extend(run.collection_errors.iter().map(|e| e.file.clone()));
    assert!(
        !ids.is_empty(),
        "a fixture with nothing failing proves little"
    );
    ids
}

/// One tag of the page: its name (lowercase, `/p` for an end tag) and
/// attributes.
#[derive(Debug)]
struct TagInfo {
    name: String,
    attrs: Vec<(String, String)>,
}

/// Every tag in the page. Text never holds a raw `<` (it is escaped), and the
/// only element with raw content is the template's `<style>`, which holds no
/// `<`; so every `<` opens a tag, and a tag smuggled in by test output would
/// show up here.
fn tags(page: &str) -> Vec<TagInfo> {
    let mut out = Vec::new();
    let mut rest = page;
    while let Some(start) = rest.find('<') {
        let after = &rest[start + 1..];
        let end = after
            .find('>')
            .unwrap_or_else(|| panic!("unclosed tag at {:?}", &after[..after.len().min(80)]));
        let inner = &after[..end];
        rest = &after[end + 1..];
        let name_len = inner
            .find(|c: char| c.is_whitespace() || c == '>')
            .unwrap_or(inner.len());
        let name = inner[..name_len].trim_end_matches('/').to_lowercase();
        let mut attrs = Vec::new();
        let mut s = inner[name_len..].trim_start();
        while !s.is_empty() && s != "/" {
            let n = s
                .find(|c: char| c == '=' || c.is_whitespace())
                .unwrap_or(s.len());
            let attr = s[..n].to_lowercase();
            s = s[n..].trim_start();
            let value = if let Some(v) = s.strip_prefix('=') {
                let v = v.trim_start();
                let (value, remaining) = match v.chars().next() {
                    Some(q @ ('"' | '\'')) => {
                        let close = v[1..].find(q).expect("closing quote") + 1;
                        (&v[1..close], &v[close + 1..])
                    }
                    _ => {
                        let e = v.find(char::is_whitespace).unwrap_or(v.len());
                        (&v[..e], &v[e..])
                    }
                };
                s = remaining.trim_start();
                value.to_string()
            } else {
                String::new()
            };
            attrs.push((attr, value));
        }
        out.push(TagInfo { name, attrs });
    }
    out
}

/// Only the elements and attributes the template and pulldown-cmark write,
/// no script, no URL anywhere: nothing for a browser to fetch or run.
fn assert_safe_markup(page: &str) {
    const ELEMENTS: &[&str] = &[
        "!doctype",
        "html",
        "head",
        "meta",
        "title",
        "style",
        "body",
        "header",
        "main",
        "h1",
        "h2",
        "h3",
        "h4",
        "p",
        "pre",
        "code",
        "ul",
        "ol",
        "li",
        "blockquote",
        "br",
        "hr",
        "em",
        "strong",
        "del",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
    ];
    const ATTRIBUTES: &[&str] = &[
        "lang",
        "charset",
        "name",
        "content",
        "http-equiv",
        "class",
        "start",
        "style",
    ];
    for tag in tags(page) {
        let element = tag.name.trim_start_matches('/');
        assert!(ELEMENTS.contains(&element), "unexpected element {tag:?}");
        if element == "!doctype" {
            assert_eq!(tag.attrs, [("html".to_string(), String::new())]);
            continue;
        }
        for (attr, value) in &tag.attrs {
            assert!(
                ATTRIBUTES.contains(&attr.as_str()),
                "unexpected attribute {attr} in {tag:?}"
            );
            if attr == "style" {
                assert!(value.starts_with("text-align:"), "inline style {tag:?}");
            }
            assert!(!value.contains("://"), "a URL in {tag:?}");
            assert!(!value.to_lowercase().contains("url("), "url( in {tag:?}");
        }
    }
    // The stylesheet loads nothing either.
    let style = page
        .split_once("<style>")
        .and_then(|(_, s)| s.split_once("</style>"))
        .map(|(s, _)| s)
        .expect("the page has its style inline");
    for bad in ["url(", "@import", "://", "<"] {
        assert!(!style.contains(bad), "{bad} in the stylesheet");
    }
    let lower = page.to_lowercase();
    // Said by the tag check above already; spelled out for the reader.
    // (Escaped text may say `src=`; only a raw `<` would make it a tag.)
    for bad in [
        "<script", "<img", "<link", "<iframe", "<object", "<embed", "<base", "<svg",
    ] {
        assert!(!lower.contains(bad), "{bad} in the page");
    }
}

/// One document: a doctype, one `<html>`, `<head>`, `<title>`, `<body>`.
fn assert_one_document(page: &str, title: &str) {
    assert!(page.starts_with("<!DOCTYPE html>\n"), "no doctype");
    assert!(
        page.trim_end().ends_with("</html>"),
        "does not end the document"
    );
    for tag in [
        "<html", "<head>", "</head>", "<body>", "</body>", "<main>", "</main>",
    ] {
        assert_eq!(page.matches(tag).count(), 1, "{tag} is not there once");
    }
    assert_eq!(page.matches("<title>").count(), 1);
    assert!(
        page.contains(&format!("<title>{}</title>", text(title))),
        "title missing"
    );
    assert!(page.contains("<meta charset=\"utf-8\">"));
    assert!(
        page.contains("Content-Security-Policy\" content=\"default-src 'none'"),
        "the page has no CSP that forbids loads"
    );
    if !title.contains("{{") {
        assert!(!page.contains("{{"), "a placeholder is left");
    }
}

fn assert_page(fixture: &str) -> String {
    let run = fixture_run(fixture);
    let title = format!("pytest-mcp report — {fixture}");
    let page = page_of(&run, &title);
    assert_one_document(&page, &title);
    assert_safe_markup(&page);
    for id in problem_ids(&run) {
        assert!(
            page.contains(&text(&id)),
            "{id} is not in the {fixture} page"
        );
    }
    page
}

#[test]
fn one_failure_page() {
    let page = assert_page("one_failure");
    assert!(page.contains("<p class=\"summary bad\">Test FAILURE ("));
    assert!(page.contains(
        "<h3 class=\"problem\">FAILED: tests/test_calc.py::test_discount_fractional</h3>"
    ));
    // The section's message and detail as written, indentation kept; `+`
    // and `>` lines are not a list and a quote.
    assert!(page.contains(
        "<pre><code>assert 9.99 == 8.991\n  +  where 9.99 = discount(9.99, 10)\n  at tests/test_calc.py:17\n  &gt; assert discount(9.99, 10) == 8.991\n</code></pre>"
    ), "{page}");
    assert_eq!(
        page.matches("<blockquote>").count(),
        1,
        "only the notes quote"
    );
    assert!(page.contains("<blockquote>\n<p>Sources: pytest-json-report, pytest JUnit XML</p>"));
}

#[test]
fn mixed_page() {
    let page = assert_page("mixed");
    assert_eq!(page.matches("<h3 class=\"problem\">").count(), 7);
    assert!(page.contains("<h3 class=\"problem\">ERROR at teardown: tests/test_catalog.py::test_loan_checked_at_teardown</h3>"));
    assert!(page.contains("<h3 class=\"skipped\">SKIPPED (3)</h3>"));
    assert!(page.contains("<li>XFAIL: ISBN-13 with 979 prefix not supported yet</li>"));
    // pytest's `<class '...'>` is text, not a tag.
    assert!(page.contains("= &lt;class 'datetime.date'&gt;(2024, 3, 6)"));
    assert_eq!(page.matches("<pre><code>").count(), 7);
}

#[test]
fn collection_errors_page() {
    let page = assert_page("collection_errors");
    assert!(
        page.contains("<h3 class=\"problem\">COLLECTION ERROR: tests/test_syntax_error.py</h3>")
    );
    // The detail stays under its item, the caret under the colon's place.
    assert!(
        page.contains(
            "<li>L6 — SyntaxError: expected ':'\n<pre><code>for n in range(5)\n                 ^\n</code></pre>\n</li>"
        ),
        "{page}"
    );
    assert!(page.contains("<pre><code>&gt; from calc import does_not_exist\n</code></pre>"));
}

#[test]
fn success_page_is_marked_ok() {
    let page = assert_page_without_problems("all_pass");
    assert!(
        page.contains("<p class=\"summary ok\">Test SUCCESS ("),
        "{page}"
    );
}

fn assert_page_without_problems(fixture: &str) -> String {
    let run = fixture_run(fixture);
    let page = page_of(&run, fixture);
    assert_one_document(&page, fixture);
    assert_safe_markup(&page);
    page
}

/// A JUnit file whose ids, messages, traces and skip reasons hold markup.
const HOSTILE_JUNIT: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="4" failures="2" errors="0" skipped="2">
<testcase classname="tests.test_xss" name="test_script" file="tests/test_xss.py" line="3" time="0.01"><failure message="AssertionError: &lt;script&gt;alert(1)&lt;/script&gt;">def test_script():
&gt;       assert False, "&lt;script&gt;alert(1)&lt;/script&gt;"
E       AssertionError: &lt;script&gt;alert(1)&lt;/script&gt;
E       &lt;/code&gt;&lt;/pre&gt;&lt;img src=x onerror=alert(5)&gt;

tests/test_xss.py:4: AssertionError</failure></testcase>
<testcase classname="tests.test_xss" name="test_img[&lt;img src=x onerror=alert(2)&gt;]" file="tests/test_xss.py" line="8" time="0.01"><failure message="&lt;img src=x onerror=alert(2)&gt;">```
&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;alert(6)&lt;/script&gt;
```</failure></testcase>
<testcase classname="tests.test_xss" name="test_skip_html" file="tests/test_xss.py" line="12" time="0"><skipped message="&lt;iframe src=&quot;https://evil.example/&quot;&gt;&lt;/iframe&gt;"/></testcase>
<testcase classname="tests.test_xss" name="test_skip_md" file="tests/test_xss.py" line="16" time="0"><skipped message="see [docs](https://evil.example/) ![i](https://evil.example/i.png) &lt;https://evil.example/a&gt;"/></testcase>
</testsuite></testsuites>
"#;

#[test]
fn markup_in_test_output_is_escaped() {
    let run = junit::parse(HOSTILE_JUNIT.as_bytes(), "hostile.xml").expect("the XML reads");
    let md = markdown::render(&run);
    let page = html::render(&md, "<script>alert(0)</script>");
    assert_one_document(&page, "<script>alert(0)</script>");
    assert_safe_markup(&page);
    for id in problem_ids(&run) {
        assert!(page.contains(&text(&id)), "{id} missing from\n{page}");
    }
    for shown in [
        "&lt;script&gt;alert(1)&lt;/script&gt;",
        "&lt;img src=x onerror=alert(2)&gt;",
        "<li>&lt;iframe src=\"https://evil.example/\"&gt;&lt;/iframe&gt;</li>",
        // Links and images are shown as the Markdown that wrote them.
        "see [docs](https://evil.example/) ![i](https://evil.example/i.png) &lt;https://evil.example/a&gt;",
    ] {
        assert!(
            page.contains(shown),
            "{shown} is not shown as text in\n{page}"
        );
    }
}

#[test]
fn markup_in_any_markdown_position_is_escaped() {
    let md = "Test FAILURE (0.0s) — 1 run, 1 failed\n\
              <script>alert(1)</script>\n\
              \n\
              <div onclick=\"alert(2)\">\n\
              \n\
              ### FAILED: t.py::test[<img src=x onerror=alert(3)>]\n\
              \\> <style>body{background:url(https://evil.example/)}</style>\n  \
              <iframe src=\"https://evil.example/\"></iframe>\n\
              \n\
              ### OUTPUT (last lines)\n  \
              <script src=\"https://evil.example/x.js\"></script>\n\
              \n\
              ### tests/test_x.py\n\
              - L1 <object data=\"https://evil.example/\">\n\
              - [x](javascript:alert(4)) ![y](https://evil.example/y.png)\n\
              \n\
              > <img src=https://evil.example/n.png>\n\
              > <https://evil.example/auto>\n";
    let page = html::render(md, "t");
    assert_one_document(&page, "t");
    assert_safe_markup(&page);
    assert!(page.contains("&lt;img src=x onerror=alert(3)&gt;"));
    assert!(page.contains(
        "<pre><code>&gt; &lt;style&gt;body{background:url(https://evil.example/)}&lt;/style&gt;\n"
    ));
    assert!(page.contains("&lt;div onclick=\"alert(2)\"&gt;"));
    assert!(page.contains("[x](javascript:alert(4))"));
}

#[test]
fn a_title_cannot_fill_the_body_placeholder() {
    let page = html::render(
        "Test SUCCESS (0.0s) — 1 run, 0 failed\n",
        "{{body}} & {{title}}",
    );
    assert_one_document(&page, "{{body}} & {{title}}");
    assert_eq!(page.matches("Test SUCCESS").count(), 1);
    assert_eq!(
        page.matches("{{body}} &amp; {{title}}").count(),
        2,
        "title and heading"
    );
}

// --- headless Chromium ---------------------------------------------------

/// Chromium, or `None` when it is missing and skipping was asked for.
fn chromium() -> Option<&'static Path> {
    let path = Path::new(CHROMIUM);
    if path.exists() {
        return Some(path);
    }
    if std::env::var("PYTEST_MCP_SKIP_CHROMIUM").as_deref() == Ok("1") {
        eprintln!("SKIPPED: {CHROMIUM} not found and PYTEST_MCP_SKIP_CHROMIUM=1");
        return None;
    }
    panic!(
        "{CHROMIUM} not found: the HTML page is checked in headless Chromium. \
         Install it with `apt-get update && apt-get install -y chromium` \
         (Debian), or set PYTEST_MCP_SKIP_CHROMIUM=1 to skip this test on a \
         machine without it."
    );
}

struct Browsed {
    status: ExitStatus,
    stdout: String,
    stderr: String,
    /// URLs the page asked for, from Chromium's net log.
    page_requests: BTreeSet<String>,
}

/// Opens `page` in headless Chromium with a fresh profile, every host name
/// unresolvable, and a net log; `extra` says what to do (`--dump-dom`,
/// `--screenshot=...`).
fn browse(chromium: &Path, page: &Path, work: &Path, extra: &[String]) -> Browsed {
    let profile = tempfile::tempdir_in(work).expect("profile dir");
    let net_log = work.join(format!(
        "net-{}.json",
        profile.path().file_name().unwrap().to_string_lossy()
    ));
    let stdout_path = net_log.with_extension("stdout");
    let stderr_path = net_log.with_extension("stderr");
    let mut command = Command::new(chromium);
    command
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--host-resolver-rules=MAP * ~NOTFOUND",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--log-net-log={}", net_log.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .current_dir(work)
        .stdin(Stdio::null())
        .stdout(File::create(&stdout_path).expect("stdout file"))
        .stderr(File::create(&stderr_path).expect("stderr file"))
        .process_group(0);
    let mut child = command.spawn().expect("chromium starts");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for chromium") {
            break status;
        }
        if started.elapsed() > CHROMIUM_TIMEOUT {
            // Chromium and its helper processes: the group we made.
            let group = nix::unistd::Pid::from_raw(child.id() as i32);
            let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
            let _ = child.wait();
            panic!(
                "chromium did not finish in {CHROMIUM_TIMEOUT:?}; stderr:\n{}",
                std::fs::read_to_string(&stderr_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = std::fs::read_to_string(&stdout_path).unwrap_or_default();
    let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
    let page_requests = if status.success() {
        page_requests(&net_log)
    } else {
        BTreeSet::new()
    };
    Browsed {
        status,
        stdout,
        stderr,
        page_requests,
    }
}

/// Requests made for a `file://` page: Chromium keys them with the page's
/// site. Its own background requests (update checks, account lookups; all
/// unresolvable here) are keyed otherwise and are not the page's doing.
fn page_requests(net_log: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(net_log).expect("chromium wrote a net log");
    let log: serde_json::Value = serde_json::from_str(&text).expect("the net log is JSON");
    let events = log["events"].as_array().expect("net log events");
    events
        .iter()
        .filter_map(|e| {
            let params = e.get("params")?;
            let url = params.get("url")?.as_str()?;
            let key = params.get("network_isolation_key")?.as_str()?;
            key.starts_with("file://").then(|| url.to_string())
        })
        .collect()
}

#[test]
fn page_renders_in_headless_chromium_and_loads_nothing() {
    let Some(chromium) = chromium() else { return };
    let work = tempfile::tempdir().expect("temp dir");

    // The net-log check must see a load when there is one, or its silence
    // below proves nothing.
    let control = work.path().join("control.html");
    std::fs::write(
        &control,
        "<!DOCTYPE html><title>control</title><p>x</p>\
         <img src=\"http://img.pytest-mcp.invalid/x.png\">",
    )
    .unwrap();
    let seen = browse(chromium, &control, work.path(), &["--dump-dom".into()]);
    assert!(seen.status.success(), "chromium failed: {}", seen.stderr);
    assert!(
        seen.page_requests
            .contains("http://img.pytest-mcp.invalid/x.png"),
        "the net log does not show the control page's image load: {:?}",
        seen.page_requests
    );

    let run = fixture_run("mixed");
    let page_path = work.path().join("report.html");
    std::fs::write(&page_path, page_of(&run, "pytest-mcp report — mixed")).unwrap();
    let browsed = browse(chromium, &page_path, work.path(), &["--dump-dom".into()]);
    assert!(
        browsed.status.success(),
        "chromium exited with {}: {}",
        browsed.status,
        browsed.stderr
    );
    let dom = &browsed.stdout;
    assert!(
        dom.contains("<title>pytest-mcp report — mixed</title>"),
        "{dom}"
    );
    for id in problem_ids(&run) {
        assert!(dom.contains(&text(&id)), "{id} not in the DOM:\n{dom}");
    }
    assert!(dom.contains("<pre><code>"), "no detail blocks in the DOM");
    assert!(
        !dom.to_lowercase().contains("<script"),
        "a script in the DOM"
    );
    assert!(
        browsed.page_requests.is_empty(),
        "the page loaded {:?}",
        browsed.page_requests
    );

    // A screenshot, kept for people to look at.
    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("html-report-mixed.png");
    let _ = std::fs::remove_file(&shot);
    let browsed = browse(
        chromium,
        &page_path,
        work.path(),
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1200,2000".into(),
        ],
    );
    assert!(
        browsed.status.success(),
        "chromium failed: {}",
        browsed.stderr
    );
    assert!(browsed.page_requests.is_empty());
    let png = std::fs::read(&shot).expect("chromium wrote the screenshot");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    assert!(png.len() > 20_000, "a suspiciously small screenshot");
    eprintln!("screenshot: {}", shot.display());
}
