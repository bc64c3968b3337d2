//! Sending requests: a tracing span per operation, and no secret in any URL that leaves.
//!
//! reqwest's errors print the full request URL, query string included, and a response keeps the
//! URL it came from. For a provider that authenticates with a query parameter
//! (E2E's `apikey`) either would put the key into logs. [`execute`] strips the URL from transport
//! errors and rewrites the response's URL with the secret replaced by [`crate::REDACTED`].
//!
//! progenitor decodes a 4xx/5xx body into the spec's error type and drops the bytes, but a user
//! debugging a provider needs the body exactly as sent (undocumented fields included). For error
//! statuses [`execute`] therefore buffers the body and records a copy, with the operation, the
//! status and `Retry-After`, in the call's [`crate::Answer`].
//!
//! Nothing a request leaves behind is kept in process-wide state: what it received is recorded
//! for that one call ([`crate::with_answer`]), a planned request in the planning client's
//! [`ClientContext`].

use std::time::{Duration, Instant};

use progenitor_client::OperationInfo;
use reqwest::ResponseBuilderExt;
use tracing::Instrument;
use url::Url;

use crate::answer;
use crate::context::ClientContext;
use crate::credentials::Authenticate;
use crate::scrub::redact_url;

/// A `reqwest::ClientBuilder` with the settings every provider client shares: rustls with
/// ring ([`crate::tls`]), redirects only within the origin ([`same_origin_redirects`]), a
/// connect timeout, an overall request timeout and a user agent naming this SDK.
pub fn http_client_builder(
    user_agent: &str,
) -> Result<reqwest::ClientBuilder, crate::build_error::BuildError> {
    Ok(crate::tls::client_builder()?
        .redirect(same_origin_redirects())
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(60))
        .user_agent(user_agent))
}

/// The most redirects followed for one request.
pub const MAX_REDIRECTS: usize = 5;

/// A redirect policy that keeps credentials at the origin the user configured: a redirect is
/// followed only to the same scheme, host and port as the request that started it (at most
/// [`MAX_REDIRECTS`]); any other is not followed, and its 3xx answer is what the caller gets.
///
/// reqwest's own policy drops `Authorization` on a cross-origin hop, but not a key that
/// travels in the query (E2E's `apikey`, which a redirect's `Location` may repeat) nor one
/// in another header; a hop to `http://` would expose whatever is left.
pub fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if !same_origin || attempt.previous().len() > MAX_REDIRECTS {
            attempt.stop()
        } else {
            attempt.follow()
        }
    })
}

/// Joins repeated query pairs named in `params` (for this `operation`) into one comma-separated
/// pair at the position of the first, as OpenAPI's `style: form, explode: false` requires.
pub fn join_query_params(request: &mut reqwest::Request, operation: &str, params: &[(&str, &str)]) {
    let names: Vec<&str> = params
        .iter()
        .filter(|(op, _)| *op == operation)
        .map(|(_, n)| *n)
        .collect();
    if names.is_empty() || request.url().query().is_none() {
        return;
    }
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (key, value) in request.url().query_pairs() {
        let joined = names
            .contains(&key.as_ref())
            .then(|| pairs.iter_mut().find(|(k, _)| *k == key));
        match joined.flatten() {
            Some((_, existing)) => {
                existing.push(',');
                existing.push_str(&value);
            }
            None => pairs.push((key.into_owned(), value.into_owned())),
        }
    }
    request
        .url_mut()
        .query_pairs_mut()
        .clear()
        .extend_pairs(pairs);
}

