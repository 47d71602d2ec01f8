//! An execution error (ADR-007, docs/errors.md) as Markdown: how the run
//! ended, what finished before the end, what was running and what never
//! ran, the tail of pytest's output. Its JSON is `render::json::error_data`.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::budget::{Budget, Fitted, Offer, Plans, Rung, Truncation};
use crate::model::exec_error::{ExecError, Running};
use crate::render::{Style, view};
use crate::text::{first_line, one_line};

/// Lines of stdout/stderr shown under an error in Markdown.
const OUTPUT_TAIL_LINES: usize = 30;
/// Tests that never ran named in an error's Markdown; its JSON lists all.
const NOT_RUN_NAMED: usize = 10;

/// An execution error as Markdown: `Test TIMEOUT (30.0s) — <message>`, then
/// what finished before the end, the failures among it, and the tail of
/// pytest's output.
pub fn error(e: &ExecError) -> String {
    let mut out = error_head(e);
    super::body(&mut out, &e.partial);
    let tail = output_tail(e);
    if !tail.is_empty() {
        let _ = write!(out, "\n### OUTPUT (last lines)\n");
        let lines: Vec<&str> = tail.iter().map(String::as_str).collect();
        super::indented(&mut out, &lines);
    }
    super::notes(&mut out, &e.partial, &[command_note(e)]);
    out
}

/// What an execution error's shortened Markdown keeps, richest first.
#[derive(Debug, Clone, Copy)]
enum Kept {
    /// Its own lines, and what finished before the end: whole within the
    /// room they leave (`None`), or as one of the plans of a run's answer.
    Partial(Option<super::Plan>),
    /// What finished before the end, cut to fit (its answer's last
    /// resort), within the error's own lines.
    PartialClipped,
    /// The status line and the command, clipped (the last resort: the
    /// status line alone).
    StatusAndCommand,
}

/// [`error`] offered to fit `budget`. When the whole does not
/// fit, the output's last lines go and what finished before the end
/// shrinks in the steps of a run's answer (`super::fit`, its plans
/// among these), within the room the error's own lines leave; its notes
/// say what was left out, the command last. When the error's own lines
/// alone are too long (a command naming hundreds of ids, a worker's line
/// each): the status line and the command, clipped, or the status line
/// alone.
pub fn error_offer<'a>(e: &'a ExecError, style: &Style) -> Offer<'a, Fitted> {
    let budget = style.budget;
    let whole = error(e);
    if budget.fits(&whole) {
        return Offer::Whole(Fitted::whole(whole));
    }
    let head = error_head(e);
    let mut closing = Vec::new();
    let tail_dropped = !output_tail(e).is_empty();
    if tail_dropped {
        closing.push(format!(
            "pytest's last output lines left out to fit {}.",
            budget.describe()
        ));
    }
    closing.push(command_note(e));
    let closing: String = closing
        .iter()
        .map(|note| format!("> {}\n", super::clip(note)))
        .collect();
    let room = budget.beside(&format!("{head}\n{closing}"), 0);
    Offer::plans(Shortened {
        e,
        budget,
        status: super::clip(first_line(&head)).into_owned(),
        head,
        closing,
        tail_dropped,
        partial: super::plans(&e.partial, room, "", false),
    })
}

/// What every shortened error answer is made of.
struct Shortened<'e> {
    e: &'e ExecError,
    budget: Budget,
    head: String,
    closing: String,
    status: String,
    /// Whether pytest's last output lines were left out.
    tail_dropped: bool,
    /// What finished before the end: whole within the room, or the plans
    /// to shorten it.
    partial: Result<Fitted, Box<super::Fitting<'e>>>,
}

impl Shortened<'_> {
    /// The error's lines around `partial`, the run's answer without its
    /// own header line.
    fn around(&self, partial: Fitted) -> Fitted {
        let mut truncation = partial
            .truncation
            .unwrap_or_else(|| Truncation::new(&self.budget));
        self.tail_note(&mut truncation);
        let body = partial.text.split_once('\n').map_or("", |(_, rest)| rest);
        let gap = if body.lines().last().is_some_and(|l| l.starts_with("> ")) {
            ""
        } else {
            "\n"
        };
        Fitted {
            text: format!("{}{body}{gap}{}", self.head, self.closing),
            truncation: Some(truncation),
        }
    }

    /// The status line, and with `command` the command, clipped.
    fn status(&self, command: bool) -> Fitted {
        let mut truncation = Truncation::new(&self.budget);
        self.tail_note(&mut truncation);
        truncation
            .dropped
            .push("what finished before the end".into());
        let text = if command {
            let command = command_note(self.e);
            format!("{}\n\n> {}\n", self.status, super::clip(&command))
        } else {
            format!("{}\n", self.status)
        };
        Fitted {
            text,
            truncation: Some(truncation),
        }
    }

    fn tail_note(&self, truncation: &mut Truncation) {
        if self.tail_dropped {
            truncation
                .dropped
                .insert(0, "pytest's last output lines".to_string());
        }
    }
}

