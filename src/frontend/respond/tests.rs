//! Unit tests of `respond`.

use super::*;
use crate::model::exec_error::Signal;
use crate::request::invalid as refused;
use view::Verdict;

/// The -32602 object: its one-line message (docs/errors.md), and field, rule and value in
/// `data`; the same for every refusal, in `json`; Markdown otherwise.
#[test]
fn a_refused_parameter_is_one_invalid_params_object_or_one_line() {
    let e = refused("timeout", "must be between 1 and 86400 seconds", 0);
    let answer = invalid(&e, OutputFormat::Json);
    let Answer::Error { error, exit } = &answer else {
        panic!("{answer:?}")
    };
    assert_eq!(*exit, EXIT_INVALID_PARAMS);
    assert_eq!(
        error.to_value(),
        json!({"error": {
            "code": -32602,
            "message": "Invalid params: timeout must be between 1 and 86400 seconds (received 0)",
            "data": {"field": "timeout", "detail": "must be between 1 and 86400 seconds", "received_value": 0},
        }})
    );
    let md = invalid(&e, OutputFormat::Markdown);
    assert_eq!(
        md,
        Answer::Text {
            text: format!("{e}\n"),
            is_error: true,
            exit: EXIT_INVALID_PARAMS,
            truncation: None,
        }
    );
    let html = invalid(&e, OutputFormat::Html).into_text();
    assert!(
        html.contains("<title>pytest-mcp: invalid parameters</title>"),
        "{html}"
    );
}

/// A crash exits 128 + the signal's number, whatever its name.
#[test]
fn a_crash_exits_with_the_signals_number() {
    let mut e = ExecError::spawn("gone".into(), vec!["python".into()]);
    assert_eq!(
        exec_error(&e, OutputFormat::Markdown, &Budget::NONE).exit(),
        EXIT_SPAWN
    );
    e.kind = ErrorKind::Crash;
    e.signal = Some(Signal::new(11, "SIGSEGV"));
    let answer = exec_error(&e, OutputFormat::Json, &Budget::NONE);
    assert_eq!(answer.exit(), 139);
    let Answer::Error { error, .. } = &answer else {
        panic!("{answer:?}")
    };
    assert_eq!(
        (error.code, &error.data["signal"]),
        (-32000, &json!("SIGSEGV"))
    );
    e.signal = Some(Signal::new(40, "signal 40"));
    assert_eq!(
        exec_error(&e, OutputFormat::Markdown, &Budget::NONE).exit(),
        168
    );
}

/// Unreadable inputs: every one listed under `errors`, the first named.
#[test]
fn unreadable_inputs_name_the_first_and_list_all() {
    let errors = [
        InputError {
            file: "a.xml".into(),
            line: 3,
            column: 0,
            detail: "broken".into(),
        },
        InputError {
            file: "b.json".into(),
            line: 0,
            column: 0,
            detail: "cannot read the file".into(),
        },
    ];
    let value: Value =
        serde_json::from_str(&unreadable(&errors, 3, OutputFormat::Json).into_text()).unwrap();
    let data = &value["error"]["data"];
    assert_eq!(value["error"]["code"], -32602);
    assert_eq!(data["field"], "files");
    assert_eq!(data["received_value"], "a.xml");
    assert_eq!(
        data["detail"],
        "2 of 3 input files could not be read as test results: broken"
    );
    assert_eq!(data["errors"].as_array().map(Vec::len), Some(2));
    let md = unreadable(&errors, 3, OutputFormat::Junit);
    assert_eq!(md.exit(), EXIT_INPUT_ERROR);
    assert_eq!(
        md.into_text(),
        view::headline(
            "Report",
            Verdict::Error,
            None,
            "2 of 3 input files could not be read as test results"
        ) + "\n- a.xml: line 3: broken\n- b.json: cannot read the file\n"
    );
}