/// Sends `request` with `client`: inside a `gpucloud.request` span (operation id, method and
/// path, never the query), logging status and duration at debug level, with secrets scrubbed
/// from transport errors and from the response's URL, and what it received (operation, status,
/// `Retry-After`, an error answer's body) recorded for the call's [`crate::with_answer`] scope.
///
/// A planning context records the request instead ([`crate::RequestCapture`]) and answers
/// `204 No Content` without any network traffic.
pub async fn execute<C: Authenticate>(
    client: &reqwest::Client,
    request: reqwest::Request,
    info: &OperationInfo,
    context: &ClientContext<C>,
) -> reqwest::Result<reqwest::Response> {
    answer::sending(info.operation_id);
    if let Some(capture) = context.capture() {
        capture.record::<C>(info.operation_id, &request);
        answer::received(http::StatusCode::NO_CONTENT.as_u16(), None, None);
        let planned = http::Response::builder()
            .status(http::StatusCode::NO_CONTENT)
            .body(reqwest::Body::from(Vec::new()))
            .unwrap_or_default();
        return Ok(reqwest::Response::from(planned));
    }
    let secret_params = C::SECRET_QUERY_PARAMS;
    let limit = context.max_response_bytes();
    let span = tracing::debug_span!(
        "gpucloud.request",
        operation = info.operation_id,
        method = %request.method(),
        path = request.url().path(),
    );
    async move {
        let started = Instant::now();
        let result = client.execute(request).await;
        let elapsed_ms = started.elapsed().as_millis() as u64;
        match result {
            Ok(response) => {
                tracing::debug!(status = response.status().as_u16(), elapsed_ms, "response");
                let response = limit_body(redact_response_url(response, secret_params), limit);
                if response.status().is_client_error() || response.status().is_server_error() {
                    keep_error_body(response)
                        .await
                        .map_err(reqwest::Error::without_url)
                } else {
                    answer::received(response.status().as_u16(), retry_after(&response), None);
                    Ok(response)
                }
            }
            Err(error) => {
                let error = error.without_url();
                tracing::debug!(%error, elapsed_ms, "transport error");
                Err(error)
            }
        }
    }
    .instrument(span)
    .await
}

/// `response` whose body fails to read once it passes `limit` bytes, whatever its
/// `Content-Length` claims, so no provider answer is buffered beyond the cap.
fn limit_body(response: reqwest::Response, limit: usize) -> reqwest::Response {
    let url = response.url().clone();
    let (mut parts, body) = http::Response::<reqwest::Body>::from(response).into_parts();
    let limited = reqwest::Body::wrap(http_body_util::Limited::new(body, limit));
    label_with_url(&mut parts, url);
    reqwest::Response::from(http::Response::from_parts(parts, limited))
}

/// Whether `error` is a response body cut off at the client's cap
/// ([`ClientContext::with_max_response_bytes`]).
pub fn is_body_too_large(error: &reqwest::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(current) = source {
        if current.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = current.source();
    }
    false
}

/// Re-labels `response` with its URL redacted; status, headers and body are untouched.
fn redact_response_url(response: reqwest::Response, secret_params: &[&str]) -> reqwest::Response {
    let redacted = redact_url(response.url(), secret_params);
    if &redacted == response.url() {
        return response;
    }
    let (mut parts, body) = http::Response::<reqwest::Body>::from(response).into_parts();
    label_with_url(&mut parts, redacted);
    reqwest::Response::from(http::Response::from_parts(parts, body))
}

/// `Retry-After` as sent, if it is text.
fn retry_after(response: &reqwest::Response) -> Option<String> {
    let value = response.headers().get(reqwest::header::RETRY_AFTER)?;
    value.to_str().ok().map(str::to_string)
}

/// Buffers an error response's body and records a copy in the call's [`crate::Answer`].
async fn keep_error_body(response: reqwest::Response) -> reqwest::Result<reqwest::Response> {
    let status = response.status();
    let version = response.version();
    let headers = response.headers().clone();
    let url = response.url().clone();
    let retry_after = retry_after(&response);
    let bytes = response.bytes().await?;
    answer::received(status.as_u16(), retry_after, Some(&bytes));
    let mut rebuilt = http::Response::new(reqwest::Body::from(bytes));
    *rebuilt.status_mut() = status;
    *rebuilt.version_mut() = version;
    *rebuilt.headers_mut() = headers;
    let (mut parts, body) = rebuilt.into_parts();
    label_with_url(&mut parts, url);
    Ok(reqwest::Response::from(http::Response::from_parts(
        parts, body,
    )))
}