impl Plans for Shortened<'_> {
    type Plan = Kept;
    type Answer = Fitted;

    fn ladder(&self) -> Vec<Rung<'_, Kept>> {
        let mut rungs = match &self.partial {
            Ok(_) => vec![Rung::One(Kept::Partial(None))],
            Err(plans) => {
                let mut rungs: Vec<Rung<'_, Kept>> = plans
                    .ladder()
                    .into_iter()
                    .map(|rung| rung.map(|plan| Kept::Partial(Some(plan))))
                    .collect();
                rungs.push(Rung::One(Kept::PartialClipped));
                rungs
            }
        };
        rungs.push(Rung::One(Kept::StatusAndCommand));
        rungs
    }

    fn attempt(&self, kept: Kept) -> Option<Fitted> {
        let fitted = match (kept, &self.partial) {
            (Kept::Partial(None), Ok(whole)) => self.around(whole.clone()),
            (Kept::Partial(Some(plan)), Err(plans)) => self.around(plans.attempt(plan)?),
            (Kept::PartialClipped, Err(plans)) => self.around(plans.last_resort()),
            (Kept::Partial(_) | Kept::PartialClipped, _) => return None,
            (Kept::StatusAndCommand, _) => self.status(true),
        };
        self.budget.fits(&fitted.text).then_some(fitted)
    }

    fn last_resort(&self) -> Fitted {
        self.status(false)
    }
}

/// The command that ran, as the last note says it.
fn command_note(e: &ExecError) -> String {
    format!("Command: {}", one_line(&e.command.join(" ")))
}

/// The status line (`Test TIMEOUT (30.0s) — <message>`), what finished
/// before the end, and what was running.
fn error_head(e: &ExecError) -> String {
    // It may name the test that was running: an id, shown as in headings.
    let verdict = view::error_verdict(e.kind);
    let mut out = view::headline("Test", verdict, Some(e.duration), &one_line(&e.message));
    out.push('\n');
    let c = e.partial.counts();
    if c.total > 0 || e.collected.is_some() {
        let of = e.collected.map(|n| format!(" of {n}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "Finished before the end: {}{of} ({})",
            c.total,
            view::counts_phrase(&e.partial)
        );
    }
    running_lines(&mut out, &e.running);
    never_ran_line(&mut out, &e.not_run);
    out
}

/// `Never ran (3): <id>, <id>, <id>`: the collected tests a run that
/// ended early never reached, the first [`NOT_RUN_NAMED`] named.
fn never_ran_line(out: &mut String, not_run: &[String]) {
    if not_run.is_empty() {
        return;
    }
    let named: Vec<Cow<'_, str>> = not_run
        .iter()
        .take(NOT_RUN_NAMED)
        .map(|id| one_line(id))
        .collect();
    let more = not_run.len().saturating_sub(NOT_RUN_NAMED);
    let more = if more > 0 {
        format!(", +{more} more")
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "Never ran ({}): {}{more}",
        not_run.len(),
        named.join(", ")
    );
}

/// `Running at the end: <id>`, or under pytest-xdist one line per busy
/// worker: `- <id> (gw0)`.
fn running_lines(out: &mut String, running: &[Running]) {
    let shown = |r: &Running| match &r.worker {
        Some(worker) => format!("{} ({})", one_line(&r.node_id), one_line(worker)),
        None => one_line(&r.node_id).into_owned(),
    };
    match running {
        [] => {}
        [one] => {
            let _ = writeln!(out, "Running at the end: {}", shown(one));
        }
        several => {
            let _ = writeln!(out, "Running at the end ({}):", several.len());
            for r in several {
                let _ = writeln!(out, "- {}", shown(r));
            }
        }
    }
}

/// The last lines pytest printed, stdout then stderr.
fn output_tail(e: &ExecError) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for (label, text) in [("stdout", &e.stdout), ("stderr", &e.stderr)] {
        let kept: Vec<&str> = text
            .lines()
            .map(str::trim_end)
            .filter(|l| !l.trim().is_empty())
            .collect();
        if kept.is_empty() {
            continue;
        }
        let skip = kept.len().saturating_sub(OUTPUT_TAIL_LINES);
        if skip > 0 {
            lines.push(format!("{label} (… {skip} earlier lines):"));
        } else {
            lines.push(format!("{label}:"));
        }
        lines.extend(kept[skip..].iter().map(|l| l.to_string()));
    }
    lines
}

#[cfg(test)]
mod tests;
