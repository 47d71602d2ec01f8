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
