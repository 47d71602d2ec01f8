//! What pytest's text looks like: turning JUnit's `classname`/`name` back
//! into a node id, and reading the short facts (error type, line, phase,
//! frames) out of pytest's messages and tracebacks. Shared by the readers
//! and the Markdown renderer; pure functions only.

/// A report's text without the line pytest-xdist puts first when the report
/// came from a worker (`[gw0] linux -- Python 3.11.7 /venv/bin/python`, by
/// pytest's `getworkerinfoline`) and the blank space after it (without
/// workers pytest-json-report's text starts at its first character), so
/// that a failure reads the same with workers as without.
pub fn without_worker_line(text: &str) -> &str {
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    let is_worker_line = first.starts_with('[')
        && first
            .split_once("] ")
            .is_some_and(|(id, info)| !id.contains(' ') && info.contains(" -- Python "));
    if is_worker_line {
        rest.trim_start()
    } else {
        text
    }
}

/// Rebuilds pytest's node id from a JUnit test case.
///
/// pytest writes `classname` as the node id's path with `/` turned into `.`
/// and `.py` dropped, followed by any class names, and `name` as the last
/// part (parameters included). With `xunit1`'s `file` attribute the module
/// part is known exactly; without it (`xunit2`) the first dotted part that
/// starts with an upper-case letter is taken as the first class, which is
/// what pytest's default `python_classes = Test*` produces.
pub fn node_id(classname: &str, name: &str, file: Option<&str>) -> String {
    let mut id = node_id_prefix(classname, file);
    push_test_name(&mut id, name);
    id
}

/// The part of a node id before the test's name: the path and any classes
/// (`tests/test_x.py::TestA`). Consecutive test cases usually share it, so
/// the JUnit reader computes it once per class.
pub fn node_id_prefix(classname: &str, file: Option<&str>) -> String {
    let (path, classes) = split_classname(classname, file);
    let mut id = String::with_capacity(path.len() + classes.len() + 4);
    id.push_str(&path);
    for class in classes.split('.').filter(|c| !c.is_empty()) {
        id.push_str("::");
        id.push_str(class);
    }
    id
}

/// Appends a test's name to a [`node_id_prefix`].
pub fn push_test_name(id: &mut String, name: &str) {
    if !name.is_empty() {
        if !id.is_empty() {
            id.push_str("::");
        }
        id.push_str(name);
    }
}

/// Splits `classname` into (file path, dotted class names).
fn split_classname<'a>(classname: &'a str, file: Option<&str>) -> (String, &'a str) {
    if let Some(file) = file {
        let module = path_to_module(file);
        if classname == module {
            return (file.to_string(), "");
        }
        if let Some(rest) = classname
            .strip_prefix(module.as_str())
            .and_then(|r| r.strip_prefix('.'))
        {
            return (file.to_string(), rest);
        }
    }
    if classname.is_empty() {
        return (String::new(), "");
    }
    let parts: Vec<&str> = classname.split('.').collect();
    // The module is the last part named like a test file (pytest's default
    // `python_files`: test_*.py, *_test.py); what follows are classes. Else
    // the classes start at the first capitalised part (`python_classes =
    // Test*`). Directories may be capitalised, so the first rule goes first.
    let is_test_module = |p: &&str| p.starts_with("test_") || p.ends_with("_test");
    let module_parts = match parts.iter().rposition(is_test_module) {
        Some(i) => i + 1,
        None => parts
            .iter()
            .enumerate()
            .skip(1)
            .find(|(_, p)| p.starts_with(|c: char| c.is_ascii_uppercase()))
            .map_or(parts.len(), |(i, _)| i),
    };
    let module_len: usize = parts[..module_parts]
        .iter()
        .map(|p| p.len() + 1)
        .sum::<usize>()
        - 1;
    let classes = classname.get(module_len + 1..).unwrap_or("");
    (module_to_path(&classname[..module_len]), classes)
}

/// `tests/test_x.py` -> `tests.test_x`, as pytest's JUnit writer does.
pub fn path_to_module(path: &str) -> String {
    let path = path.strip_suffix(".py").unwrap_or(path);
    path.replace(['/', '\\'], ".")
}

/// `tests.test_x` -> `tests/test_x.py`: the best guess at a module's file.
pub fn module_to_path(module: &str) -> String {
    let mut path = module.replace('.', "/");
    path.push_str(".py");
    path
}

/// Reads a skip reason out of pytest's skip longrepr, which pytest-json-report
/// writes as the Python tuple `('/path/test_x.py', 31, 'Skipped: reason')`.
pub fn skip_reason(longrepr: &str) -> String {
    let s = longrepr.trim();
    let inner = s
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or(s);
    // The reason is the third element: after the second top-level comma.
    let mut reason = inner;
    if let Some(first) = find_top_level_comma(inner)
        && let Some(second) = find_top_level_comma(&inner[first + 1..])
    {
        reason = inner[first + 1 + second + 1..].trim();
        reason = unquote(reason);
    }
    let reason = reason.strip_prefix("Skipped: ").unwrap_or(reason);
    python_unescape(reason)
}

