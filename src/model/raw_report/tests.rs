use super::*;
use serde_json::json;

const DOC: &str = r#"{"created": 1.5e9, "b": [1, -2, 3.25, true, null], "s": "\u001b[31m\u00e9\ud83d\ude00", "a": {"z": 1, "y": 18446744073709551615}}"#;

/// Written as the parsed value was: key order, numbers, escapes.
#[test]
fn writes_what_the_parsed_document_wrote() {
    let value: serde_json::Value = serde_json::from_str(DOC).unwrap();
    let raw = RawReports::parsed(DOC.to_string());
    assert_eq!(
        serde_json::to_string_pretty(&raw).unwrap(),
        serde_json::to_string_pretty(&value).unwrap()
    );
    assert_eq!(
        serde_json::to_string(&raw).unwrap(),
        serde_json::to_string(&value).unwrap()
    );
    assert_eq!(raw.to_value(), value);
}

#[test]
fn the_longest_literal_bounds_every_string() {
    let raw = RawReports::parsed(r#"{"k": "a\"bc", "longer key": ""}"#.into());
    assert_eq!(raw.longest_string_bound(), 10);
    assert_eq!(RawReports::parsed(DOC.into()).longest_string_bound(), 28);
    assert_eq!(
        RawReports::parsed("[1, 2]".into()).longest_string_bound(),
        0
    );
}

#[test]
fn nesting_depth_counts_brackets_outside_strings() {
    assert_eq!(nesting_depth(DOC), 2);
    assert_eq!(nesting_depth(r#"[[["]]]]]\"[[[["]]]"#), 3);
    assert_eq!(nesting_depth("1"), 0);
}

#[test]
fn several_documents_are_an_array_in_order() {
    let joined = RawReports::join([
        RawReports::parsed("{\"a\": 1}".into()),
        RawReports::parsed("[2]".into()),
    ])
    .unwrap();
    assert_eq!(joined.to_value(), json!([{"a": 1}, [2]]));
    assert_eq!(RawReports::join([]), None);
}

/// Not JSON after all is an error from the serializer, not a panic.
#[test]
fn text_that_is_not_json_fails_to_serialize() {
    for bad in ["{\"a\": ", "{} {}", "nope"] {
        let raw = RawReports::parsed(bad.to_string());
        assert!(serde_json::to_string(&raw).is_err(), "{bad}");
        assert_eq!(raw.to_value(), serde_json::Value::Null);
    }
}

/// A number that may be past `f64`'s range, or nesting near serde_json's
/// limit, asks for a check; ordinary documents do not, whatever their
/// strings hold.
#[test]
fn numbers_that_may_overflow_need_checking() {
    let long = "9".repeat(300);
    for risky in ["1e400", "[1.5E-999]", "{\"a\": -2e+308}", long.as_str()] {
        assert!(super::needs_checking(risky), "{risky}");
    }
    let deep = format!("{}{}", "[".repeat(130), "]".repeat(130));
    assert!(super::needs_checking(&deep));
    let long_string = format!("{{\"a\": \"1e400 {long}\"}}");
    for plain in [
        "{\"a\": 1e99, \"b\": [1.5, -3, true, null]}",
        long_string.as_str(),
    ] {
        assert!(!super::needs_checking(plain), "{plain}");
    }
}
