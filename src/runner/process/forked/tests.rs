use super::*;

#[test]
fn answers_are_read_as_the_protocol_says() {
    assert_eq!(
        answer("pid 1234 0.5").ok(),
        Some((Pid::from_raw(1234), 0.5))
    );
    assert!(matches!(answer("pid 1234"), Err(Refusal::Refused(_))));
    assert!(matches!(answer("busy"), Err(Refusal::Busy)));
    assert!(
        matches!(answer("stale a .pth file changed (x)"), Err(Refusal::Stale(w)) if w == "a .pth file changed (x)")
    );
    assert!(matches!(answer("pid 1 0.1"), Err(Refusal::Refused(_))));
    assert!(matches!(answer("pid x"), Err(Refusal::Refused(_))));
    assert!(
        matches!(answer("refused not a pytest run"), Err(Refusal::Refused(w)) if w == "not a pytest run")
    );
}

#[test]
fn the_payload_carries_cwd_argv_and_the_whole_environment() {
    let spec = Spec {
        program: "python".into(),
        args: vec!["-m".into(), "pytest".into(), "a b".into()],
        cwd: "/root dir".into(),
        env: vec![("PYTEST_MCP_X".into(), "1".into())],
        timeout: Duration::from_secs(1),
    };
    let bytes = payload(&spec);
    let fields: Vec<&[u8]> = bytes.split(|&b| b == 0).collect();
    assert_eq!(
        fields[..5],
        [b"/root dir" as &[u8], b"3", b"-m", b"pytest", b"a b"]
    );
    assert!(fields.contains(&(b"PYTEST_MCP_X=1" as &[u8])));
    assert_eq!(bytes.last(), Some(&0));
}
