//! Log lines: no credential shows in spans or events, whatever the failure.

use gpucloud::{ClusterClient, ClusterId, Error};
use serde_json::json;
use wiremock::Mock;
use wiremock::matchers::{method, path};

use super::assert_no_secret;
use crate::support::capture::Capture;
use crate::support::*;

#[tokio::test]
async fn e2e_log_lines_show_neither_apikey_nor_token() {
    // Every test's lines, which only makes the "no secret anywhere" assertions stronger.
    let capture = Capture::global();
    let api = Api::start().await;
    let client = api.e2e();
    Mock::given(method("GET"))
        .and(path("/distributed_jobs_v2/cluster/101/"))
        .respond_with(raw_response(502, HTML_502, "text/html"))
        .mount(&api.server)
        .await;
    Mock::given(method("GET"))
        .and(path("/distributed_jobs_v2/cluster/"))
        .respond_with(json_response(
            200,
            &json!({"code": 200, "data": [], "errors": {}, "message": "Success"}),
        ))
        .mount(&api.server)
        .await;
    Mock::given(method("POST"))
        .and(path("/distributed_jobs_v2/cluster/"))
        .respond_with(json_response(
            503,
            &json!({"code": 503, "message": "Service Unavailable"}),
        ))
        .mount(&api.server)
        .await;
    Mock::given(method("DELETE"))
        .and(path("/distributed_jobs_v2/cluster/101/"))
        .respond_with(json_response(401, &json!({"detail": "Invalid token."})))
        .mount(&api.server)
        .await;

    let get = client.get(&ClusterId::new("101")).await.unwrap_err();
    let create = create_ends(client.create(&e2e_spec())).await.unwrap_err();
    let delete = client.delete(&ClusterId::new("101")).await.unwrap_err();
    let dead = ClusterClient::e2e(api.e2e_config().with_base_url(DEAD_URL)).unwrap();
    let transport = dead.get(&ClusterId::new("101")).await.unwrap_err();

    assert_eq!(get.status(), Some(502));
    assert_eq!(create.status(), Some(503));
    assert!(matches!(delete, Error::Authentication(_)), "{delete:?}");
    assert!(
        matches!(transport, Error::Transport { .. }),
        "{transport:?}"
    );
    let lines = capture.lines();
    // The capture saw the request spans, the retry and create-failure events and the transport
    // errors, so an absent secret means a redacted one.
    let joined = lines.join("\n");
    assert!(joined.contains("span gpucloud.request:"), "{joined}");
    assert!(
        joined.contains("path=/distributed_jobs_v2/cluster/101/"),
        "{joined}"
    );
    assert!(joined.contains("retrying"), "{joined}");
    assert!(joined.contains("create may have landed"), "{joined}");
    assert!(joined.contains("transport error"), "{joined}");
    for line in &lines {
        assert_no_secret("log line", line);
    }
}
