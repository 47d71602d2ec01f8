use super::*;

/// A value of the wrong type is refused naming its key, in JSON's words;
/// a key is named only when the value alone lies between it and the
/// error's place.
#[test]
fn a_wrong_typed_value_names_its_key_in_jsons_words() {
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Doc {
        name: String,
        duration: Option<f64>,
        line: Option<u32>,
        tests: Option<Vec<u8>>,
    }
    let cases = [
        (
            r#"{"name": "a", "duration": "x"}"#,
            r#""duration": invalid type: string "x", expected a number"#,
        ),
        (
            "{\"name\": \"é\",\n \"line\": -3}",
            r#""line": invalid value: integer `-3`, expected a whole number"#,
        ),
        (
            r#"{"name": "a", "line": 2.5}"#,
            r#""line": invalid type: floating point `2.5`, expected a whole number"#,
        ),
        (
            r#"{"name": 3}"#,
            r#""name": invalid type: integer `3`, expected a string"#,
        ),
        (
            r#"{"name": "a", "tests": {"x": 1}}"#,
            r#""tests": invalid type: map, expected a sequence"#,
        ),
        ("3", "invalid type: integer `3`, expected struct Doc"),
    ];
    for (text, said) in cases {
        let e = serde_json::from_str::<Doc>(text).expect_err(text);
        let error = json_error(&e, "a test", text);
        assert_eq!(error.message, format!("not a test: {said}"), "{text}");
    }
}
