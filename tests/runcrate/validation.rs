//! Client-side validation before any network call, and the bounds left to the server.

use gpucloud_integration_tests::{
    all_headers, assert_nothing_sent, error_response, invalid_request, json_body, mock_server,
    single_request,
};
use gpucloud_runcrate::types::{self, Stack};
use serde_json::json;

use crate::documented::documented_body_builder;
use crate::harness::{client, serve, uuid};
use crate::{CLUSTER_ID, SSH_KEY_ID};

#[tokio::test]
async fn missing_required_body_fields_and_path_id_are_rejected_before_sending() {
    let server = mock_server().await;
    let c = client(&server);

    let message = invalid_request(c.create_cluster().send().await);
    assert_eq!(message, "no value supplied for name");

    let message = invalid_request(
        c.create_cluster()
            .body_map(|b| b.name("n").offer_id("o").node_count(2))
            .send()
            .await,
    );
    assert_eq!(message, "no value supplied for stack");

    let message = invalid_request(
        c.create_cluster()
            .body_map(|b| b.name("n").stack(Stack::None).node_count(2))
            .send()
            .await,
    );
    assert_eq!(message, "no value supplied for offer_id");

    let message = invalid_request(c.get_cluster().send().await);
    assert_eq!(message, "id was not initialized");

    let message = invalid_request(c.get_cluster().id("not-a-uuid").send().await);
    assert_eq!(message, "conversion to `:: uuid :: Uuid` for id failed");

    assert_nothing_sent(&server).await;
}

#[tokio::test]
async fn cluster_name_pattern_is_enforced_before_sending() {
    let server = mock_server().await;
    let c = client(&server);
    for bad in ["", "-starts-with-hyphen", "has_underscore", &"a".repeat(64)] {
        let message = invalid_request(
            c.create_cluster()
                .body_map(|b| b.name(bad).offer_id("o").node_count(2).stack(Stack::None))
                .send()
                .await,
        );
        assert!(
            message.starts_with("error converting supplied value for name: "),
            "{bad:?}: {message}"
        );
    }
    assert!(types::CreateClusterRequestName::try_from("a".repeat(63)).is_ok());
    assert_nothing_sent(&server).await;
}

#[tokio::test]
async fn idempotency_key_constraints_are_enforced_before_sending() {
    let server = mock_server().await;
    let c = client(&server);
    let too_long = "k".repeat(256);
    for bad in [
        "",
        too_long.as_str(),
        "has space",
        "tab\tkey",
        "naïve",
        "line\nbreak",
    ] {
        let message = invalid_request(
            c.create_cluster()
                .idempotency_key(bad)
                .body(documented_body_builder())
                .send()
                .await,
        );
        // The generated builder drops the reason; it names the parameter only.
        assert_eq!(
            message, "conversion to `CreateClusterIdempotencyKey` for idempotency_key failed",
            "{bad:?}"
        );
    }
    assert_nothing_sent(&server).await;

    // The boundaries are accepted and sent verbatim: 1 character, and 255 visible ASCII ones.
    serve(
        &server,
        "POST",
        "/clusters",
        201,
        json!({"data": {"id": CLUSTER_ID}}),
    )
    .await;
    let printable: String = (0x21u8..=0x7e).map(char::from).collect();
    let longest: String = printable.chars().cycle().take(255).collect();
    for good in ["x", longest.as_str()] {
        c.create_cluster()
            .idempotency_key(good)
            .body(documented_body_builder())
            .send()
            .await
            .unwrap();
    }
    let sent: Vec<_> = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| all_headers(r, "idempotency-key"))
        .collect();
    assert_eq!(sent, vec![vec!["x".to_string()], vec![longest]]);
}

#[tokio::test]
async fn numeric_and_list_bounds_are_not_enforced_client_side() {
    // The spec bounds node_count to 2..=64 and ssh_key_ids to 20 items; the generated types are
    // a plain i64 and Vec, so out-of-range values go to the server (which answers 422).
    let server = mock_server().await;
    serve(
        &server,
        "POST",
        "/clusters",
        422,
        json!({"error": {"code": "validation_error", "message": "node_count must be >= 2"}}),
    )
    .await;
    let result = client(&server)
        .create_cluster()
        .body_map(|b| {
            b.name("n")
                .offer_id("o")
                .node_count(1)
                .stack(Stack::None)
                .ssh_key_ids(vec![uuid(SSH_KEY_ID); 21])
        })
        .send()
        .await;
    let value = error_response(result);
    assert_eq!(value.status().as_u16(), 422);
    let body = json_body(&single_request(&server).await);
    assert_eq!(body["node_count"], json!(1));
    assert_eq!(body["ssh_key_ids"].as_array().unwrap().len(), 21);
}
