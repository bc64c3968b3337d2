//! Runcrate's documented example request and responses (`tests/fixtures/runcrate`): the
//! request sent unchanged, and every value of the documented cluster decoded.

use gpucloud_integration_tests::{
    fixture, fixture_index, json_body, mock_server, single_request, ts,
};
use gpucloud_runcrate::types::{self, Stack};

use crate::harness::{client, serve, uuid};
use crate::{CLUSTER_ID, DOC_TIME, PROVIDER};

/// The body of the documented request, built with the typed builder.
pub fn documented_body_builder() -> types::builder::CreateClusterRequest {
    types::CreateClusterRequest::builder()
        .name("train")
        .offer_id("<string>")
        .node_count(33)
        .stack(Stack::None)
        .ssh_key_ids(vec![uuid(CLUSTER_ID)])
        .storage_id(uuid(CLUSTER_ID))
        .include_community(false)
}

/// Every value of the documented success example (`create_cluster.response.{200,201}.json`).
pub fn assert_documented_cluster(c: &types::Cluster) {
    assert_eq!(c.id, uuid(CLUSTER_ID));
    assert_eq!(c.name.as_deref(), Some("<string>"));
    assert_eq!(c.status.as_deref(), Some("provisioning"));
    assert_eq!(c.stack, Some(Stack::None));
    assert_eq!(c.stack_status.as_deref(), Some("pending"));
    assert_eq!(c.stack_detail.as_deref(), Some("<string>"));
    assert_eq!(c.node_count, Some(123));
    assert_eq!(c.gpu_type.as_deref(), Some("<string>"));
    assert_eq!(c.gpus_per_node, Some(123));
    assert_eq!(c.deployment_type.as_deref(), Some("vm"));
    assert_eq!(c.host_tier.as_deref(), Some("datacenter"));
    assert_eq!(c.location.as_deref(), Some("<string>"));
    let interconnect = c.interconnect.as_ref().unwrap();
    assert_eq!(interconnect.kind.as_deref(), Some("infiniband"));
    assert_eq!(interconnect.label.as_deref(), Some("<string>"));
    assert_eq!(interconnect.rate_gbps, Some(123.0));
    assert_eq!(interconnect.note.as_deref(), Some("<string>"));
    assert_eq!(c.hourly_rate_per_node, Some(123.0));
    assert_eq!(c.hourly_rate, Some(123.0));
    for at in [c.created_at, c.up_at, c.ready_at, c.terminated_at] {
        assert_eq!(at, Some(ts(DOC_TIME)));
    }

    assert_eq!(c.nodes.len(), 1);
    let node = &c.nodes[0];
    assert_eq!(node.rank, Some(123));
    assert_eq!(node.role.as_deref(), Some("head"));
    assert_eq!(node.instance_id, Some(uuid(CLUSTER_ID)));
    assert_eq!(node.name.as_deref(), Some("train-1"));
    assert_eq!(node.status.as_deref(), Some("<string>"));
    assert_eq!(node.stage.as_deref(), Some("<string>"));
    assert_eq!(node.overlay_address.as_deref(), Some("<string>"));
    assert_eq!(node.gpus, Some(123));
    assert_eq!(node.ip.as_deref(), Some("<string>"));
    assert_eq!(node.ssh_command.as_deref(), Some("<string>"));

    let connection = c.connection.as_ref().unwrap();
    assert_eq!(connection.head_ssh.as_deref(), Some("<string>"));
    assert_eq!(connection.hostfile.as_deref(), Some("<string>"));
    let env = connection.env.as_ref().unwrap();
    assert_eq!(env.master_addr.as_deref(), Some("<string>"));
    assert_eq!(env.master_port.as_deref(), Some("<string>"));
    assert_eq!(env.nccl_socket_ifname.as_deref(), Some("<string>"));
    let snippets = connection.snippets.as_ref().unwrap();
    for snippet in [
        &snippets.torchrun,
        &snippets.mpirun,
        &snippets.deepspeed,
        &snippets.sbatch,
        &snippets.kubectl_tunnel,
        &snippets.ray_tunnel,
    ] {
        assert_eq!(snippet.as_deref(), Some("<string>"));
    }

    let shared = c.shared.as_ref().unwrap();
    assert_eq!(shared.path.as_deref(), Some("/shared"));
    assert_eq!(shared.available, Some(true));
    assert_eq!(shared.detail.as_deref(), Some("<string>"));
    let volume = shared.volume.as_ref().unwrap();
    assert_eq!(volume.id.as_deref(), Some("<string>"));
    assert_eq!(volume.name.as_deref(), Some("<string>"));
    assert_eq!(volume.path.as_deref(), Some("/shared/volume"));

    assert_eq!(c.events.len(), 1);
    let event = &c.events[0];
    assert_eq!(event.id, Some(123));
    assert_eq!(event.at, Some(ts(DOC_TIME)));
    assert_eq!(event.kind.as_deref(), Some("<string>"));
    assert_eq!(event.rank, Some(123));
    assert_eq!(event.message.as_deref(), Some("<string>"));

    let test = c.last_test.as_ref().unwrap();
    assert_eq!(test.id, Some(uuid(CLUSTER_ID)));
    assert_eq!(test.kind.as_deref(), Some("nccl_all_reduce"));
    assert_eq!(test.status.as_deref(), Some("running"));
    assert_eq!(test.started_at, Some(ts(DOC_TIME)));
    assert_eq!(test.finished_at, Some(ts(DOC_TIME)));
    let result = test.result.as_ref().unwrap();
    assert_eq!(result.sizes.len(), 1);
    let size = &result.sizes[0];
    assert_eq!(size.bytes, Some(123));
    assert_eq!(size.algbw_gb_s, Some(123.0));
    assert_eq!(size.busbw_gb_s, Some(123.0));
    assert_eq!(size.time_us, Some(123.0));
    assert_eq!(result.peak_busbw_gb_s, Some(123.0));
    assert_eq!(result.nodes, Some(123));
    assert_eq!(result.gpus, Some(123));
    assert_eq!(result.error.as_deref(), Some("<string>"));
    assert_eq!(result.note.as_deref(), Some("<string>"));

    let billing = c.billing.as_ref().unwrap();
    assert_eq!(billing.billed_since, Some(ts(DOC_TIME)));
    assert_eq!(billing.nodes_billed, Some(123));
    assert_eq!(c.resize, Some(true));
    assert_eq!(c.country_code.as_deref(), Some("<string>"));
    assert_eq!(c.failure_reason.as_deref(), Some("<string>"));
    assert_eq!(c.failure_detail.as_deref(), Some("<string>"));
}

