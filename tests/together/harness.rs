//! The mock-server wiring of the Together tests: one route served to a fresh client, and the
//! one request it sent asserted exactly.

use std::fmt::{Debug, Display};

use gpucloud_integration_tests::{
    assert_call, assert_hides, assert_user_agent, mock_server, mount, owned_pairs, query_pairs,
    single_request,
};
use gpucloud_together::Client;
use serde_json::Value;
use wiremock::{MockServer, Request, ResponseTemplate};

use crate::{KEY, STEM};

/// A mock server whose only mock answers `verb STEM+p` with `template`, and a client for it.
pub async fn serve_with(verb: &str, p: &str, template: ResponseTemplate) -> (MockServer, Client) {
    let server = mock_server().await;
    mount(&server, verb, &format!("{STEM}{p}"), template).await;
    let client = Client::from_api_key(&format!("{}{STEM}", server.uri()), KEY).unwrap();
    (server, client)
}

/// [`serve_with`] answering `status` with the JSON `body`.
pub async fn serve(verb: &str, p: &str, status: u16, body: Value) -> (MockServer, Client) {
    serve_with(verb, p, ResponseTemplate::new(status).set_body_json(body)).await
}

/// Asserts the one request the server got: method, path, the exact ordered query pairs, the
/// bearer key, the user agent, and the JSON body (or that there was no body and no
/// Content-Type).
pub async fn expect(
    server: &MockServer,
    verb: &str,
    p: &str,
    query: &[(&str, &str)],
    body: Option<Value>,
) -> Request {
    let request = single_request(server).await;
    assert_call(&request, verb, &format!("{STEM}{p}"), KEY, body);
    assert_eq!(
        query_pairs(&request),
        owned_pairs(query),
        "query of {}",
        request.url
    );
    assert_user_agent(&request);
    request
}

/// Neither the Display nor the Debug of `what` shows the API key.
pub fn assert_no_key(what: impl Display + Debug) {
    assert_hides(&what, &[KEY]);
}
