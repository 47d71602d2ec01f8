use serde_json::json;

use super::discovery as discovery_json;
use crate::model::discovery::Item;
use crate::model::testing::{discovery, item};

#[test]
fn json_keeps_the_first_case_ids_and_says_how_many_it_left_out() {
    let mut items: Vec<Item> = (0..10)
        .map(|n| item(&format!("t/test_a.py::test_p[{n}]"), Some("test_p"), 3))
        .collect();
    items.push(item("t/test_a.py::test_one[only]", Some("test_one"), 9));
    items.push(item("t/test_a.py::test_plain", Some("test_plain"), 12));
    let v = discovery_json(&discovery(items));
    assert_eq!(v["count"], 12);
    let tests = v["tests"].as_array().expect("tests");
    assert_eq!(tests.len(), 3);
    assert_eq!(tests[0]["node_id"], "t/test_a.py::test_p");
    assert_eq!(tests[0]["cases"], 10);
    assert_eq!(
        tests[0]["case_ids"],
        json!([
            "t/test_a.py::test_p[0]",
            "t/test_a.py::test_p[1]",
            "t/test_a.py::test_p[2]"
        ])
    );
    assert_eq!(tests[1]["cases"], 1);
    assert!(tests[2].get("cases").is_none() && tests[2].get("case_ids").is_none());
    assert_eq!(v["truncated"]["case_ids_omitted"], 7);
    let plain = discovery_json(&discovery(vec![item("t/test_a.py::test_plain", None, 1)]));
    assert!(plain.get("truncated").is_none(), "{plain}");
}
