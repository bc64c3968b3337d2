//! Listing offers, and joining the base URL with the path.

use gpucloud_integration_tests::{mock_server, single_request};
use gpucloud_runcrate::Client;
use gpucloud_runcrate::types::Stack;
use serde_json::json;

use crate::harness::{Expect, assert_request, client, serve};
use crate::{KEY, STEM};

#[tokio::test]
async fn list_offers_sends_volume_and_keeps_undocumented_offer_fields() {
    let server = mock_server().await;
    serve(
        &server,
        "GET",
        "/clusters/offers",
        200,
        json!({"data": [
            {
                "id": "offer_h100_8x",
                "gpu_type": "H100",
                "hourly_rate": 2.49,
                "min_nodes": 2,
                "max_nodes": 16,
                "allowed_node_counts": [2, 4, 8, 16],
                "stacks": ["none", "slurm", "kubernetes", "ray"]
            },
            {"id": "offer_community", "min_nodes": 2, "max_nodes": 4, "allowed_node_counts": null, "stacks": []}
        ]}),
    )
    .await;

    let offers = client(&server)
        .list_offers()
        .volume(true)
        .send()
        .await
        .unwrap()
        .into_inner()
        .data;

    assert_request(
        &single_request(&server).await,
        Expect {
            method: "GET",
            path: "/clusters/offers",
            query: &[("volume", "true")],
            idempotency_key: None,
            body: None,
        },
    );
    assert_eq!(offers.len(), 2);
    let first = &offers[0];
    assert_eq!(first.min_nodes, Some(2));
    assert_eq!(first.max_nodes, Some(16));
    assert_eq!(first.allowed_node_counts, Some(vec![2, 4, 8, 16]));
    assert_eq!(
        first.stacks,
        vec![Stack::None, Stack::Slurm, Stack::Kubernetes, Stack::Ray]
    );
    // The offer's identifier (the `offer_id` of create_cluster) survives as an extra field.
    assert_eq!(first.extra.get("id"), Some(&json!("offer_h100_8x")));
    assert_eq!(first.extra.get("gpu_type"), Some(&json!("H100")));
    assert_eq!(first.extra.get("hourly_rate"), Some(&json!(2.49)));
    assert_eq!(first.extra.len(), 3);
    let second = &offers[1];
    assert_eq!(second.allowed_node_counts, None);
    assert!(second.stacks.is_empty());
    assert_eq!(second.extra.get("id"), Some(&json!("offer_community")));
}

#[tokio::test]
async fn list_offers_without_volume_sends_no_query_and_false_is_sent() {
    let server = mock_server().await;
    serve(&server, "GET", "/clusters/offers", 200, json!({"data": []})).await;
    let c = client(&server);

    assert!(
        c.list_offers()
            .send()
            .await
            .unwrap()
            .into_inner()
            .data
            .is_empty()
    );
    assert!(
        c.list_offers()
            .volume(false)
            .send()
            .await
            .unwrap()
            .into_inner()
            .data
            .is_empty()
    );

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2);
    for (request, query) in requests.iter().zip([&[][..], &[("volume", "false")][..]]) {
        assert_request(
            request,
            Expect {
                method: "GET",
                path: "/clusters/offers",
                query,
                idempotency_key: None,
                body: None,
            },
        );
    }
}

#[tokio::test]
async fn base_url_with_trailing_slash_does_not_double_the_slash() {
    let server = mock_server().await;
    serve(&server, "GET", "/clusters/offers", 200, json!({"data": []})).await;
    let c = Client::from_api_key(&format!("{}{STEM}/", server.uri()), KEY).unwrap();
    c.list_offers().send().await.unwrap();
    assert_eq!(
        single_request(&server).await.url.path(),
        "/api/v1/clusters/offers"
    );
}
