//! The layering of the crate, checked on its source (ARCHITECTURE.md: the
//! data flows one way).
//!
//! Every `src/**/*.rs` file belongs to a top-level module (`src/render/
//! markdown.rs` to `render`). Its references to other top-level modules —
//! `crate::<module>` anywhere outside comments and string literals, and
//! `super::` paths that climb to the crate root — are the edges of a graph
//! that must have no cycle; renderers may use only the model and the text
//! helpers, and the model nothing but the text helpers. Unit tests
//! (`#[cfg(test)]` items, and the files of `#[cfg(test)] mod x;`) are left
//! out: they may drive a stage from a later one.
//!
//! Beyond src/: the files of each folder of a crate or module in tests/,
//! benches/, fuzz/ and testkit/ use one another one way too, and no
//! `#[path]` reaches out of its tree (tests, benches and fuzz targets share
//! code through the testkit crate, never by compiling each other's files).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[path = "architecture/outputs.rs"]
mod outputs;
#[path = "architecture/source.rs"]
mod source;
use source::{is_ident, test_modules, without_comments_and_strings, without_test_items};

/// The crate's top-level modules.
const MODULES: [&str; 11] = [
    "budget",
    "frontend",
    "history",
    "model",
    "plan",
    "pytest_text",
    "render",
    "request",
    "runner",
    "sources",
    "text",
];

/// What each module may use, when the rule is narrower than "no cycle".
const ALLOWED: [(&str, &[&str]); 5] = [
    ("history", &["model", "text"]),
    // The planner is a pure function of plain data (docs/sharding.md).
    ("plan", &[]),
    ("render", &["model", "text", "pytest_text", "budget"]),
    ("model", &["text", "pytest_text"]),
    ("budget", &["text"]),
];

type Graph = BTreeMap<String, BTreeSet<String>>;

#[test]
fn top_level_modules_form_no_cycle_and_renderers_see_only_the_model() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = graph_of(&read_tree(&src));
    for module in MODULES {
        assert!(graph.contains_key(module), "no file of {module} was read");
    }
    // Not vacuous: the frontends reach every stage.
    for used in ["request", "runner", "sources", "render", "model"] {
        assert!(graph["frontend"].contains(used), "{graph:?}");
    }
    assert_eq!(broken_rules(&graph), Vec::<String>::new());
}

/// The checks catch what they are for: a renderer reaching into the runner
/// (even through a grouped `use` or a `super::` path), the model into the
/// sources, and a cycle; comments, strings and unit tests do not count.
#[test]
fn the_checks_catch_a_renderer_using_the_runner() {
    let clean = [
        ("model/mod.rs", "pub struct Run; // crate::runner::x\n"),
        (
            "render/markdown.rs",
            "use crate::model::Run;\nconst S: &str = \"crate::runner\";\n\
             #[cfg(test)]\nmod tests { use crate::runner::execute; }\n",
        ),
        ("runner/mod.rs", "use crate::model::Run;\n"),
        ("frontend/mod.rs", "use crate::{render, runner};\n"),
    ];
    let graph = graph_of(&files(&clean));
    assert_eq!(broken_rules(&graph), Vec::<String>::new(), "{graph:?}");
    for (file, bad) in [
        (
            "render/markdown.rs",
            "use crate::runner::execute::ExecError;",
        ),
        ("render/markdown.rs", "use crate::{model, runner::params};"),
        ("render/outcome.rs", "use super::super::runner::Settings;"),
        ("render/mod.rs", "fn f() { crate::sources::read(); }"),
        ("model/mod.rs", "use crate::sources::events::Item;"),
        ("runner/mod.rs", "use crate::frontend::respond;"),
    ] {
        let mut tree = files(&clean);
        tree.push((PathBuf::from(file), bad.to_string()));
        let broken = broken_rules(&graph_of(&tree));
        assert!(!broken.is_empty(), "{file}: {bad} went unnoticed");
    }
}

/// Inside each folder the files depend one way: a file's references to its
/// siblings (`super::x`, `crate::<folder>::x`; the folder's `mod.rs` aside,
/// which declares them) form no cycle.
#[test]
fn the_files_of_each_folder_form_no_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let folders = sibling_graphs(&read_tree(&src), &[]);
    // Not vacuous: the Markdown renderer's files use one another.
    let markdown = folders
        .get(&vec!["render".to_string(), "markdown".to_string()])
        .expect("render/markdown is a folder");
    assert!(
        markdown.values().any(|used| !used.is_empty()),
        "{markdown:?}"
    );
    assert_eq!(cycles_of(&folders), Vec::<String>::new());
}

