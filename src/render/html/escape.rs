//! Text from a test is never read as HTML: every id, message, reason and
//! line of output goes through [`push`] (or [`escape`]) on its way into the
//! page, in text and in attribute values alike.

use crate::text::one_line;

pub use crate::text::{html_escape as escape, push_html_escaped as push};

/// Appends an id (or a path) to `out`: escaped, with its control
/// characters made visible as every renderer but JSON shows them.
pub fn push_id(out: &mut String, id: &str) {
    push(out, &one_line(id));
}

#[cfg(test)]
mod tests;
