//! `update_cluster`: each action with only its fields, and every documented shape of `data`.

use gpucloud_e2e::types::{self, ClusterAction, Location};
use gpucloud_integration_tests::{mock_server, single_request};
use serde_json::{Value, json};

use crate::harness::{Expect, assert_request, client, serve};
use crate::{CLUSTER, PROJECT};

#[tokio::test]
async fn update_cluster_sends_each_action_with_only_its_fields() {
    let cases: Vec<(types::builder::ClusterActionRequest, Value)> = vec![
        (
            types::ClusterActionRequest::builder()
                .action(ClusterAction::UpdateSshKeys)
                .ssh_key_ids(vec![1001, 1002]),
            json!({"action": "update_ssh_keys", "ssh_key_ids": [1001, 1002]}),
        ),
        (
            types::ClusterActionRequest::builder()
                .action(ClusterAction::UpdateImage)
                .image_version_id(3_i64),
            json!({"action": "update_image", "image_version_id": 3}),
        ),
        (
            types::ClusterActionRequest::builder().action(ClusterAction::RestartWorkers),
            json!({"action": "restart_workers"}),
        ),
        (
            types::ClusterActionRequest::builder().action(ClusterAction::RestartCluster),
            json!({"action": "restart_cluster"}),
        ),
        (
            types::ClusterActionRequest::builder()
                .action(ClusterAction::ScaleCluster)
                .additional_nodes(2_i64),
            json!({"action": "scale_cluster", "additional_nodes": 2}),
        ),
        (
            types::ClusterActionRequest::builder()
                .action(ClusterAction::AttachIp)
                .reserved_ip_id(88_i64),
            json!({"action": "attach_ip", "reserved_ip_id": 88}),
        ),
        (
            types::ClusterActionRequest::builder()
                .action(ClusterAction::DetachIp)
                .reserved_ip_id(88_i64)
                .ip_type("public".to_string()),
            json!({"action": "detach_ip", "reserved_ip_id": 88, "ip_type": "public"}),
        ),
        (
            types::ClusterActionRequest::builder()
                .action(ClusterAction::AddSecurityGroup)
                .security_groups_ids(vec![11, 12]),
            json!({"action": "add_security_group", "security_groups_ids": [11, 12]}),
        ),
        (
            types::ClusterActionRequest::builder()
                .action(ClusterAction::RemoveSecurityGroup)
                .security_group_id(11_i64),
            json!({"action": "remove_security_group", "security_group_id": 11}),
        ),
    ];
    assert_eq!(cases.len(), ClusterAction::KNOWN_VALUES.len());

    for (body, expected) in cases {
        let server = mock_server().await;
        serve(
            &server,
            "PUT",
            "/distributed_jobs_v2/cluster/101/",
            200,
            json!({"code": 200, "data": {"id": CLUSTER, "status": "Updating"}, "errors": {}, "message": "Success"}),
        )
        .await;
        let response = client(&server)
            .update_cluster()
            .cluster_id(CLUSTER)
            .project_id(PROJECT)
            .location(Location::Chennai)
            .body(body)
            .send()
            .await
            .unwrap();
        assert_request(
            &single_request(&server).await,
            Expect {
                method: "PUT",
                path: "/distributed_jobs_v2/cluster/101/",
                query: &[("project_id", "10001"), ("location", "Chennai")],
                body: Some(expected),
            },
        );
        let envelope = response.into_inner();
        assert_eq!(envelope.code, Some(200));
        assert_eq!(
            envelope.data,
            Some(json!({"id": 101, "status": "Updating"}))
        );
        assert_eq!(envelope.message.as_deref(), Some("Success"));
    }
}

#[tokio::test]
async fn update_cluster_action_data_of_every_documented_shape_decodes() {
    // `data` is a cluster, a reserved-IP object, an empty object or a confirmation string.
    for data in [
        json!({"id": 101}),
        json!({"reserved_ip_id": 88, "ip": "203.0.113.7"}),
        json!({}),
        json!("Security group added successfully"),
    ] {
        let server = mock_server().await;
        serve(
            &server,
            "PUT",
            "/distributed_jobs_v2/cluster/101/",
            200,
            json!({"code": 200, "data": data, "errors": {}, "message": "Success"}),
        )
        .await;
        let envelope = client(&server)
            .update_cluster()
            .cluster_id(CLUSTER)
            .project_id(PROJECT)
            .location(Location::Delhi)
            .body_map(|b| b.action(ClusterAction::AttachIp).reserved_ip_id(88_i64))
            .send()
            .await
            .unwrap()
            .into_inner();
        assert_eq!(envelope.data, Some(data));
    }
}
