//! The history of runs on the page (docs/flaky.md): each failure card's
//! strip of recent outcomes, the trend of the last runs as an inline SVG
//! (with the same runs as a table, folded), and the tests slower than
//! usual. What they show is the view's ([`view::strip`], [`view::trend`],
//! [`view::slower`]); this writes it as markup. No script is needed: the
//! chart is drawn in the page, each run's commit and time in its
//! `<title>`, coloured by the page's CSS variables (light and dark), and
//! the strips and bars read without colour too (symbols; a table).

use std::fmt::Write as _;

use super::escape::{push, push_id};
use super::secs;
use crate::model::Run;
use crate::model::history::Mark;
use crate::render::view::{self, Group, Slower, Trend, TrendRun};
use crate::text::thousands;

/// Runs the chart draws: the last 30.
pub const TREND_RUNS: usize = 30;

/// The chart's size in its own units, and where its plot is.
const WIDTH: f64 = 1000.0;
const HEIGHT: f64 = 190.0;
const LEFT: f64 = 58.0;
const RIGHT: f64 = 942.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 150.0;
/// The widest a run's bar gets.
const BAR: f64 = 54.0;
/// The least room a label under a bar needs: with less, only some runs
/// are labelled (the last always).
const LABEL_ROOM: f64 = 76.0;

/// The class a mark is drawn with: `p` passed, `f` failed, `k` flaky.
fn class(mark: Mark) -> &'static str {
    match mark {
        Mark::Passed => "p",
        Mark::Flaky => "k",
        Mark::Failed | Mark::FailedAll => "f",
    }
}

/// A failure card's strip: its first test's last outcomes as symbols
/// that read without colour, coloured too, with the same in words as its
/// title and label. Nothing without a history of runs.
pub fn strip(out: &mut String, g: &Group<'_>) {
    let Some(strip) = view::strip(g) else { return };
    let words = strip.words();
    out.push_str("<span class=strip role=img title=\"");
    push(out, &words);
    out.push_str("\" aria-label=\"");
    push(out, &words);
    out.push_str("\">");
    for &m in strip.marks {
        let _ = write!(out, "<i class={}>{}</i>", class(m), view::symbol(m));
    }
    out.push_str("</span> ");
}

/// The trend section: the chart of the last [`TREND_RUNS`] runs, its key,
/// and the runs as a table, folded. Nothing with fewer than 2 runs.
pub fn trend(out: &mut String, run: &Run) {
    let Some(trend) = view::trend(run, TREND_RUNS) else {
        return;
    };
    let shown = trend.runs.len();
    let of = if shown < trend.window {
        format!("the last {shown} of {} runs", trend.window)
    } else {
        format!("the last {shown} runs")
    };
    let _ = writeln!(
        out,
        "<section id=trend>\n<h2>Trend <span class=n>{of}, oldest first</span></h2>"
    );
    out.push_str("<div class=chart>");
    chart(out, &trend, &of);
    out.push_str("</div>\n");
    out.push_str(
        "<ul class=\"legend key\"><li class=p>passed<li class=f>failed<li class=k>flaky\
         <li class=d>duration</ul>\n",
    );
    table(out, &trend);
    out.push_str("</section>\n");
}

/// The chart: a stacked bar per run (passed, flaky, failed), the runs'
/// durations as a line, the scales' ends on the sides, commits under the
/// bars; each run's `<title>` says what it was.
fn chart(out: &mut String, trend: &Trend, of: &str) {
    let failed: Vec<String> = trend.runs.iter().map(|r| r.failed.to_string()).collect();
    let _ = write!(
        out,
        "<svg class=trend viewBox=\"0 0 {WIDTH} {HEIGHT}\" role=img aria-label=\"Trend of {of}: \
         failed tests per run, oldest first: {}; the table below gives every run\">",
        failed.join(", ")
    );
    axes(out, trend);
    let slot = (RIGHT - LEFT) / trend.runs.len() as f64;
    let every = (LABEL_ROOM / slot).ceil().max(1.0) as usize;
    let last = trend.runs.len() - 1;
    for (i, r) in trend.runs.iter().enumerate() {
        let label = i == last || (last - i) % every == 0;
        run_bar(out, r, LEFT + slot * i as f64, slot, label);
    }
    duration_line(out, trend, slot);
    out.push_str("</svg>");
}

/// The base line, the top line, and the scales' ends: tests on the left,
/// seconds on the right.
fn axes(out: &mut String, trend: &Trend) {
    let _ = write!(
        out,
        "<line class=grid x1={LEFT} y1={TOP} x2={RIGHT} y2={TOP}></line>\
         <line class=base x1={LEFT} y1={BOTTOM} x2={RIGHT} y2={BOTTOM}></line>\
         <text class=\"ax l\" x={} y={}>{}</text>\
         <text class=\"ax l\" x={} y={BOTTOM}>0</text>",
        LEFT - 8.0,
        TOP + 4.0,
        thousands(trend.most_tests as usize),
        LEFT - 8.0
    );
    let _ = write!(
        out,
        "<text class=\"ax l u\" x={} y={}>tests</text>",
        LEFT - 8.0,
        TOP + 18.0
    );
    if let Some(longest) = trend.longest {
        let _ = write!(
            out,
            "<text class=\"ax r d\" x={} y={}>{}</text>\
             <text class=\"ax r\" x={} y={BOTTOM}>0s</text>",
            RIGHT + 8.0,
            TOP + 4.0,
            secs(longest),
            RIGHT + 8.0
        );
    }
}

