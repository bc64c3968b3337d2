//! Sending requests: a tracing span per operation, and no secret in any URL that leaves.
//!
//! reqwest's errors print the full request URL, query string included, and a response keeps the
//! URL it came from (CODEGEN.md §7). For a provider that authenticates with a query parameter
//! (E2E's `apikey`) either would put the key into logs. [`execute`] strips the URL from transport
//! errors and rewrites the response's URL with the secret replaced by [`REDACTED`].

use std::time::{Duration, Instant};

use progenitor_client::OperationInfo;
use reqwest::ResponseBuilderExt;
use tracing::Instrument;
use url::Url;

/// What replaces a secret in a URL.
pub const REDACTED: &str = "REDACTED";

/// A `reqwest::ClientBuilder` with the settings every provider client shares: rustls, a
/// connect timeout, an overall request timeout and a user agent naming this SDK.
pub fn http_client_builder(user_agent: &str) -> reqwest::ClientBuilder {
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(60))
        .user_agent(user_agent)
}

/// `url` with the value of every query parameter named in `secret_params` replaced.
pub fn redact_url(url: &Url, secret_params: &[&str]) -> Url {
    if !url
        .query_pairs()
        .any(|(k, _)| secret_params.contains(&k.as_ref()))
    {
        return url.clone();
    }
    let pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(k, v)| {
            let v = if secret_params.contains(&k.as_ref()) {
                REDACTED.to_string()
            } else {
                v.into_owned()
            };
            (k.into_owned(), v)
        })
        .collect();
    let mut redacted = url.clone();
    redacted.query_pairs_mut().clear().extend_pairs(pairs);
    redacted
}

/// Sends `request` with `client`: inside a `gpucloud.request` span (operation id, method and
/// path, never the query), logging status and duration at debug level, with secrets scrubbed
/// from transport errors and from the response's URL.
pub async fn execute(
    client: &reqwest::Client,
    request: reqwest::Request,
    info: &OperationInfo,
    secret_params: &[&str],
) -> reqwest::Result<reqwest::Response> {
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
                Ok(redact_response_url(response, secret_params))
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

/// Re-labels `response` with its URL redacted; status, headers and body are untouched.
fn redact_response_url(response: reqwest::Response, secret_params: &[&str]) -> reqwest::Response {
    let redacted = redact_url(response.url(), secret_params);
    if &redacted == response.url() {
        return response;
    }
    let (mut parts, body) = http::Response::<reqwest::Body>::from(response).into_parts();
    if let Ok(labelled) = http::Response::builder().url(redacted).body(()) {
        parts.extensions.extend(labelled.into_parts().0.extensions);
    }
    // Without the extension reqwest labels the response with a placeholder URL: still no secret.
    reqwest::Response::from(http::Response::from_parts(parts, body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    const INFO: OperationInfo = OperationInfo {
        operation_id: "get_thing",
    };

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
        let client = reqwest::Client::new();
        let url = format!("{}/a/?apikey=s3cret&x=1", server.uri());
        let request = client.get(&url).build().unwrap();
        let response = execute(&client, request, &INFO, &["apikey"]).await.unwrap();
        assert_eq!(response.status().as_u16(), 418);
        assert!(response.url().as_str().ends_with("/a/?apikey=REDACTED&x=1"));
        assert!(!format!("{response:?}").contains("s3cret"));
        assert_eq!(response.text().await.unwrap(), "teapot");
    }

    #[tokio::test]
    async fn transport_errors_carry_no_url() {
        // Nothing listens on port 9 of the loopback address (discard; closed here).
        let client = reqwest::Client::new();
        let request = client
            .get("http://127.0.0.1:9/a/?apikey=s3cret")
            .build()
            .unwrap();
        let error = execute(&client, request, &INFO, &["apikey"])
            .await
            .unwrap_err();
        assert!(error.url().is_none());
        assert!(!format!("{error} {error:?}").contains("s3cret"));
    }
}
