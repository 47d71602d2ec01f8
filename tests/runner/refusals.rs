//! Invalid parameters are refused before pytest starts, naming the field,
//! the rule and the value as received.

use super::*;

/// A request that must be refused, and what the refusal must say.
struct Refusal {
    sub: &'static str,
    args: Vec<String>,
    field: &'static str,
    detail: &'static str,
    /// The `received_value` expected, when it is worth checking.
    received: Option<Value>,
}

/// `sub [args...] field detail received;` lines into [`Refusal`]s.
macro_rules! refusals {
    ($($sub:literal [$($arg:expr),* $(,)?] $field:literal $detail:literal $received:expr;)*) => {
        vec![$(Refusal {
            sub: $sub,
            args: vec![$(String::from($arg)),*],
            field: $field,
            detail: $detail,
            received: $received,
        }),*]
    };
}

/// `pytest-mcp <sub> --root <project> --python <python> --format <format> <args...>`.
fn invoke(project: &Project, sub: &str, format: &str, args: &[String]) -> Answer {
    let mut all: Vec<OsString> = vec![
        sub.into(),
        "--root".into(),
        project.root.clone().into(),
        "--python".into(),
        python().into(),
        "--format".into(),
        format.into(),
    ];
    all.extend(args.iter().map(OsString::from));
    pytest_mcp(&all)
}

#[test]
fn every_invalid_parameter_is_refused_before_pytest_starts() {
    let project = tripwire_project();
    let mut problems: Vec<String> = invalid_requests(&project)
        .iter()
        .flat_map(|case| refusal_problems(&project, case))
        .collect();
    problems.extend(failfast_with_maxfail_problems(&project));
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );

    // The tripwire works: a valid request does start pytest.
    let answer = invoke(&project, "run", "json", &["tests/test_a.py".to_string()]);
    assert_eq!(answer.status, Some(0), "{}", answer.stderr);
    assert!(
        project.root.join(TRIPWIRE).exists(),
        "the tripwire did not fire"
    );
}

/// Every request that must be refused, with what the refusal must say.
fn invalid_requests(project: &Project) -> Vec<Refusal> {
    let outside_file = project.parent().join("outside/test_out.py");
    let outside = outside_file.display().to_string();
    let s = |v: &str| Some(Value::from(v));
    let n = |v: i64| Some(Value::from(v));
    let long_id = format!("tests/test_a.py::test_{}", "a".repeat(5000));
    let long_text = "x".repeat(5000);
    refusals! {
        "run" ["--verbosity", "5"]            "verbosity" "between -2 and 2" n(5);
        "run" ["--verbosity=-3"]              "verbosity" "between -2 and 2" n(-3);
        "run" ["--maxfail", "0"]              "maxfail"   "positive" n(0);
        "run" ["--maxfail=-1"]                "maxfail"   "positive" n(-1);
        "run" ["--retries", "0"]              "retries"   "from 1 to 5" n(0);
        "run" ["--retries", "6"]              "retries"   "from 1 to 5" n(6);
        "run" ["--retries=-1"]                "retries"   "from 1 to 5" n(-1);
        "run" ["--timeout", "0"]              "timeout"   "between 1 and" n(0);
        "run" ["--timeout", "100000"]         "timeout"   "between 1 and" n(100000);
        "run" ["tests/../tests/test_a.py"]    "node_ids"  "'..'" s("tests/../tests/test_a.py");
        "run" ["../outside/test_out.py::test_out"] "node_ids" "'..'"
            s("../outside/test_out.py::test_out");
        "run" [&outside]                      "node_ids"  "inside the project root" s(&outside);
        "run" ["link/test_out.py::test_out"]  "node_ids"  "inside the project root"
            s("link/test_out.py::test_out");
        "run" ["tests/no_such_file.py"]       "node_ids"  "existing" s("tests/no_such_file.py");
        "run" ["--", "--pdb"]                 "node_ids"  "start with '-'" s("--pdb");
        "run" ["--", "-pno:terminal"]         "node_ids"  "start with '-'" s("-pno:terminal");
        "run" ["-m=--co"]                     "markers"   "start with '-'" s("--co");
        "run" ["-m", " --co"]                 "markers"   "start with '-'" None;
        "run" ["-m=-p evil"]                  "markers"   "start with '-'" s("-p evil");
        "run" ["-k", "a\nb"]                  "keywords"  "control" s("a\nb");
        "run" ["-k", "a\tb"]                  "keywords"  "control" s("a\tb");
        "run" ["-k", " "]                     "keywords"  "empty" s(" ");
        "discover" ["--path", "../outside"]   "path"      "'..'" s("../outside");
        "discover" ["--path", &outside]       "path"      "inside the project root" s(&outside);
        "discover" ["--path", "link"]         "path"      "inside the project root" s("link");
        "discover" ["--path=-x"]              "path"      "start with '-'" s("-x");
        "discover" ["--pattern", "a/test_*.py"] "pattern" "without directories" s("a/test_*.py");
        "discover" ["--pattern=--co"]         "pattern"   "start with '-'" s("--co");
        "discover" ["--timeout", "0"]         "timeout"   "between 1 and" n(0);
        // Symlinks: a file out of the root, a loop.
        "run" ["link_file.py::test_out"]      "node_ids"  "inside the project root"
            s("link_file.py::test_out");
        "run" ["loop/test_a.py"]              "node_ids"  "existing" s("loop/test_a.py");
        // Options hidden in values (NUL cannot be passed in argv at all:
        // the MCP tests cover it).
        "run" ["--", "--rootdir=/"]           "node_ids"  "start with '-'" s("--rootdir=/");
        "run" ["-m=--rootdir=/"]              "markers"   "start with '-'" s("--rootdir=/");
        "run" ["-k=-p evil"]                  "keywords"  "start with '-'" s("-p evil");
        "run" ["-k", "a\u{1b}[31mb"]          "keywords"  "control" s("a\u{1b}[31mb");
        "discover" ["--pattern", "test_\u{7f}.py"] "pattern" "control" s("test_\u{7f}.py");
        // Very long values.
        "run" [&long_id]                      "node_ids"  "at most 4096 characters" s(&long_id);
        "run" ["-k", &long_text]              "keywords"  "at most 4096 characters" s(&long_text);
        "discover" ["--path", &long_text]     "path"      "at most 4096 characters" s(&long_text);
    }
}

