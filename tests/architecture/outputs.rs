//! The outputs stand apart (ARCHITECTURE.md, "One view, thin outputs"):
//! no file of one output's folder (`render/markdown/`, `render/gfm/`, ...)
//! names another output. What several of them show lives in the neutral
//! `render/view/` (the status, the counts phrase, a failure's lines, the
//! summary's keys) or in `text.rs`; ripgrep's printers never import each
//! other either.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use pytest_mcp::request::OutputFormat;

use super::source::{test_modules, without_comments_and_strings, without_test_items};
use super::{files, module_path, names_after, read_tree};

/// The folder of `render/` that holds each output format: an exhaustive
/// match, so a new format does not compile here until it names its own.
fn folder(format: OutputFormat) -> &'static str {
    match format {
        OutputFormat::Markdown => "markdown",
        OutputFormat::Json => "json",
        OutputFormat::Html => "html",
        OutputFormat::Junit => "junit",
        OutputFormat::Ctrf => "ctrf",
        OutputFormat::Github => "github",
        OutputFormat::Gfm => "gfm",
    }
}

/// The outputs, each a folder of `render/`: one per output format, and
/// the tools' structured results (no `--format` of its own).
pub fn outputs() -> Vec<&'static str> {
    let mut out: Vec<&str> = OutputFormat::all().iter().map(|&f| folder(f)).collect();
    out.push("structured");
    out
}

/// Every file of an output that names another output, as `render/gfm/x.rs
/// -> markdown`: through `crate::render::<output>`, a grouped `use
/// crate::render::{..}`, or `super::` paths that climb to `render`. Unit
/// tests aside (`#[cfg(test)]` items and files).
pub fn crossings(tree: &[(PathBuf, String)], test_files: &BTreeSet<Vec<String>>) -> Vec<String> {
    let outputs = outputs();
    let mut found = Vec::new();
    for (file, text) in tree {
        let path = module_path(file);
        let own = match path.as_slice() {
            [render, output, ..] if render == "render" && outputs.contains(&output.as_str()) => {
                output.as_str()
            }
            _ => continue,
        };
        if test_files.contains(&path) {
            continue;
        }
        let code = without_test_items(&without_comments_and_strings(text));
        let mut named = names_after(&code, "crate::render::");
        // From render/<output>/x.rs, `super::super::` is `render::`.
        let climb = "super::".repeat(path.len() - 1);
        named.extend(names_after(&code, &climb));
        for other in named.iter().filter(|n| outputs.contains(&n.as_str())) {
            if other != own {
                found.push(format!("{} -> {other}", file.display()));
            }
        }
    }
    found
}

/// No output imports another (`render/markdown/`, `render/gfm/`, ...):
/// what several show is the view's, computed once.
#[test]
fn no_output_imports_another_output() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let tree = read_tree(&src);
    // Not vacuous: every output's folder was read.
    for output in outputs() {
        assert!(
            tree.iter()
                .any(|(f, _)| f.starts_with(Path::new("render").join(output))),
            "render/{output}/ not read"
        );
    }
    assert_eq!(crossings(&tree, &test_files(&tree)), Vec::<String>::new());
}

/// `render/` holds the view and one folder per output, no more: a format
/// has its folder, and a folder is a format's (or the structured results').
#[test]
fn render_holds_one_folder_per_output() {
    let render = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/render");
    let mut folders: Vec<String> = std::fs::read_dir(&render)
        .expect("src/render")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name != "view")
        .collect();
    folders.sort();
    let mut expected: Vec<String> = outputs().iter().map(|s| s.to_string()).collect();
    expected.sort();
    assert_eq!(folders, expected);
}

/// The check catches an output importing another, however it is written;
/// the view, comments, strings and unit tests do not count.
#[test]
fn an_output_importing_another_is_caught() {
    let clean = [
        (
            "render/mod.rs",
            "pub mod gfm;\npub mod markdown;\npub mod view;\n",
        ),
        (
            "render/gfm/mod.rs",
            "use crate::render::view::status; // crate::render::markdown\n\
             const S: &str = \"super::markdown\";\n#[cfg(test)]\nmod tests;\n",
        ),
        (
            "render/gfm/tests.rs",
            "use crate::render::markdown::render;\n",
        ),
        ("render/markdown/mod.rs", "use super::view;\n"),
    ];
    let tree = files(&clean);
    assert_eq!(crossings(&tree, &test_files(&tree)), Vec::<String>::new());
    for (file, bad) in [
        (
            "render/gfm/sections.rs",
            "use crate::render::markdown::clip;",
        ),
        (
            "render/gfm/sections.rs",
            "use crate::render::{markdown::clip, view};",
        ),
        (
            "render/gfm/sections.rs",
            "fn f() { super::super::json::text(); }",
        ),
        ("render/gfm/mod.rs", "use super::html;"),
        (
            "render/markdown/error/x.rs",
            "use super::super::super::structured::Status;",
        ),
    ] {
        let mut tree = files(&clean);
        tree.push((PathBuf::from(file), bad.to_string()));
        let found = crossings(&tree, &test_files(&tree));
        assert!(!found.is_empty(), "{file}: {bad} went unnoticed");
    }
}

/// The module paths of the files `#[cfg(test)] mod x;` declares.
fn test_files(tree: &[(PathBuf, String)]) -> BTreeSet<Vec<String>> {
    let mut out = BTreeSet::new();
    for (file, text) in tree {
        for name in test_modules(&without_comments_and_strings(text)) {
            let mut path = module_path(file);
            path.push(name);
            out.insert(path);
        }
    }
    out
}
