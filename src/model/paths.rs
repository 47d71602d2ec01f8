//! The project's own paths in a failure's text made relative to the
//! project, as every test id and `at file:line` is: pytest writes some
//! absolute (a doctest's place, a missing fixture's file, Python's own
//! traceback of an ExceptionGroup). Only a path where a place is written
//! is rewritten (at the start of a line, or after `file ` or `File "`): a
//! path among the values an assertion compares is data, and stays. Pure: a
//! run and its root in.

use crate::model::Run;

/// Rewrites `<root>/x` as `x` in the message and traceback of every
/// failing test (and of its failed subtests) and every collection error of
/// `run`. `root` is the
/// project's directory as pytest saw it (absolute, no trailing `/`).
pub fn relativize(run: &mut Run, root: &str) {
    let root = root.trim_end_matches('/');
    if root.len() < 2 || !root.starts_with('/') {
        return;
    }
    let prefix = format!("{root}/");
    let strip = |text: Option<&str>| -> Option<String> { strip_places(text?, &prefix) };
    for t in run.tests.iter_mut().filter(|t| t.is_problem()) {
        if let Some(m) = strip(t.message()) {
            t.set_message(Some(m));
        }
        if let Some(tb) = strip(t.traceback()) {
            t.set_traceback(Some(tb));
        }
        for s in t.subtests_mut().into_iter().flat_map(|s| &mut s.failed) {
            for text in [&mut s.message, &mut s.traceback] {
                if let Some(stripped) = strip(text.as_deref()) {
                    *text = Some(stripped);
                }
            }
        }
    }
    for e in &mut run.collection_errors {
        if let Some(m) = strip(Some(&e.message)) {
            e.message = m;
        }
        if let Some(tb) = strip(e.traceback.as_deref()) {
            e.traceback = Some(tb);
        }
    }
}

/// `text` with `prefix` removed where it starts a place; `None` when there
/// is none.
fn strip_places(text: &str, prefix: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut changed = false;
    for (at, _) in text.match_indices(prefix) {
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let before = &text[line_start..at];
        let is_place = before.chars().all(|c| c.is_whitespace() || c == '|')
            || before.ends_with("file ")
            || before.ends_with(" at ")
            || before.ends_with("File \"");
        if is_place {
            out.push_str(&text[last..at]);
            last = at + prefix.len();
            changed = true;
        }
    }
    if !changed {
        return None;
    }
    out.push_str(&text[last..]);
    Some(out)
}

#[cfg(test)]
mod tests;
