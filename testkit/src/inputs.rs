//! Generated inputs (nothing large is committed): pytest projects and a
//! 100,000-case JUnit XML file with its pytest-json-report twin. The perf
//! harness (`benches/perf/`) writes them into `target/bench-inputs/` on
//! every run; `tests/golden.rs`, `tests/gfm.rs` and `tests/html.rs` check
//! the renderers on the big report.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// Writes a pytest project of `files` modules × `per_file` tests under
/// `dir` (replacing what was there). Test `t` of module `f` fails when
/// `failing(f, t)`; failures are realistic: a dict comparison with a
/// printed line, an exception raised two frames down, a missing key.
pub fn pytest_project(
    dir: &Path,
    files: usize,
    per_file: usize,
    failing: &dyn Fn(usize, usize) -> bool,
) {
    let _ = fs::remove_dir_all(dir);
    fs::create_dir_all(dir.join("tests")).expect("create project");
    fs::create_dir_all(dir.join("app")).expect("create project");
    fs::write(dir.join("app/__init__.py"), "").expect("write");
    fs::write(
        dir.join("app/orders.py"),
        "def parse_quantity(text):\n    return int(text)\n\n\ndef total(order):\n    return sum(parse_quantity(q) * p for q, p in order)\n",
    )
    .expect("write");
    // The project is its own rootdir: no config above it is picked up.
    fs::write(dir.join("pytest.ini"), "[pytest]\npythonpath = .\n").expect("write");
    for f in 0..files {
        let mut src = String::from(
            "import logging\n\nfrom app.orders import total\n\nlog = logging.getLogger(__name__)\n\n\n",
        );
        for t in 0..per_file {
            if failing(f, t) {
                match (f + t) % 3 {
                    0 => write!(
                        src,
                        "def test_{t}():\n    got = {{'id': {t}, 'total': {}, 'items': [1, 2, 3]}}\n    print('order', got['id'], 'computed')\n    assert got == {{'id': {t}, 'total': {}, 'items': [1, 2, 3]}}\n\n\n",
                        t * 10,
                        t * 10 + 1
                    ),
                    1 => write!(
                        src,
                        "def test_{t}():\n    log.warning('order %d has a bad quantity', {t})\n    assert total([('2', 5), ('x{t}', 1)]) == 11\n\n\n"
                    ),
                    _ => write!(
                        src,
                        "def test_{t}():\n    users = {{'user_1': 'ann'}}\n    assert users['user_{t}'] == 'bob'\n\n\n"
                    ),
                }
                .expect("write to string");
            } else {
                write!(
                    src,
                    "def test_{t}():\n    assert {t} + 1 == {}\n\n\n",
                    t + 1
                )
                .expect("write to string");
            }
        }
        fs::write(dir.join(format!("tests/test_m{f:03}.py")), src).expect("write test module");
    }
}

/// A project whose collection fails in three modules (a syntax error, an
/// import error, an exception at import) beside 20 passing tests.
pub fn collection_error_project(dir: &Path) {
    pytest_project(dir, 2, 10, &|_, _| false);
    fs::write(dir.join("tests/test_syntax.py"), "def test_a(:\n    pass\n").expect("write");
    fs::write(
        dir.join("tests/test_import.py"),
        "import not_installed_module\n\n\ndef test_b():\n    pass\n",
    )
    .expect("write");
    fs::write(
        dir.join("tests/test_raises.py"),
        "CONFIG = {}\nTIMEOUT = CONFIG['timeout']\n\n\ndef test_c():\n    pass\n",
    )
    .expect("write");
}

/// Escapes text for an XML attribute value (pytest writes newlines as `&#10;`).
fn attr(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\n', "&#10;")
}

fn text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// What one generated test case is.
enum Case {
    Pass,
    Skip(String),
    /// (crash message, longrepr, line of the failing assert, captured stdout)
    Fail(String, String, u32, String),
}

