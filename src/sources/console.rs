//! pytest's own console output, read as the last resort: when neither
//! report file nor the event log has anything (pytest failed before our
//! plugin loaded, say), the short test summary (`FAILED id - message`,
//! `ERROR id - message`) still names the failures, and the closing counts
//! line (`2 failed, 10 passed in 0.12s`) says the rest.

use crate::model::{Outcome, Run, SourceInfo, SourceKind, TestResult};

/// Reads what it can from pytest's stdout. `None` when it holds neither a
/// short summary nor a counts line.
pub fn parse(stdout: &str) -> Option<Run> {
    let mut run = Run::default();
    let mut counts_line = None;
    for line in stdout.lines().map(str::trim_end) {
        let (outcome, rest) = if let Some(rest) = line.strip_prefix("FAILED ") {
            (Outcome::Failed, rest)
        } else if let Some(rest) = line.strip_prefix("ERROR ") {
            (Outcome::Error, rest)
        } else {
            if is_counts_line(line) {
                counts_line = Some(
                    line.trim_matches(|c: char| c == '=' || c == ' ')
                        .to_string(),
                );
            }
            continue;
        };
        let (id, message) = match rest.split_once(" - ") {
            Some((id, message)) => (id, Some(message.to_string())),
            None => (rest, None),
        };
        if id.is_empty() || id.contains(' ') {
            continue;
        }
        let mut test = TestResult::new(id, outcome);
        test.set_message(message);
        run.tests.push(test);
    }
    if run.tests.is_empty() && counts_line.is_none() {
        return None;
    }
    if let Some(line) = counts_line {
        run.notes.push(format!(
            "only pytest's console output was left; its closing line says: {line} (tests not listed here have no details)"
        ));
    }
    run.sources.push(SourceInfo {
        kind: SourceKind::PytestText,
        name: "stdout".to_string(),
        entries: run.tests.len(),
        folded: 0,
    });
    run.clean_text(crate::text::clean);
    Some(run)
}

/// `==== 2 failed, 10 passed in 0.12s ====` or `no tests ran in 0.01s`.
fn is_counts_line(line: &str) -> bool {
    let t = line.trim_matches(|c: char| c == '=' || c == ' ');
    (t.contains(" passed")
        || t.contains(" failed")
        || t.contains(" error")
        || t.starts_with("no tests ran"))
        && t.contains(" in ")
        && t.ends_with('s')
}

#[cfg(test)]
mod tests;
