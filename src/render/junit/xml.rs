//! Strings prepared for quick-junit: what XML cannot hold, written as
//! character references or as pytest writes it.

use std::borrow::Cow;

/// Where a string goes, which decides what must be escaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Field {
    /// An id, a class, a file: nothing may be lost, or it no longer names
    /// the test.
    Id,
    /// A message or type: line breaks kept, colour codes dropped.
    Attr,
    /// Element text (traceback, captured output): as `Attr`, and a line
    /// break is written as itself.
    Text,
}

/// Marks a character to be written as a character reference: quick-junit
/// cannot write one (it would escape the `&`), so the character is replaced
/// by `REF_OPEN` + hex + `REF_CLOSE` and [`restore_char_refs`] turns that
/// into `&#x..;` after serialization. Both are Unicode noncharacters, which
/// are reserved for exactly this kind of internal use.
pub(super) const REF_OPEN: char = '\u{FDD0}';
pub(super) const REF_CLOSE: char = '\u{FDD1}';

/// Prepares a string for quick-junit, whose `XmlString` drops tabs, carriage
/// returns and C1 control characters along with ANSI codes, and keeps
/// U+FFFE/U+FFFF, which XML 1.0 forbids. Tabs, carriage returns, C1
/// characters (and line breaks in attributes, which XML parsers otherwise
/// turn into spaces) become character references; what XML cannot carry at
/// all is written as pytest does (`#x1B`) in ids, and in other fields left to
/// quick-junit to drop with the colour codes it belongs to.
pub(super) fn xml_text(s: &str, field: Field) -> Cow<'_, str> {
    let needs_ref = |c: char| match c {
        '\n' => field != Field::Text,
        '\t' | '\r' | '\u{80}'..='\u{9f}' | REF_OPEN | REF_CLOSE => true,
        _ => false,
    };
    let unrepresentable = |c: char| match c {
        '\u{fffe}' | '\u{ffff}' => true,
        c if (c as u32) < 0x20 => field == Field::Id && !needs_ref(c),
        _ => false,
    };
    if !s.chars().any(|c| needs_ref(c) || unrepresentable(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if needs_ref(c) {
            out.push(REF_OPEN);
            out.push_str(&format!("{:X}", c as u32));
            out.push(REF_CLOSE);
        } else if unrepresentable(c) {
            // pytest's bin_xml_escape.
            if (c as u32) <= 0xFF {
                out.push_str(&format!("#x{:02X}", c as u32));
            } else {
                out.push_str(&format!("#x{:04X}", c as u32));
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Turns the markers of [`xml_text`] into character references. A marker
/// that an adjacent colour code swallowed half of is dropped rather than
/// written as garbage.
pub(super) fn restore_char_refs(xml: &str) -> String {
    if !xml.contains([REF_OPEN, REF_CLOSE]) {
        return xml.to_string();
    }
    let mut out = String::with_capacity(xml.len());
    let mut rest = xml;
    while let Some(i) = rest.find(REF_OPEN) {
        out.push_str(&rest[..i]);
        let after = &rest[i + REF_OPEN.len_utf8()..];
        match after.find(REF_CLOSE) {
            Some(j) if j > 0 && after[..j].chars().all(|c| c.is_ascii_hexdigit()) => {
                out.push_str("&#x");
                out.push_str(&after[..j]);
                out.push(';');
                rest = &after[j + REF_CLOSE.len_utf8()..];
            }
            _ => rest = after,
        }
    }
    out.push_str(rest);
    out.replace(REF_CLOSE, "")
}
