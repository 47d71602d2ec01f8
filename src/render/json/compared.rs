//! The comparison with a baseline as the JSON report's last key,
//! `baseline`, within its share of a token budget.

use serde_json::Value;

use crate::budget::Budget;
use crate::render::view::Compared;

/// The comparison with a baseline as the JSON report's `baseline` value:
/// within a token budget it gets at most half of it, its lists cut, saying
/// how many ids each left out (the run is then fitted to the whole, the
/// comparison included).
pub(super) fn compared_value(compared: Option<&Compared>, budget: &Budget) -> Option<Value> {
    let mut baseline = compared?.comparison.to_value();
    if let Some(max) = budget.tokens {
        halve_lists_to_fit(&mut baseline, max / 2);
    }
    Some(baseline)
}

/// Cuts the id lists of a comparison object in half until its indented
/// text has at most `max` tokens; `<list>_omitted` says how many went.
fn halve_lists_to_fit(value: &mut Value, max: usize) {
    let Value::Object(map) = value else { return };
    while crate::budget::count_tokens(&super::text(&Value::Object(map.clone()), true)) > max {
        let mut cut = false;
        let keys: Vec<String> = map.keys().cloned().collect();
        for key in keys {
            let Some(Value::Array(list)) = map.get_mut(&key) else {
                continue;
            };
            if list.is_empty() {
                continue;
            }
            let keep = list.len() / 2;
            let gone = list.len() - keep;
            list.truncate(keep);
            cut = true;
            let omitted = format!("{key}_omitted");
            let before = map.get(&omitted).and_then(Value::as_u64).unwrap_or(0);
            map.insert(omitted, Value::from(before + gone as u64));
        }
        if !cut {
            return;
        }
    }
}
