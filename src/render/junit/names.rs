//! How test ids are split into JUnit's `classname`, `name` and suite so
//! that our reader gives them back.

use super::{DEFAULT_SUITE, PYTEST_SUITE};
use crate::pytest_text;

/// The file part of a pytest node id: before the first `::`.
pub(super) fn pytest_file(id: &str) -> &str {
    id.split_once("::").map_or(id, |(file, _)| file)
}

/// `classname`, `name` and `file` as pytest's JUnit writer derives them from
/// a node id (`mangle_test_address`), except that the file is cut off first
/// so a `[` in a file name cannot be taken for parameters.
pub(super) struct PytestNames<'a> {
    pub(super) file: &'a str,
    pub(super) classname: String,
    pub(super) name: String,
}

pub(super) fn pytest_names(id: &str) -> PytestNames<'_> {
    let Some((file, rest)) = id.split_once("::") else {
        // A module (a collector): pytest writes an empty classname and the
        // dotted module as the name.
        return PytestNames {
            file: id,
            classname: String::new(),
            name: pytest_text::path_to_module(id),
        };
    };
    // Parameters may contain `::` and `.`: only split what precedes them.
    let (path, params) = rest.split_at(rest.find('[').unwrap_or(rest.len()));
    let mut parts: Vec<&str> = path.split("::").collect();
    let last = parts.pop().unwrap_or_default();
    let mut classname = pytest_text::path_to_module(file);
    for class in parts {
        classname.push('.');
        classname.push_str(class);
    }
    PytestNames {
        file,
        classname,
        name: format!("{last}{params}"),
    }
}

/// Where another framework's id splits: the first `#`, ` > ` or ` › `.
pub(super) fn other_separator(id: &str) -> Option<(usize, &'static str)> {
    ["#", " > ", " › "]
        .into_iter()
        .filter_map(|sep| id.find(sep).map(|i| (i, sep)))
        .min_by_key(|(i, _)| *i)
}

/// The suite another framework's test goes in: its class or outer suite.
/// Never `pytest`, which would switch the reader to pytest's rules.
pub(super) fn other_suite_name(id: &str, jest: bool) -> String {
    if let Some(suite) = empty_name_suite(id, jest) {
        return suite.to_string();
    }
    match other_separator(id) {
        Some((i, _)) if !id[..i].trim().is_empty() && &id[..i] != PYTEST_SUITE => {
            id[..i].to_string()
        }
        _ => DEFAULT_SUITE.to_string(),
    }
}

/// An id the reader builds from a suite's name and an empty test name:
/// `suite > `, or `suite › ` under a `jest` root (a Jest test with an empty
/// title). Returns the suite's name, which must be written as it is.
pub(super) fn empty_name_suite(id: &str, jest: bool) -> Option<&str> {
    let suite = id.strip_suffix(if jest { " › " } else { " > " })?;
    (!suite.trim().is_empty() && suite != PYTEST_SUITE).then_some(suite)
}

/// Whether an id can only be read back under a `jest` root.
pub(super) fn needs_jest_root(id: &str) -> bool {
    empty_name_suite(id, true).is_some()
}

/// `classname` (none: omitted) and `name` for another framework's id, chosen
/// against the reader's `foreign_id` rules, which trim both and give, in
/// this order: the name alone when it starts with (or equals) the
/// classname; `classname#name` for a classname without spaces
/// (`classname › name` under a `jest` root); `suite > name` (`suite › name`)
/// when there is no classname.
pub(super) fn other_names<'a>(id: &'a str, suite: &str, jest: bool) -> (Option<&'a str>, &'a str) {
    if empty_name_suite(id, jest) == Some(suite) {
        return (None, "");
    }
    let Some((i, sep)) = other_separator(id) else {
        // No class or suite in the id: the reader returns a name equal to
        // its classname as it is.
        return (Some(id), id);
    };
    let head = &id[..i];
    let rest = &id[i + sep.len()..];
    let trimmed = |s: &str| !s.is_empty() && s.trim() == s;
    let suite_sep = if jest { " › " } else { " > " };
    match sep {
        "#" if !jest
            && trimmed(head)
            && trimmed(rest)
            && head != rest
            && !rest.starts_with(head)
            && !rest.ends_with(head)
            && !head.contains(char::is_whitespace)
            && !head.contains('›') =>
        {
            return (Some(head), rest);
        }
        // `suite > name`, from the suite's name.
        _ if sep == suite_sep && head == suite && head != rest && trimmed(rest) => {
            return (None, rest);
        }
        " › " => {
            // The describe path, and the full title as the name (as
            // jest-junit writes by default).
            let path = id.rfind(" › ").map_or(head, |j| &id[..j]);
            if !path.trim().is_empty() {
                return (Some(path), id);
            }
        }
        _ => {}
    }
    // The full id as the name: it starts with the classname, so the reader
    // takes the name as it is.
    if head.trim().is_empty() {
        (Some(id), id)
    } else {
        (Some(head), id)
    }
}