/// The same outside src/: each folder under tests/, benches/, fuzz/ and
/// testkit/ that is a crate's (`main.rs`, `lib.rs`) or a module's
/// (`mod.rs`), read with its subfolders.
#[test]
fn the_files_of_each_folder_of_tests_benches_and_fuzz_form_no_cycle() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cycles = Vec::new();
    let mut checked = BTreeMap::new();
    for top in ["tests", "benches", "fuzz", "testkit"] {
        for (dir, at) in module_folders(&repo.join(top)) {
            let folders = sibling_graphs(&read_tree(&dir), &at);
            let name = dir.strip_prefix(repo).expect("in the repository");
            let name = name.display().to_string();
            cycles.extend(cycles_of(&folders).iter().map(|c| format!("{name}: {c}")));
            checked.insert(name, folders);
        }
    }
    for needed in [
        "benches/perf",
        "fuzz/src",
        "testkit/src",
        "tests/common",
        "tests/runner",
    ] {
        assert!(
            checked.contains_key(needed),
            "{needed} not read: {checked:?}"
        );
    }
    // Not vacuous: the harness's sections use one another.
    let perf = &checked["benches/perf"][&Vec::<String>::new()];
    assert!(perf["token_cost"].contains("context"), "{perf:?}");
    assert_eq!(cycles, Vec::<String>::new());
}

/// The check finds a circle between the files of a crate's root folder
/// (`crate::x`, `super::x` from a top-level file) and of a module folder
/// that is not at the crate's root (`crate::common::x`).
#[test]
fn a_circle_in_a_bench_or_a_test_module_is_found() {
    let one_way = [
        ("main.rs", "mod context;\nmod proc;\nmod token_cost;\n"),
        ("proc.rs", "pub fn stdout_of() {}\n"),
        ("context.rs", "use crate::proc::stdout_of;\n"),
        ("token_cost.rs", "use crate::context::shortened;\n"),
    ];
    let root = Vec::<String>::new();
    assert_eq!(
        find_cycle(&sibling_graphs(&files(&one_way), &[])[&root]),
        None
    );
    for back in [
        "use crate::token_cost::{stdout_of, tokens};",
        "fn f() { super::token_cost::run(); }",
    ] {
        let mut tree = files(&one_way);
        tree.push((PathBuf::from("context.rs"), back.to_string()));
        let graphs = sibling_graphs(&tree, &[]);
        assert!(
            find_cycle(&graphs[&root]).is_some(),
            "{back} went unnoticed"
        );
    }
    let common = [
        ("mod.rs", "pub mod support;\npub mod tokens;\n"),
        ("tokens.rs", "use super::support::corpus_dir;\n"),
        ("support.rs", "use crate::common::tokens::count;\n"),
    ];
    let graphs = sibling_graphs(&files(&common), &["common".to_string()]);
    assert!(find_cycle(&graphs[&root]).is_some(), "{graphs:?}");
}

/// Tests, benches and fuzz targets compile no file of one another: a
/// `#[path]` stays inside its own top folder (tests/runner/main.rs may take
/// `../common/mod.rs`, tests/gfm.rs may not take `../benches/...`).
#[test]
fn no_path_attribute_leaves_its_tree() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut seen = 0;
    let mut outside = Vec::new();
    for top in ["src", "tests", "benches", "fuzz", "testkit"] {
        for (file, text) in read_tree(&repo.join(top)) {
            for target in path_attributes(&text) {
                seen += 1;
                if !stays_inside(&file, &target) {
                    outside.push(format!("{top}/{}: {target}", file.display()));
                }
            }
        }
    }
    assert!(seen > 0, "no #[path] found at all: the scan is broken");
    assert_eq!(outside, Vec::<String>::new());
    let planted = "#[path = \"../benches/perf/inputs.rs\"]\nmod inputs;\n";
    assert_eq!(path_attributes(planted), ["../benches/perf/inputs.rs"]);
    assert!(!stays_inside(
        Path::new("gfm.rs"),
        "../benches/perf/inputs.rs"
    ));
    assert!(stays_inside(
        Path::new("runner/main.rs"),
        "../common/mod.rs"
    ));
    assert!(!stays_inside(
        Path::new("runner/main.rs"),
        "../../fuzz/src/x.rs"
    ));
}

