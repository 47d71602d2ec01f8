//! Reading Rust source without a parser: comments, string and character
//! literals blanked, `#[cfg(test)]` items left out.

/// The source with comments, string and character literals blanked (kept
/// as spaces, so nothing inside them reads as a path).
pub(crate) fn without_comments_and_strings(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let rest = &chars[i..];
        let skip = match rest {
            ['/', '/', ..] => rest.iter().position(|&c| c == '\n').unwrap_or(rest.len()),
            ['/', '*', ..] => block_comment_len(rest),
            ['"', ..] => quoted_len(rest, '"'),
            ['\'', ..] if is_char_literal(rest) => quoted_len(rest, '\''),
            ['r', '#' | '"', ..] if i == 0 || !is_ident(chars[i - 1]) => raw_string_len(rest),
            ['b', '"', ..] if i == 0 || !is_ident(chars[i - 1]) => 1 + quoted_len(&rest[1..], '"'),
            _ => 0,
        };
        if skip == 0 {
            out.push(chars[i]);
            i += 1;
        } else {
            out.push(' ');
            i += skip;
        }
    }
    out
}

pub(crate) fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn block_comment_len(rest: &[char]) -> usize {
    let mut depth = 0;
    let mut i = 0;
    while i + 1 < rest.len() {
        match (rest[i], rest[i + 1]) {
            ('/', '*') => {
                depth += 1;
                i += 2;
            }
            ('*', '/') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    rest.len()
}

/// Length of a literal opened by `quote`, escapes included.
fn quoted_len(rest: &[char], quote: char) -> usize {
    let mut i = 1;
    while i < rest.len() {
        match rest[i] {
            '\\' => i += 2,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    rest.len()
}

/// `'a'`, `'\n'`, `'\u{1b}'` — not a lifetime (`'a`).
fn is_char_literal(rest: &[char]) -> bool {
    matches!(rest, ['\'', '\\', ..] | ['\'', _, '\'', ..])
}

/// `r"..."`, `r#"..."#`; `r` followed by anything else is an identifier.
fn raw_string_len(rest: &[char]) -> usize {
    let hashes = rest[1..].iter().take_while(|&&c| c == '#').count();
    if rest.get(1 + hashes) != Some(&'"') {
        return 0;
    }
    let close: Vec<char> = std::iter::once('"')
        .chain(std::iter::repeat_n('#', hashes))
        .collect();
    let body = 2 + hashes;
    (body..rest.len())
        .find(|&i| rest[i..].starts_with(&close))
        .map_or(rest.len(), |i| i + close.len())
}

/// Names `x` of `#[cfg(test)] mod x;`.
pub(crate) fn test_modules(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (at, _) in code.match_indices("#[cfg(test)]") {
        let item = code[at + "#[cfg(test)]".len()..].trim_start();
        if let Some(rest) = item.strip_prefix("mod ") {
            let name: String = rest
                .trim_start()
                .chars()
                .take_while(|&c| is_ident(c))
                .collect();
            if rest.trim_start()[name.len()..]
                .trim_start()
                .starts_with(';')
            {
                names.push(name);
            }
        }
    }
    names
}

/// The code without `#[cfg(test)]` items (up to their `;`, or their block).
pub(crate) fn without_test_items(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        let end = match (item.find('{'), item.find(';')) {
            (Some(open), Some(semi)) if semi < open => semi + 1,
            (Some(open), _) => open + block_len(&item[open..]),
            (None, Some(semi)) => semi + 1,
            (None, None) => item.len(),
        };
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// Bytes of the `{ ... }` block `text` opens with.
fn block_len(text: &str) -> usize {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    text.len()
}
