//! The docs page's example request and response (`tests/fixtures/together`), and the fixture
//! index.

use gpucloud_integration_tests::{fixture, fixture_index, header, json_body, single_request, ts};
use gpucloud_together::types;
use serde_json::{Value, json};

use crate::PROVIDER;
use crate::harness::{expect, serve};

/// Asserts `sent` is exactly the docs' request: the same keys and values, nothing else.
fn assert_doc_request_sent(sent: &Value) {
    let doc = fixture(PROVIDER, "create_cluster.request.json");
    assert_eq!(sent, &doc, "the docs' keys and values, nothing else");
}

#[tokio::test]
async fn doc_request_fixture_sent_through_typed_request() {
    let doc = fixture(PROVIDER, "create_cluster.request.json");
    let typed: types::GpuClusterCreateRequest = serde_json::from_value(doc).unwrap();
    assert_eq!(typed.region, "string");
    assert_eq!(typed.gpu_type, types::GpuType::H100Sxm);
    assert_eq!(typed.num_gpus, 0);
    assert_eq!(typed.cluster_name, "string");
    assert_eq!(typed.billing_type, types::BillingType::Reserved);
    assert_eq!(typed.cluster_type, None);
    assert_eq!((typed.auto_scaled, typed.install_traefik), (None, None));
    let response = fixture(PROVIDER, "create_cluster.response.200.json");
    let (server, client) = serve("POST", "/compute/clusters", 200, response).await;
    let out = client.create_cluster().body(typed).send().await.unwrap();
    assert_eq!(out.cluster_id, "string");
    let request = single_request(&server).await;
    assert_eq!(request.url.path(), "/v1/compute/clusters");
    assert_eq!(
        header(&request, "content-type").as_deref(),
        Some("application/json")
    );
    assert_doc_request_sent(&json_body(&request));
}

#[tokio::test]
async fn doc_request_built_with_builder_calls() {
    let response = fixture(PROVIDER, "create_cluster.response.200.json");
    let (server, client) = serve("POST", "/compute/clusters", 200, response).await;
    // The page's curl sample, field by field.
    let body = types::GpuClusterCreateRequest::builder()
        .region("string")
        .gpu_type(types::GpuType::H100Sxm)
        .num_gpus(0_i64)
        .cluster_name("string")
        .billing_type(types::BillingType::Reserved);
    let out = client.create_cluster().body(body).send().await.unwrap();
    assert_eq!(out.cluster_id, "string");
    let request = single_request(&server).await;
    assert_doc_request_sent(&json_body(&request));
    let sent = fixture(PROVIDER, "create_cluster.request.json");
    expect(&server, "POST", "/compute/clusters", &[], Some(sent)).await;
}

