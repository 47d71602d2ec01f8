//! The README is a front page (under 300 lines) and the reference is in
//! `docs/`: every link between them and the other Markdown files of the
//! repository resolves, to a file that exists and, with a `#fragment`, to
//! a heading of it as GitHub makes its anchors. Links to other sites are
//! not fetched (no network in a test).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files a reader follows links through.
fn documents() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = [
        "README.md",
        "ARCHITECTURE.md",
        "BENCHMARKS.md",
        "SECURITY.md",
        "CHANGELOG.md",
        "RELEASING.md",
    ]
    .iter()
    .map(|f| repo().join(f))
    .collect();
    let docs = std::fs::read_dir(repo().join("docs")).expect("docs/");
    let mut pages: Vec<PathBuf> = docs
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    assert!(pages.len() >= 5, "the reference is a few files: {pages:?}");
    files.extend(pages);
    files
}

/// The text outside code blocks and code spans, line by line.
fn prose(text: &str) -> Vec<String> {
    let mut fence = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        // Drop `code spans`: what is between backticks is not a link.
        let mut kept = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                kept.push_str(part);
            }
        }
        out.push(kept);
    }
    out
}

/// GitHub's anchor of a heading: lower case, punctuation but `-` and `_`
/// dropped, spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown file's headings (code spans kept in them, as
/// GitHub keeps their text).
fn anchors(file: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let mut fence = false;
    let mut out = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
            continue;
        }
        if !fence && line.starts_with('#') {
            let heading = line.trim_start_matches('#');
            if heading.starts_with(' ') {
                out.insert(slug(heading));
            }
        }
    }
    out
}

/// Every `[text](target)` link target of `line`.
fn targets(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find("](") {
        let after = &rest[start + 2..];
        match after.find(')') {
            Some(end) => {
                out.push(after[..end].to_string());
                rest = &after[end..];
            }
            None => break,
        }
    }
    out
}

#[test]
fn the_readme_is_a_front_page() {
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    let lines = readme.lines().count();
    assert!(lines < 300, "README.md has {lines} lines");
    for section in [
        "## Install",
        "## Quick start",
        "## A short tour",
        "## Documentation",
    ] {
        assert!(readme.contains(&format!("\n{section}\n")), "{section}");
    }
    // The quick start's two commands, which .ci/run runs on a fresh clone.
    assert!(readme.contains("bash scripts/demo.sh "), "the demo command");
    assert!(readme.contains("bash scripts/test.sh "), "the test command");
    let ci = std::fs::read_to_string(repo().join(".ci/run")).expect(".ci/run");
    assert!(ci.contains("bash scripts/demo.sh\n") && ci.contains("bash scripts/test.sh\n"));
}