/// The byte index of the first comma outside quotes.
fn find_top_level_comma(s: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                '\'' | '"' => quote = Some(c),
                ',' => return Some(i),
                _ => {}
            },
        }
    }
    None
}

fn unquote(s: &str) -> &str {
    for q in ['\'', '"'] {
        if let Some(inner) = s.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner;
        }
    }
    s
}

/// Undoes the escapes Python's `repr` puts in a string literal: a colour
/// code in a skip reason comes back as the ESC it was (and is then cleaned
/// away with the rest of the sequence, see [`crate::text::clean`]), not as
/// the letters `\x1b[31m`.
fn python_unescape(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let hex = |chars: &std::str::Chars<'_>, n: usize| -> Option<char> {
            let digits = chars.as_str().get(..n)?;
            if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            u32::from_str_radix(digits, 16)
                .ok()
                .and_then(char::from_u32)
        };
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some('\'') => out.push('\''),
            Some('"') => out.push('"'),
            Some(kind @ ('x' | 'u' | 'U')) => {
                let n = match kind {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                match hex(&chars, n) {
                    Some(decoded) => {
                        out.push(decoded);
                        chars = chars.as_str()[n..].chars();
                    }
                    None => {
                        out.push('\\');
                        out.push(kind);
                    }
                }
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// A location line of pytest's long traceback format: `path:line: rest`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameLine<'a> {
    pub path: &'a str,
    pub line: u32,
    /// What follows: the exception name on the last frame, `in func` with
    /// `--tb=short`, or nothing.
    pub rest: &'a str,
}

/// Parses `tests/test_x.py:14: ZeroDivisionError` (or `...:14: in f`, or
/// `...:14: ` for a frame the error passed through). Lines that merely look
/// alike (`stdout_test.go:22: some message`, as Go writes its logs) are not
/// frames: after the line number pytest writes nothing, `in <function>`, or
/// an exception name.
pub fn frame_line(line: &str) -> Option<FrameLine<'_>> {
    let frame = location_line(line)?;
    let rest = frame.rest;
    let exception_name = rest.is_empty()
        || (rest
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
            && rest
                .rsplit('.')
                .next()
                .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_uppercase())));
    let in_function = rest
        .strip_prefix("in ")
        .is_some_and(|f| !f.is_empty() && !f.contains(' '));
    (exception_name || in_function).then_some(frame)
}

/// Parses any `path:line: rest` line.
fn location_line(line: &str) -> Option<FrameLine<'_>> {
    if line.starts_with(char::is_whitespace) || line.starts_with("E ") {
        return None;
    }
    // The path ends at the first ":<digits>:" whose path has no whitespace.
    let mut search = 0;
    while let Some(i) = line[search..].find(':') {
        let colon = search + i;
        let path = &line[..colon];
        if path.is_empty() || path.contains(char::is_whitespace) && !path.starts_with('<') {
            return None;
        }
        let after = &line[colon + 1..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && after[digits..].starts_with(':') {
            let number = after[..digits].parse().ok()?;
            let rest = after[digits + 1..].trim();
            return Some(FrameLine {
                path,
                line: number,
                rest,
            });
        }
        search = colon + 1;
    }
    None
}

/// The `E   ` lines of a pytest traceback with the `E` removed, keeping the
/// indentation after it (a SyntaxError's caret is aligned by it).
pub fn error_lines(traceback: &str) -> impl Iterator<Item = &str> {
    traceback.lines().filter_map(|l| {
        let rest = l.strip_prefix('E')?;
        (rest.is_empty() || rest.starts_with(' ')).then_some(rest.trim_end())
    })
}

/// The last non-blank `E` line, trimmed: pytest's one-line error.
pub fn last_error_line(traceback: &str) -> Option<&str> {
    error_lines(traceback)
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .last()
}

/// Splits `ValueError: bad` into (`ValueError`, `bad`) when the part before
/// the colon looks like an exception name.
pub fn split_exception(line: &str) -> Option<(&str, &str)> {
    let (name, rest) = line.split_once(": ")?;
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '.';
    let looks_like = !name.is_empty()
        && name.chars().all(ident)
        && name
            .rsplit('.')
            .next()
            .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_uppercase()));
    looks_like.then_some((name, rest))
}

/// Error type, message and line of a collection error, read off pytest's
/// traceback for it. `file` is the collector's path, used to find the line.
pub fn collection_error_summary(
    traceback: &str,
    file: &str,
) -> (Option<String>, String, Option<u32>) {
    let last_error = last_error_line(traceback);
    let fallback = || {
        crate::text::last_line(traceback)
            .unwrap_or("collection failed")
            .to_string()
    };
    let (error_type, message) = match last_error {
        Some(line) => match split_exception(line) {
            Some((name, rest)) => (Some(name.to_string()), rest.to_string()),
            None => (None, line.to_string()),
        },
        None => (None, fallback()),
    };
    (error_type, message, error_line(traceback, file))
}

