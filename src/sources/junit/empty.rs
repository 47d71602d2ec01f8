//! The commonest element of a large report, a passing test's empty
//! `<testcase ... />`, read without quick-xml's event.
//!
//! quick-xml finds an element's end by stopping at every quote on the way
//! (ten for pytest's five attributes) and checks the text it hands over is
//! UTF-8, before [`super::attrs`] reads the attributes in a pass of its own:
//! most of what reading a passing test cost. Between two elements (after a
//! start, empty or end tag, where quick-xml would look for the next `<`), a
//! `<testcase` whose name ends there (whitespace or `/` next) is read here
//! when the first `>` after it closes it as `/>` and
//! [`super::attrs::scan_attributes`] reads everything in between as
//! attributes: quotes then only pair around values, so that `>` is the end
//! quick-xml would find, and the element is read as quick-xml's
//! `Event::Empty` would be, by the same attribute scan. The reader is moved
//! past it, and [`Parser::base`] counts the bytes quick-xml did not read.
//! Anything else (a `>` inside a value, a start tag, an attribute the scan
//! gives up on) is left to quick-xml, which says what is wrong: nothing is
//! refused here.

use super::Parser;
use super::attrs::{CaseAttrs, scanned_case_attrs};

/// `<testcase`, the element read here.
const OPEN: &[u8] = b"<testcase";

impl<'a> Parser<'a> {
    /// Reads an empty `<testcase .../>` right at the reader's position, as
    /// if quick-xml had read it; `false` (nothing read) when the text there
    /// is anything else. Only to be called between elements (see the
    /// module's doc).
    pub(super) fn empty_case(&mut self) -> bool {
        if !self.document.seen_root {
            return false;
        }
        let rest: &'a [u8] = self.reader.get_ref();
        // The reader's text is the end of `input`.
        let input = self.input;
        let Some((attrs, len)) = input
            .get(input.len() - rest.len()..)
            .and_then(read_empty_case)
        else {
            return false;
        };
        *self.reader.get_mut() = &rest[len..];
        self.base += len as u64;
        self.start_case(attrs, true);
        true
    }
}

/// The attributes of the empty `<testcase .../>` that `text` starts with,
/// and its length, when it is written as this module's doc says; `None`
/// for anything else.
fn read_empty_case(text: &str) -> Option<(CaseAttrs<'_>, usize)> {
    let b = text.as_bytes();
    let after = b.strip_prefix(OPEN)?;
    // quick-xml's name ends at XML whitespace.
    if !matches!(after.first(), Some(b' ' | b'\t' | b'\r' | b'\n' | b'/')) {
        return None;
    }
    let end = OPEN.len() + memchr::memchr(b'>', after)?;
    if b[end - 1] != b'/' {
        return None;
    }
    let attrs = scanned_case_attrs(text.get(OPEN.len()..end - 1)?)?;
    Some((attrs, end + 1))
}

#[cfg(test)]
mod tests;
