//! The two tools as `tools/list` describes them: name, title, description
//! and input schema from the request type (`request`), annotations, and the
//! output schema derived from the structured result's type
//! (`render::structured`). An agent pays for this list on every turn
//! (`tests/tools_list.rs` pins it and its size), so the output schemas say
//! only the shape: field names, types and which are always present.

use std::sync::Arc;

use rmcp::model::{Tool, ToolAnnotations};
use rmcp::schemars::generate::SchemaSettings;
use rmcp::schemars::{JsonSchema, Schema};
use serde_json::{Map, Value};

use crate::render::structured::{DiscoveryResult, RunResult};
use crate::request::{DiscoverTestsRequest, ExecuteTestsRequest, ToolRequest};

/// The two tools, in the order `tools/list` gives them.
pub fn tools() -> Vec<Tool> {
    vec![
        tool::<ExecuteTestsRequest>("Run pytest tests")
            .with_raw_output_schema(Arc::new(output_schema::<RunResult>()))
            // Runs the project's code and writes pytest's cache (the
            // failures `last_failed` reruns): not read-only. Nothing it
            // does deletes or overwrites the user's work, so not
            // destructive. Not idempotent: the same call runs the tests'
            // side effects again, and with `last_failed` selects from what
            // the previous call recorded. Its world is the project on this
            // machine: closed.
            .with_annotations(
                ToolAnnotations::new()
                    .read_only(false)
                    .destructive(false)
                    .idempotent(false)
                    .open_world(false),
            ),
        tool::<DiscoverTestsRequest>("List pytest tests")
            .with_raw_output_schema(Arc::new(output_schema::<DiscoveryResult>()))
            // Read-only: discovery is `pytest --collect-only` with pytest's
            // cache plugin off and bytecode writing off
            // (`runner::command`), so it writes no `.pytest_cache` (pytest
            // would record the files that fail to import there, which a
            // later `last_failed` run reads) and no `__pycache__`. It
            // imports the test modules and conftest.py, as any collection
            // does; a test suite whose import has side effects is the one
            // exception we cannot rule out. Repeating it changes nothing;
            // closed world, as above.
            .with_annotations(
                ToolAnnotations::new()
                    .read_only(true)
                    .destructive(false)
                    .idempotent(true)
                    .open_world(false),
            ),
    ]
}

fn tool<T: ToolRequest>(title: &str) -> Tool {
    let (description, schema) = T::input_schema().clone();
    Tool::new(T::TOOL, description, schema).with_title(title)
}

/// The output schema of a structured result's type: every subschema
/// inline (no `$ref`, which clients would have to resolve), what is
/// serialized only when there is a value not required, no descriptions,
/// formats or the `minimum: 0` of unsigned integers (see [`lean`]).
pub fn output_schema<T: JsonSchema>() -> Map<String, Value> {
    let mut settings = SchemaSettings::draft2020_12().for_serialize();
    settings.inline_subschemas = true;
    let mut object = crate::request::schema_object::<T>(settings, lean);
    // Which fields an item of a list always has is for the README: only
    // the result's own fields say so here.
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        properties.values_mut().for_each(unrequire);
    }
    // Clients validate with whatever JSON Schema draft their validator
    // defaults to (the TypeScript SDK's Ajv: draft 7); the schema uses
    // nothing on which the drafts differ.
    object.shift_remove("$schema");
    object
}

/// Drops `required` from a schema and every schema inside it.
fn unrequire(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            object.shift_remove("required");
            object.values_mut().for_each(unrequire);
        }
        Value::Array(items) => items.iter_mut().for_each(unrequire),
        _ => {}
    }
}

/// Keeps an output schema to its shape. An optional field is left out when
/// it has no value, never `null`, so its type is its value's. Descriptions
/// stay in the Rust types' doc comments: the README documents the result,
/// and every agent would pay for them on every turn.
fn lean(schema: &mut Schema) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|t| t != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            object.insert("type".into(), only);
        }
    }
    if object.get("minimum") == Some(&Value::from(0)) {
        object.shift_remove("minimum");
    }
    for noise in ["description", "title"] {
        object.shift_remove(noise);
    }
}

#[cfg(test)]
mod tests;
