//! Just enough of Python's lexical structure to judge a changed line from a
//! coverage report (`report --coverage` with coverage.xml or
//! coverage.json), where coverage.py's own parser is not at hand: which
//! physical lines hold code, the logical line (statement) each belongs to,
//! and the `def`s and `class`es that hold them.
//!
//! coverage.py records a multi-line statement at its first line, so a
//! changed line in the middle of a call is judged by that first line; a
//! comment or a blank line inside the call holds no code and is no change
//! any test could run. Strings (triple-quoted ones over many lines too),
//! brackets and backslash continuations decide where a logical line ends;
//! nothing else of the grammar matters here. Pure: text in, lines out.

/// What the source says of each line, and its scopes.
#[derive(Debug, Default)]
pub struct Source {
    /// Per physical line (index 0 is line 1).
    lines: Vec<Line>,
    /// Every def and class, outer before inner, in order of their lines.
    scopes: Vec<Scope>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Line {
    /// The first line of the logical line this one belongs to.
    first: u32,
    /// Whether the line holds a token of code (not only a comment, blanks).
    code: bool,
}

/// A def or class: its lines (decorators included) and qualified name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    pub first: u32,
    pub last: u32,
    /// `Stock.hold` for a method.
    pub name: String,
}

/// A logical line as the scanner ends it.
#[derive(Debug, Clone)]
pub struct Logical {
    pub first: u32,
    pub last: u32,
    /// Columns of leading whitespace on its first line.
    pub indent: usize,
    /// Its first physical line, leading whitespace removed.
    pub head: String,
    /// Nothing but string literals (a docstring).
    pub only_strings: bool,
}

/// Where the scanner is between characters.
#[derive(Debug, Default)]
struct Scan {
    /// An open string: its quote and whether it is triple-quoted.
    string: Option<(char, bool)>,
    /// Open brackets.
    depth: u32,
    /// The last line ended with a backslash.
    continued: bool,
}

impl Scan {
    /// Whether the logical line goes on past the line just scanned.
    fn open(&self) -> bool {
        self.depth > 0 || self.continued || matches!(self.string, Some((_, true)))
    }
}

/// Scans one physical line; returns whether it holds code and whether all
/// of its code was string literal.
fn scan_line(scan: &mut Scan, line: &str) -> (bool, bool) {
    let chars: Vec<char> = line.trim_end_matches(['\n', '\r']).chars().collect();
    let (mut code, mut other) = (scan.string.is_some(), false);
    scan.continued = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if let Some((quote, triple)) = scan.string {
            if c == '\\' {
                i += 2;
                continue;
            }
            let closes = c == quote
                && (!triple
                    || (chars.get(i + 1) == Some(&quote) && chars.get(i + 2) == Some(&quote)));
            if closes {
                scan.string = None;
                i += if triple { 3 } else { 1 };
                continue;
            }
            i += 1;
            continue;
        }
        match c {
            '#' => break,
            ' ' | '\t' | '\x0c' => {}
            '\\' if i + 1 == chars.len() => scan.continued = true,
            '"' | '\'' => {
                code = true;
                let triple = chars.get(i + 1) == Some(&c) && chars.get(i + 2) == Some(&c);
                scan.string = Some((c, triple));
                i += if triple { 3 } else { 1 };
                continue;
            }
            _ => {
                code = true;
                // String prefixes (r, b, f, u) are letters before a quote.
                let prefix =
                    c.is_ascii_alphabetic() && matches!(chars.get(i + 1), Some('"' | '\''));
                other |= !(prefix && "rRbBfFuU".contains(c));
                match c {
                    '(' | '[' | '{' => scan.depth += 1,
                    ')' | ']' | '}' => scan.depth = scan.depth.saturating_sub(1),
                    _ => {}
                }
            }
        }
        i += 1;
    }
    // A one-quote string does not go past its line unless continued.
    if let Some((_, false)) = scan.string {
        if chars.last() == Some(&'\\') {
            scan.continued = true;
        } else {
            scan.string = None;
        }
    }
    (code, code && !other)
}

