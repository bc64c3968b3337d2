//! A provider that quotes our own request back in its errors — as many validation layers do —
//! never makes a key appear in an error: message, code, body, `Display` or `Debug`. And an
//! answer longer than the client's cap is not read beyond it.

use gpucloud::{ClusterClient, ClusterId, Error};
use serde_json::json;
use wiremock::matchers::any;
use wiremock::{Mock, ResponseTemplate};

use crate::support::*;

/// Every spelling of `secrets` a server could echo: plain, percent- and form-encoded, in a
/// query string and in a header line.
fn echo(secrets: &[&str]) -> String {
    let mut text = String::from("invalid request:");
    for secret in secrets {
        let percent: String = url::form_urlencoded::byte_serialize(secret.as_bytes()).collect();
        text.push_str(&format!(
            " GET /v1/x?apikey={secret}&k={percent} with header Authorization: Bearer {secret};"
        ));
    }
    text
}

fn assert_clean(error: &Error, secrets: &[&str]) {
    let shown = format!("{error} {error:?}");
    for secret in secrets {
        assert!(!shown.contains(secret), "{secret} leaked: {shown}");
    }
    assert!(
        shown.contains("REDACTED"),
        "the echo is kept, redacted: {shown}"
    );
}

async fn answer_everything(api: &Api, response: ResponseTemplate) {
    Mock::given(any())
        .respond_with(response)
        .with_priority(1)
        .mount(&api.server)
        .await;
}

#[tokio::test]
async fn echoed_credentials_are_scrubbed_from_every_error() {
    let cases: [(&str, &[&str]); 3] = [
        ("together", &[TOGETHER_KEY]),
        ("runcrate", &[RUNCRATE_KEY]),
        ("e2e", &[E2E_API_KEY, E2E_TOKEN]),
    ];
    for (provider, secrets) in cases {
        let text = echo(secrets);
        let bodies = [
            // The provider's own envelope, a bare message, and text that is not JSON at all.
            json!({"error": {"code": text, "message": text}, "code": 400, "message": text, "errors": {}}),
            json!({"detail": text}),
        ];
        for body in bodies {
            let api = Api::start().await;
            answer_everything(&api, json_response(400, &body)).await;
            let client = match provider {
                "together" => api.together(),
                "runcrate" => api.runcrate(),
                _ => api.e2e(),
            };
            let id = if provider == "runcrate" {
                "3c90c3cc-0d44-4b50-8888-8dd25736052a"
            } else {
                "101"
            };
            let error = client.get(&ClusterId::new(id)).await.unwrap_err();
            assert_eq!(error.status(), Some(400), "{provider}");
            assert_clean(&error, secrets);
        }
        let api = Api::start().await;
        answer_everything(&api, raw_response(502, &text, "text/html")).await;
        let client = match provider {
            "together" => api.together(),
            "runcrate" => api.runcrate(),
            _ => api.e2e(),
        };
        let id = if provider == "runcrate" {
            "3c90c3cc-0d44-4b50-8888-8dd25736052a"
        } else {
            "101"
        };
        let error = client.get(&ClusterId::new(id)).await.unwrap_err();
        assert_clean(&error, secrets);
    }
}

#[tokio::test]
async fn an_answer_past_the_cap_is_an_error_naming_the_limit() {
    let api = Api::start().await;
    let mut huge = together_cluster("c-1", "x", "Ready", &[]);
    huge["cluster_name"] = json!("n".repeat(64 * 1024));
    answer_everything(&api, json_response(200, &huge)).await;
    let client =
        ClusterClient::together(api.together_config().with_max_response_bytes(16 * 1024)).unwrap();

    let error = client.get(&ClusterId::new("c-1")).await.unwrap_err();

    let Error::ResponseTooLarge { limit, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(*limit, 16 * 1024);
    assert!(error.to_string().contains("16384-byte limit"), "{error}");
    assert!(
        error.is_ambiguous(),
        "a create answered like this may have happened"
    );
    // The default cap reads it.
    assert!(api.together().get(&ClusterId::new("c-1")).await.is_ok());
}
