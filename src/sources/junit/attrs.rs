//! Reading the attributes of an element, the work most of a large report's
//! reading time goes to: one pass over the bytes of well-formed attributes,
//! quick-xml's iterator for anything else, and `time` values read without
//! the general float parser where they allow it.

use std::borrow::Cow;

use quick_xml::XmlVersion;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::BytesStart;
use quick_xml::events::attributes::Attribute;

/// An attribute's value with references resolved; an attribute whose value
/// cannot be unescaped is returned as written rather than dropped.
pub(super) fn attr<'b>(e: &'b BytesStart<'_>, key: &str) -> Option<Cow<'b, str>> {
    let mut found = None;
    for_each_attr(e, |k, value| {
        if k == key && found.is_none() {
            found = Some(value);
        }
    });
    found
}

/// Hands every attribute of `e` to `f` as (local name, value with
/// references resolved). Well-formed attributes go through
/// [`scan_attributes`]; when it gives up, quick-xml's iterator reads the
/// element again from the start, so `f` may see the first attributes twice
/// and must keep the first value of a name.
fn for_each_attr<'b>(e: &'b BytesStart<'_>, mut f: impl FnMut(&str, Cow<'b, str>)) {
    let scanned = scan_attributes(e.attributes_raw(), |key, value, plain| {
        f(
            key,
            if plain {
                Cow::Borrowed(value)
            } else {
                attr_text(key, value)
            },
        )
    });
    if !scanned {
        for a in e.attributes().with_checks(false).flatten() {
            let key = a.key.local_name();
            let key: &str = key.as_ref();
            f(key, attr_value(a));
        }
    }
}

/// An attribute's value with references resolved (no copy when it has
/// none); a value that cannot be unescaped is returned as written.
fn attr_value<'b>(a: Attribute<'b>) -> Cow<'b, str> {
    match a.normalized_value_with(XmlVersion::Implicit1_0, 1, resolve_predefined_entity) {
        Ok(value) => value,
        Err(_) => a.value,
    }
}

/// The attributes of a `<testcase>`, read in one pass over the element.
#[derive(Default)]
pub(super) struct CaseAttrs<'b> {
    pub classname: Option<Cow<'b, str>>,
    pub name: Option<Cow<'b, str>>,
    pub file: Option<Cow<'b, str>>,
    pub line: Option<Cow<'b, str>>,
    pub time: Option<Cow<'b, str>>,
    pub status: Option<Cow<'b, str>>,
}

pub(super) fn case_attrs<'b>(e: &'b BytesStart<'_>) -> CaseAttrs<'b> {
    let mut attrs = CaseAttrs::default();
    for_each_attr(e, |key, value| attrs.set(key, value));
    attrs
}

/// [`case_attrs`] of an element whose attributes are `raw`, when
/// [`scan_attributes`] reads them all; `None` otherwise (quick-xml's
/// iterator would then read them).
pub(super) fn scanned_case_attrs(raw: &str) -> Option<CaseAttrs<'_>> {
    let mut attrs = CaseAttrs::default();
    let scanned = scan_attributes(raw, |key, value, plain| {
        let value = if plain {
            Cow::Borrowed(value)
        } else {
            attr_text(key, value)
        };
        attrs.set(key, value);
    });
    scanned.then_some(attrs)
}

impl<'b> CaseAttrs<'b> {
    /// Keeps the attribute `key`'s value when it is one of a case's; the
    /// first value of a name stands.
    pub(super) fn set(&mut self, key: &str, value: Cow<'b, str>) {
        let slot = match key {
            "classname" => &mut self.classname,
            "name" => &mut self.name,
            "file" => &mut self.file,
            "line" => &mut self.line,
            "time" => &mut self.time,
            "status" => &mut self.status,
            _ => return,
        };
        if slot.is_none() {
            *slot = Some(value);
        }
    }
}