#[tokio::test]
async fn documented_request_fixture_is_sent_unchanged() {
    let index = fixture_index(PROVIDER);
    let requests: Vec<_> = index.iter().filter(|e| e.kind == "request").collect();
    assert_eq!(requests.len(), 1, "index lists one request example");
    assert_eq!(requests[0].schema, "CreateClusterRequest");
    let doc = fixture(PROVIDER, &requests[0].file);

    let typed: types::CreateClusterRequest = serde_json::from_value(doc.clone()).unwrap();
    assert_eq!(typed.name.as_str(), "train");
    assert_eq!(typed.node_count, 33);
    assert_eq!(typed.stack, Stack::None);
    assert_eq!(typed.include_community, Some(false));

    let server = mock_server().await;
    serve(
        &server,
        "POST",
        "/clusters",
        201,
        fixture(PROVIDER, "create_cluster.response.201.json"),
    )
    .await;
    client(&server)
        .create_cluster()
        .body(typed.clone())
        .send()
        .await
        .unwrap();
    // Every key survives the typed round trip, including `include_community: false`.
    assert_eq!(json_body(&single_request(&server).await), doc);

    // The same request built with builder calls is the same value and the same JSON.
    let built = types::CreateClusterRequest::try_from(documented_body_builder()).unwrap();
    assert_eq!(built, typed);
    assert_eq!(serde_json::to_value(&built).unwrap(), doc);
}

#[test]
fn every_indexed_response_fixture_decodes_to_the_documented_cluster() {
    let responses: Vec<_> = fixture_index(PROVIDER)
        .into_iter()
        .filter(|e| e.kind == "response")
        .collect();
    let statuses: Vec<_> = responses.iter().map(|e| e.status).collect();
    assert_eq!(statuses, vec![Some(201), Some(200)]);
    for entry in responses {
        assert_eq!(entry.schema, "ClusterResponse");
        let typed: types::ClusterResponse =
            serde_json::from_value(fixture(PROVIDER, &entry.file)).unwrap();
        assert_documented_cluster(&typed.data);
    }
}
