//! Reading a received request, and the checks every provider's request assertions share.

use std::collections::BTreeMap;

use serde_json::Value;
use wiremock::Request;

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

/// Borrowed (name, value) pairs as owned ones, to compare with [`query_pairs`].
pub fn owned_pairs(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A header's value as text, if present.
pub fn header(request: &Request, name: &str) -> Option<String> {
    request
        .headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// Every value of a header, in order (empty when absent).
pub fn all_headers(request: &Request, name: &str) -> Vec<String> {
    request
        .headers
        .get_all(name)
        .iter()
        .map(|v| {
            v.to_str()
                .unwrap_or_else(|e| panic!("header {name} is not text: {e}"))
                .to_string()
        })
        .collect()
}

/// The request body as JSON (`Value::Null` when there is none).
pub fn json_body(request: &Request) -> Value {
    if request.body.is_empty() {
        return Value::Null;
    }
    serde_json::from_slice(&request.body).unwrap_or_else(|e| {
        panic!(
            "request body is not JSON ({e}): {}",
            String::from_utf8_lossy(&request.body)
        )
    })
}

/// Asserts what every generated client sends on every call: the method, the whole URL path
/// (base-URL stem included), one `Authorization: Bearer <token>`, `Accept: application/json`
/// and the body (see [`assert_body`]). The query and provider-specific headers are checked by
/// each provider's own assertion.
pub fn assert_call(
    request: &Request,
    verb: &str,
    full_path: &str,
    bearer_token: &str,
    body: Option<Value>,
) {
    assert_eq!(request.method.as_str(), verb);
    assert_eq!(request.url.path(), full_path);
    assert_eq!(
        all_headers(request, "authorization"),
        vec![format!("Bearer {bearer_token}")]
    );
    assert_eq!(
        header(request, "accept").as_deref(),
        Some("application/json")
    );
    assert_body(request, body);
}

/// `Some(body)`: a JSON content type and exactly that JSON. `None`: no body and no content type.
pub fn assert_body(request: &Request, body: Option<Value>) {
    match body {
        Some(body) => {
            assert_eq!(
                header(request, "content-type").as_deref(),
                Some("application/json")
            );
            assert_eq!(json_body(request), body);
        }
        None => {
            assert!(request.body.is_empty(), "no body expected");
            assert_eq!(header(request, "content-type"), None);
        }
    }
}

/// The user agent names the SDK (`gpucloud/<version>`).
pub fn assert_user_agent(request: &Request) {
    assert!(
        header(request, "user-agent")
            .unwrap_or_default()
            .starts_with("gpucloud/"),
        "user agent names the SDK"
    );
}
