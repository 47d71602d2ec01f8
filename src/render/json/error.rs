//! An execution error's `data` (ADR-007, docs/errors.md): how pytest
//! ended, with what finished before the end.

use serde_json::{Value, json};

use crate::model::exec_error::ExecError;

/// The `data` of an execution error's ADR-007 JSON-RPC error object: how
/// pytest ended, with what finished before the end.
pub fn error_data(e: &ExecError) -> Value {
    let partial = super::to_value(&e.partial);
    json!({
        "error_type": e.kind.as_str(),
        "exit_code": e.exit_code,
        "signal": e.signal.as_ref().map(|s| s.name()),
        "stdout": e.stdout,
        "stderr": e.stderr,
        "command": e.command,
        "duration": (e.duration * 1000.0).round() / 1000.0,
        // The test started last, as before workers; all of them below.
        "running_test": e.running.last().map(|r| &r.node_id),
        "running_tests": e.running.iter().map(|r| json!({
            "node_id": r.node_id,
            "worker": r.worker,
        })).collect::<Vec<_>>(),
        "collected": e.collected,
        "not_run": e.not_run,
        "summary": partial["summary"],
        "tests": partial["tests"],
        "collection_errors": partial["collection_errors"],
    })
}

#[cfg(test)]
mod tests;
