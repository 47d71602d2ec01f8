use super::*;
use serde_json::json;

fn properties<T: ToolRequest>() -> Map<String, Value> {
    match T::input_schema().1.get("properties") {
        Some(Value::Object(p)) => p.clone(),
        other => panic!("no properties: {other:?}"),
    }
}

/// A value of the property's type, and one of another type.
fn samples(property: &Value) -> (Value, Value) {
    if property.get("anyOf").is_some() {
        // `workers`: read as a JSON value; `params` checks it.
        return (json!(2), Value::Null);
    }
    match property["type"].as_str() {
        Some("string") => (json!("x"), json!(1)),
        Some("integer") => (json!(1), json!("1")),
        Some("boolean") => (json!(true), json!("true")),
        Some("array") => (json!(["x"]), json!("x")),
        other => panic!("a type the reader does not check: {other:?}"),
    }
}

/// Every property the schema lists is a field serde reads, and a value
/// of another JSON type gets our error naming that field.
fn schema_and_reader_agree<T: ToolRequest + std::fmt::Debug + Default + PartialEq>() {
    let properties = properties::<T>();
    assert!(properties.len() >= 3, "{properties:?}");
    for (field, property) in &properties {
        let (good, bad) = samples(property);
        let read = T::from_json(&json!({ field: good })).expect("a value of the schema's type");
        assert_ne!(read, T::default(), "{field} was not read");
        if bad.is_null() {
            continue;
        }
        let err = T::from_json(&json!({ field: bad.clone() })).expect_err("wrong type");
        assert_eq!(
            (err.field.as_str(), &err.received_value),
            (field.as_str(), &bad)
        );
        assert!(err.detail.starts_with("must be "), "{err}");
        assert_eq!(T::from_json(&json!({ field: null })), Ok(T::default()));
    }
}

#[test]
fn every_schema_property_is_read_and_type_checked() {
    schema_and_reader_agree::<ExecuteTestsRequest>();
    schema_and_reader_agree::<DiscoverTestsRequest>();
}

#[test]
fn unknown_keys_are_refused_naming_the_known_ones_in_schema_order() {
    let err = ExecuteTestsRequest::from_json(&json!({"node_ids": [], "extra_args": ["-p"]}))
        .expect_err("unknown");
    assert_eq!(
        err.to_string(),
        "Invalid params: extra_args is not a known parameter (known: node_ids, markers, keywords, verbosity, failfast, maxfail, last_failed, affected, workers, retries, show_capture, timeout, max_tokens, format, coverage, base, warm) (received [\"-p\"])"
    );
    // The command line's discovery time limit is no tool parameter.
    let err = DiscoverTestsRequest::from_json(&json!({"timeout": 5})).expect_err("unknown");
    assert_eq!(
        err.detail,
        "is not a known parameter (known: path, pattern, max_tokens, format)"
    );
}

#[test]
fn wrong_types_are_reported_in_schema_order_with_the_bad_item() {
    let err = ExecuteTestsRequest::from_json(&json!({"format": 1, "node_ids": ["a", 2]}))
        .expect_err("wrong types");
    assert_eq!(
        err.to_string(),
        "Invalid params: node_ids must be an array of strings (received 2)"
    );
    let err = ExecuteTestsRequest::from_json(&json!({"maxfail": 1.5})).expect_err("float");
    assert_eq!(err.detail, "must be an integer");
    let err = ExecuteTestsRequest::from_json(&json!({"timeout": u64::MAX})).expect_err("big");
    assert_eq!(err.received_value, json!(u64::MAX));
}

#[test]
fn a_full_request_reads_every_field() {
    let read = ExecuteTestsRequest::from_json(&json!({
        "node_ids": ["t.py"], "markers": "m", "keywords": "k", "verbosity": -2,
        "failfast": false, "maxfail": 3, "last_failed": true, "affected": true, "workers": "many",
        "retries": 2, "show_capture": false, "timeout": 9, "format": "yaml",
        "coverage": true, "base": "main", "warm": false
    }))
    .expect("read");
    assert_eq!(
        read,
        ExecuteTestsRequest {
            node_ids: vec!["t.py".into()],
            markers: Some("m".into()),
            keywords: Some("k".into()),
            verbosity: Some(-2),
            failfast: Some(false),
            maxfail: Some(3),
            last_failed: Some(true),
            affected: Some(true),
            workers: Some(json!("many")),
            retries: Some(2),
            show_capture: Some(false),
            timeout: Some(9),
            max_tokens: None,
            // Values are checked by `params`, in its order.
            format: Some("yaml".into()),
            coverage: Some(true),
            base: Some("main".into()),
            warm: Some(false),
        }
    );
}

#[test]
fn the_schema_says_only_what_the_tool_takes() {
    let (description, schema) = ExecuteTestsRequest::input_schema().clone();
    assert!(
        description.starts_with("Run pytest in the project"),
        "{description}"
    );
    assert!(!description.contains('\n'), "{description}");
    let keys: Vec<&String> = schema.keys().collect();
    assert_eq!(keys, ["type", "properties", "additionalProperties"]);
    assert_eq!(schema["additionalProperties"], json!(false));
    let text = Value::Object(schema).to_string();
    for noise in ["null", "\"default\":", "int64", "$defs", "\\n", "required"] {
        assert!(!text.contains(noise), "{noise} in {text}");
    }
}

/// `workers` is a positive integer or "auto", with its description on
/// the property itself (no `$ref`, no null alternative).
#[test]
fn workers_is_a_count_or_auto() {
    let workers = &properties::<ExecuteTestsRequest>()["workers"];
    assert_eq!(
        workers["anyOf"],
        json!([
            {"type": "integer", "maximum": MAX_WORKERS, "minimum": 1},
            {"type": "string", "enum": ["auto"]}
        ])
    );
    let description = workers["description"].as_str().unwrap_or_default();
    assert!(description.contains("pytest-xdist"), "{workers}");
}

#[test]
fn every_output_format_is_listed_once_under_the_name_clap_gives_it() {
    use clap::ValueEnum;
    let all = OutputFormat::all();
    for &format in all {
        let clap_name = format.to_possible_value().expect("a --format value");
        assert_eq!(format.cli_name(), clap_name.get_name());
        assert_eq!(all.iter().filter(|&&f| f == format).count(), 1);
    }
}
