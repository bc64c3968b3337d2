//! Bodies that are not JSON, or not the declared shape: the raw bytes are kept.

use gpucloud_together::Error;
use serde_json::{Value, json};
use wiremock::ResponseTemplate;

use crate::harness::{assert_no_key, serve, serve_with};

#[tokio::test]
async fn invalid_json_success_body_keeps_raw_bytes() {
    let raw = "<html><body>upstream connect error</body></html>";
    let template = ResponseTemplate::new(200).set_body_raw(raw, "text/html");
    let (_server, client) = serve_with("GET", "/compute/regions", template).await;
    let err = client.list_regions().send().await.unwrap_err();
    assert_no_key(&err);
    match err {
        Error::InvalidResponsePayload(bytes, e) => {
            assert_eq!(&bytes[..], raw.as_bytes());
            assert!(e.is_syntax(), "{e}");
        }
        other => panic!("expected InvalidResponsePayload, got {other}"),
    }
}

#[tokio::test]
async fn invalid_json_error_body_keeps_raw_bytes() {
    // A 502 from a proxy in front of the API: the error envelope cannot decode either.
    let raw = "Bad Gateway";
    let template = ResponseTemplate::new(502).set_body_raw(raw, "text/plain");
    let (_server, client) = serve_with("GET", "/compute/clusters/c-1", template).await;
    let err = client
        .get_cluster()
        .cluster_id("c-1")
        .send()
        .await
        .unwrap_err();
    assert_no_key(&err);
    match err {
        Error::InvalidResponsePayload(bytes, _) => assert_eq!(&bytes[..], raw.as_bytes()),
        other => panic!("expected InvalidResponsePayload, got {other}"),
    }
}

#[tokio::test]
async fn invalid_json_of_wrong_shape_is_an_invalid_payload() {
    // A required field missing (`cluster_id`) and a type mismatch both fail loudly.
    for body in [json!({"region": "us"}), json!({"cluster_id": 7})] {
        let (_server, client) = serve("GET", "/compute/clusters/c-1", 200, body.clone()).await;
        let err = client
            .get_cluster()
            .cluster_id("c-1")
            .send()
            .await
            .unwrap_err();
        match err {
            Error::InvalidResponsePayload(bytes, e) => {
                assert_eq!(serde_json::from_slice::<Value>(&bytes).unwrap(), body);
                assert!(e.is_data(), "{e}");
            }
            other => panic!("expected InvalidResponsePayload, got {other}"),
        }
    }
}
