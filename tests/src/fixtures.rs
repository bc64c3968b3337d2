//! The providers' documented examples, kept as files in `tests/fixtures/<provider>/` and listed
//! in each provider's `index.yaml`.

use std::path::PathBuf;

use serde::Deserialize;

/// Path of `tests/fixtures/<provider>/<file>`.
pub fn fixture_path(provider: &str, file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(provider)
        .join(file)
}

/// The raw text of a fixture.
pub fn fixture_text(provider: &str, file: &str) -> String {
    let path = fixture_path(provider, file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A fixture parsed as JSON.
pub fn fixture(provider: &str, file: &str) -> serde_json::Value {
    serde_json::from_str(&fixture_text(provider, file))
        .unwrap_or_else(|e| panic!("fixture {provider}/{file} is not JSON: {e}"))
}

/// One entry of `tests/fixtures/<provider>/index.yaml`.
#[derive(Debug, Clone, Deserialize)]
pub struct FixtureEntry {
    /// File name inside the provider's fixture folder.
    pub file: String,
    /// The `components/schemas` name the fixture validates against.
    pub schema: String,
    /// The operationId it belongs to, if any.
    #[serde(default)]
    pub operation: Option<String>,
    /// `request`, `response` or `error`.
    pub kind: String,
    /// The HTTP status, where the docs give one.
    #[serde(default)]
    pub status: Option<u16>,
}

/// Every fixture the provider's `index.yaml` lists.
pub fn fixture_index(provider: &str) -> Vec<FixtureEntry> {
    let text = fixture_text(provider, "index.yaml");
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{provider}/index.yaml: {e}"))
}