#[test]
fn every_link_in_the_readme_and_the_docs_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in documents() {
        let text = std::fs::read_to_string(&file).expect("read");
        let dir = file.parent().expect("a directory").to_path_buf();
        for line in prose(&text) {
            for target in targets(&line) {
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                checked += 1;
                let (path, fragment) = target.split_once('#').unwrap_or((&target, ""));
                let goal = if path.is_empty() {
                    file.clone()
                } else {
                    dir.join(path)
                };
                let shown = file.strip_prefix(repo()).unwrap_or(&file).display();
                if !goal.exists() {
                    broken.push(format!("{shown}: {target}: no such file"));
                } else if !fragment.is_empty() && !anchors(&goal).contains(fragment) {
                    broken.push(format!("{shown}: {target}: no such heading"));
                }
            }
        }
    }
    assert!(checked > 30, "only {checked} links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The checker can fail: a missing file and a missing heading are found.
#[test]
fn the_link_checker_finds_what_is_broken() {
    assert_eq!(targets("see [a](b.md#c) and [d](#e)"), ["b.md#c", "#e"]);
    assert_eq!(
        slug(" The PR comment and the job summary (gfm)"),
        "the-pr-comment-and-the-job-summary-gfm"
    );
    assert_eq!(
        slug(" Using `run` and `discover`"),
        "using-run-and-discover"
    );
    assert!(anchors(&repo().join("README.md")).contains("install"));
    assert!(!anchors(&repo().join("README.md")).contains("no-such-heading"));
    assert_eq!(prose("a `[x](y)` b"), ["a  b"]);
}

/// Every document a comment in `src/` cites is in the repository: a
/// `NAME.md` or `docs/NAME.md` named in a comment exists, and an ADR cited
/// by number (`ADR-006`) has a page whose title names it.
#[test]
fn the_documents_the_code_cites_are_in_the_repository() {
    let mut titles = String::new();
    for page in documents() {
        let text = std::fs::read_to_string(&page).expect("a document");
        titles.extend(
            text.lines()
                .filter(|l| l.starts_with('#'))
                .map(|l| format!("{l}\n")),
        );
    }
    let mut cited = BTreeSet::new();
    let mut missing = Vec::new();
    let mut files = vec![repo().join("src")];
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(
                std::fs::read_dir(&path)
                    .expect("src/")
                    .map(|e| e.expect("entry").path()),
            );
            continue;
        }
        if path.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a source file");
        for comment in text
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("//"))
        {
            for name in cited_documents(comment) {
                let found = if name.starts_with("ADR-") {
                    titles.contains(&format!("({name})"))
                } else {
                    repo().join(&name).is_file()
                };
                if !found {
                    missing.push(format!("{}: {name}", path.display()));
                }
                cited.insert(name);
            }
        }
    }
    assert!(
        cited.contains("ADR-006") && cited.contains("ARCHITECTURE.md"),
        "{cited:?}"
    );
    assert_eq!(missing, Vec::<String>::new());
    assert_eq!(
        cited_documents("see docs/errors.md, SPEC.md and ADR-007's table."),
        ["docs/errors.md", "SPEC.md", "ADR-007"]
    );
}

/// The documents a comment names: `*.md` paths and `ADR-NNN` numbers.
fn cited_documents(comment: &str) -> Vec<String> {
    let words = comment.split(|c: char| c.is_whitespace() || "(),;:`'\"[]".contains(c));
    words
        .map(|w| w.trim_end_matches(['.', ',']))
        .map(|w| w.strip_suffix("'s").unwrap_or(w))
        .filter(|w| {
            w.ends_with(".md") && !w.contains('*') && !w.starts_with("http")
                || w.len() == 7
                    && w.starts_with("ADR-")
                    && w[4..].chars().all(|c| c.is_ascii_digit())
        })
        .map(str::to_string)
        .collect()
}

/// The repository paths a line names in code spans (`src/render/view/`,
/// `tests/golden.rs`, ...): spans that start with a top folder of the
/// repository and hold no placeholder, glob, space or option.
fn named_paths(line: &str) -> Vec<String> {
    const TOPS: [&str; 8] = [
        "src/", "tests/", "scripts/", "golden/", "testkit/", "benches/", "fuzz/", "docs/",
    ];
    line.split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| TOPS.iter().any(|top| span.starts_with(top)))
        .filter(|span| !span.contains(['<', '*', ' ', '{', '$', '|', ':', '@']))
        .map(|span| span.trim_end_matches(['.', ',']).to_string())
        .collect()
}

/// docs/development.md cannot drift from the tree: every path it names
/// exists (the layout block's included), and its table of test binaries
/// names every test target, so a new one must be said.
#[test]
fn development_md_names_what_is_there() {
    let text = std::fs::read_to_string(repo().join("docs/development.md")).expect("read");
    let mut missing = Vec::new();
    let mut named = 0;
    let mut fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
            continue;
        }
        // In the layout block, a line starts with its path.
        let paths = if fence {
            let first = line.split_whitespace().next().unwrap_or("");
            named_paths(&format!("`{}`", first.trim_end_matches(',')))
        } else {
            named_paths(line)
        };
        for path in paths {
            named += 1;
            if !repo().join(&path).exists() {
                missing.push(path);
            }
        }
    }
    assert!(named > 50, "only {named} paths named");
    assert!(
        missing.is_empty(),
        "docs/development.md names what is not there: {missing:?}"
    );
    // Every test target has its row: `tests/NAME.rs` or `tests/NAME/`.
    let mut unsaid = Vec::new();
    for entry in std::fs::read_dir(repo().join("tests")).expect("tests/") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        let target = if path.is_dir() && path.join("main.rs").exists() {
            format!("`tests/{name}/`")
        } else if name.ends_with(".rs") {
            format!("`tests/{name}`")
        } else {
            continue;
        };
        if !text.contains(&format!("| {target}")) {
            unsaid.push(target);
        }
    }
    assert!(
        unsaid.is_empty(),
        "test binaries without a row in docs/development.md: {unsaid:?}"
    );
}

