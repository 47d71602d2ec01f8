use super::*;
use crate::request::ToolRequest;
use serde_json::json;

fn project() -> (tempfile::TempDir, Root) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("tests")).expect("mkdir");
    std::fs::write(dir.path().join("tests/test_a.py"), "def test_a(): pass\n").expect("write");
    let root = Root::new(dir.path()).expect("root");
    (dir, root)
}

fn run(args: Value) -> Result<RunParams, ValidationError> {
    let (_dir, root) = project();
    ExecuteTestsRequest::from_json(&args)?.validate(&root, Duration::from_secs(300))
}

fn refused(args: Value, field: &str, detail_part: &str) {
    let err = run(args.clone()).expect_err(&format!("{args} must be refused"));
    assert_eq!(err.field, field, "{err}");
    assert!(err.detail.contains(detail_part), "{err}");
    assert!(err.to_string().starts_with("Invalid params: "), "{err}");
}

/// A budget no answer can meet, or absurd, is refused naming max_tokens.
#[test]
fn budgets_out_of_range_are_refused() {
    let (_dir, root) = project();
    for bad in [0i64, -1, 199, 1_000_001, i64::MIN] {
        for err in [
            ExecuteTestsRequest {
                max_tokens: Some(bad),
                ..Default::default()
            }
            .validate(&root, Duration::from_secs(5))
            .err(),
            DiscoverTestsRequest {
                max_tokens: Some(bad),
                ..Default::default()
            }
            .validate(&root, Duration::from_secs(5))
            .err(),
        ] {
            let err = err.expect("refused");
            assert_eq!(err.field, "max_tokens");
            assert_eq!(err.received_value, json!(bad));
        }
    }
    for good in [200i64, 400, 8_000, 1_000_000] {
        let p = ExecuteTestsRequest {
            max_tokens: Some(good),
            ..Default::default()
        }
        .validate(&root, Duration::from_secs(5))
        .expect("accepted");
        assert_eq!(p.max_tokens, Some(good as usize));
    }
}

#[test]
fn a_good_request_is_typed() {
    let p = run(json!({
        "node_ids": ["tests/test_a.py::test_a", "tests"],
        "markers": "not slow",
        "keywords": "a or b",
        "verbosity": -1,
        "maxfail": 3,
        "timeout": 10,
        "format": "json"
    }))
    .expect("valid");
    assert_eq!(p.stop, Stop::After(3));
    assert_eq!(p.verbosity, -1);
    assert_eq!(p.timeout, Duration::from_secs(10));
    assert_eq!(p.format, OutputFormat::Json);
    assert!(run(json!({})).is_ok());
    assert!(run(Value::Null).is_ok());
    // last_failed narrows a selection (pytest's --lf with node ids).
    let p =
        run(json!({"last_failed": true, "node_ids": ["tests"], "keywords": "a"})).expect("valid");
    assert!(p.last_failed);
    assert!(!run(json!({})).expect("valid").last_failed);
    // affected combines with them.
    let p = run(json!({"affected": true, "last_failed": true, "keywords": "a"})).expect("valid");
    assert!(p.affected && p.last_failed);
    assert!(!run(json!({})).expect("valid").affected);
}

#[test]
fn every_rule_is_enforced_with_field_rule_and_value() {
    refused(json!({"verbosity": 10}), "verbosity", "between -2 and 2");
    refused(json!({"verbosity": "2"}), "verbosity", "integer");
    refused(json!({"verbosity": 1.5}), "verbosity", "integer");
    refused(json!({"maxfail": 0}), "maxfail", "positive");
    refused(
        json!({"failfast": true, "maxfail": 2}),
        "failfast",
        "maxfail",
    );
    refused(json!({"failfast": "yes"}), "failfast", "true or false");
    refused(json!({"timeout": 0}), "timeout", "between 1 and");
    refused(json!({"timeout": 100000}), "timeout", "between 1 and");
    refused(json!({"format": "xml"}), "format", "markdown");
    refused(
        json!({"extra_args": ["-p", "evil"]}),
        "extra_args",
        "not a known parameter",
    );
    refused(json!({"node_ids": "tests"}), "node_ids", "array of strings");
    refused(json!({"node_ids": [1]}), "node_ids", "array of strings");
    refused(json!({"node_ids": ["../outside.py"]}), "node_ids", "'..'");
    refused(
        json!({"node_ids": ["/etc/passwd"]}),
        "node_ids",
        "inside the project root",
    );
    refused(json!({"node_ids": ["--pdb"]}), "node_ids", "start with '-'");
    refused(
        json!({"node_ids": ["tests/test_a.py\u{0}x"]}),
        "node_ids",
        "control",
    );
    refused(
        json!({"node_ids": ["tests/nope.py"]}),
        "node_ids",
        "existing file",
    );
    refused(json!({"node_ids": [""]}), "node_ids", "empty");
    refused(
        json!({"node_ids": vec!["tests/test_a.py"; 10_001]}),
        "node_ids",
        "at most 10000 ids",
    );
    refused(
        json!({"node_ids": vec!["tests/test_a.py::".to_string() + &"a".repeat(4000); 300]}),
        "node_ids",
        "must total at most",
    );
    refused(
        json!({"node_ids": ["tests/test_a.py::".to_string() + &"a".repeat(5000)]}),
        "node_ids",
        "at most 4096 characters",
    );
    refused(json!({"markers": "-p evil"}), "markers", "start with '-'");
    refused(json!({"markers": "  --co"}), "markers", "start with '-'");
    refused(json!({"keywords": "a\nb"}), "keywords", "control");
    refused(json!({"keywords": " "}), "keywords", "empty");
    refused(json!(["tests"]), "arguments", "JSON object");
    for bad in [
        json!(0),
        json!(-1),
        json!(257),
        json!(1.5),
        json!("many"),
        json!("2"),
        json!("AUTO"),
        json!(true),
        json!([2]),
    ] {
        let err = run(json!({"workers": bad.clone()})).expect_err("refused");
        assert_eq!(
            err.to_string(),
            format!(
                "Invalid params: workers must be an integer from 1 to 256, or \"auto\" (one per CPU) (received {bad})"
            )
        );
    }
}

