//! The API key never appears in an error, whatever went wrong.

use gpucloud_together::{Client, Error};
use serde_json::json;
use wiremock::ResponseTemplate;

use crate::KEY;
use crate::harness::{assert_no_key, serve, serve_with};

#[tokio::test]
async fn key_never_appears_in_any_error() {
    // Error response (status, headers and decoded body are printed).
    let (_s, client) = serve(
        "GET",
        "/compute/regions",
        401,
        json!({"message": "bad key"}),
    )
    .await;
    let err = client.list_regions().send().await.unwrap_err();
    assert!(format!("{err}").contains("401"));
    assert_no_key(&err);

    // Undeclared status: the whole reqwest::Response is printed.
    let (_s, client) = serve_with("GET", "/compute/regions", ResponseTemplate::new(204)).await;
    let err = client.list_regions().send().await.unwrap_err();
    assert!(matches!(err, Error::UnexpectedResponse(ref r) if r.status() == 204));
    assert_no_key(&err);

    // Transport failure: nothing listens on the port any more.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let client = Client::from_api_key(&format!("http://127.0.0.1:{port}/v1"), KEY).unwrap();
    let err = client.list_regions().send().await.unwrap_err();
    assert!(matches!(err, Error::CommunicationError(_)), "{err}");
    assert_no_key(&err);

    // Request rejected by a builder.
    let err = client.get_cluster().send().await.unwrap_err();
    assert_no_key(&err);
}

#[test]
fn key_rejected_by_constructor_is_named_not_shown() {
    let err = Client::from_api_key(gpucloud_together::DEFAULT_BASE_URL, "")
        .err()
        .unwrap();
    assert_eq!(err.to_string(), "the API key is empty");
    let bad = "tgt-secret with-space";
    let err = Client::from_api_key(gpucloud_together::DEFAULT_BASE_URL, bad)
        .err()
        .unwrap();
    assert_eq!(
        err.to_string(),
        "the API key contains whitespace, control or non-ASCII characters"
    );
    assert!(!format!("{err:?}").contains("secret"));
    let err = Client::from_api_key("ftp://api.together.ai/v1", KEY)
        .err()
        .unwrap();
    assert!(err.to_string().starts_with("invalid base URL"));
    assert_no_key(&err);
}