/// The quick check (`scripts/check.sh`) runs every golden test: a new
/// `tests/*golden*.rs` is in its list or the check would miss it.
#[test]
fn the_quick_check_runs_every_golden_test() {
    let script = std::fs::read_to_string(repo().join("scripts/check.sh")).expect("check.sh");
    let mut left_out = Vec::new();
    for entry in std::fs::read_dir(repo().join("tests")).expect("tests/") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if let Some(stem) = name.strip_suffix(".rs") {
            if (stem.contains("golden") || stem == "architecture" || stem == "tools_list")
                && !script.contains(&format!("--test {stem} "))
            {
                left_out.push(stem.to_string());
            }
        }
    }
    assert!(
        left_out.is_empty(),
        "scripts/check.sh leaves out {left_out:?}"
    );
}

/// BENCHMARKS.md leads with today's figures against their targets, one
/// table, before the dated sections.
#[test]
fn benchmarks_lead_with_todays_figures() {
    let text = std::fs::read_to_string(repo().join("BENCHMARKS.md")).expect("BENCHMARKS.md");
    let first = text.lines().find(|l| l.starts_with("## "));
    assert_eq!(first, Some("## Today's figures"));
    let section: String = text.split("\n## ").nth(1).unwrap_or_default().to_string();
    let header = section.lines().find(|l| l.starts_with("| "));
    assert!(
        header.is_some_and(|h| h.contains("target") && h.contains("holds")),
        "{header:?}"
    );
}

/// The tests scripts/test.sh runs beside the packaging job (which rebuilds
/// target/debug/pytest-mcp in place: `IN_PROCESS` of scripts/test_jobs.py)
/// never start that binary: none of their files names it or a helper that
/// runs it.
#[test]
fn the_tests_run_beside_the_packaging_never_start_the_binary() {
    let jobs = std::fs::read_to_string(repo().join("scripts/test_jobs.py")).expect("test_jobs.py");
    let set = jobs
        .split_once("IN_PROCESS = {")
        .and_then(|(_, rest)| rest.split_once('}'))
        .expect("IN_PROCESS in scripts/test_jobs.py")
        .0;
    let names: Vec<&str> = set
        .lines()
        .filter_map(|l| l.trim().strip_prefix('"')?.split('"').next())
        .collect();
    assert!(names.contains(&"golden"), "{names:?}");
    let mut starts = Vec::new();
    for name in names {
        let file = repo().join(format!("tests/{name}.rs"));
        if !file.exists() {
            continue; // the library's own tests, a bench
        }
        let mut files = vec![file];
        if let Ok(dir) = std::fs::read_dir(repo().join("tests").join(name)) {
            files.extend(dir.filter_map(|e| Some(e.ok()?.path())));
        }
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            // Spelt in two halves, so that this file does not name them.
            let needles = [
                ("CARGO_BIN", "_EXE"),
                ("run_pytest", "_mcp"),
                ("report", "_bytes"),
                ("mcp", "_suite"),
            ];
            for needle in needles.map(|(a, b)| format!("{a}{b}")) {
                if text.contains(&needle) {
                    starts.push(format!("{}: {needle}", f.display()));
                }
            }
        }
    }
    assert!(starts.is_empty(), "{starts:?}");
}
