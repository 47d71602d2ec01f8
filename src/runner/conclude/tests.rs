use super::{Running, bound_strings, while_running};

#[test]
fn an_error_names_the_running_tests_up_to_a_few() {
    let running: Vec<Running> = (0..6)
        .map(|i| Running {
            node_id: format!("t.py::t{i}"),
            worker: Some(format!("gw{i}")),
        })
        .collect();
    assert_eq!(while_running(&[]), "");
    assert_eq!(while_running(&running[..1]), " while running t.py::t0");
    assert_eq!(
        while_running(&running[..2]),
        " while running 2 tests: t.py::t0, t.py::t1"
    );
    assert_eq!(
        while_running(&running),
        " while running 6 tests: t.py::t0, t.py::t1, t.py::t2, t.py::t3 +2 more"
    );
}

#[test]
fn long_strings_are_bounded_on_char_boundaries() {
    let mut v = serde_json::json!({"a": ["é".repeat(100)], "b": "short"});
    let dropped = bound_strings(&mut v, 50);
    assert!(dropped > 0);
    let a = v["a"][0].as_str().unwrap();
    assert!(a.contains("bytes dropped by pytest-mcp"));
    assert_eq!(v["b"], "short");
}
