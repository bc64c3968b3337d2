//! Creating and reading a cluster: the exact request, the typed response.

use gpucloud_integration_tests::{fixture, header, mock_server, single_request};
use gpucloud_runcrate::types::{self, Stack};
use serde_json::json;
use uuid::Uuid;

use crate::documented::{assert_documented_cluster, documented_body_builder};
use crate::harness::{Expect, assert_request, client, serve, uuid};
use crate::{CLUSTER_ID, PROVIDER, SSH_KEY_ID, STORAGE_ID};

#[tokio::test]
async fn create_cluster_sends_every_field_header_and_query_and_decodes_201() {
    let server = mock_server().await;
    serve(
        &server,
        "POST",
        "/clusters",
        201,
        fixture(PROVIDER, "create_cluster.response.201.json"),
    )
    .await;

    let response = client(&server)
        .create_cluster()
        .environment("staging")
        .idempotency_key("job-42:attempt/1")
        .body(
            types::CreateClusterRequest::builder()
                .name("train-a1")
                .offer_id("offer_h100_8x")
                .node_count(4)
                .stack(Stack::Slurm)
                .ssh_key_ids(vec![uuid(SSH_KEY_ID)])
                .storage_id(uuid(STORAGE_ID))
                .include_community(true),
        )
        .send()
        .await
        .unwrap();

    assert_request(
        &single_request(&server).await,
        Expect {
            method: "POST",
            path: "/clusters",
            query: &[("environment", "staging")],
            idempotency_key: Some("job-42:attempt/1"),
            body: Some(json!({
                "name": "train-a1",
                "offer_id": "offer_h100_8x",
                "node_count": 4,
                "stack": "slurm",
                "ssh_key_ids": [SSH_KEY_ID],
                "storage_id": STORAGE_ID,
                "include_community": true
            })),
        },
    );
    assert_eq!(response.status().as_u16(), 201);
    assert_documented_cluster(&response.into_inner().data);
}

#[tokio::test]
async fn create_cluster_minimal_sends_no_idempotency_key_no_query_and_only_required_fields() {
    let server = mock_server().await;
    serve(
        &server,
        "POST",
        "/clusters",
        201,
        json!({"data": {"id": CLUSTER_ID, "status": "provisioning", "nodes": []}}),
    )
    .await;

    let response = client(&server)
        .create_cluster()
        .body_map(|b| {
            b.name("n1")
                .offer_id("o")
                .node_count(2)
                .stack(Stack::Ray)
                // An empty optional list is left out of the body, not sent as `[]`.
                .ssh_key_ids(Vec::<Uuid>::new())
        })
        .send()
        .await
        .unwrap();

    assert_request(
        &single_request(&server).await,
        Expect {
            method: "POST",
            path: "/clusters",
            query: &[],
            idempotency_key: None,
            body: Some(json!({"name": "n1", "offer_id": "o", "node_count": 2, "stack": "ray"})),
        },
    );
    let cluster = response.into_inner().data;
    assert_eq!(cluster.id, uuid(CLUSTER_ID));
    assert_eq!(cluster.status.as_deref(), Some("provisioning"));
    assert!(cluster.nodes.is_empty());
    assert_eq!(cluster.stack, None);
}

#[tokio::test]
async fn create_cluster_idempotent_replay_decodes_200() {
    let server = mock_server().await;
    serve(
        &server,
        "POST",
        "/clusters",
        200,
        fixture(PROVIDER, "create_cluster.response.200.json"),
    )
    .await;

    let response = client(&server)
        .create_cluster()
        .idempotency_key("same-key")
        .body(documented_body_builder())
        .send()
        .await
        .unwrap();

    assert_eq!(
        header(&single_request(&server).await, "idempotency-key").as_deref(),
        Some("same-key")
    );
    assert_eq!(response.status().as_u16(), 200);
    assert_documented_cluster(&response.into_inner().data);
}

#[tokio::test]
async fn get_cluster_sends_id_in_path_and_environment_and_decodes() {
    let server = mock_server().await;
    let mut body = fixture(PROVIDER, "create_cluster.response.201.json");
    body["data"]["status"] = json!("ready");
    serve(
        &server,
        "GET",
        &format!("/clusters/{CLUSTER_ID}"),
        200,
        body,
    )
    .await;

    let response = client(&server)
        .get_cluster()
        .id(CLUSTER_ID)
        .environment("prod-eu")
        .send()
        .await
        .unwrap();

    assert_request(
        &single_request(&server).await,
        Expect {
            method: "GET",
            path: &format!("/clusters/{CLUSTER_ID}"),
            query: &[("environment", "prod-eu")],
            idempotency_key: None,
            body: None,
        },
    );
    assert_eq!(response.status().as_u16(), 200);
    let cluster = response.into_inner().data;
    assert_eq!(cluster.status.as_deref(), Some("ready"));
    assert_eq!(cluster.id, uuid(CLUSTER_ID));
    assert_eq!(cluster.nodes[0].name.as_deref(), Some("train-1"));
}

#[tokio::test]
async fn get_cluster_without_environment_sends_no_query() {
    let server = mock_server().await;
    serve(
        &server,
        "GET",
        &format!("/clusters/{CLUSTER_ID}"),
        200,
        json!({"data": {"id": CLUSTER_ID}}),
    )
    .await;

    let cluster = client(&server)
        .get_cluster()
        .id(uuid(CLUSTER_ID))
        .send()
        .await
        .unwrap()
        .into_inner()
        .data;

    assert_request(
        &single_request(&server).await,
        Expect {
            method: "GET",
            path: &format!("/clusters/{CLUSTER_ID}"),
            query: &[],
            idempotency_key: None,
            body: None,
        },
    );
    assert_eq!(cluster.id, uuid(CLUSTER_ID));
    assert_eq!(cluster.name, None);
}
