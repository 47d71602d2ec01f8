use super::*;

/// The tools' output schemas are closed objects that say which fields
/// are always there, with nothing a validator must look up elsewhere.
#[test]
fn output_schemas_are_self_contained_objects() {
    for tool in tools() {
        let schema = tool.output_schema.expect("an output schema");
        assert_eq!(schema["type"], "object", "{}", tool.name);
        let text = Value::Object((*schema).clone()).to_string();
        for absent in ["$ref", "$defs", "\"null\"", "description", "format"] {
            assert!(!text.contains(absent), "{absent} in {text}");
        }
        let required = schema["required"].as_array().expect("required");
        for field in ["status", "collection_errors"] {
            assert!(required.contains(&Value::from(field)), "{text}");
        }
        assert!(!required.contains(&Value::from("truncated")), "{text}");
    }
}