/// What is wrong with the refusal of `case`, in JSON and in Markdown (none
/// when both refuse it as they should, before pytest starts).
fn refusal_problems(project: &Project, case: &Refusal) -> Vec<String> {
    let mut problems = Vec::new();
    let what = format!("{} {:?}", case.sub, case.args);
    // JSON: the ADR-007 invalid-params object.
    let answer = invoke(project, case.sub, "json", &case.args);
    if answer.status != Some(4) {
        problems.push(format!(
            "{what}: exit {:?}, stderr {}",
            answer.status, answer.stderr
        ));
    }
    match serde_json::from_slice::<Value>(&answer.stdout) {
        Err(e) => problems.push(format!(
            "{what}: not JSON ({e}): {}",
            String::from_utf8_lossy(&answer.stdout)
        )),
        Ok(value) => {
            let error = &value["error"];
            let data = &error["data"];
            let message = error["message"].as_str().unwrap_or("");
            if error["code"] != -32602
                || data["field"] != case.field
                || !data["detail"].as_str().unwrap_or("").contains(case.detail)
                || case
                    .received
                    .as_ref()
                    .is_some_and(|r| data["received_value"] != *r)
                || !message.starts_with(&format!("Invalid params: {}", case.field))
            {
                problems.push(format!(
                    "{what}: expected field {} detail ~{:?} received {:?}, got {value}",
                    case.field, case.detail, case.received
                ));
            }
        }
    }
    // Markdown: one line naming the field, the rule and the value.
    let answer = invoke(project, case.sub, "markdown", &case.args);
    let text = String::from_utf8_lossy(&answer.stdout);
    if answer.status != Some(4)
        || !text.starts_with(&format!("Invalid params: {} ", case.field))
        || !text.contains(case.detail)
        || !text.contains("(received ")
    {
        problems.push(format!(
            "{what} (markdown): exit {:?}: {text}",
            answer.status
        ));
    }
    if project.root.join(TRIPWIRE).exists() {
        problems.push(format!("{what}: pytest started"));
        let _ = std::fs::remove_file(project.root.join(TRIPWIRE));
    }
    problems
}

/// failfast together with maxfail: clap refuses it itself (exit 2), or
/// our validation does (exit 4, field failfast). Either way nothing runs.
fn failfast_with_maxfail_problems(project: &Project) -> Vec<String> {
    let mut problems = Vec::new();
    for format in ["json", "markdown"] {
        let args = ["-x".to_string(), "--maxfail".into(), "2".into()];
        let answer = invoke(project, "run", format, &args);
        match answer.status {
            Some(2) => {
                if !answer.stderr.contains("cannot be used with") {
                    problems.push(format!("-x --maxfail 2: clap's refusal: {}", answer.stderr));
                }
            }
            Some(4) => {
                if !String::from_utf8_lossy(&answer.stdout).contains("failfast") {
                    problems.push("-x --maxfail 2: the refusal does not name failfast".into());
                }
            }
            other => problems.push(format!("-x --maxfail 2: exit {other:?}")),
        }
        if project.root.join(TRIPWIRE).exists() {
            problems.push("-x --maxfail 2: pytest started".into());
        }
    }
    problems
}

#[test]
fn a_refusal_reports_the_value_as_received() {
    let project = tripwire_project();
    let answer = invoke(&project, "run", "json", &["-m".into(), " --co".into()]);
    let value = answer.json();
    assert_eq!(value["error"]["data"]["received_value"], " --co", "{value}");
}
