//! Forward compatibility: an unknown stack, unknown fields and `null`s.

use gpucloud_integration_tests::{json_body, mock_server, single_request};
use gpucloud_runcrate::types::{self, Stack};
use serde_json::json;

use crate::harness::{client, serve};
use crate::{CLUSTER_ID, DOC_TIME};

#[tokio::test]
async fn unknown_stack_unknown_fields_and_nulls_decode() {
    let server = mock_server().await;
    serve(
        &server,
        "GET",
        &format!("/clusters/{CLUSTER_ID}"),
        200,
        json!({
            "data": {
                "id": CLUSTER_ID,
                "name": "train",
                "status": "provisioning",
                "stack": "slurm-ng",
                "stack_status": "pending",
                "stack_detail": null,
                "interconnect": null,
                "up_at": null,
                "ready_at": null,
                "terminated_at": null,
                "nodes": [{
                    "rank": 0, "role": "head", "instance_id": null, "name": "train-0",
                    "status": "starting", "stage": null, "overlay_address": null, "gpus": 8,
                    "ip": null, "ssh_command": null, "brand_new_node_field": [1, 2]
                }],
                "connection": {"head_ssh": null, "hostfile": null, "env": null, "snippets": null},
                "shared": {"path": "/shared", "available": false, "detail": "container machine", "volume": null},
                "events": [{"id": 1, "at": DOC_TIME, "kind": "created", "rank": null, "message": "requested"}],
                "last_test": null,
                "billing": {"billed_since": null, "nodes_billed": 0},
                "resize": null,
                "failure_reason": null,
                "failure_detail": null,
                "brand_new_field": {"nested": true},
                "region_code": "eu-1"
            },
            "meta": {"request_id": "abc"}
        }),
    )
    .await;

    let cluster = client(&server)
        .get_cluster()
        .id(CLUSTER_ID)
        .send()
        .await
        .unwrap()
        .into_inner()
        .data;

    assert_eq!(cluster.stack, Some(Stack::Unknown("slurm-ng".to_string())));
    let stack = cluster.stack.clone().unwrap();
    assert!(!stack.is_known());
    assert_eq!(stack.as_str(), "slurm-ng");
    assert_eq!(stack.to_string(), "slurm-ng");
    assert_eq!(serde_json::to_value(&stack).unwrap(), json!("slurm-ng"));
    assert_eq!(
        serde_json::from_value::<Stack>(json!("slurm-ng")).unwrap(),
        stack
    );

    assert_eq!(cluster.stack_detail, None);
    assert_eq!(cluster.interconnect, None);
    assert_eq!(cluster.up_at, None);
    assert_eq!(cluster.ready_at, None);
    assert_eq!(cluster.terminated_at, None);
    let node = &cluster.nodes[0];
    assert_eq!(node.rank, Some(0));
    assert_eq!(node.instance_id, None);
    assert_eq!(node.stage, None);
    assert_eq!(node.overlay_address, None);
    assert_eq!(node.ip, None);
    assert_eq!(node.ssh_command, None);
    assert_eq!(node.gpus, Some(8));
    assert_eq!(
        cluster.connection,
        Some(types::ClusterConnection::default())
    );
    let shared = cluster.shared.as_ref().unwrap();
    assert_eq!(shared.available, Some(false));
    assert_eq!(shared.volume, None);
    assert_eq!(cluster.events[0].rank, None);
    assert_eq!(cluster.last_test, None);
    let billing = cluster.billing.as_ref().unwrap();
    assert_eq!(billing.billed_since, None);
    assert_eq!(billing.nodes_billed, Some(0));
    assert_eq!(cluster.resize, None);
    assert_eq!(cluster.failure_reason, None);
    assert_eq!(cluster.failure_detail, None);

    // Re-serialized, the unknown stack is kept verbatim; nulls and unknown fields are dropped.
    let again = serde_json::to_value(&cluster).unwrap();
    assert_eq!(again["stack"], json!("slurm-ng"));
    assert!(again.get("up_at").is_none());
    assert!(again.get("brand_new_field").is_none());
    assert_eq!(
        serde_json::from_value::<types::Cluster>(again).unwrap(),
        cluster
    );
}

#[tokio::test]
async fn stack_values_known_and_unknown_are_sent_verbatim() {
    assert_eq!(Stack::KNOWN_VALUES, &["none", "slurm", "kubernetes", "ray"]);
    for raw in Stack::KNOWN_VALUES {
        let stack = Stack::from(*raw);
        assert!(stack.is_known());
        assert_eq!(stack.as_str(), *raw);
    }

    let server = mock_server().await;
    serve(
        &server,
        "POST",
        "/clusters",
        201,
        json!({"data": {"id": CLUSTER_ID}}),
    )
    .await;
    client(&server)
        .create_cluster()
        .body_map(|b| {
            b.name("n")
                .offer_id("o")
                .node_count(2)
                .stack(Stack::Unknown("slurm-ng".into()))
        })
        .send()
        .await
        .unwrap();
    assert_eq!(
        json_body(&single_request(&server).await)["stack"],
        json!("slurm-ng")
    );
}