#[test]
fn workers_are_a_count_or_auto() {
    let workers = |v: Value| run(json!({ "workers": v })).expect("valid").workers;
    assert_eq!(workers(json!(1)), Some(Workers::Count(1)));
    assert_eq!(workers(json!(256)), Some(Workers::Count(256)));
    assert_eq!(workers(json!("auto")), Some(Workers::Auto));
    assert_eq!(run(json!({})).expect("valid").workers, None);
    assert_eq!(Workers::Count(2).received(), json!(2));
    assert_eq!(Workers::Auto.received(), json!("auto"));
}

#[test]
fn retries_are_a_count_from_one_to_five() {
    let retries = |v: Value| run(json!({ "retries": v })).expect("valid").retries;
    for n in 1..=5u32 {
        assert_eq!(retries(json!(n)), Some(n));
    }
    assert_eq!(run(json!({})).expect("valid").retries, None);
    assert_eq!(run(Value::Null).expect("valid").retries, None);
    // Out of range: the rule and the value as received.
    for bad in [0i64, 6, -1, 100, i64::MIN, i64::MAX] {
        let err = run(json!({ "retries": bad })).expect_err("refused");
        assert_eq!(
            err.to_string(),
            format!(
                "Invalid params: retries must be an integer from 1 to 5 (reruns of a failing test) (received {bad})"
            )
        );
        assert_eq!(err.received_value, json!(bad));
    }
    // Not an integer: refused by type, still naming retries and the value.
    for bad in [
        json!(1.5),
        json!(2.0),
        json!("2"),
        json!(true),
        json!([2]),
        json!({"n": 2}),
    ] {
        let err = run(json!({ "retries": bad.clone() })).expect_err("refused");
        assert_eq!(
            err.to_string(),
            format!("Invalid params: retries must be an integer (received {bad})")
        );
    }
    // The command line builds the request itself: the same rule.
    let (_dir, root) = project();
    let err = ExecuteTestsRequest {
        retries: Some(0),
        ..Default::default()
    }
    .validate(&root, Duration::from_secs(5))
    .expect_err("refused");
    assert_eq!(
        (err.field.as_str(), err.received_value),
        ("retries", json!(0))
    );
}

#[test]
fn symlinks_out_of_the_root_are_refused() {
    let (dir, root) = project();
    let outside = tempfile::tempdir().expect("tempdir");
    std::fs::write(outside.path().join("x.py"), "").expect("write");
    std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).expect("symlink");
    let err = ExecuteTestsRequest {
        node_ids: vec!["link/x.py".into()],
        ..ExecuteTestsRequest::default()
    }
    .validate(&root, Duration::from_secs(1))
    .expect_err("escapes");
    assert!(err.detail.contains("inside the project root"), "{err}");
}

#[test]
fn discovery_rules() {
    let (_dir, root) = project();
    let ok = DiscoverTestsRequest::from_json(&json!({"path": "tests", "pattern": "test_*.py"}))
        .and_then(|r| r.validate(&root, Duration::from_secs(5)))
        .expect("valid");
    assert_eq!(ok.pattern.as_deref(), Some("test_*.py"));
    for (args, field) in [
        (json!({"path": "../x"}), "path"),
        (json!({"path": "-x"}), "path"),
        (json!({"pattern": "a/b*.py"}), "pattern"),
        (json!({"pattern": "--co"}), "pattern"),
        (json!({"timeout": 5}), "timeout"),
    ] {
        let err = DiscoverTestsRequest::from_json(&args)
            .and_then(|r| r.validate(&root, Duration::from_secs(5)))
            .expect_err("refused");
        assert_eq!(err.field, field, "{err}");
    }
}

#[test]
fn message_names_field_rule_and_value() {
    let err = run(json!({"verbosity": 10})).expect_err("refused");
    assert_eq!(
        err.to_string(),
        "Invalid params: verbosity must be between -2 and 2 (received 10)"
    );
}