impl Source {
    /// The source of `text`, line by line, with its logical lines.
    pub fn read(text: &str) -> (Source, Vec<Logical>) {
        let mut scan = Scan::default();
        let mut lines = Vec::new();
        let mut logical: Vec<Logical> = Vec::new();
        let mut current: Option<Logical> = None;
        for (i, line) in text.lines().enumerate() {
            let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
            let (code, strings) = scan_line(&mut scan, line);
            let entry = current.get_or_insert_with(|| Logical {
                first: n,
                last: n,
                indent: line.len() - line.trim_start().len(),
                head: line.trim().to_string(),
                only_strings: true,
            });
            entry.last = n;
            entry.only_strings &= strings || !code;
            lines.push(Line {
                first: entry.first,
                code,
            });
            if !scan.open() {
                if let Some(done) = current.take() {
                    // A line of blanks or comments alone is no statement.
                    if lines[done.first as usize - 1..].iter().any(|l| l.code) {
                        logical.push(done);
                    }
                }
            }
        }
        logical.extend(current.filter(|l| lines[l.first as usize - 1..].iter().any(|l| l.code)));
        let scopes = scopes(&logical);
        (Source { lines, scopes }, logical)
    }

    /// Lines in the file.
    pub fn len(&self) -> u32 {
        u32::try_from(self.lines.len()).unwrap_or(u32::MAX)
    }

    /// Whether the file has no line.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Whether line `n` holds code.
    pub fn is_code(&self, n: u32) -> bool {
        self.line(n).is_some_and(|l| l.code)
    }

    /// The first line of the statement line `n` is part of (itself outside
    /// a multi-line statement).
    pub fn first_line(&self, n: u32) -> u32 {
        self.line(n).map_or(n, |l| l.first)
    }

    /// The innermost def or class holding line `n`.
    pub fn scope_of(&self, n: u32) -> Option<&Scope> {
        self.scopes
            .iter()
            .filter(|s| s.first <= n && n <= s.last)
            .max_by_key(|s| s.first)
    }

    fn line(&self, n: u32) -> Option<&Line> {
        self.lines.get((n as usize).checked_sub(1)?)
    }
}

/// The name a `def` or `class` line defines (the fuzz pipeline checks
/// each scope against it too).
pub fn defines(head: &str) -> Option<&str> {
    let rest = head.strip_prefix("async ").map_or(head, str::trim_start);
    let rest = rest
        .strip_prefix("def ")
        .or_else(|| rest.strip_prefix("class "))?
        .trim_start();
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// Every def and class of the logical lines: a scope runs from its
/// decorators to the last line before a statement indented no deeper.
fn scopes(logical: &[Logical]) -> Vec<Scope> {
    let mut found: Vec<Scope> = Vec::new();
    // Open scopes: (indent, index into found).
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut last_line = 0;
    for (i, l) in logical.iter().enumerate() {
        while let Some(&(indent, at)) = open.last() {
            if l.indent > indent {
                break;
            }
            found[at].last = last_line;
            open.pop();
        }
        if let Some(name) = defines(&l.head) {
            let decorators = logical[..i]
                .iter()
                .rev()
                .take_while(|d| d.indent == l.indent && d.head.starts_with('@'))
                .last();
            let outer = open.last().map(|&(_, at)| found[at].name.clone());
            found.push(Scope {
                first: decorators.map_or(l.first, |d| d.first),
                last: l.last,
                name: outer.map_or_else(|| name.to_string(), |o| format!("{o}.{name}")),
            });
            open.push((l.indent, found.len() - 1));
        }
        last_line = l.last;
    }
    for (_, at) in open {
        found[at].last = last_line;
    }
    found
}

#[cfg(test)]
mod tests;