/// In Markdown, the structured result carries the answer (a client may
/// show a model only the structured result), within the budget with
/// room for the kept result's URI, unless the budget is too small for
/// both: then its own fields name the groups; the text keeps the whole budget, the
/// same Markdown when it is whole. In JSON, no Markdown is carried.
#[test]
fn a_markdown_answer_is_carried_by_its_structured_result_within_the_budget() {
    use crate::budget::count_tokens;
    let mut run = crate::model::testing::distinct_failures(400);
    for (n, t) in run.tests.iter_mut().enumerate() {
        t.set_traceback(Some(format!("tests/t{n}.py:1: in test_x\n    boom()\n")));
    }
    for max in [200, 400, 1_000, 8_000] {
        let tool = tool_run(&run, OutputFormat::Markdown, &Budget::tokens(max));
        let Answer::Text { text, .. } = &tool.answer else {
            panic!("{:?}", tool.answer)
        };
        let structured = tool.structured.expect("structured");
        match structured["markdown"].as_str() {
            Some(carried) => {
                assert!(carried.starts_with(&failure_start()) && carried.len() <= text.len())
            }
            // Too small a budget for both: the groups the text names are
            // in the structured result's own fields.
            None => assert!(
                structured["failures"]
                    .as_array()
                    .is_some_and(|g| g.len() >= 3),
                "{max}: {structured}"
            ),
        }
        let n = count_tokens(&structured.to_string());
        assert!(n + FULL_RESULT_TOKENS <= max, "{n} tokens at {max}");
        let m = count_tokens(text);
        assert!(m <= max && m >= max * 4 / 5, "{m} tokens at {max}");
        assert_eq!(structured["truncated"]["max_tokens"], max);
        assert!(text.starts_with(&failure_start()), "{text}");
        let json = tool_run(&run, OutputFormat::Json, &Budget::tokens(max));
        let structured = json.structured.expect("structured");
        assert!(structured.get("markdown").is_none());
    }
    let whole = tool_run(&run, OutputFormat::Markdown, &Budget::tokens(1_000_000));
    let structured = whole.structured.expect("structured");
    let text = whole.answer.into_text();
    assert_eq!(structured["markdown"].as_str(), Some(text.as_str()));
}

/// A tool's answer carries its structured result, and the whole JSON
/// result only when the text or the structure left something out; an
/// error in JSON and a refused request carry neither.
#[test]
fn a_tool_answer_keeps_the_whole_result_only_when_it_was_shortened() {
    let run = crate::model::testing::distinct_failures(300);
    let roomy = tool_run(&run, OutputFormat::Markdown, &Budget::tokens(1_000_000));
    assert!(
        roomy.structured.is_some() && roomy.full.is_none(),
        "{roomy:?}"
    );
    for format in [OutputFormat::Markdown, OutputFormat::Json] {
        let tight = tool_run(&run, format, &Budget::tokens(300));
        let structured = tight.structured.expect("structured");
        assert_eq!(structured["truncated"]["max_tokens"], 300);
        let whole: Value = serde_json::from_str(&tight.full.expect("whole")).unwrap();
        assert_eq!(whole["tests"].as_array().map(Vec::len), Some(300));
        let counts = crate::model::Counts {
            total: 300,
            failed: 300,
            ..Default::default()
        };
        assert_eq!(
            tight.headline,
            view::headline(
                "Test",
                Verdict::Failure,
                None,
                &view::counts_phrase_of(&counts)
            )
        );
    }
    let mut e = ExecError::spawn("gone".into(), vec!["python".into()]);
    e.kind = ErrorKind::Timeout;
    let budget = Budget::tokens(8_000);
    let md = tool_exec_error(&e, OutputFormat::Markdown, &budget, true);
    assert_eq!(md.structured.expect("structured")["status"], "timeout");
    let json = tool_exec_error(&e, OutputFormat::Json, &budget, false);
    assert!(matches!(json.answer, Answer::Error { .. }) && json.structured.is_none());
    let refused = tool_invalid(
        &refused("timeout", "must be 1 or more", 0),
        OutputFormat::Markdown,
    );
    assert!(refused.structured.is_none() && refused.full.is_none());
}

/// The room kept for the server's `full_result` holds it, up to run
/// 999,999.
#[test]
fn the_room_for_full_result_holds_it() {
    use crate::budget::count_tokens;
    for n in [1, 42, 999_999] {
        let added = format!(r#","full_result":"pytest-mcp://runs/{n}""#);
        assert!(count_tokens(&added) <= FULL_RESULT_TOKENS, "{added}");
    }
}

/// `Test FAILURE`, in the view's words.
fn failure_start() -> String {
    view::headline_start("Test", Verdict::Failure)
}
