//! No credential ever shows: not in an error's `Display`, `Debug` or source chain, whatever the
//! failure, not in the `Debug` of a config or client, not in a plan, not in a log line.
//!
//! One module per place a secret could leak: `errors`, `debug`, `logs`, `redirects`.

mod debug;
mod errors;
mod logs;
mod redirects;

use crate::support::*;
use gpucloud::{ClusterClient, ClusterId, Error};
use serde_json::json;
use wiremock::Mock;
use wiremock::matchers::{method, path};

const SECRETS: [&str; 4] = [TOGETHER_KEY, RUNCRATE_KEY, E2E_API_KEY, E2E_TOKEN];
const RUNCRATE_ID: &str = "3c90c3cc-0d44-4b50-8888-8dd25736052a";

/// Every rendering of `error` a program or a log could show: Display, Debug, alternate Debug
/// and the whole source chain.
fn renderings(error: &Error) -> String {
    let mut text = format!("{error}\n{error:?}\n{error:#?}\n");
    let mut source = std::error::Error::source(error);
    while let Some(inner) = source {
        text.push_str(&format!("{inner}\n{inner:?}\n"));
        source = inner.source();
    }
    text
}

fn assert_no_secret(what: &str, text: &str) {
    for secret in SECRETS {
        assert!(!text.contains(secret), "{what} shows a secret:\n{text}");
    }
    // Not even a fragment of the keys' distinctive part.
    assert!(
        !text.contains("SECRET"),
        "{what} shows part of a secret:\n{text}"
    );
}

/// Provokes one error of every kind from `client` reading `id` at `at`, answering with each
/// template in turn (a fresh mock per case), and returns them.
async fn provoke(
    api: &Api,
    verb: &str,
    at: &str,
    client: &ClusterClient,
    id: &str,
) -> Vec<(String, Error)> {
    let cases = [
        (
            "400",
            json_response(
                400,
                &json!({"code": 400, "message": "Bad Request", "error": {"code": "bad", "message": "bad"}}),
            ),
        ),
        (
            "401",
            json_response(
                401,
                &json!({"detail": "Invalid token.", "error": {"code": "unauthorized", "message": "no"}}),
            ),
        ),
        (
            "404",
            json_response(
                404,
                &json!({"code": 404, "message": "Not Found", "error": {"code": "not_found", "message": "no"}}),
            ),
        ),
        (
            "429",
            json_response(
                429,
                &json!({"error": {"code": "rate_limited", "message": "slow"}}),
            )
            .insert_header("Retry-After", "1"),
        ),
        (
            "503",
            json_response(
                503,
                &json!({"code": 503, "message": "Unavailable", "error": {"code": "x", "message": "down"}}),
            ),
        ),
        ("html", raw_response(502, HTML_502, "text/html")),
        ("text-200", raw_response(200, "OK", "text/plain")),
    ];
    let mut errors = Vec::new();
    for (name, template) in cases {
        api.reset().await;
        Mock::given(method(verb))
            .and(path(at))
            .respond_with(template)
            .mount(&api.server)
            .await;
        let error = client.get(&ClusterId::new(id)).await.expect_err(name);
        errors.push((name.to_string(), error));
    }
    errors
}
