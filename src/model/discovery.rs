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

/// A collected test: its id and where pytest found it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Item {
    pub nodeid: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    /// The imported module's name, when pytest gave it.
    pub module: Option<String>,
    pub class: Option<String>,
    pub function: Option<String>,
}