/// Unit tests one way (ARCHITECTURE.md, "Tests and goldens"): a module's
/// tests are the file `tests.rs` in its folder, declared last as
/// `#[cfg(test)] mod tests;`: no inline test module, no `#[path]` in
/// `src/`, and every `tests.rs` is some module's.
#[test]
fn unit_tests_live_in_the_modules_folder() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let tree = read_tree(&src);
    let mut broken = Vec::new();
    let mut declared = BTreeSet::new();
    for (file, text) in &tree {
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for (i, line) in lines.iter().enumerate() {
            if line.starts_with("#[path") || line.starts_with("mod tests {") {
                broken.push(format!("{}: {line}", file.display()));
            }
            if *line == "mod tests;" {
                if i == 0 || lines[i - 1] != "#[cfg(test)]" {
                    broken.push(format!(
                        "{}: mod tests; without #[cfg(test)]",
                        file.display()
                    ));
                }
                declared.insert(tests_file_of(file));
            }
        }
    }
    for (file, _) in &tree {
        if file.file_name().is_some_and(|n| n == "tests.rs") && !declared.contains(file) {
            broken.push(format!("{}: no module declares it", file.display()));
        }
    }
    assert!(declared.len() > 20, "{declared:?}: the scan is broken");
    assert_eq!(broken, Vec::<String>::new());
    assert_eq!(
        tests_file_of(Path::new("render/gfm/mod.rs")),
        Path::new("render/gfm/tests.rs")
    );
    assert_eq!(
        tests_file_of(Path::new("text.rs")),
        Path::new("text/tests.rs")
    );
}

/// Where `mod tests;` in `file` finds its file: `a/tests.rs` for
/// `a/mod.rs`, `a/foo/tests.rs` for `a/foo.rs`.
fn tests_file_of(file: &Path) -> PathBuf {
    let folder = file.parent().unwrap_or(Path::new(""));
    match file.file_stem().and_then(|s| s.to_str()) {
        Some("mod") | Some("lib") | None => folder.join("tests.rs"),
        Some(stem) => folder.join(stem).join("tests.rs"),
    }
}

/// The values of the `#[path = "..."]` attributes of a file.
fn path_attributes(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("#[path"))
        .filter_map(|rest| rest.split('"').nth(1))
        .map(str::to_string)
        .collect()
}

/// Whether `target`, relative to the folder of `file` (itself relative to
/// the top folder), stays inside the top folder.
fn stays_inside(file: &Path, target: &str) -> bool {
    let mut depth = file.components().count() as i64 - 1;
    for part in Path::new(target).components() {
        match part {
            std::path::Component::ParentDir => depth -= 1,
            std::path::Component::Normal(_) => depth += 1,
            std::path::Component::CurDir => {}
            _ => return false,
        }
        if depth < 0 {
            return false;
        }
    }
    true
}

/// Every folder under `top` that is a crate's (it has `main.rs` or
/// `lib.rs`: its files are at the crate's root) or a module's (`mod.rs`:
/// its files are in the module named after the folder).
fn module_folders(top: &Path) -> Vec<(PathBuf, Vec<String>)> {
    let mut out = Vec::new();
    let mut pending = vec![top.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() && !skipped(&path) {
                pending.push(path);
            }
        }
        if dir.join("main.rs").is_file() || dir.join("lib.rs").is_file() {
            out.push((dir, Vec::new()));
        } else if dir.join("mod.rs").is_file() {
            let name = dir.file_name().expect("a folder name");
            out.push((dir.clone(), vec![name.to_string_lossy().into_owned()]));
        }
    }
    out.sort();
    out
}

/// Each folder's cycle, if it has one, as `folder: a -> b -> a`.
fn cycles_of(folders: &BTreeMap<Vec<String>, Graph>) -> Vec<String> {
    folders
        .iter()
        .filter_map(|(folder, graph)| {
            find_cycle(graph).map(|c| format!("{}/: {}", folder.join("/"), c.join(" -> ")))
        })
        .collect()
}

