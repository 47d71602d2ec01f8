//! Small text helpers shared by several stages.

use std::borrow::Cow;

/// Removes ANSI escape sequences (colours, cursor moves): captured output and
/// pytest's console text are stored and rendered without them.
pub fn strip_ansi(text: &str) -> Cow<'_, str> {
    if text.contains('\x1b') {
        Cow::Owned(strip_ansi_escapes::strip_str(text))
    } else {
        Cow::Borrowed(text)
    }
}
