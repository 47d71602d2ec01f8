use serde_json::Value;

use super::*;
use crate::budget::count_tokens;
use crate::model::{Location, Outcome};

/// Failing tests of many sizes, at budgets a few tokens apart: the
/// answer is the text that was measured, never over its budget, and
/// says how many failing tests it lists.
#[test]
fn every_budget_holds_while_failing_tests_are_dropped() {
    let tests: Vec<TestResult> = (0..120)
        .map(|n| {
            let mut t =
                TestResult::new(format!("tests/t{}.py::test_x[{n}]", n % 7), Outcome::Failed);
            t.set_message(Some(format!("AssertionError: assert {n} == {}", n + 1)));
            t.location = Some(Location::new(format!("tests/t{}.py", n % 7), Some(1)));
            t.set_traceback(Some(format!("line {n}\n").repeat(n % 5 + 1)));
            t
        })
        .collect();
    let run = Run {
        tests,
        ..Run::default()
    };
    let mut listed_seen = std::collections::BTreeSet::new();
    for limit in (600..6_000).step_by(23) {
        let fitted = render_fitted(&run, &Budget::tokens(limit), false);
        let n = count_tokens(&fitted.text);
        assert!(n <= limit, "{n} tokens over {limit}");
        let v: Value = serde_json::from_str(&fitted.text).unwrap();
        let listed = v["tests"].as_array().map_or(0, Vec::len);
        let truncation = fitted.truncation.unwrap();
        assert_eq!(
            v["truncated"]["dropped"],
            serde_json::json!(truncation.dropped)
        );
        if let Some(note) = truncation
            .dropped
            .iter()
            .find(|d| d.starts_with("failing tests"))
        {
            assert_eq!(note, &format!("failing tests beyond the first {listed}"));
        }
        listed_seen.insert(listed);
    }
    assert!(listed_seen.len() > 20, "{listed_seen:?}");
}

/// 300 failures, each its own group: the smallest groups go, and the
/// answer keeps as many as fit (one more group would not).
#[test]
fn as_many_groups_stay_as_fit() {
    let run = crate::model::testing::distinct_failures(300);
    for limit in [300, 1_000, 3_000] {
        let fitted = render_fitted(&run, &Budget::tokens(limit), false);
        assert!(count_tokens(&fitted.text) <= limit, "{limit}");
        let mut v: Value = serde_json::from_str(&fitted.text).unwrap();
        let groups = v["failure_groups"].as_array().unwrap().clone();
        let omitted = v["truncated"]["groups_omitted"].as_u64().unwrap() as usize;
        assert!(!groups.is_empty() && groups.len() < 300, "{limit}");
        assert_eq!(groups.len() + omitted, 300);
        assert_eq!(
            v["truncated"]["dropped"]
                .as_array()
                .unwrap()
                .last()
                .unwrap(),
            "the smallest groups"
        );
        // One more group, as large as the last one kept: over the budget.
        let mut more = groups.clone();
        more.push(groups[groups.len() - 1].clone());
        v["failure_groups"] = Value::Array(more);
        v["truncated"]["groups_omitted"] = (omitted - 1).into();
        let more = serde_json::to_string(&v).unwrap();
        assert!(count_tokens(&more) > limit, "{limit}: {}", groups.len());
    }
}

/// The report fitted as the dispatch fits it.
fn render_fitted(run: &Run, budget: &Budget, pretty: bool) -> Fitted {
    crate::budget::fit(offer(run, None, *budget, pretty))
}