/// One run: its `<title>`, a hit area as tall as the chart (so the title
/// shows anywhere above the run), its bar's parts and, when `label`, its
/// commit and day under it.
fn run_bar(out: &mut String, r: &TrendRun, x: f64, slot: f64, label: bool) {
    let this = if r.this { " now" } else { "" };
    let _ = write!(out, "<g class=\"run{this}\"><title>");
    push(out, &run_title(r));
    let _ = write!(
        out,
        "</title><rect class=hit x={x:.1} y=0 width={slot:.1} height={HEIGHT}></rect>"
    );
    let width = (slot * 0.62).min(BAR);
    let left = x + (slot - width) / 2.0;
    let mut y = BOTTOM;
    for (class, share) in ["p", "k", "f"].iter().zip(r.heights) {
        if share <= 0.0 {
            continue;
        }
        let h = share * (BOTTOM - TOP);
        y -= h;
        let _ = write!(
            out,
            "<rect class={class} x={left:.1} y={y:.1} width={width:.1} height={h:.1}></rect>"
        );
    }
    if label {
        let middle = x + slot / 2.0;
        let commit = r.commit.clone().unwrap_or_else(|| format!("run {}", r.id));
        let _ = write!(out, "<text class=c x={middle:.1} y={}>", BOTTOM + 17.0);
        push(out, &commit);
        out.push_str("</text>");
        if let Some(when) = &r.when {
            let day = when.get(5..10).unwrap_or(when);
            let _ = write!(out, "<text class=w x={middle:.1} y={}>", BOTTOM + 33.0);
            push(out, day);
            out.push_str("</text>");
        }
    }
    out.push_str("</g>");
}

/// `Run 7 (this run) · ccccccc · 2026-11-24 10:00 UTC: 2 passed, 3
/// failed, 0 flaky · 2.760s`.
fn run_title(r: &TrendRun) -> String {
    let mut t = format!("Run {}", r.id);
    if r.this {
        t.push_str(" (this run)");
    }
    if let Some(c) = &r.commit {
        let _ = write!(t, " · {c}");
    }
    if let Some(w) = &r.when {
        let _ = write!(t, " · {w} UTC");
    }
    let _ = write!(
        t,
        ": {} passed, {} failed, {} flaky",
        r.passed, r.failed, r.flaky
    );
    if let Some(d) = r.duration {
        let _ = write!(t, " · {}", secs(d));
    }
    t
}

/// The runs' durations as a line with a dot per run, broken where a run
/// has none, on a halo of the page's colour.
fn duration_line(out: &mut String, trend: &Trend, slot: f64) {
    let point = |i: usize, share: f64| {
        let x = LEFT + slot * (i as f64 + 0.5);
        (x, BOTTOM - share * (BOTTOM - TOP))
    };
    let mut pieces: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
    for (i, r) in trend.runs.iter().enumerate() {
        match (r.line, pieces.last_mut()) {
            (Some(share), Some(piece)) => piece.push(point(i, share)),
            (None, Some(piece)) if !piece.is_empty() => pieces.push(Vec::new()),
            _ => {}
        }
    }
    for piece in pieces.iter().filter(|p| p.len() > 1) {
        let points: Vec<String> = piece
            .iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        let points = points.join(" ");
        // A halo in the page's colour first: the line stands off the bars.
        let _ = write!(
            out,
            "<polyline class=halo points=\"{points}\"></polyline>\
             <polyline class=dur points=\"{points}\"></polyline>"
        );
    }
    for (x, y) in pieces.iter().flatten() {
        let _ = write!(out, "<circle class=dur cx={x:.1} cy={y:.1} r=4></circle>");
    }
}

/// The runs as a table, folded: what the chart draws, for reading and for
/// screen readers.
fn table(out: &mut String, trend: &Trend) {
    out.push_str(
        "<details class=runs><summary>The runs as a table</summary>\n<table class=runs>\
         <thead><tr><th>Run<th>Commit<th>When (UTC)<th>Passed<th>Failed<th>Flaky<th>Duration\
         </thead><tbody>\n",
    );
    for r in &trend.runs {
        let this = if r.this { " class=now" } else { "" };
        let _ = write!(out, "<tr{this}><td>{}", r.id);
        if r.this {
            out.push_str(" (this run)");
        }
        out.push_str("<td>");
        push(out, r.commit.as_deref().unwrap_or("–"));
        out.push_str("<td>");
        push(out, r.when.as_deref().unwrap_or("–"));
        let _ = writeln!(
            out,
            "<td>{}<td>{}<td>{}<td>{}",
            thousands(r.passed as usize),
            thousands(r.failed as usize),
            thousands(r.flaky as usize),
            r.duration.map_or_else(|| "–".to_string(), secs)
        );
    }
    out.push_str("</tbody></table>\n</details>\n");
}

/// The tests slower than usual: each with how many times its median it
/// took, its duration now and its median. Nothing when none is.
pub fn slower(out: &mut String, slower: &[Slower<'_>]) {
    if slower.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "<section id=slower>\n<h2>Slower than usual <span class=n>{} at least twice \
         {} median and a second more</span></h2>\n<table class=\"t slower\"><tbody>\n",
        if slower.len() == 1 {
            "1 test".to_string()
        } else {
            format!("{} tests", thousands(slower.len()))
        },
        if slower.len() == 1 { "its" } else { "their" }
    );
    for s in slower {
        out.push_str("<tr><td>");
        push_id(out, &s.test.node_id);
        let _ = writeln!(
            out,
            "<td>{:.1}× its median<small>median {}</small><td>{}",
            s.times(),
            secs(s.median),
            secs(s.now)
        );
    }
    out.push_str("</tbody></table>\n</section>\n");
}
