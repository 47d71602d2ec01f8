use super::*;

fn python(path: &str) -> Python {
    Python {
        path: PathBuf::from(path),
        origin: "--python",
    }
}

#[test]
fn a_place_is_the_same_for_the_same_root_and_interpreter_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = Root::new(dir.path()).expect("root");
    let a = Place::of(&root, &python("/venv/bin/python"));
    let b = Place::of(&root, &python("/venv/bin/python"));
    let c = Place::of(&root, &python("/other/bin/python"));
    assert_eq!(a.socket(), b.socket());
    assert_ne!(a.socket(), c.socket());
    assert_eq!(a.socket().parent(), a.preload().parent());
    // A Unix socket's path must fit in 108 bytes.
    assert!(
        a.socket().as_os_str().len() < 108,
        "{}",
        a.socket().display()
    );
}

#[test]
fn readiness_reads_ready_unsafe_and_nothing() {
    assert!(matches!(
        readiness(
            Some(r#"{"ready": true, "modules": 3, "seconds": 0.5}"#),
            "py"
        ),
        State::Ready
    ));
    let unsafe_line =
        r#"{"unsafe": "threader", "why": "started a thread", "imported": ["threader", "dep"]}"#;
    match readiness(Some(unsafe_line), "py") {
        State::Unsafe { imported } => {
            assert!(imported.contains(&"threader".to_string()));
            assert!(imported.contains(&"dep".to_string()));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(readiness(None, "py"), State::Gone));
    assert!(matches!(readiness(Some("Traceback"), "py"), State::Gone));
}

#[test]
fn the_warm_process_gets_its_directory_first_on_pythonpath() {
    let place = Place {
        dir: PathBuf::from("/run/pytest-mcp-1/abc"),
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let root = Root::new(dir.path()).expect("root");
    let env = environment(&place, &root, &["threader".into(), "dep".into()]);
    let get = |k: &str| env.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone());
    let path = get("PYTHONPATH").expect("PYTHONPATH");
    assert!(path.to_string_lossy().starts_with("/run/pytest-mcp-1/abc"));
    assert_eq!(get("PYTEST_MCP_WARM_SKIP"), Some("threader,dep".into()));
    assert_eq!(get("PYTHONUNBUFFERED"), Some("1".into()));
}

#[test]
fn a_long_runtime_directory_gives_way_to_tmp() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = Root::new(dir.path()).expect("root");
    let long = PathBuf::from(format!("/run/{}", "x".repeat(120)));
    let place = Place::under(long, &root, &python("/venv/bin/python"));
    assert!(
        place.socket().starts_with("/tmp"),
        "{}",
        place.socket().display()
    );
    assert!(place.socket().as_os_str().len() < 108);
    let short = Place::under("/run/user/1000".into(), &root, &python("/venv/bin/python"));
    let shown = short.socket().display().to_string();
    assert!(shown.starts_with("/run/user/1000/pytest-mcp-"), "{shown}");
}
