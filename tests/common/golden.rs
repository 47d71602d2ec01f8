//! Golden files: compared with what a test rendered, or rewritten under
//! `UPDATE_GOLDEN=1` (the one documented way to accept new output, after
//! reviewing it as a user would read it).

use std::path::Path;

use pytest_mcp::request::OutputFormat;
use similar::TextDiff;

/// The golden file of each output format (`expected.md`, ...): the one
/// place that names them, an exhaustive match, so a new format does not
/// compile here until its goldens have a name.
pub fn file_name(format: OutputFormat) -> &'static str {
    match format {
        OutputFormat::Markdown => "expected.md",
        OutputFormat::Json => "expected.json",
        OutputFormat::Html => "expected.html",
        OutputFormat::Junit => "expected.xml",
        OutputFormat::Ctrf => "expected.ctrf.json",
        OutputFormat::Github => "expected.github",
        OutputFormat::Gfm => "expected.gfm",
    }
}

/// Every output format with its golden file's name.
pub fn every_format() -> impl Iterator<Item = (OutputFormat, &'static str)> {
    OutputFormat::all().iter().map(|&f| (f, file_name(f)))
}

/// Compares `actual` with the golden file at `path`, or rewrites the file
/// under `UPDATE_GOLDEN=1`. A readable diff on mismatch.
pub fn check(path: &Path, actual: &str) -> Option<String> {
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(path, actual).expect("write golden file");
        return None;
    }
    let Ok(expected) = std::fs::read_to_string(path) else {
        return Some(format!(
            "{}: no such golden file (review the output, then UPDATE_GOLDEN=1 \
             bash scripts/check.sh writes it)",
            path.display()
        ));
    };
    if expected == actual {
        return None;
    }
    let diff = TextDiff::from_lines(&expected, actual);
    Some(format!(
        "{}\n{}",
        path.display(),
        diff.unified_diff()
            .context_radius(3)
            .header("expected", "actual")
    ))
}