/// Splits well-formed attributes (`key="value"`, `key = 'value'`) into
/// local names and raw values, borrowing both, and hands each to `found`
/// with whether the value is plain (no reference, no tab or line break, so
/// it needs no unescaping or normalising). This is most of the work of
/// reading a large report, so it is one pass over the bytes; anything it
/// does not recognise returns `false` and the caller falls back to
/// quick-xml's attribute iterator, which copes with every malformed shape.
pub(super) fn scan_attributes<'b>(
    raw: &'b str,
    mut found: impl FnMut(&'b str, &'b str, bool),
) -> bool {
    let b = raw.as_bytes();
    let n = b.len();
    let skip_space = |mut i: usize| {
        while i < n && b[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    // Usually no value has a reference or a tab or line break in it; one
    // vectorised look at the whole element tells.
    let all_plain =
        memchr::memchr3(b'&', b'\t', b'\n', b).is_none() && memchr::memchr(b'\r', b).is_none();
    let mut i = 0;
    loop {
        i = skip_space(i);
        if i >= n || (b[i] == b'/' && i + 1 == n) {
            return true;
        }
        let key_start = i;
        let mut colon = None;
        while i < n && !matches!(b[i], b'=' | b'"' | b'\'' | b'<' | b'>' | b'/') {
            if b[i].is_ascii_whitespace() {
                break;
            }
            if b[i] == b':' {
                colon = Some(i);
            }
            i += 1;
        }
        let key_end = i;
        i = skip_space(i);
        if key_end == key_start || i >= n || b[i] != b'=' {
            return false;
        }
        i = skip_space(i + 1);
        let quote = match b.get(i) {
            Some(&q @ (b'"' | b'\'')) => q,
            _ => return false,
        };
        let value_start = i + 1;
        let Some(len) = memchr::memchr(quote, &b[value_start..]) else {
            return false;
        };
        let value_end = value_start + len;
        let plain = all_plain
            || !b[value_start..value_end]
                .iter()
                .any(|&c| c == b'&' || c < 0x20);
        i = value_end + 1;
        // The next attribute must be separated by whitespace.
        if i < n && !b[i].is_ascii_whitespace() && b[i] != b'/' {
            return false;
        }
        let key = &raw[colon.map_or(key_start, |c| c + 1)..key_end];
        found(key, &raw[value_start..value_end], plain);
    }
}

/// A raw attribute value with references resolved and whitespace
/// normalised as XML says.
fn attr_text<'b>(key: &'b str, value: &'b str) -> Cow<'b, str> {
    attr_value(Attribute {
        key: quick_xml::name::QName(key),
        value: Cow::Borrowed(value),
    })
}

/// Parses a `time` attribute (seconds). Tolerates a decimal comma.
pub(super) fn parse_time(t: &str) -> Option<f64> {
    if let Some(v) = plain_decimal(t.trim_ascii()) {
        return Some(v);
    }
    let t = t.trim();
    let v = t
        .parse::<f64>()
        .ok()
        .or_else(|| t.replace(',', ".").parse::<f64>().ok())?;
    (v.is_finite() && v >= 0.0).then_some(v)
}

/// `digits[.digits]` with at most 15 digits, the shape of nearly every
/// `time` attribute, read without the general float parser (a tenth of a
/// large report's reading time went there). Exact: the digits as an integer
/// and the power of ten are both exactly representable, and one IEEE
/// division rounds correctly, so the result equals `str::parse`'s.
pub(super) fn plain_decimal(t: &str) -> Option<f64> {
    const POW10: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    let bytes = t.as_bytes();
    if bytes.is_empty() || bytes.len() > 16 {
        return None;
    }
    let mut mantissa: u64 = 0;
    let mut dot = None;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'0'..=b'9' => mantissa = mantissa * 10 + u64::from(b - b'0'),
            b'.' if dot.is_none() && i > 0 => dot = Some(i),
            _ => return None,
        }
    }
    // Digits after the dot; at most 15 digits in all.
    let frac = dot.map_or(0, |d| bytes.len() - d - 1);
    if bytes.len() - usize::from(dot.is_some()) > 15 {
        return None;
    }
    Some(mantissa as f64 / POW10[frac])
}

/// The canonical word for a `status` attribute that says a test did not
/// run (`status="disabled"` from GoogleTest-style and Boost.Test-style
/// writers, `notrun` from older GoogleTest, `ignored`, `skipped`), or
/// `None` for every other value (`run`, `passed`, `success`, `pass`,
/// `failed`, `errored`, ...): those leave the outcome to the status
/// elements. Matched without regard to case or surrounding spaces.
pub(super) fn skip_word(status: &str) -> Option<&'static str> {
    const WORDS: &[&str] = &["disabled", "notrun", "not_run", "ignored", "skipped"];
    let status = status.trim();
    WORDS
        .iter()
        .find(|w| w.eq_ignore_ascii_case(status))
        .copied()
}