fn case(i: usize) -> Case {
    let module = i / 100;
    let line = 10 + (i % 100) as u32 * 4;
    if i % 100 == 37 {
        // 1% failing, three kinds, realistic pytest longreprs.
        let path = format!("tests/test_mod{module}.py");
        let stdout = format!("order {i} computed\nretrying payment for user_{i}\n");
        match (i / 100) % 3 {
            0 => {
                let msg = format!(
                    "AssertionError: assert {{'id': {i}, 'items': [1, 2, 3], 'total': {}}} == {{'id': {i}, 'items': [1, 2, 3], 'total': {}}}\n  \n  Omitting 2 identical items, use -vv to show\n  Differing items:\n  {{'total': {}}} != {{'total': {}}}",
                    i * 10,
                    i * 10 + 1,
                    i * 10,
                    i * 10 + 1
                );
                let longrepr = format!(
                    "self = <tests.test_mod{module}.TestCase object at 0x7f3a2c1d4e50>\nparam = 'param-{i}'\n\n    def test_case_{i}(self, param):\n        got = compute_order({i})\n>       assert got == expected_order({i})\nE       {}\n\n{path}:{line}: AssertionError",
                    msg.replace("\n  ", "\nE         ")
                );
                Case::Fail(msg, longrepr, line, stdout)
            }
            1 => {
                let msg = format!("ValueError: invalid literal for int() with base 10: 'x{i}'");
                let longrepr = format!(
                    "self = <tests.test_mod{module}.TestCase object at 0x7f3a2c1d4e50>\nparam = 'param-{i}'\n\n    def test_case_{i}(self, param):\n>       assert total([('2', 5), ('x{i}', 1)]) == 11\n\n{path}:{line}: \n_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _\napp/orders.py:6: in total\n    return sum(parse_quantity(q) * p for q, p in order)\napp/orders.py:6: in <genexpr>\n    return sum(parse_quantity(q) * p for q, p in order)\n_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _\n\ntext = 'x{i}'\n\n    def parse_quantity(text):\n>       return int(text)\nE       {msg}\n\napp/orders.py:2: ValueError"
                );
                Case::Fail(msg, longrepr, 2, stdout)
            }
            _ => {
                let msg = format!("KeyError: 'user_{i}'");
                let longrepr = format!(
                    "self = <tests.test_mod{module}.TestCase object at 0x7f3a2c1d4e50>\nparam = 'param-{i}'\n\n    def test_case_{i}(self, param):\n        users = {{'user_1': 'ann'}}\n>       assert users['user_{i}'] == 'bob'\nE       {msg}\n\n{path}:{line}: KeyError"
                );
                Case::Fail(msg, longrepr, line, stdout)
            }
        }
    } else if i % 100 == 71 {
        Case::Skip(format!("needs the payment sandbox (case {i})"))
    } else {
        Case::Pass
    }
}

/// Where [`big_reports`] writes the CTRF twin of its `cases`-case files.
pub fn big_ctrf_path(dir: &Path, cases: usize) -> PathBuf {
    dir.join(format!("ctrf-{cases}.json"))
}

/// One test as pytest-json-ctrf writes it: the node id as its name, the
/// module and class as its suite, milliseconds, the crash message and the
/// longrepr as message and trace, captured output as lines.
fn ctrf_test(nodeid: &str, file: &str, line: usize, time: f64, case: &Case) -> serde_json::Value {
    let module = file.trim_end_matches(".py").replace('/', ".");
    let mut test = serde_json::json!({
        "name": nodeid,
        "status": "passed",
        "duration": time * 1000.0,
        "start": 1_795_216_863_000_u64,
        "stop": 1_795_216_863_001_u64,
        "rawStatus": "passed",
        "type": "unit",
        "filePath": file,
        "line": line,
        "retries": 0,
        "flaky": false,
        "suite": [module, "TestCase"],
    });
    match case {
        Case::Pass => {}
        Case::Skip(reason) => {
            test["status"] = "skipped".into();
            test["rawStatus"] = "skipped".into();
            test["message"] = reason.as_str().into();
        }
        Case::Fail(message, longrepr, _, stdout) => {
            test["status"] = "failed".into();
            test["rawStatus"] = "failed".into();
            test["message"] = message.as_str().into();
            test["trace"] = longrepr.as_str().into();
            test["stdout"] = stdout.lines().collect::<Vec<_>>().into();
        }
    }
    test
}

