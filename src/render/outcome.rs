//! Renderings of what `run` and `discover` produce besides a test result:
//! execution errors (ADR-007; SPEC.md: errors follow the request's format)
//! and discovery (the style guide's discovery template).

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::markdown;
use crate::model::discovery::Discovery;
use crate::model::outcome::ExecError;
use crate::render::json as adr006;
use crate::text::one_line;

/// Lines of stdout/stderr shown under an error in Markdown.
const OUTPUT_TAIL_LINES: usize = 30;

/// An execution error as Markdown: `Test TIMEOUT (30.0s) — <message>`, then
/// what finished before the end, the failures among it, and the tail of
/// pytest's output.
pub fn error_markdown(e: &ExecError) -> String {
    let mut out = format!(
        "Test {} ({:.1}s) — {}\n",
        e.kind.status_word(),
        e.duration,
        // It may name the test that was running: an id, shown as in headings.
        one_line(&e.message)
    );
    let c = e.partial.counts();
    if c.total > 0 || e.collected.is_some() {
        let of = e.collected.map(|n| format!(" of {n}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "Finished before the end: {}{of} ({})",
            c.total,
            markdown::counts_phrase(&e.partial)
        );
    }
    if let Some(running) = &e.running {
        let _ = writeln!(out, "Running at the end: {}", one_line(running));
    }
    markdown::body(&mut out, &e.partial);
    let tail = output_tail(e);
    if !tail.is_empty() {
        let _ = write!(out, "\n### OUTPUT (last lines)\n");
        let lines: Vec<&str> = tail.iter().map(String::as_str).collect();
        markdown::indented(&mut out, &lines);
    }
    let command = format!("Command: {}", one_line(&e.command.join(" ")));
    markdown::notes(&mut out, &e.partial, &[command]);
    out
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

/// The `data` of an execution error's ADR-007 JSON-RPC error object: how
/// pytest ended, with what finished before the end.
pub fn error_data(e: &ExecError) -> Value {
    let partial = adr006::to_value(&e.partial);
    json!({
        "error_type": e.kind.as_str(),
        "exit_code": e.exit_code,
        "signal": e.signal.as_ref().map(|s| s.name()),
        "stdout": e.stdout,
        "stderr": e.stderr,
        "command": e.command,
        "duration": (e.duration * 1000.0).round() / 1000.0,
        "running_test": e.running,
        "collected": e.collected,
        "summary": partial["summary"],
        "tests": partial["tests"],
        "collection_errors": partial["collection_errors"],
    })
}

/// Discovery as Markdown: a header, then items grouped by file, each as
/// `L<line> <id after the file>`; collection errors as in test reports.
pub fn discovery_markdown(d: &Discovery) -> String {
    let files = {
        let mut f: Vec<&str> = d.items.iter().map(|i| file_of(&i.nodeid)).collect();
        f.dedup();
        f.sort_unstable();
        f.dedup();
        f.len()
    };
    let status = if !d.collection_errors.is_empty() {
        "FAILURE"
    } else if d.items.is_empty() {
        "NO TESTS"
    } else {
        "SUCCESS"
    };
    let mut out = format!(
        "Discover {status} ({:.1}s) — {} tests in {} files",
        d.duration,
        d.items.len(),
        files
    );
    if !d.collection_errors.is_empty() {
        let n = d.collection_errors.len();
        let _ = write!(
            out,
            ", {n} collection error{}",
            if n == 1 { "" } else { "s" }
        );
    }
    out.push('\n');
    let run = crate::model::Run {
        collection_errors: d.collection_errors.clone(),
        ..crate::model::Run::default()
    };
    markdown::collection_errors(&mut out, &run);
    let mut current: Option<&str> = None;
    for item in &d.items {
        let file = file_of(&item.nodeid);
        if current != Some(file) {
            let _ = write!(out, "\n### {}\n", one_line(file));
            current = Some(file);
        }
        let rest = item.nodeid[file.len()..].trim_start_matches("::");
        let rest = one_line(if rest.is_empty() {
            item.nodeid.as_str()
        } else {
            rest
        });
        match item.line {
            Some(line) => {
                let _ = writeln!(out, "- L{line} {rest}");
            }
            None => {
                let _ = writeln!(out, "- {rest}");
            }
        }
    }
    if !d.notes.is_empty() {
        out.push('\n');
        for note in &d.notes {
            let _ = writeln!(out, "> {note}");
        }
    }
    out
}

fn file_of(nodeid: &str) -> &str {
    nodeid.split("::").next().unwrap_or(nodeid)
}

/// Discovery as the style guide's JSON.
pub fn discovery_value(d: &Discovery) -> Value {
    json!({
        "tests": d.items.iter().map(|i| json!({
            "node_id": i.nodeid,
            // The style guide's dotted path from the root (`tests.test_x`);
            // the imported name only when pytest gave no file.
            "module": i.file.as_deref().map(crate::pytest_text::path_to_module).or_else(|| i.module.clone()),
            "class": i.class,
            "function": i.function,
            "file": i.file,
            "line": i.line,
        })).collect::<Vec<_>>(),
        "count": d.items.len(),
        "collection_errors": d.collection_errors.iter().map(|e| json!({
            "file": e.file,
            "error_type": e.error_type,
            "message": e.message,
            "line": e.line,
            "traceback": e.traceback,
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::discovery::Item;
    use crate::model::outcome::ErrorKind;

    /// Ids are shown with their control characters escaped, as in reports.
    #[test]
    fn ids_in_errors_and_discovery_are_escaped() {
        let id = "tests/t.py::test_\u{1b}[31mred";
        let d = Discovery {
            items: vec![Item {
                nodeid: id.into(),
                file: None,
                line: Some(3),
                module: None,
                class: None,
                function: None,
            }],
            ..Discovery::default()
        };
        let md = discovery_markdown(&d);
        assert!(md.contains(r"- L3 test_\u{1b}[31mred"), "{md}");
        let e = ExecError {
            kind: ErrorKind::Timeout,
            message: format!("pytest execution exceeded timeout of 1 seconds while running {id}"),
            exit_code: None,
            signal: None,
            stdout: String::new(),
            stderr: String::new(),
            command: vec!["python".into(), id.into()],
            duration: 1.0,
            partial: crate::model::Run::default(),
            running: Some(id.into()),
            collected: None,
        };
        let md = error_markdown(&e);
        assert!(!md.contains('\u{1b}'), "{md:?}");
        assert_eq!(md.matches(r"test_\u{1b}[31mred").count(), 3, "{md}");
    }
}
