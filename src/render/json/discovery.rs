//! Discovery's JSON (docs/json-report.md, "Discovery's JSON"), compressed
//! as its Markdown is: one entry per test function, a parametrized one
//! with its number of cases and its first ids.

use serde_json::{Value, json};

use crate::budget::{Budget, Fitted, Offer, Plans, Rung, Truncation};
use crate::model::discovery::Discovery;
use crate::render::Style;

use crate::render::view::CASE_IDS_SHOWN;

/// Discovery's JSON (docs/json-report.md, "Discovery's JSON": `tests`, `count`,
/// `collection_errors`), one `tests` entry per test function: a
/// parametrized function's entry has the function's id as `node_id`, its
/// number of cases as `cases` and the ids of the first few as `case_ids`.
/// `count` stays the number of tests collected. When case ids were left
/// out, a top-level `truncated` says how many and how to reach them.
pub fn discovery(d: &Discovery) -> Value {
    let functions = d.functions();
    let mut omitted = 0;
    let tests: Vec<Value> = functions
        .iter()
        .map(|f| {
            let first = f.items[0];
            let mut entry = json!({
                "node_id": f.id,
                // A dotted path from the root (`tests.test_x`);
                // the imported name only when pytest gave no file.
                "module": first.file.as_deref().map(crate::pytest_text::path_to_module).or_else(|| first.module.clone()),
                "class": first.class,
                "function": first.function,
                "file": first.file,
                "line": first.line,
            });
            if f.parametrized {
                let shown: Vec<&str> = f
                    .items
                    .iter()
                    .take(CASE_IDS_SHOWN)
                    .map(|i| i.nodeid.as_str())
                    .collect();
                omitted += f.items.len() - shown.len();
                entry["cases"] = json!(f.items.len());
                entry["case_ids"] = json!(shown);
            }
            entry
        })
        .collect();
    let mut value = json!({
        "tests": tests,
        "count": d.items.len(),
        "collection_errors": d.collection_errors.iter().map(|e| json!({
            "file": e.file,
            "error_type": e.error_type,
            "message": e.message,
            "line": e.line,
            "traceback": e.traceback,
        })).collect::<Vec<_>>(),
    });
    if omitted > 0 {
        value["truncated"] = json!({
            "case_ids_omitted": omitted,
            "note": format!(
                "A parametrized function is one entry: its node_id runs every case, cases counts \
                 them, case_ids lists the first {CASE_IDS_SHOWN}. Pick cases by their parameters \
                 with keywords (pytest -k)."
            ),
        });
    }
    value
}

/// [`discovery`] as text (indented when `pretty`) offered to fit
/// `budget`: `case_ids` go first, then entries beyond the first that fit.
/// `count` stays exact; `truncated` says what was left out.
pub fn discovery_offer(d: &Discovery, style: &Style) -> Offer<'static, Fitted> {
    let (budget, pretty) = (
        Budget {
            chars: None,
            ..style.budget
        },
        style.pretty,
    );
    let mut value = discovery(d);
    let full = super::text(&value, pretty);
    if budget.fits(&full) {
        return Offer::Whole(Fitted::whole(full));
    }
    let Some(Value::Array(mut entries)) = value.get_mut("tests").map(std::mem::take) else {
        return Offer::Whole(Fitted::whole(full));
    };
    let mut cases_dropped = false;
    for e in &mut entries {
        if let Some(map) = e.as_object_mut() {
            cases_dropped |= map.remove("case_ids").is_some();
        }
    }
    Offer::plans(Entries {
        value,
        entries,
        cases_dropped,
        budget,
        pretty,
    })
}

/// A discovery's JSON without its `tests`, and the entries to put back.
struct Entries {
    value: Value,
    entries: Vec<Value>,
    /// Whether entries had `case_ids` (taken out of every one).
    cases_dropped: bool,
    budget: Budget,
    pretty: bool,
}

impl Plans for Entries {
    /// The first `shown` entries; `cut` when that is fewer than fit.
    type Plan = (usize, bool);
    type Answer = Fitted;

    fn ladder(&self) -> Vec<Rung<'_, (usize, bool)>> {
        let total = self.entries.len();
        vec![
            Rung::One((total, false)),
            Rung::most(1, total, |shown| (shown, true)),
        ]
    }

    fn attempt(&self, plan: (usize, bool)) -> Option<Fitted> {
        let fitted = self.render(plan);
        self.budget.fits(&fitted.text).then_some(fitted)
    }

    fn last_resort(&self) -> Fitted {
        self.render((0, true))
    }
}

impl Entries {
    fn render(&self, (shown, cut): (usize, bool)) -> Fitted {
        let mut t = Truncation::new(&self.budget);
        if self.cases_dropped {
            t.dropped.push("case_ids".to_string());
        }
        if cut {
            t.dropped.push("entries beyond those that fit".to_string());
        }
        t.tests_omitted = self.entries[shown..]
            .iter()
            .map(|e| e.get("cases").and_then(Value::as_u64).unwrap_or(1) as usize)
            .sum();
        let mut v = self.value.clone();
        v["tests"] = Value::Array(self.entries[..shown].to_vec());
        v["truncated"] = json!({
            "max_tokens": t.max_tokens,
            "max_chars": t.max_chars,
            "dropped": t.dropped,
            "tests_omitted": t.tests_omitted,
            "entries_omitted": self.entries.len() - shown,
            "note": "count is exact. Discover one file or directory (path) to list its tests.",
        });
        Fitted {
            text: super::text(&v, self.pretty),
            truncation: Some(t),
        }
    }
}

#[cfg(test)]
mod tests;
