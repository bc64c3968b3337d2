//! The local mock server: a catch-all that names unmatched requests, one-line mounts, and the
//! requests it received.

use serde_json::Value;
use wiremock::matchers::{method, path};
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

/// Answers `verb full_path` (the whole URL path, base-URL stem included) with `template`.
pub async fn mount(server: &MockServer, verb: &str, full_path: &str, template: ResponseTemplate) {
    Mock::given(method(verb))
        .and(path(full_path))
        .respond_with(template)
        .mount(server)
        .await;
}

/// [`mount`] answering `status` with the JSON `body`.
pub async fn mount_json(
    server: &MockServer,
    verb: &str,
    full_path: &str,
    status: u16,
    body: Value,
) {
    let template = ResponseTemplate::new(status).set_body_json(body);
    mount(server, verb, full_path, template).await;
}

/// Every request the server received, in order.
pub async fn received(server: &MockServer) -> Vec<Request> {
    server
        .received_requests()
        .await
        .unwrap_or_else(|| panic!("the mock server records no requests"))
}

/// Asserts the server received nothing: the client rejected the call before sending it.
pub async fn assert_nothing_sent(server: &MockServer) {
    let requests = received(server).await;
    assert!(requests.is_empty(), "nothing may be sent: {requests:?}");
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