/// The check finds a circle between two files of a folder, through
/// `super::` or `crate::` paths, grouped or not.
#[test]
fn a_circle_inside_a_folder_is_found() {
    let one_way = [
        ("model/mod.rs", "pub mod crash;\npub mod groups;\n"),
        ("model/crash.rs", "pub fn line() {}\n"),
        ("model/groups.rs", "use super::crash::line;\n"),
    ];
    let graphs = sibling_graphs(&files(&one_way), &[]);
    assert_eq!(find_cycle(&graphs[&vec!["model".to_string()]]), None);
    for back in [
        "use super::groups::shape;",
        "use super::{groups, outcome};",
        "fn f() { crate::model::groups::shape(); }",
    ] {
        let mut tree = files(&one_way);
        tree.push((PathBuf::from("model/crash.rs"), back.to_string()));
        let graphs = sibling_graphs(&tree, &[]);
        assert!(
            find_cycle(&graphs[&vec!["model".to_string()]]).is_some(),
            "{back} went unnoticed"
        );
    }
}

/// Per folder (module path, relative to the tree's root), the graph of its
/// files' uses of one another; the root folder's files included. `at` is
/// the module path of the tree's root in its crate (`[]` for a crate's own
/// folder, `[common]` for tests/common/).
fn sibling_graphs(tree: &[(PathBuf, String)], at: &[String]) -> BTreeMap<Vec<String>, Graph> {
    let code: Vec<(Vec<String>, bool, String)> = tree
        .iter()
        .map(|(file, text)| {
            let is_mod = file.file_name().is_some_and(|n| n == "mod.rs");
            (
                module_path(file),
                is_mod,
                without_comments_and_strings(text),
            )
        })
        .collect();
    let mut test_files: BTreeSet<Vec<String>> = BTreeSet::new();
    for (path, _, text) in &code {
        for name in test_modules(text) {
            let mut p = path.clone();
            p.push(name);
            test_files.insert(p);
        }
    }
    let mut folders: BTreeMap<Vec<String>, Graph> = BTreeMap::new();
    for (path, is_mod, _) in &code {
        if !is_mod && !path.is_empty() && !test_files.contains(path) {
            let folder = path[..path.len() - 1].to_vec();
            let name = path[path.len() - 1].clone();
            folders.entry(folder).or_default().entry(name).or_default();
        }
    }
    for (path, is_mod, text) in &code {
        if *is_mod || path.is_empty() || test_files.contains(path) {
            continue;
        }
        let folder = path[..path.len() - 1].to_vec();
        let name = &path[path.len() - 1];
        let Some(graph) = folders.get_mut(&folder) else {
            continue;
        };
        let siblings: BTreeSet<String> = graph.keys().cloned().collect();
        let text = without_test_items(text);
        let mut prefixes = vec!["super::".to_string()];
        let full: Vec<&str> = at.iter().chain(&folder).map(String::as_str).collect();
        prefixes.push(if full.is_empty() {
            "crate::".to_string()
        } else {
            format!("crate::{}::", full.join("::"))
        });
        let mut used = BTreeSet::new();
        for prefix in &prefixes {
            used.extend(names_after(&text, prefix));
        }
        let edges = graph.entry(name.clone()).or_default();
        for other in used {
            if other != *name && siblings.contains(&other) {
                edges.insert(other);
            }
        }
    }
    folders
}

/// The first names after each `prefix` (not itself part of a longer
/// path): `prefix::x` gives `x`, `prefix::{x, y::z}` gives `x` and `y`.
fn names_after(code: &str, prefix: &str) -> BTreeSet<String> {
    let bytes = code.as_bytes();
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices(prefix) {
        let before = at.checked_sub(1).map(|b| bytes[b] as char);
        if before.is_some_and(|c| is_ident(c) || c == ':') {
            continue;
        }
        let rest = code[at + prefix.len()..].trim_start();
        match rest.strip_prefix('{') {
            Some(group) => found.extend(group_heads(group)),
            None => {
                found.insert(rest.chars().take_while(|&c| is_ident(c)).collect());
            }
        }
    }
    found
}

fn files(list: &[(&str, &str)]) -> Vec<(PathBuf, String)> {
    list.iter()
        .map(|(p, s)| (PathBuf::from(p), s.to_string()))
        .collect()
}

