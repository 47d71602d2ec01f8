//! The change's coverage on the page (`run --coverage`,
//! docs/coverage.md): how many changed lines ran, then each range no test
//! ran with its function and its source lines, numbered.

use std::fmt::Write as _;

use super::escape::{push, push_id};
use crate::model::Run;
use crate::render::view;

/// The section, after the failures; nothing for a run not under coverage.
pub fn write(out: &mut String, run: &Run) {
    let Some(c) = &run.coverage else { return };
    out.push_str("<section id=coverage>\n<h2>Change coverage <span class=n>");
    push(out, &view::coverage_phrase(c, true));
    out.push_str("</span></h2>\n");
    for (path, gap) in view::coverage_gaps(c) {
        out.push_str("<article class=grp>\n<h3><code>");
        push_id(out, &format!("{path}:{}", gap.lines()));
        out.push_str("</code>");
        if let Some(f) = &gap.function {
            out.push_str(" in <code>");
            push_id(out, f);
            out.push_str("</code>");
        }
        if let Some(was) = view::coverage_was(gap) {
            out.push_str(" <span class=n>(");
            push(out, was);
            out.push_str(")</span>");
        }
        out.push_str("</h3>\n");
        if !gap.source.is_empty() {
            out.push_str("<pre class=detail>");
            for (n, line) in (gap.start..).zip(&gap.source) {
                let _ = write!(out, "{n:>5}  ");
                push(out, line);
                out.push('\n');
            }
            out.push_str("</pre>\n");
        }
        out.push_str("</article>\n");
    }
    let left = view::coverage_left_behind(c);
    if !left.is_empty() {
        out.push_str("<p>Ran before the change, not now: ");
        push(out, &left.join("; "));
        out.push_str("</p>\n");
    }
    out.push_str("</section>\n");
}
