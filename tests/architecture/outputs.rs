//! The outputs stand apart (ARCHITECTURE.md, "One view, thin outputs"):
//! no file of one output's folder (`render/markdown/`, `render/gfm/`, ...)
//! names another output. What several of them show lives in the neutral
//! `render/view/` (the status, the counts phrase, a failure's lines, the
//! summary's keys) or in `text.rs`; ripgrep's printers never import each
//! other either.

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::source::{without_comments_and_strings, without_test_items};
use super::{module_path, names_after};

/// The outputs: each a folder of `render/`.
pub const OUTPUTS: [&str; 8] = [
    "markdown",
    "gfm",
    "html",
    "json",
    "structured",
    "github",
    "junit",
    "ctrf",
];

/// Every file of an output that names another output, as `render/gfm/x.rs
/// -> markdown`: through `crate::render::<output>`, a grouped `use
/// crate::render::{..}`, or `super::` paths that climb to `render`. Unit
/// tests aside (`#[cfg(test)]` items and files).
pub fn crossings(tree: &[(PathBuf, String)], test_files: &BTreeSet<Vec<String>>) -> Vec<String> {
    let mut found = Vec::new();
    for (file, text) in tree {
        let path = module_path(file);
        let own = match path.as_slice() {
            [render, output, ..] if render == "render" && OUTPUTS.contains(&output.as_str()) => {
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
        for other in named.iter().filter(|n| OUTPUTS.contains(&n.as_str())) {
            if other != own {
                found.push(format!("{} -> {other}", file.display()));
            }
        }
    }
    found
}
