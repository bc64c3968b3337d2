//! Shared support for the integration tests: a local mock server whose catch-all names any
//! request no mock matched, the documented fixtures, and helpers that assert the exact request
//! a client sent.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// The status the catch-all answers with; no provider uses it.
pub const UNMATCHED_STATUS: u16 = 599;

struct NoMockMatched;

impl Respond for NoMockMatched {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        ResponseTemplate::new(UNMATCHED_STATUS).set_body_string(format!(
            "no mock matched: {} {}",
            request.method, request.url
        ))
    }
}

/// A mock server with a lowest-priority catch-all, so an unexpected request fails loudly with
/// its method and URL instead of an anonymous 404.
pub async fn mock_server() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::any())
        .respond_with(NoMockMatched)
        .with_priority(u8::MAX)
        .mount(&server)
        .await;
    server
}

/// The one request the server received (panics, with the list, if there were more or fewer).
pub async fn single_request(server: &MockServer) -> Request {
    let mut requests = server.received_requests().await.unwrap_or_default();
    assert_eq!(
        requests.len(),
        1,
        "expected exactly one request, got {:#?}",
        requests
            .iter()
            .map(|r| format!("{} {}", r.method, r.url))
            .collect::<Vec<_>>()
    );
    requests.remove(0)
}

/// The query string as ordered (name, value) pairs.
pub fn query_pairs(request: &Request) -> Vec<(String, String)> {
    request
        .url
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// The query string as a map (for requests whose parameter order is not part of the contract).
pub fn query_map(request: &Request) -> BTreeMap<String, String> {
    query_pairs(request).into_iter().collect()
}

/// A header's value as text, if present.
pub fn header(request: &Request, name: &str) -> Option<String> {
    request
        .headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// The request body as JSON (`Value::Null` when there is none).
pub fn json_body(request: &Request) -> serde_json::Value {
    if request.body.is_empty() {
        return serde_json::Value::Null;
    }
    serde_json::from_slice(&request.body).unwrap_or_else(|e| {
        panic!(
            "request body is not JSON ({e}): {}",
            String::from_utf8_lossy(&request.body)
        )
    })
}

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
