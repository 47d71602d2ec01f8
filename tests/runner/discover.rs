//! `pytest-mcp discover` against pytest's own collection.

use super::*;
use crate::common::headline::{Verdict, discover_start};

// ---------------------------------------------------------------------------
// discover
// ---------------------------------------------------------------------------

/// The test ids `pytest --collect-only -q` prints.
fn collected_ids(project: &Project, extra: &[&str]) -> BTreeSet<String> {
    let mut args = vec!["--collect-only", "-q"];
    args.extend_from_slice(extra);
    let answer = plain_pytest(project, &python(), &args);
    String::from_utf8_lossy(&answer.stdout)
        .lines()
        .filter(|l| l.contains("::") && !l.starts_with(' '))
        .map(str::to_string)
        .collect()
}

/// pytest's ids by test function, as discovery answers them: a
/// parametrized function's id (the id before its parameters, which pytest
/// accepts and which runs them all) with its number of cases, a plain
/// test's own id with 1.
fn by_function(ids: &BTreeSet<String>) -> BTreeMap<String, u64> {
    let mut out: BTreeMap<String, u64> = BTreeMap::new();
    for id in ids {
        let after_file = id.find("::").map_or(0, |i| i + 2);
        let function = match id[after_file..].find('[') {
            Some(at) if id.ends_with(']') => &id[..after_file + at],
            _ => id.as_str(),
        };
        *out.entry(function.to_string()).or_default() += 1;
    }
    out
}

/// The JSON discovery's entries as [`by_function`] shows pytest's ids:
/// `node_id` and `cases` (1 without). A parametrized entry's `case_ids`
/// must be its first cases as pytest collected them.
fn json_functions(value: &Value, collected: &BTreeSet<String>) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for t in value["tests"].as_array().expect("tests") {
        let id = t["node_id"].as_str().expect("node_id").to_string();
        let cases = t["cases"].as_u64().unwrap_or(1);
        if t.get("cases").is_some() {
            let shown = t["case_ids"].as_array().expect("case_ids");
            assert!(!shown.is_empty() && shown.len() as u64 <= cases, "{t}");
            for case in shown {
                let case = case.as_str().expect("a case id");
                assert!(case.starts_with(&format!("{id}[")), "{t}");
                assert!(
                    collected.contains(case),
                    "{case} is not an id pytest collected"
                );
            }
        }
        assert!(out.insert(id, cases).is_none(), "{t} listed twice");
    }
    out
}

/// 1-based numbers of the lines that define function `name`.
fn def_lines(source: &str, name: &str) -> Vec<u64> {
    let wanted = [format!("def {name}("), format!("async def {name}(")];
    source
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            wanted
                .iter()
                .any(|w| l.trim_start().starts_with(w.as_str()))
        })
        .map(|(i, _)| i as u64 + 1)
        .collect()
}