/// Records `url` as the response URL reqwest reports (`Response::url`).
fn label_with_url(parts: &mut http::response::Parts, url: Url) {
    // Without the extension reqwest labels the response with a placeholder URL: still no secret.
    if let Ok(labelled) = http::Response::builder().url(url).body(()) {
        parts.extensions.extend(labelled.into_parts().0.extensions);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    const INFO: OperationInfo = OperationInfo {
        operation_id: "get_thing",
    };

    /// Credentials that travel in the `apikey` query parameter, as E2E's do.
    #[derive(Debug, Clone)]
    struct QueryKey;

    impl Authenticate for QueryKey {
        const SECRET_QUERY_PARAMS: &'static [&'static str] = &["apikey"];
        fn authenticate(
            &self,
            _: &mut reqwest::Request,
        ) -> Result<(), crate::credentials::CredentialError> {
            Ok(())
        }
    }

    fn context() -> ClientContext<QueryKey> {
        ClientContext::new(QueryKey)
    }

    #[test]
    fn joins_only_the_declared_parameters_of_the_operation() {
        let url = "https://h/r?state=A&page_size=5&state=B&mode=X&mode=Y&other=1&other=2";
        let mut request = reqwest::Request::new(reqwest::Method::GET, url.parse().unwrap());
        let params = [("list", "state"), ("list", "mode"), ("elsewhere", "other")];
        join_query_params(&mut request, "list", &params);
        assert_eq!(
            request.url().query(),
            Some("state=A%2CB&page_size=5&mode=X%2CY&other=1&other=2")
        );
    }

    #[test]
    fn redacts_only_named_parameters() {
        let url: Url = "https://h/a/?project_id=1&apikey=s3cret&location=Delhi"
            .parse()
            .unwrap();
        assert_eq!(
            redact_url(&url, &["apikey"]).as_str(),
            "https://h/a/?project_id=1&apikey=REDACTED&location=Delhi"
        );
        assert_eq!(redact_url(&url, &["other"]), url);
    }

    #[tokio::test]
    async fn response_url_is_redacted_and_body_kept() {
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .and(path("/a/"))
            .respond_with(ResponseTemplate::new(418).set_body_string("teapot"))
            .mount(&server)
            .await;
        let client = crate::tls::client_builder().unwrap().build().unwrap();
        let url = format!("{}/a/?apikey=s3cret&x=1", server.uri());
        let request = client.get(&url).build().unwrap();
        let context = context();
        let (response, answer) =
            crate::answer::with_answer(execute(&client, request, &INFO, &context)).await;
        let response = response.unwrap();
        assert_eq!(response.status().as_u16(), 418);
        assert!(response.url().as_str().ends_with("/a/?apikey=REDACTED&x=1"));
        assert!(!format!("{response:?}").contains("s3cret"));
        assert_eq!(
            answer.and_then(|a| a.error_body).as_deref(),
            Some(&b"teapot"[..])
        );
        assert_eq!(response.text().await.unwrap(), "teapot");
    }

    #[tokio::test]
    async fn error_body_with_newlines_and_utf8_is_kept_with_status_and_operation() {
        let server = MockServer::start().await;
        let body = "<html>\n 502 – Bad Gateway 100%\r\n</html>";
        Mock::given(method("GET"))
            .respond_with(ResponseTemplate::new(502).set_body_string(body))
            .mount(&server)
            .await;
        let client = crate::tls::client_builder().unwrap().build().unwrap();
        let request = client.get(server.uri()).build().unwrap();
        let context = context();
        let (response, answer) =
            crate::answer::with_answer(execute(&client, request, &INFO, &context)).await;
        let response = response.unwrap();
        assert_eq!(
            answer,
            Some(crate::answer::Answer {
                operation: "get_thing",
                status: Some(502),
                retry_after: None,
                error_body: Some(body.as_bytes().to_vec()),
            })
        );
        assert_eq!(response.text().await.unwrap(), body);
    }

    #[tokio::test]
    async fn a_planning_context_records_the_request_and_sends_nothing() {
        let server = MockServer::start().await;
        let client = crate::tls::client_builder().unwrap().build().unwrap();
        let url = format!("{}/a/?apikey=s3cret&x=1", server.uri());
        let request = client.post(&url).body("{}").build().unwrap();
        let (planning, capture) = context().planning();
        let response = execute(&client, request, &INFO, &planning).await.unwrap();
        assert_eq!(response.status().as_u16(), 204);
        let captured = capture.take().unwrap();
        assert_eq!(captured.operation, "get_thing");
        assert_eq!(
            captured.url,
            format!("{}/a/?apikey=REDACTED&x=1", server.uri())
        );
        assert_eq!(captured.body.as_deref(), Some(&b"{}"[..]));
        assert!(server.received_requests().await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn bodies_past_the_cap_fail_to_read_and_say_why() {
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .respond_with(ResponseTemplate::new(200).set_body_string("x".repeat(4096)))
            .mount(&server)
            .await;
        let client = crate::tls::client_builder().unwrap().build().unwrap();
        let capped = context().with_max_response_bytes(1024);
        let request = client.get(server.uri()).build().unwrap();
        let response = execute(&client, request, &INFO, &capped).await.unwrap();
        let error = response.bytes().await.unwrap_err();
        assert!(is_body_too_large(&error), "{error:?}");
        // Error answers are read under the same cap.
        Mock::given(method("GET"))
            .and(path("/err"))
            .respond_with(ResponseTemplate::new(500).set_body_string("e".repeat(4096)))
            .with_priority(1)
            .mount(&server)
            .await;
        let request = client.get(format!("{}/err", server.uri())).build().unwrap();
        let error = execute(&client, request, &INFO, &capped).await.unwrap_err();
        assert!(is_body_too_large(&error), "{error:?}");
        // Within the cap, nothing changes.
        let request = client.get(server.uri()).build().unwrap();
        let response = execute(&client, request, &INFO, &context()).await.unwrap();
        assert_eq!(response.bytes().await.unwrap().len(), 4096);
    }

    #[tokio::test]
    async fn success_bodies_are_not_copied() {
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .respond_with(ResponseTemplate::new(200).set_body_string("{}"))
            .mount(&server)
            .await;
        let client = crate::tls::client_builder().unwrap().build().unwrap();
        let request = client.get(server.uri()).build().unwrap();
        let context = context();
        let (response, answer) =
            crate::answer::with_answer(execute(&client, request, &INFO, &context)).await;
        assert_eq!(response.unwrap().text().await.unwrap(), "{}");
        let answer = answer.unwrap();
        assert_eq!((answer.status, answer.error_body), (Some(200), None));
    }

    #[tokio::test]
    async fn transport_errors_carry_no_url() {
        // Nothing listens on port 9 of the loopback address (discard; closed here).
        let client = crate::tls::client_builder().unwrap().build().unwrap();
        let request = client
            .get("http://127.0.0.1:9/a/?apikey=s3cret")
            .build()
            .unwrap();
        let context = context();
        let (error, answer) =
            crate::answer::with_answer(execute(&client, request, &INFO, &context)).await;
        let error = error.unwrap_err();
        assert_eq!(
            answer.map(|a| (a.operation, a.status)),
            Some(("get_thing", None))
        );
        assert!(error.url().is_none());
        assert!(!format!("{error} {error:?}").contains("s3cret"));
    }
}
