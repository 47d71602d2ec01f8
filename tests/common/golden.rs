//! Golden files: compared with what a test rendered, or rewritten under
//! `UPDATE_GOLDEN=1` (the one documented way to accept new output, after
//! reviewing it as a user would read it).

use std::path::Path;

use similar::TextDiff;

/// Compares `actual` with the golden file at `path`, or rewrites the file
/// under `UPDATE_GOLDEN=1`. A readable diff on mismatch.
pub fn check(path: &Path, actual: &str) -> Option<String> {
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(path, actual).expect("write golden file");
        return None;
    }
    let expected = std::fs::read_to_string(path).unwrap_or_default();
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