/// The line in `file` a traceback points at: a `File "...", line N` entry
/// (how Python reports a SyntaxError) or a `file:N:` frame, the last wins.
fn error_line(traceback: &str, file: &str) -> Option<u32> {
    let mut found = None;
    for line in traceback.lines() {
        if let Some(frame) = frame_line(line) {
            if paths_match(frame.path, file) {
                found = Some(frame.line);
            }
            continue;
        }
        let body = line.trim_start_matches(['E', ' ']);
        if let Some(rest) = body.strip_prefix("File \"")
            && let Some((path, tail)) = rest.split_once('"')
            && paths_match(path, file)
            && let Some(num) = tail.trim().strip_prefix(", line ")
        {
            let digits: String = num.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(n) = digits.parse() {
                found = Some(n);
            }
        }
    }
    found
}

/// True when `path` (possibly absolute) names the relative `file`.
pub fn paths_match(path: &str, file: &str) -> bool {
    if file.is_empty() {
        return false;
    }
    path == file
        || path
            .strip_suffix(file)
            .is_some_and(|prefix| prefix.ends_with('/') || prefix.ends_with('\\'))
}

/// The function a parametrized pytest node id belongs to:
/// `tests/test_x.py::test_total` for `tests/test_x.py::test_total[3-4]`,
/// an id pytest accepts and which runs every parametrization. `None` for
/// anything else: an id without parameters, or not a pytest node id (one
/// with `::` after a `.py` file).
pub fn parametrized_function(id: &str) -> Option<&str> {
    if !id.ends_with(']') {
        return None;
    }
    // The first `::` after `.py` (called for every counted pass: a
    // byte search, no pattern set up).
    let b = id.as_bytes();
    let module_end = memchr::memchr_iter(b':', b)
        .find(|&i| b.get(i + 1) == Some(&b':') && b[..i].ends_with(b".py"))?
        + 2;
    // Names and classes have no `[`: the first one opens the parameters,
    // which may themselves hold `::` or `[`.
    let open = module_end + memchr::memchr(b'[', &b[module_end..])?;
    let function = &id[..open];
    (!function.ends_with(':')).then_some(function)
}

/// The exception a group of one carries (`ValueError: bad price`), from
/// Python's rendering of the group's traceback, for pytest's crash message
/// of it (`ValueError('bad price') [single exception in
/// ExceptionGroup]`): the member's first line after its last frame and
/// that frame's source (notes, `add_note`'s, come after it).
pub fn single_exception_of_group(tb: &str) -> Option<&str> {
    let member = tb.split_once("+---------------- 1 -")?.1;
    let member = member.split("+------------").next()?;
    let content: Vec<&str> = member
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix('|'))
        .filter_map(|l| l.strip_prefix(' '))
        .filter(|l| !l.trim().is_empty())
        .collect();
    let after_frames = content
        .iter()
        .rposition(|l| l.trim_start().starts_with("File \""))
        .map_or(0, |i| i + 1);
    content[after_frames..]
        .iter()
        .find(|l| !l.starts_with(' ') && !l.starts_with("Traceback (most recent call last)"))
        .map(|l| l.trim_end())
}

/// Python's own frame line, `File "path", line 12, in f` (as pytest
/// passes on an exception group's traceback), after any `|` framing: its
/// path and line.
pub fn python_frame(line: &str) -> Option<(&str, u32)> {
    let content = line.trim_start().trim_start_matches(['|', '+', ' ']);
    let rest = content.strip_prefix("File \"")?;
    let (path, rest) = rest.split_once("\", line ")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    Some((path, rest[..digits].parse().ok()?))
}

/// pytest's 0-based location line of an item in `file` as a 1-based
/// line; none for line 0 of a file that is not Python source: a plugin's
/// item gives 0 for "the file" (pytest's own YAML example, nbval's cells,
/// whose place is the cell its id names).
pub fn item_line(file: &str, zero_based: u32) -> Option<u32> {
    let python = file.ends_with(".py") || file.ends_with(".pyw");
    (zero_based > 0 || python).then(|| zero_based.saturating_add(1))
}

/// A path no failure of the project's is placed at: one that leaves the
/// rootdir (`../`), or lies in an installed package or an interpreter's
/// library. Unlike [`is_project_path`], an absolute path elsewhere is a
/// project's (other frameworks' JUnit names its files so).
pub fn is_outside_project(path: &str) -> bool {
    path.starts_with("../") || is_installed_path(path)
}

/// A path in an installed package, a virtualenv or an interpreter's own
/// library (`/usr/lib/python3.11/asyncio/queues.py`): never the place of a
/// project's failure, even when nothing else is.
pub fn is_installed_path(path: &str) -> bool {
    let library = path
        .match_indices("/lib/python")
        .any(|(i, m)| path[i + m.len()..].starts_with(|c: char| c.is_ascii_digit()));
    library
        || ["site-packages/", "dist-packages/", "/.venv/"]
            .iter()
            .any(|p| path.contains(p))
}

/// A relative path that is not in an installed package: the user's code.
pub fn is_project_path(path: &str) -> bool {
    !(path.starts_with('/')
        || path.starts_with('<')
        || path.starts_with("..")
        || path.contains("site-packages")
        || path.contains(":\\"))
}

#[cfg(test)]
mod tests;