/// Checks every discovered item against the project's files. With
/// `exact_def`, `line` must be the `def` line even for decorated tests.
fn check_items(project: &Project, value: &Value, exact_def: bool) -> Vec<String> {
    let mut problems = Vec::new();
    let items = value["tests"].as_array().expect("tests");
    let cases: u64 = items.iter().map(|t| t["cases"].as_u64().unwrap_or(1)).sum();
    assert_eq!(value["count"], cases, "count is every case of every entry");
    for item in items {
        let id = item["node_id"].as_str().expect("node_id");
        let file = item["file"].as_str().expect("file");
        let function = item["function"].as_str().expect("function");
        let line = item["line"].as_u64().expect("line");
        if !id.starts_with(&format!("{file}::")) {
            problems.push(format!("{id}: file {file}"));
        }
        let module = item["module"].as_str().unwrap_or("");
        let stem = Path::new(file)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("");
        if module.rsplit('.').next() != Some(stem) {
            problems.push(format!("{id}: module {module:?}"));
        }
        let parts: Vec<&str> = id.split("::").collect();
        let last = parts.last().copied().unwrap_or("");
        let base = last.split('[').next().unwrap_or(last);
        if function != base {
            problems.push(format!("{id}: function {function}"));
        }
        let class = if parts.len() > 2 {
            Some(parts[1])
        } else {
            None
        };
        if item["class"].as_str() != class {
            problems.push(format!("{id}: class {}", item["class"]));
        }
        let source = std::fs::read_to_string(project.root.join(file)).expect("test file");
        let defs = def_lines(&source, function);
        let Some(def) = defs.first().copied().filter(|_| defs.len() == 1) else {
            problems.push(format!("{id}: `def {function}` found at {defs:?}"));
            continue;
        };
        if exact_def {
            if line != def {
                problems.push(format!("{id}: line {line}, def at line {def}"));
            }
        } else {
            // The def line, or the first decorator above it (pytest's own
            // location for decorated functions).
            let at = source
                .lines()
                .nth(line.saturating_sub(1) as usize)
                .unwrap_or("");
            let at = at.trim_start();
            if line == 0 || line > def || !(line == def || at.starts_with('@')) {
                problems.push(format!("{id}: line {line} ({at:?}), def at {def}"));
            }
        }
    }
    problems
}

/// Markdown discovery: one `### <file>` heading per file, each test
/// function under its file as `- L<line> <rest of the id>`, with
/// ` — <n> cases` for a parametrized one: the same functions and counts as
/// the JSON.
fn check_markdown_groups(text: &str, value: &Value) {
    let mut headings: Vec<&str> = Vec::new();
    let mut listed: BTreeMap<String, u64> = BTreeMap::new();
    let mut current: Option<&str> = None;
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("### ") {
            if h.starts_with("COLLECTION ERROR") {
                current = None;
                continue;
            }
            assert!(!headings.contains(&h), "file {h} listed twice:\n{text}");
            headings.push(h);
            current = Some(h);
        } else if let (Some(file), Some(rest)) = (current, line.strip_prefix("- L")) {
            let (_, rest) = rest.split_once(' ').expect("`- L<line> <id>`");
            let (rest, cases) = match rest.rsplit_once(" — ") {
                Some((rest, n)) => {
                    let n = n.split(' ').next().unwrap_or("").replace(',', "");
                    (rest, n.parse().expect("`<n> cases`"))
                }
                None => (rest, 1),
            };
            listed.insert(format!("{file}::{rest}"), cases);
        }
    }
    let entries: BTreeMap<String, u64> = value["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| {
            let id = t["node_id"].as_str().unwrap_or("").to_string();
            (id, t["cases"].as_u64().unwrap_or(1))
        })
        .collect();
    assert_eq!(listed, entries, "Markdown functions by file:\n{text}");
    let files: BTreeSet<&str> = value["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .filter_map(|t| t["file"].as_str())
        .collect();
    assert_eq!(headings.len(), files.len(), "{text}");
}

#[test]
fn discover_collection_errors_are_data() {
    let project = Project::copy("collection_errors");
    let answer = discover(&project, &["--format", "json"]);
    let value = answer.json();
    assert_eq!(answer.status, Some(2), "{value}");
    let collected = collected_ids(&project, &[]);
    assert_eq!(json_functions(&value, &collected), by_function(&collected));
    let problems = check_items(&project, &value, false);
    assert!(problems.is_empty(), "{problems:#?}");
    let errors = value["collection_errors"].as_array().expect("errors");
    let by_file: BTreeMap<&str, &Value> = errors
        .iter()
        .map(|e| (e["file"].as_str().unwrap_or(""), e))
        .collect();
    assert_eq!(
        by_file.keys().copied().collect::<Vec<_>>(),
        ["tests/test_import_error.py", "tests/test_syntax_error.py"]
    );
    let import = by_file["tests/test_import_error.py"];
    assert_eq!(import["error_type"], "ImportError");
    assert_eq!(import["line"], 1);
    assert!(
        import["message"]
            .as_str()
            .unwrap_or("")
            .contains("does_not_exist")
    );
    let syntax = by_file["tests/test_syntax_error.py"];
    assert_eq!(syntax["error_type"], "SyntaxError");
    assert_eq!(syntax["line"], 6);

    let answer = discover(&project, &[]);
    let text = answer.text();
    assert_eq!(answer.status, Some(2), "{text}");
    assert!(
        text.contains("### COLLECTION ERROR: tests/test_import_error.py"),
        "{text}"
    );
    assert!(
        text.contains("### COLLECTION ERROR: tests/test_syntax_error.py"),
        "{text}"
    );
    check_markdown_groups(&text, &value);
}

