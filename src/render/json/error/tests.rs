use serde_json::{Value, json};

use super::error_data;
use crate::model::exec_error::{ErrorKind, ExecError, Running};

/// Under pytest-xdist every running test is in the JSON; `running_test`
/// stays the one started last.
#[test]
fn tests_running_on_several_workers_are_all_in_the_data() {
    let running = |id: &str, worker: &str| Running {
        node_id: id.into(),
        worker: Some(worker.into()),
    };
    let mut e = ExecError::spawn(String::new(), vec![]);
    e.kind = ErrorKind::Timeout;
    e.running = vec![running("t.py::a", "gw1"), running("t.py::b", "gw0")];
    let data = error_data(&e);
    assert_eq!(data["running_test"], "t.py::b");
    assert_eq!(
        data["running_tests"],
        json!([{"node_id": "t.py::a", "worker": "gw1"}, {"node_id": "t.py::b", "worker": "gw0"}])
    );
    e.running.clear();
    assert_eq!(error_data(&e)["running_tests"], json!([]));
    assert_eq!(error_data(&e)["running_test"], Value::Null);
}
