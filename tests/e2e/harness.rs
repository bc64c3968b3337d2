//! The mock-server wiring of the E2E tests: clients with both credentials, routes below the base
//! URL, the exact shape of one request (the `apikey` query pair checked apart), secret checks,
//! and the create call answered with any template.

use std::collections::BTreeMap;

use gpucloud_e2e::auth::Credentials;
use gpucloud_e2e::types::{self, Location};
use gpucloud_e2e::{Client, Error, ResponseValue};
use gpucloud_integration_tests::{
    assert_call, assert_hides, assert_text_hides, mock_server, mount, mount_json, query_map,
    query_pairs,
};
use serde_json::Value;
use wiremock::{MockServer, Request, ResponseTemplate};

use crate::documented::full_body;
use crate::{API_KEY, PROJECT, SECRET_FRAGMENTS, STEM, TOKEN};

pub fn credentials() -> Credentials {
    Credentials::new(API_KEY, TOKEN).unwrap()
}

pub fn client(server: &MockServer) -> Client {
    Client::from_credentials(&format!("{}{STEM}", server.uri()), credentials()).unwrap()
}

/// A client whose requests cannot connect (nothing listens on the loopback discard port).
pub fn unreachable_client() -> Client {
    Client::from_credentials(&format!("http://127.0.0.1:9{STEM}"), credentials()).unwrap()
}

/// Answers `verb STEM+route` with `status` and a JSON body.
pub async fn serve(server: &MockServer, verb: &str, route: &str, status: u16, body: Value) {
    mount_json(server, verb, &format!("{STEM}{route}"), status, body).await;
}

/// Answers `verb STEM+route` with `template`.
pub async fn serve_template(
    server: &MockServer,
    verb: &str,
    route: &str,
    template: ResponseTemplate,
) {
    mount(server, verb, &format!("{STEM}{route}"), template).await;
}

/// What one request must look like, exactly. `query` lists the operation's parameters; the
/// `apikey` pair is checked separately (present exactly once, with the key).
pub struct Expect<'a> {
    pub method: &'a str,
    /// Path below the base URL, trailing slash included.
    pub path: &'a str,
    pub query: &'a [(&'a str, &'a str)],
    pub body: Option<Value>,
}

pub fn assert_request(request: &Request, expect: Expect<'_>) {
    assert_call(
        request,
        expect.method,
        &format!("{STEM}{}", expect.path),
        TOKEN,
        expect.body,
    );

    let pairs = query_pairs(request);
    let apikeys: Vec<_> = pairs.iter().filter(|(k, _)| k == "apikey").collect();
    assert_eq!(
        apikeys,
        vec![&("apikey".to_string(), API_KEY.to_string())],
        "apikey exactly once: {pairs:?}"
    );
    let mut expected: BTreeMap<String, String> = expect
        .query
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    expected.insert("apikey".into(), API_KEY.into());
    assert_eq!(query_map(request), expected);
    assert_eq!(
        pairs.len(),
        expected.len(),
        "no duplicated parameter: {pairs:?}"
    );
}

/// Neither Display (plain and alternate) nor Debug of `value` shows a credential.
pub fn assert_no_secret<T: std::fmt::Display + std::fmt::Debug>(value: &T) {
    assert_hides(value, SECRET_FRAGMENTS);
}

pub fn assert_text_has_no_secret(text: &str) {
    assert_text_hides(text, SECRET_FRAGMENTS);
}

/// Runs `create_cluster` (the full body, Delhi) against a server answering with `template`.
pub async fn create_answered(
    template: ResponseTemplate,
) -> Result<ResponseValue<types::ClusterResponse>, Error<types::E2eError>> {
    let server = mock_server().await;
    serve_template(&server, "POST", "/distributed_jobs_v2/cluster/", template).await;
    client(&server)
        .create_cluster()
        .project_id(PROJECT)
        .location(Location::Delhi)
        .body(full_body())
        .send()
        .await
}