/// Every `.rs` file under `dir`, with its path relative to `dir`.
fn read_tree(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d)
            .expect("the tree is readable")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                if !skipped(&path) {
                    pending.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("a source file is text");
                let relative = path
                    .strip_prefix(dir)
                    .expect("under the tree")
                    .to_path_buf();
                out.push((relative, text));
            }
        }
    }
    assert!(!out.is_empty(), "no file under {}", dir.display());
    out
}

/// Folders of data or build output, not of sources: fixtures, fuzz
/// corpora, cargo's and npm's output.
fn skipped(dir: &Path) -> bool {
    ["fixtures", "target", "corpus", "artifacts", "node_modules"]
        .iter()
        .any(|name| dir.ends_with(name))
}

/// The module path of a file: `render/outcome.rs` is `[render, outcome]`,
/// `render/mod.rs` is `[render]`, `lib.rs` is `[]`.
fn module_path(file: &Path) -> Vec<String> {
    let mut parts: Vec<String> = file
        .iter()
        .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

fn graph_of(tree: &[(PathBuf, String)]) -> Graph {
    let code: Vec<(Vec<String>, String)> = tree
        .iter()
        .map(|(file, text)| (module_path(file), without_comments_and_strings(text)))
        .collect();
    // `#[cfg(test)] mod x;` makes the file of `x` test code.
    let mut test_files: BTreeSet<Vec<String>> = BTreeSet::new();
    for (path, text) in &code {
        for name in test_modules(text) {
            let mut p = path.clone();
            p.push(name);
            test_files.insert(p);
        }
    }
    let mut graph = Graph::new();
    for (path, text) in &code {
        let Some(top) = path.first() else { continue };
        if test_files.iter().any(|t| path.starts_with(t)) {
            continue;
        }
        let used = graph.entry(top.clone()).or_default();
        for module in references(&without_test_items(text), path.len()) {
            if module != *top && MODULES.contains(&module.as_str()) {
                used.insert(module);
            }
        }
    }
    graph
}

/// Every rule the graph breaks, as a sentence.
fn broken_rules(graph: &Graph) -> Vec<String> {
    let mut broken = Vec::new();
    for (module, allowed) in ALLOWED {
        for used in graph.get(module).into_iter().flatten() {
            if !allowed.contains(&used.as_str()) {
                broken.push(format!("{module} uses {used} (only {allowed:?})"));
            }
        }
    }
    if let Some(cycle) = find_cycle(graph) {
        broken.push(format!("cycle: {}", cycle.join(" -> ")));
    }
    broken
}

fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        graph: &Graph,
        node: &str,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|n| n == node) {
            let mut cycle = stack[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(graph, next, stack, done) {
                return Some(cycle);
            }
        }
        stack.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(graph, node, &mut Vec::new(), &mut done))
}

/// Top-level modules named by `crate::x`, `crate::{x, y::z}` and by
/// `super::` paths that climb `depth` levels (to the crate root).
fn references(code: &str, depth: usize) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let bytes = code.as_bytes();
    let mut starts: Vec<usize> = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let before = at.checked_sub(1).map(|b| bytes[b] as char);
        if !before.is_some_and(|c| is_ident(c) || c == '$') {
            starts.push(at + "crate::".len());
        }
    }
    if depth > 0 {
        let climb = "super::".repeat(depth);
        for (at, _) in code.match_indices(&climb) {
            let before = at.checked_sub(1).map(|b| bytes[b] as char);
            if !before.is_some_and(|c| is_ident(c) || c == ':') {
                starts.push(at + climb.len());
            }
        }
    }
    for start in starts {
        let rest = code[start..].trim_start();
        match rest.strip_prefix('{') {
            Some(group) => found.extend(group_heads(group)),
            None => {
                found.insert(rest.chars().take_while(|&c| is_ident(c)).collect());
            }
        }
    }
    found
}

/// The first name of each path in a `use` group: `{model::Run, text}` gives
/// `model` and `text`.
fn group_heads(group: &str) -> Vec<String> {
    let mut pieces = vec![String::new()];
    let mut depth = 0usize;
    for c in group.chars() {
        match c {
            '}' if depth == 0 => break,
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                pieces.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(piece) = pieces.last_mut() {
            piece.push(c);
        }
    }
    pieces
        .iter()
        .map(|p| {
            p.trim_start()
                .chars()
                .take_while(|&c| is_ident(c))
                .collect()
        })
        .filter(|name: &String| !name.is_empty())
        .collect()
}
