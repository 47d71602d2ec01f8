//! What discovery (`pytest --collect-only`) found: the tests, and the files
//! that could not be collected.

use super::CollectionError;

/// What discovery found.
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    pub items: Vec<Item>,
    pub collection_errors: Vec<CollectionError>,
    pub duration: f64,
    pub notes: Vec<String>,
}

/// A collected test: its id and where pytest found it. Read straight from
/// our plugin's event-log line (`sources::events`), hence `Deserialize`.
#[derive(Debug, Clone, PartialEq, Default, serde::Deserialize)]
pub struct Item {
    pub nodeid: String,
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub line: Option<u32>,
    /// The imported module's name, when pytest gave it.
    #[serde(default)]
    pub module: Option<String>,
    #[serde(default)]
    pub class: Option<String>,
    #[serde(default)]
    pub function: Option<String>,
}

impl Item {
    /// The file part of the id (before the first `::`).
    pub fn file_of_id(&self) -> &str {
        self.nodeid.split("::").next().unwrap_or(&self.nodeid)
    }

    /// The id of the test function this item is one parametrization of:
    /// `tests/t.py::Class::test_x` for `tests/t.py::Class::test_x[3-a::b]`.
    /// pytest accepts it and runs every case. `None` for a plain test and for
    /// ids that do not have that shape (a plugin's own items, whose names may
    /// hold brackets of their own).
    pub fn function_id(&self) -> Option<&str> {
        let id = self.nodeid.as_str();
        if !id.ends_with(']') {
            return None;
        }
        let after_file = id.find("::")? + 2;
        // Class and function names are identifiers: the first `[` after the
        // file opens the parameters, whatever they hold.
        let open = after_file + id[after_file..].find('[')?;
        let base = &id[..open];
        let name = base.rsplit("::").next().unwrap_or(base);
        let identifier = !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c == '_' || c.is_alphanumeric());
        let same = self.function.as_deref().is_none_or(|f| f == name);
        (identifier && same).then_some(base)
    }
}

/// One test function as discovery shows it: a plain test, or every
/// collected parametrization of a parametrized one, in collection order.
#[derive(Debug, Clone, PartialEq)]
pub struct Function<'a> {
    /// The id that selects all of `items`: the plain test's own id, or the
    /// function's (see [`Item::function_id`]).
    pub id: &'a str,
    /// The file part of `id`.
    pub file: &'a str,
    /// One item for a plain test; every case of a parametrized function.
    pub items: Vec<&'a Item>,
    /// True when `items` are parametrizations (even if only one).
    pub parametrized: bool,
}

impl Function<'_> {
    /// The definition's line: the first case's.
    pub fn line(&self) -> Option<u32> {
        self.items.first().and_then(|i| i.line)
    }
}

impl Discovery {
    /// The items as test functions, grouped by file: files in the order
    /// pytest first collected from them, functions in the order of their
    /// first case, cases in collection order (even when a plugin reordered
    /// them apart).
    pub fn functions(&self) -> Vec<Function<'_>> {
        let mut functions: Vec<Function<'_>> = Vec::new();
        let mut index: std::collections::HashMap<&str, usize> = Default::default();
        for item in &self.items {
            let (id, parametrized) = match item.function_id() {
                Some(id) => (id, true),
                None => (item.nodeid.as_str(), false),
            };
            match index.get(id) {
                Some(&i) if parametrized && functions[i].parametrized => {
                    functions[i].items.push(item)
                }
                _ => {
                    index.entry(id).or_insert(functions.len());
                    functions.push(Function {
                        id,
                        file: item.file_of_id(),
                        items: vec![item],
                        parametrized,
                    });
                }
            }
        }
        let mut files: std::collections::HashMap<&str, usize> = Default::default();
        for f in &functions {
            let next = files.len();
            files.entry(f.file).or_insert(next);
        }
        // Stable: functions keep their order within a file.
        functions.sort_by_key(|f| files.get(f.file).copied());
        functions
    }

    /// How many files the items come from.
    pub fn file_count(&self) -> usize {
        let files: std::collections::HashSet<&str> =
            self.items.iter().map(Item::file_of_id).collect();
        files.len()
    }
}
