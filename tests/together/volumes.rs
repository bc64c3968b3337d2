//! Shared volumes: one test per operation.

use gpucloud_together::types;
use serde_json::{Value, json};

use crate::harness::{expect, serve};

fn volume_json() -> Value {
    json!({"volume_id": "v-9", "volume_name": "datasets", "size_tib": 4, "status": "bound"})
}

fn assert_volume(v: &types::GpuClustersSharedVolume) {
    assert_eq!(v.volume_id, "v-9");
    assert_eq!(v.volume_name.as_deref(), Some("datasets"));
    assert_eq!(v.size_tib, Some(4));
    assert_eq!(v.status, Some(types::SharedVolumeStatus::Bound));
}

#[tokio::test]
async fn op_list_volumes() {
    let (server, client) = serve(
        "GET",
        "/compute/clusters/storage/volumes",
        200,
        json!({"volumes": [volume_json()]}),
    )
    .await;
    let out = client
        .list_volumes()
        .project_id("proj-1")
        .send()
        .await
        .unwrap();
    assert_volume(&out.volumes[0]);
    let p = "/compute/clusters/storage/volumes";
    expect(&server, "GET", p, &[("projectId", "proj-1")], None).await;
}

#[tokio::test]
async fn op_create_volume() {
    let p = "/compute/clusters/storage/volumes";
    let (server, client) = serve("POST", p, 200, volume_json()).await;
    let body = types::GpuClustersSharedVolumeCreateRequest {
        volume_name: "datasets".into(),
        size_tib: 4,
        region: "us-central-8".into(),
        is_lifecycle_independent: Some(true),
        project_id: Some("proj-1".into()),
        // Python SDK 3.1.1: place the volume on the infrastructure of this cluster.
        instance_cluster_id: Some("c-7f3a9b2e".into()),
    };
    let out = client.create_volume().body(body).send().await.unwrap();
    assert_volume(&out);
    let sent = json!({"volume_name": "datasets", "size_tib": 4, "region": "us-central-8", "is_lifecycle_independent": true, "project_id": "proj-1", "instance_cluster_id": "c-7f3a9b2e"});
    expect(&server, "POST", p, &[], Some(sent)).await;
}

#[tokio::test]
async fn op_update_volume() {
    // No ID in the path: the volume is named in the body.
    let p = "/compute/clusters/storage/volumes";
    let (server, client) = serve("PUT", p, 200, volume_json()).await;
    let body = types::GpuClustersSharedVolumeUpdateRequest {
        volume_id: "v-9".into(),
        size_tib: Some(4),
    };
    let out = client.update_volume().body(body).send().await.unwrap();
    assert_volume(&out);
    expect(
        &server,
        "PUT",
        p,
        &[],
        Some(json!({"volume_id": "v-9", "size_tib": 4})),
    )
    .await;
}

#[tokio::test]
async fn op_get_volume() {
    let p = "/compute/clusters/storage/volumes/v-9";
    let (server, client) = serve("GET", p, 200, volume_json()).await;
    let out = client.get_volume().volume_id("v-9").send().await.unwrap();
    assert_volume(&out);
    expect(&server, "GET", p, &[], None).await;
}

#[tokio::test]
async fn op_delete_volume() {
    let p = "/compute/clusters/storage/volumes/v-9";
    let (server, client) = serve("DELETE", p, 200, json!({"success": true})).await;
    let out = client
        .delete_volume()
        .volume_id("v-9")
        .send()
        .await
        .unwrap();
    assert_eq!(out.into_inner().success, Some(true));
    expect(&server, "DELETE", p, &[], None).await;
}
