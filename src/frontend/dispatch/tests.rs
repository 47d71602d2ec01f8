use super::*;
use crate::frontend::report::{self, Input};

fn passing(name: &str) -> Input {
    Input {
        name: name.into(),
        contents: Ok(br#"<testsuite name="s" tests="2"><testcase classname="t" name="a" time="0.1"/><testcase classname="t" name="b" time="0.2"/></testsuite>"#.to_vec()),
    }
}

/// `report --baseline --format json --max-tokens`: the comparison's
/// lists are cut too, and the whole answer, the comparison included,
/// stays within the budget.
#[test]
fn a_compared_json_report_keeps_its_budget() {
    let cases: String = (0..300)
        .map(|i| format!(r#"<testcase classname="t" name="test_{i}"><failure message="no {i}">at t.py:{i}</failure></testcase>"#))
        .collect();
    let head = Input {
        name: "head.xml".into(),
        contents: Ok(format!(r#"<testsuite name="s">{cases}</testsuite>"#).into_bytes()),
    };
    let run = report::read_run(&[head], report::Reading::for_format(OutputFormat::Json)).unwrap();
    let base = report::read_run(
        &[passing("base.xml")],
        report::Reading::for_format(OutputFormat::Json),
    )
    .unwrap();
    let fitted = output(
        Subject::Run {
            run: &run,
            compared: Some(&Compared::of(&run, &base)),
        },
        OutputFormat::Json,
        &Style::report(Budget::tokens(600)),
    );
    let tokens = crate::budget::count_tokens(&fitted.text);
    assert!(tokens <= 600, "{tokens}");
    let v: serde_json::Value = serde_json::from_str(&fitted.text).unwrap();
    assert!(v["baseline"]["new_failures_omitted"].as_u64().unwrap() > 0);
    assert!(fitted.truncation.is_some());
}