/// Where generated case `i` is and how long it took.
struct Place {
    module: usize,
    def_line: usize,
    name: String,
    file: String,
    time: f64,
}

impl Place {
    fn of(i: usize) -> Place {
        let module = i / 100;
        Place {
            module,
            def_line: 8 + (i % 100) * 4,
            name: format!("test_case_{i}[param-{i}]"),
            file: format!("tests/test_mod{module}.py"),
            time: 0.0005 + (i % 7) as f64 * 0.0003,
        }
    }
}

/// One case as pytest's JUnit XML (xunit1) writes it.
fn junit_case(xml: &mut String, p: &Place, kind: &Case) {
    let (name, file, def_line, time) = (&p.name, &p.file, p.def_line, p.time);
    let classname = format!("tests.test_mod{}.TestCase", p.module);
    write!(
        xml,
        "<testcase classname=\"{classname}\" name=\"{name}\" file=\"{file}\" line=\"{def_line}\" time=\"{time:.3}\""
    )
    .expect("write to string");
    match kind {
        Case::Pass => xml.push_str(" />"),
        Case::Skip(reason) => {
            let at = format!("/home/user/project/{file}");
            write!(
                xml,
                "><skipped type=\"pytest.skip\" message=\"{}\">{}:{}: {}</skipped></testcase>",
                attr(reason),
                text(&at),
                def_line + 2,
                text(reason)
            )
            .expect("write to string");
        }
        Case::Fail(message, longrepr, _, stdout) => {
            write!(
                xml,
                "><failure message=\"{}\">{}</failure><system-out>--------------------------------- Captured Out ---------------------------------\n{}</system-out></testcase>",
                attr(message),
                text(longrepr),
                text(stdout)
            )
            .expect("write to string");
        }
    }
}

/// One case as pytest-json-report writes its entry.
fn json_report_test(nodeid: &str, p: &Place, i: usize, kind: Case) -> serde_json::Value {
    let (name, file, def_line, time) = (&p.name, &p.file, p.def_line, p.time);
    let keywords = serde_json::json!([
        name,
        "TestCase",
        "parametrize",
        "pytestmark",
        format!("param-{i}"),
        format!("test_mod{}.py", p.module),
        "tests",
        "project",
        ""
    ]);
    let phase = |outcome: &str, d: f64| serde_json::json!({"duration": d, "outcome": outcome});
    let mut test = serde_json::json!({
        "nodeid": nodeid,
        "lineno": def_line,
        "outcome": "passed",
        "keywords": keywords,
        "setup": phase("passed", time * 0.2),
        "call": phase("passed", time * 0.6),
        "teardown": phase("passed", time * 0.2),
    });
    match kind {
        Case::Pass => {}
        Case::Skip(reason) => {
            let at = format!("/home/user/project/{file}");
            test["outcome"] = "skipped".into();
            test["setup"] = serde_json::json!({
                "duration": time * 0.2, "outcome": "skipped",
                "longrepr": format!("('{at}', {}, 'Skipped: {reason}')", def_line + 2)
            });
            test.as_object_mut().expect("object").remove("call");
        }
        Case::Fail(message, longrepr, line, stdout) => {
            let crash_path = if line == 2 {
                "/home/user/project/app/orders.py".to_string()
            } else {
                format!("/home/user/project/{file}")
            };
            test["outcome"] = "failed".into();
            test["call"] = serde_json::json!({
                "duration": time * 0.6,
                "outcome": "failed",
                "crash": {"path": crash_path, "lineno": line, "message": message},
                "traceback": [{"path": file, "lineno": def_line + 3, "message": ""}],
                "stdout": stdout,
                "longrepr": longrepr,
            });
        }
    }
    test
}

