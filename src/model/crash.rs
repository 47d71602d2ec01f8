//! Where a failing test failed, as a file and a line an editor (or a
//! GitHub annotation) can point at: the crash line, not the line of the
//! test's `def`.

use super::TestResult;
use crate::pytest_text::{self, frame_line, is_project_path};

/// A file and a 1-based line in it (none when unknown).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrashLine<'t> {
    pub file: &'t str,
    pub line: Option<u32>,
}

/// Where `t` failed:
///
/// - pytest's traceback (of the last failing phase that has one, as in
///   [`super::groups`]): its deepest frame in the project's own files, so
///   an assertion's line, the line of a helper in another module that
///   raised, a fixture's failing line;
/// - else Python's own frames (`File "src/p.py", line 11`, as an
///   exception group's traceback is rendered): the last in the project,
///   where the group's member was raised;
/// - else where its first failed subtest that has a place failed;
/// - else the test's `file` with the line of its first mention in the
///   failure text (`StockTest.php:27`, `(sum.test.js:12:5)`,
///   `FooTest.java:42)`: the innermost frame in the test's file for Java,
///   JavaScript and PHP, the first failed check for Go), or failing that
///   the test's own line (often its `def`);
/// - else the first frame of a JavaScript-style stack trace that is not a
///   framework's and names a path (`at Object.<anonymous>
///   (test/router.spec.js:22:31)`): Jest, Mocha and Jasmine write no `file`;
/// - `None` when the source says nothing about files.
pub fn crash_line(t: &TestResult) -> Option<CrashLine<'_>> {
    let tracebacks = || tracebacks(t);
    for tb in tracebacks() {
        let deepest = tb
            .lines()
            .rev()
            .filter(|l| memchr::memchr(b':', l.as_bytes()).is_some())
            .filter_map(frame_line)
            .find(|f| is_project_path(f.path));
        if let Some(f) = deepest {
            return Some(CrashLine {
                file: f.path,
                line: Some(f.line),
            });
        }
    }
    // Python's own rendering (an exception group's): the last frame in
    // the project, the group's member where it was raised.
    for tb in tracebacks() {
        let deepest = tb
            .lines()
            .rev()
            .filter_map(pytest_text::python_frame)
            .find(|(path, _)| is_project_path(path));
        if let Some((file, line)) = deepest {
            return Some(CrashLine {
                file,
                line: Some(line),
            });
        }
    }
    let subtest = t.subtests().into_iter().flat_map(|s| &s.failed);
    if let Some(at) = subtest.filter_map(|s| s.location.as_ref()).next() {
        return Some(CrashLine {
            file: &at.file,
            line: at.line,
        });
    }
    let Some(loc) = t.location.as_ref() else {
        return tracebacks()
            .flat_map(str::lines)
            .map(str::trim)
            .filter(|l| l.starts_with("at ") && !is_framework_frame(l))
            .find_map(frame_path);
    };
    let file = loc.file.as_ref();
    let mentioned = tracebacks()
        .chain(t.message())
        .flat_map(str::lines)
        .find_map(|l| line_in(l, file));
    Some(CrashLine {
        file,
        line: mentioned.or(loc.line).filter(|&l| l > 0),
    })
}

/// A test's tracebacks, the last failing phase's first (a teardown that
/// failed after the test did), then the deciding phase's.
pub(crate) fn tracebacks(t: &TestResult) -> impl Iterator<Item = &str> {
    t.phase_failures()
        .iter()
        .rev()
        .filter_map(|p| p.traceback.as_deref())
        .chain(t.traceback())
}

/// The line number after the first mention of `file` in `text`
/// (`…/tests/FooTest.php:27`), when the path written names the same file
/// (one may be absolute, the other relative).
pub(crate) fn line_in(text: &str, file: &str) -> Option<u32> {
    let name = file.rsplit(['/', '\\']).next().filter(|n| !n.is_empty())?;
    let mut from = 0;
    while let Some(i) = text[from..].find(name) {
        let start = from + i;
        let end = start + name.len();
        from = end;
        let after = &text[end..];
        let digits = after
            .strip_prefix(':')
            .map_or(0, |a| a.bytes().take_while(u8::is_ascii_digit).count());
        if digits == 0 {
            continue;
        }
        // The path written: back to a space, a quote or a parenthesis.
        let path_start = text[..start]
            .rfind(|c: char| c.is_whitespace() || "(\"'[".contains(c))
            .map_or(0, |p| p + 1);
        let written = &text[path_start..end];
        if same_file(written, file) {
            return after[1..1 + digits].parse().ok();
        }
    }
    None
}

/// The path and line of a stack frame `at f (dir/file.js:22:31)` or `at
/// dir/file.js:22:31`, when the path has a directory (a bare `Foo.java`
/// names no file a reader can open).
fn frame_path(frame: &str) -> Option<CrashLine<'_>> {
    let place = match frame.strip_suffix(')') {
        Some(open) => &open[open.rfind('(')? + 1..],
        None => frame.strip_prefix("at ")?.trim(),
    };
    // `path:line:column` or `path:line`.
    let mut parts = place.rsplitn(3, ':');
    let last = parts.next()?;
    let (path, line) = match (parts.next(), parts.next()) {
        (Some(line), Some(path)) if line.bytes().all(|b| b.is_ascii_digit()) => (path, line),
        (Some(path), _) => (path, last),
        _ => return None,
    };
    let line: u32 = line.parse().ok().filter(|&l| l > 0)?;
    let file_like = path.contains(['/', '\\']) && !path.contains(char::is_whitespace);
    file_like.then_some(CrashLine {
        file: path,
        line: Some(line),
    })
}

/// Whether two spellings of a path name the same file: equal, or one ends
/// with `/` and the other (an absolute path and a relative one).
fn same_file(a: &str, b: &str) -> bool {
    pytest_text::paths_match(a, b) || pytest_text::paths_match(b, a)
}

/// Frames of test frameworks, runtimes and dependencies in Java, JS, .NET
/// and Python stack traces: rarely what a reader needs to fix a test.
pub fn is_framework_frame(line: &str) -> bool {
    let Some(frame) = line.strip_prefix("at ") else {
        return false;
    };
    const PREFIXES: &[&str] = &[
        "java.",
        "javax.",
        "jdk.",
        "sun.",
        "org.junit.",
        "junit.",
        "org.testng.",
        "org.apache.maven.",
        "org.hamcrest.",
        "org.gradle.",
        "kotlin.",
        "scala.",
        "System.",
        "NUnit.",
        "Xunit.",
        "new Promise",
        "process.",
        "processTicksAndRejections",
        "internal/",
        "node:",
    ];
    PREFIXES.iter().any(|p| frame.starts_with(p)) || frame.contains("node_modules")
}

#[cfg(test)]
mod tests;