#[test]
fn discover_lists_every_item_of_a_project() {
    let project = Project::copy("mixed");
    let answer = discover(&project, &["--format", "json"]);
    let value = answer.json();
    assert_eq!(answer.status, Some(0), "{value}");
    let collected = collected_ids(&project, &[]);
    assert_eq!(json_functions(&value, &collected), by_function(&collected));
    assert_eq!(value["collection_errors"], serde_json::json!([]));
    let problems = check_items(&project, &value, false);
    assert!(problems.is_empty(), "{problems:#?}");
    let class_item = value["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .find(|t| {
            t["node_id"] == "tests/test_catalog.py::TestAvailability::test_initial_availability"
        })
        .expect("a method");
    assert_eq!(class_item["class"], "TestAvailability");
    assert_eq!(class_item["line"], 107);

    let answer = discover(&project, &[]);
    let text = answer.text();
    assert_eq!(answer.status, Some(0), "{text}");
    assert!(
        text.starts_with(&discover_start(Verdict::Success)),
        "{text}"
    );
    check_markdown_groups(&text, &value);
}

#[test]
fn discover_lines_are_the_def_lines() {
    let project = Project::copy("mixed");
    let value = discover(&project, &["--format", "json"]).json();
    let problems = check_items(&project, &value, true);
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn discover_pattern_narrows_the_files() {
    let project = Project::copy("mixed");
    let answer = discover(&project, &["--format", "json", "--pattern", "test_isb*.py"]);
    let value = answer.json();
    assert_eq!(answer.status, Some(0), "{value}");
    let ids: BTreeSet<String> = value["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| t["node_id"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(!ids.is_empty());
    assert!(
        ids.iter().all(|id| id.starts_with("tests/test_isbn.py::")),
        "{ids:?}"
    );
    let collected = collected_ids(&project, &["-o", "python_files=test_isb*.py"]);
    assert_eq!(json_functions(&value, &collected), by_function(&collected));
    // A pattern matching nothing: no tests, exit 5.
    let answer = discover(&project, &["--format", "json", "--pattern", "nothing_*.py"]);
    let value = answer.json();
    assert_eq!(answer.status, Some(5), "{value}");
    assert_eq!(value["count"], 0);
}

#[test]
fn discover_path_limits_to_one_file() {
    let project = Project::copy("mixed");
    let answer = discover(
        &project,
        &["--format", "json", "--path", "tests/test_isbn.py"],
    );
    let value = answer.json();
    assert_eq!(answer.status, Some(0), "{value}");
    let ids: BTreeSet<String> = value["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| t["node_id"].as_str().unwrap_or("").to_string())
        .collect();
    let collected = collected_ids(&project, &["tests/test_isbn.py"]);
    assert_eq!(json_functions(&value, &collected), by_function(&collected));
    assert!(
        ids.iter().all(|id| id.starts_with("tests/test_isbn.py::")),
        "{ids:?}"
    );
    let problems = check_items(&project, &value, false);
    assert!(problems.is_empty(), "{problems:#?}");
    let answer = discover(&project, &["--path", "tests/test_isbn.py"]);
    let text = answer.text();
    assert!(text.contains("### tests/test_isbn.py"), "{text}");
    check_markdown_groups(&text, &value);
}
