use super::discovery as discovery_md;
use crate::model::discovery::Item;
use crate::model::testing::{discovery, item};

/// Parameters may hold `::` and `[`; the function's id ends before the
/// first `[` after the file.
#[test]
fn cases_are_grouped_under_their_function() {
    let d = discovery(vec![
        item("t/test_a.py::test_p[a::b]", Some("test_p"), 3),
        item("t/test_a.py::test_plain", Some("test_plain"), 7),
        item("t/test_a.py::test_p[[x]-1]", Some("test_p"), 3),
        item("t/test_a.py::C::test_m[0]", Some("test_m"), 12),
        item("t/test_b.py::test_b", Some("test_b"), 1),
        item("t/test_a.py::C::test_m[1]", Some("test_m"), 12),
    ]);
    let f = d.functions();
    let ids: Vec<(&str, usize, bool)> = f
        .iter()
        .map(|f| (f.id, f.items.len(), f.parametrized))
        .collect();
    assert_eq!(
        ids,
        [
            ("t/test_a.py::test_p", 2, true),
            ("t/test_a.py::test_plain", 1, false),
            ("t/test_a.py::C::test_m", 2, true),
            ("t/test_b.py::test_b", 1, false),
        ]
    );
    let md = discovery_md(&d);
    assert!(
        md.contains(
            "\n### t/test_a.py\n- L3 test_p — 2 cases\n- L7 test_plain\n- L12 C::test_m — 2 cases\n"
        ),
        "{md}"
    );
    assert_eq!(md.matches("### t/test_a.py").count(), 1, "{md}");
    assert!(
        md.contains("> 4 cases of 2 parametrized functions counted"),
        "{md}"
    );
}

/// A plugin's item whose name has brackets of its own, or an id whose
/// base is not the function pytest named, stays as it is.
#[test]
fn ids_of_other_shapes_are_not_grouped() {
    for (id, function) in [
        ("t/spec.yaml::case [slow]", None),
        ("t/test_a.py::test_x[1]", Some("test_y")),
        ("t/test_a.py[1]", None),
        ("t/test_a.py::[1]", None),
        ("t/test_a.py::test_x[1]extra", None),
    ] {
        let d = discovery(vec![item(id, function, 1)]);
        let f = d.functions();
        assert_eq!(f.len(), 1);
        assert!(!f[0].parametrized && f[0].id == id, "{id}: {f:?}");
    }
    let d = discovery(vec![item("t/test_a.py::test_x[1]", None, 1)]);
    assert_eq!(d.functions()[0].id, "t/test_a.py::test_x");
}

#[test]
fn ids_in_discovery_are_escaped() {
    use crate::model::discovery::Discovery;
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
    let md = discovery_md(&d);
    assert!(md.contains(r"- L3 test_\u{1b}[31mred"), "{md}");
}