#[tokio::test]
async fn doc_response_fixture_decodes_as_create_response() {
    let doc = fixture(PROVIDER, "create_cluster.response.200.json");
    let (_server, client) = serve("POST", "/compute/clusters", 200, doc.clone()).await;
    let body = fixture(PROVIDER, "create_cluster.request.json");
    let body: types::GpuClusterCreateRequest = serde_json::from_value(body).unwrap();
    let out = client.create_cluster().body(body).send().await.unwrap();
    assert_eq!(out.status(), 200);
    let c = out.into_inner();

    assert_eq!(c.cluster_id, "string");
    assert_eq!(c.cluster_type, Some(types::ClusterType::Kubernetes));
    assert_eq!(c.gpu_type, Some(types::GpuType::H100Sxm));
    assert_eq!(
        c.status,
        Some(types::ClusterStatus::WaitingForControlPlaneNodes)
    );
    assert_eq!(c.billing_type, Some(types::BillingType::Reserved));
    assert_eq!(
        (c.duration_hours, c.num_gpus, c.num_reserved_gpus),
        (Some(0), Some(0), Some(0))
    );
    assert_eq!(c.install_traefik, Some(true));
    assert_eq!(c.kube_config.as_deref(), Some("string"));
    let when = ts("2019-08-24T14:15:22Z");
    assert_eq!(
        (c.created_at, c.first_ready_at, c.reservation_end_time),
        (Some(when), Some(when), Some(when))
    );
    assert_eq!(
        c.phase_transitions[0].phase,
        Some(types::ClusterPhase::ClusterPhaseQueued)
    );
    assert_eq!(c.volumes[0].volume_id, "string");
    assert_eq!(c.volumes[0].status.as_deref(), Some("string"));

    let cp = &c.control_plane_nodes[0];
    assert_eq!(cp.node_id, "string");
    assert_eq!(cp.memory_gib, Some(0.0));
    assert_eq!(
        cp.phase_transitions[0].phase,
        Some(types::NodePhase::NodePhasePending)
    );
    assert_eq!(cp.phase_transitions[0].transition_time, Some(when));

    let worker = &c.gpu_worker_nodes[0];
    assert_eq!(worker.networks, ["string"]);
    assert_eq!(
        (worker.marked_for_deletion, worker.deleted_at),
        (Some(true), Some(when))
    );
    let rem = worker.latest_remediation.as_ref().unwrap();
    assert_eq!(
        rem.mode,
        Some(types::RemediationMode::RemediationModeVmOnly)
    );
    assert_eq!(
        rem.trigger,
        Some(types::RemediationTrigger::RemediationTriggerManual)
    );
    assert_eq!(rem.state, Some(types::RemediationState::PendingApproval));
    let alert = &rem.linked_alerts[0];
    assert_eq!(alert.severity, Some(types::PhcSeverity::PhcSeverityInfo));
    assert_eq!(alert.annotations.len(), 2);
    assert_eq!(alert.annotations["property2"], "string");
    let annotation = alert.annotation.as_ref().unwrap();
    assert_eq!(annotation.xid.as_ref().unwrap().events[0].count, Some(0));
    assert_eq!(
        annotation
            .slurm_node_unavailable
            .as_ref()
            .unwrap()
            .reason
            .as_deref(),
        Some("string")
    );

    let config = c.cluster_config.as_ref().unwrap();
    assert_eq!(config.load_balancer, Some(types::LoadBalancer::None));
    assert_eq!(
        config
            .slurm_startup_scripts
            .as_ref()
            .unwrap()
            .extra_slurm_conf
            .as_deref(),
        Some("string")
    );
    assert_eq!(config.ingress.as_ref().unwrap().enabled, Some(true));
    assert_eq!(
        c.oidc_config.as_ref().unwrap().ca_cert.as_deref(),
        Some("string")
    );
    let add_on = &c.add_ons[0];
    let add_on_config = add_on.config.as_ref().unwrap();
    assert_eq!(add_on_config.headlamp.as_ref().unwrap().enabled, Some(true));
    assert!(
        add_on
            .state
            .as_ref()
            .unwrap()
            .slurm_web
            .as_ref()
            .unwrap()
            .is_empty()
    );
    assert_eq!(c.deleted_gpu_worker_nodes.len(), 1);
    assert_eq!(c.node_lifecycle_events[0].timestamp, Some(when));

    // Nothing is dropped: re-serialised, the value is the page's JSON, except that the three
    // `memory_gib` (`type: number`) come back as 0.0 instead of 0.
    let mut expected = doc;
    expected["control_plane_nodes"][0]["memory_gib"] = json!(0.0);
    expected["gpu_worker_nodes"][0]["memory_gib"] = json!(0.0);
    expected["deleted_gpu_worker_nodes"][0]["memory_gib"] = json!(0.0);
    assert_eq!(serde_json::to_value(&c).unwrap(), expected);
}

#[test]
fn doc_fixture_index_entries_all_decode_as_their_schema() {
    // Every fixture the index lists has a dedicated test above or below; a new one fails here.
    let covered = [
        "create_cluster.request.json",
        "create_cluster.response.200.json",
        "error.grpc_gateway.json",
        "error.errordata.json",
    ];
    let index = fixture_index(PROVIDER);
    assert_eq!(index.len(), covered.len());
    for entry in index {
        assert!(covered.contains(&entry.file.as_str()), "{}", entry.file);
        assert_eq!(entry.operation.as_deref(), Some("create_cluster"));
        let value = fixture(PROVIDER, &entry.file);
        match (entry.kind.as_str(), entry.schema.as_str()) {
            ("request", "GPUClusterCreateRequest") => {
                serde_json::from_value::<types::GpuClusterCreateRequest>(value).unwrap();
            }
            ("response", "GPUClusterInfo") => {
                assert_eq!(entry.status, Some(200));
                serde_json::from_value::<types::GpuClusterInfo>(value).unwrap();
            }
            ("error", "ErrorResponse") => {
                assert_eq!(entry.status, None);
                serde_json::from_value::<types::ErrorResponse>(value).unwrap();
            }
            other => panic!("{}: no test for {other:?}", entry.file),
        }
    }
}
