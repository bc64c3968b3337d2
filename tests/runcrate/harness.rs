//! The mock-server wiring of the Runcrate tests: a client for a server, routes below the base
//! URL, the exact shape of one request, and the documented create answered with any template.

use gpucloud_integration_tests::{
    all_headers, assert_call, assert_hides, assert_user_agent, mock_server, mount, mount_json,
    owned_pairs, query_pairs,
};
use gpucloud_runcrate::{Client, Error, ResponseValue, types};
use serde_json::Value;
use uuid::Uuid;
use wiremock::{MockServer, Request, ResponseTemplate};

use crate::documented::documented_body_builder;
use crate::{KEY, STEM};

pub fn client(server: &MockServer) -> Client {
    Client::from_api_key(&format!("{}{STEM}", server.uri()), KEY).unwrap()
}

pub fn uuid(s: &str) -> Uuid {
    s.parse().unwrap()
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

/// What one request must look like, exactly.
pub struct Expect<'a> {
    pub method: &'a str,
    /// Path below the base URL.
    pub path: &'a str,
    pub query: &'a [(&'a str, &'a str)],
    pub idempotency_key: Option<&'a str>,
    pub body: Option<Value>,
}

pub fn assert_request(request: &Request, expect: Expect<'_>) {
    assert_call(
        request,
        expect.method,
        &format!("{STEM}{}", expect.path),
        KEY,
        expect.body,
    );
    assert_eq!(query_pairs(request), owned_pairs(expect.query));
    if expect.query.is_empty() {
        assert_eq!(request.url.query(), None, "no query string expected");
    }
    assert_eq!(
        all_headers(request, "idempotency-key"),
        expect
            .idempotency_key
            .map(str::to_string)
            .into_iter()
            .collect::<Vec<_>>()
    );
    assert_user_agent(request);
}

/// Neither the Display (plain and alternate) nor the Debug of `value` shows the key, or part
/// of it.
pub fn assert_no_key<T: std::fmt::Display + std::fmt::Debug>(value: &T) {
    assert_hides(value, &[KEY, "Zx81"]);
}

/// Runs `create_cluster` (documented body) against a server answering with `template`.
pub type CreateResult = Result<ResponseValue<types::ClusterResponse>, Error<types::ErrorEnvelope>>;

pub async fn create_cluster_answered(template: ResponseTemplate) -> (MockServer, CreateResult) {
    let server = mock_server().await;
    serve_template(&server, "POST", "/clusters", template).await;
    let result = client(&server)
        .create_cluster()
        .body(documented_body_builder())
        .send()
        .await;
    (server, result)
}
