//! Creating, listing, reading and deleting clusters: the exact request, the typed response.

use gpucloud_e2e::types::Location;
use gpucloud_integration_tests::{fixture, mock_server, single_request};
use serde_json::json;

use crate::documented::{
    assert_documented_cluster, doc_cluster_envelope, full_body, full_body_json,
};
use crate::harness::{Expect, assert_request, client, serve};
use crate::{CLUSTER, PROJECT, PROVIDER};

#[tokio::test]
async fn create_cluster_sends_both_credentials_scope_and_body_and_decodes_201() {
    let server = mock_server().await;
    serve(
        &server,
        "POST",
        "/distributed_jobs_v2/cluster/",
        201,
        fixture(PROVIDER, "create_cluster.response.201.json"),
    )
    .await;

    let response = client(&server)
        .create_cluster()
        .project_id(PROJECT)
        .location(Location::Delhi)
        .active_iam(55)
        .body(full_body())
        .send()
        .await
        .unwrap();

    assert_request(
        &single_request(&server).await,
        Expect {
            method: "POST",
            path: "/distributed_jobs_v2/cluster/",
            query: &[
                ("project_id", "10001"),
                ("location", "Delhi"),
                ("active_iam", "55"),
            ],
            body: Some(full_body_json()),
        },
    );
    assert_eq!(response.status().as_u16(), 201);
    let envelope = response.into_inner();
    assert_eq!(envelope.code, Some(201));
    assert_eq!(envelope.errors, Some(json!({})));
    assert_eq!(
        envelope.message.as_deref(),
        Some("Cluster created successfully")
    );
    assert_documented_cluster(envelope.data.as_ref().unwrap());
}

#[tokio::test]
async fn list_clusters_sends_paging_and_decodes_each_cluster() {
    let server = mock_server().await;
    let documented = fixture(PROVIDER, "create_cluster.response.201.json")["data"].clone();
    serve(
        &server,
        "GET",
        "/distributed_jobs_v2/cluster/",
        200,
        json!({
            "code": 200,
            "data": [
                documented,
                {"id": 102, "status": "Running", "worker_nodes": [{"name": "w-0", "ip": "10.0.0.5"}], "reserve_ip": [{"ip": "203.0.113.7"}]}
            ],
            "errors": {},
            "message": "Success"
        }),
    )
    .await;

    let response = client(&server)
        .list_clusters()
        .project_id(PROJECT)
        .location(Location::Chennai)
        .active_iam(7)
        .page_no(2)
        .per_page(50)
        .send()
        .await
        .unwrap();

    assert_request(
        &single_request(&server).await,
        Expect {
            method: "GET",
            path: "/distributed_jobs_v2/cluster/",
            query: &[
                ("project_id", "10001"),
                ("location", "Chennai"),
                ("active_iam", "7"),
                ("page_no", "2"),
                ("per_page", "50"),
            ],
            body: None,
        },
    );
    let list = response.into_inner();
    assert_eq!(list.code, Some(200));
    assert_eq!(list.message.as_deref(), Some("Success"));
    assert_eq!(list.data.len(), 2);
    assert_documented_cluster(&list.data[0]);
    let running = &list.data[1];
    assert_eq!(running.id, Some(102));
    assert_eq!(running.status.as_deref(), Some("Running"));
    assert_eq!(running.worker_nodes[0].get("ip"), Some(&json!("10.0.0.5")));
    assert_eq!(running.reserve_ip[0].get("ip"), Some(&json!("203.0.113.7")));
    assert_eq!(running.name, None);
}

#[tokio::test]
async fn list_clusters_without_optional_params_sends_only_scope_and_apikey() {
    let server = mock_server().await;
    serve(
        &server,
        "GET",
        "/distributed_jobs_v2/cluster/",
        200,
        json!({"code": 200, "data": [], "errors": {}, "message": "Success"}),
    )
    .await;

    let list = client(&server)
        .list_clusters()
        .project_id(PROJECT)
        .location(Location::Delhi)
        .send()
        .await
        .unwrap()
        .into_inner();

    assert_request(
        &single_request(&server).await,
        Expect {
            method: "GET",
            path: "/distributed_jobs_v2/cluster/",
            query: &[("project_id", "10001"), ("location", "Delhi")],
            body: None,
        },
    );
    assert!(list.data.is_empty());
}

#[tokio::test]
async fn get_cluster_sends_id_with_trailing_slash_and_decodes() {
    let server = mock_server().await;
    serve(
        &server,
        "GET",
        &format!("/distributed_jobs_v2/cluster/{CLUSTER}/"),
        200,
        doc_cluster_envelope(200),
    )
    .await;

    let response = client(&server)
        .get_cluster()
        .cluster_id(CLUSTER)
        .project_id(PROJECT)
        .location(Location::Delhi)
        .active_iam(3)
        .send()
        .await
        .unwrap();

    assert_request(
        &single_request(&server).await,
        Expect {
            method: "GET",
            path: "/distributed_jobs_v2/cluster/101/",
            query: &[
                ("project_id", "10001"),
                ("location", "Delhi"),
                ("active_iam", "3"),
            ],
            body: None,
        },
    );
    assert_eq!(response.status().as_u16(), 200);
    let envelope = response.into_inner();
    assert_eq!(envelope.code, Some(200));
    assert_documented_cluster(envelope.data.as_ref().unwrap());
}

#[tokio::test]
async fn delete_cluster_sends_delete_without_body_and_decodes_confirmation() {
    let server = mock_server().await;
    serve(
        &server,
        "DELETE",
        "/distributed_jobs_v2/cluster/101/",
        200,
        json!({"code": 200, "data": "Cluster deleted successfully", "errors": {}, "message": "Success"}),
    )
    .await;

    let envelope = client(&server)
        .delete_cluster()
        .cluster_id(CLUSTER)
        .project_id(PROJECT)
        .location(Location::Delhi)
        .active_iam(9)
        .send()
        .await
        .unwrap()
        .into_inner();

    assert_request(
        &single_request(&server).await,
        Expect {
            method: "DELETE",
            path: "/distributed_jobs_v2/cluster/101/",
            query: &[
                ("project_id", "10001"),
                ("location", "Delhi"),
                ("active_iam", "9"),
            ],
            body: None,
        },
    );
    assert_eq!(envelope.code, Some(200));
    assert_eq!(
        envelope.data.as_deref(),
        Some("Cluster deleted successfully")
    );
    assert_eq!(envelope.errors, Some(json!({})));
    assert_eq!(envelope.message.as_deref(), Some("Success"));
}