/// Writes the 100,000-case pytest JUnit XML (xunit1, as `pytest-mcp run`
/// asks pytest for), its pytest-json-report twin and its CTRF twin (at
/// [`big_ctrf_path`]; same tests, same outcomes). Returns (xml, json).
pub fn big_reports(dir: &Path, cases: usize) -> (PathBuf, PathBuf) {
    fs::create_dir_all(dir).expect("create inputs dir");
    let xml_path = dir.join(format!("junit-{cases}.xml"));
    let json_path = dir.join(format!("report-{cases}.json"));
    let mut ctrf_tests = Vec::with_capacity(cases);
    let failures = (0..cases).filter(|i| i % 100 == 37).count();
    let skipped = (0..cases).filter(|i| i % 100 == 71).count();
    let mut xml = String::with_capacity(cases * 140);
    write!(
        xml,
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><testsuites name=\"pytest tests\"><testsuite name=\"pytest\" errors=\"0\" failures=\"{failures}\" skipped=\"{skipped}\" tests=\"{cases}\" time=\"{:.3}\" timestamp=\"2026-11-20T23:21:03.002368+00:00\" hostname=\"ci-runner\">",
        cases as f64 * 0.0012
    )
    .expect("write to string");
    let mut tests = Vec::with_capacity(cases);
    for i in 0..cases {
        let place = Place::of(i);
        let kind = case(i);
        junit_case(&mut xml, &place, &kind);
        let nodeid = format!("{}::TestCase::{}", place.file, place.name);
        ctrf_tests.push(ctrf_test(
            &nodeid,
            &place.file,
            place.def_line,
            place.time,
            &kind,
        ));
        tests.push(json_report_test(&nodeid, &place, i, kind));
    }
    xml.push_str("</testsuite></testsuites>");
    fs::write(&xml_path, xml).expect("write XML");

    let collectors: Vec<serde_json::Value> = (0..cases.div_ceil(100))
        .map(|m| {
            serde_json::json!({
                "nodeid": format!("tests/test_mod{m}.py"),
                "outcome": "passed",
                "result": [{"nodeid": format!("tests/test_mod{m}.py::TestCase"), "type": "Class"}],
            })
        })
        .collect();
    let report = serde_json::json!({
        "created": 1795216863.060422,
        "duration": cases as f64 * 0.0012,
        "exitcode": 1,
        "root": "/home/user/project",
        "environment": {},
        "summary": {"passed": cases - failures - skipped, "failed": failures, "skipped": skipped, "total": cases, "collected": cases},
        "collectors": collectors,
        "tests": tests,
    });
    fs::write(&json_path, serde_json::to_vec(&report).expect("serialize")).expect("write JSON");
    write_ctrf(&big_ctrf_path(dir, cases), ctrf_tests, failures, skipped);
    (xml_path, json_path)
}

/// The CTRF document of `tests`, as pytest-json-ctrf lays it out.
fn write_ctrf(path: &Path, tests: Vec<serde_json::Value>, failures: usize, skipped: usize) {
    let cases = tests.len();
    let ctrf = serde_json::json!({
        "reportFormat": "CTRF",
        "specVersion": "0.0.0",
        "results": {
            "tool": {"name": "pytest", "version": "9.2.0"},
            "summary": {"tests": cases, "passed": cases - failures - skipped, "failed": failures,
                "skipped": skipped, "pending": 0, "other": 0,
                "start": 1_795_216_863_000_u64, "stop": 1_795_216_863_000_u64 + (cases as u64 * 12 / 10)},
            "tests": tests,
        },
    });
    fs::write(path, serde_json::to_vec(&ctrf).expect("serialize")).expect("write CTRF");
}
