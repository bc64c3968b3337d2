//! Integration tests for `gpucloud-together` against a local mock server.
//!
//! - `op_*`: one test per operation of `specs/together.yaml` (the exact request sent and the typed
//!   decoding of a realistic response); `every_spec_operation_has_a_test` keeps the list complete.
//! - `doc_*`: the docs page's example request and response (`tests/fixtures/together`).
//! - `error_*`: the two error envelopes, served with 4xx and 5xx statuses.
//! - `forward_*` / `nulls_*`: unknown enum values, unknown fields and `null`s.
//! - `invalid_*` / `key_*`: bodies that are not JSON, and the API key never leaking into errors.
//! - `missing_*`: builders rejecting a missing required value before any network call.

// `allow-unwrap-in-tests` covers `#[test]` bodies only, not the helpers they share.
#![allow(clippy::unwrap_used)]

use std::fmt::{Debug, Display};

use chrono::{DateTime, Utc};
use gpucloud_integration_tests::{
    fixture, fixture_index, header, json_body, mock_server, query_pairs, single_request,
};
use gpucloud_together::{Client, Error, ResponseValue, types};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const PROVIDER: &str = "together";
const KEY: &str = "tgt-test-key-4f1c0a9e7b2d";
/// The path stem of [`gpucloud_together::DEFAULT_BASE_URL`], kept in the mock base URL.
const STEM: &str = "/v1";

// ------------------------------------------------------------------------------------ helpers

fn ts(s: &str) -> DateTime<Utc> {
    s.parse().unwrap()
}

/// A mock server whose only mock answers `verb STEM+p` with `template`, and a client for it.
async fn serve_with(verb: &str, p: &str, template: ResponseTemplate) -> (MockServer, Client) {
    let server = mock_server().await;
    Mock::given(method(verb))
        .and(path(format!("{STEM}{p}")))
        .respond_with(template)
        .mount(&server)
        .await;
    let client = Client::from_api_key(&format!("{}{STEM}", server.uri()), KEY).unwrap();
    (server, client)
}

/// [`serve_with`] answering `status` with the JSON `body`.
async fn serve(verb: &str, p: &str, status: u16, body: Value) -> (MockServer, Client) {
    serve_with(verb, p, ResponseTemplate::new(status).set_body_json(body)).await
}

/// Asserts the one request the server got: method, path, the exact ordered query pairs, the
/// bearer key, and the JSON body (or that there was no body and no Content-Type).
async fn expect(
    server: &MockServer,
    verb: &str,
    p: &str,
    query: &[(&str, &str)],
    body: Option<Value>,
) -> Request {
    let request = single_request(server).await;
    assert_eq!(request.method.as_str(), verb);
    assert_eq!(request.url.path(), format!("{STEM}{p}"));
    let query: Vec<(String, String)> = query
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    assert_eq!(query_pairs(&request), query, "query of {}", request.url);
    assert_eq!(
        header(&request, "authorization"),
        Some(format!("Bearer {KEY}"))
    );
    assert_eq!(
        header(&request, "accept").as_deref(),
        Some("application/json")
    );
    assert!(
        header(&request, "user-agent")
            .unwrap()
            .starts_with("gpucloud/")
    );
    match body {
        Some(body) => {
            assert_eq!(
                header(&request, "content-type").as_deref(),
                Some("application/json")
            );
            assert_eq!(json_body(&request), body);
        }
        None => {
            assert!(request.body.is_empty(), "unexpected body");
            assert_eq!(header(&request, "content-type"), None);
        }
    }
    request
}

fn error_value(err: Error<types::ErrorResponse>) -> ResponseValue<types::ErrorResponse> {
    match err {
        Error::ErrorResponse(v) => v,
        other => panic!("expected Error::ErrorResponse, got {other}"),
    }
}

fn assert_no_key(what: impl Display + Debug) {
    for text in [format!("{what}"), format!("{what:?}"), format!("{what:#}")] {
        assert!(!text.contains(KEY), "API key leaked: {text}");
    }
}

fn cluster_json() -> Value {
    json!({
        "cluster_id": "c-7f3a9b2e",
        "cluster_type": "SLURM",
        "region": "us-central-8",
        "gpu_type": "H200_SXM",
        "cluster_name": "train-h200",
        "status": "Ready",
        "num_gpus": 16,
        "billing_type": "ON_DEMAND",
        "created_at": "2026-08-01T09:30:00Z",
        "gpu_worker_nodes": [
            {"node_id": "n-1", "instance_id": "i-1", "num_gpus": 8, "memory_gib": 1843.5, "networks": ["ib0", "eth0"]}
        ],
        "phase_transitions": [{"phase": "CLUSTER_PHASE_READY", "transition_time": "2026-08-01T10:02:03Z"}]
    })
}

fn assert_cluster(c: &types::GpuClusterInfo) {
    assert_eq!(c.cluster_id, "c-7f3a9b2e");
    assert_eq!(c.cluster_type, Some(types::ClusterType::Slurm));
    assert_eq!(c.region.as_deref(), Some("us-central-8"));
    assert_eq!(c.gpu_type, Some(types::GpuType::H200Sxm));
    assert_eq!(c.cluster_name.as_deref(), Some("train-h200"));
    assert_eq!(c.status, Some(types::ClusterStatus::Ready));
    assert_eq!(c.num_gpus, Some(16));
    assert_eq!(c.billing_type, Some(types::BillingType::OnDemand));
    assert_eq!(c.created_at, Some(ts("2026-08-01T09:30:00Z")));
    let node = &c.gpu_worker_nodes[0];
    assert_eq!(
        (node.node_id.as_str(), node.instance_id.as_deref()),
        ("n-1", Some("i-1"))
    );
    assert_eq!((node.num_gpus, node.memory_gib), (Some(8), Some(1843.5)));
    assert_eq!(node.networks, ["ib0", "eth0"]);
    assert_eq!(
        c.phase_transitions[0].phase,
        Some(types::ClusterPhase::ClusterPhaseReady)
    );
    assert_eq!(
        c.phase_transitions[0].transition_time,
        Some(ts("2026-08-01T10:02:03Z"))
    );
    assert!(c.volumes.is_empty() && c.cluster_config.is_none());
}

fn volume_json() -> Value {
    json!({"volume_id": "v-9", "volume_name": "datasets", "size_tib": 4, "status": "bound"})
}

fn assert_volume(v: &types::GpuClustersSharedVolume) {
    assert_eq!(v.volume_id, "v-9");
    assert_eq!(v.volume_name.as_deref(), Some("datasets"));
    assert_eq!(v.size_tib, Some(4));
    assert_eq!(v.status, Some(types::SharedVolumeStatus::Bound));
}

fn add_on_json() -> Value {
    json!({"name": "dash", "add_on_type": "dashboard", "config": {"dashboard": {"enabled": true}}, "state": {"dashboard": {}}})
}

fn assert_add_on(a: &types::AddOnInfo) {
    assert_eq!(a.name, "dash");
    assert_eq!(a.add_on_type.as_deref(), Some("dashboard"));
    let config = a.config.as_ref().unwrap();
    assert_eq!(config.dashboard.as_ref().unwrap().enabled, Some(true));
    assert!(config.ingress.is_none());
    assert!(
        a.state
            .as_ref()
            .unwrap()
            .dashboard
            .as_ref()
            .unwrap()
            .is_empty()
    );
}

fn remediation_json(state: &str) -> Value {
    json!({
        "id": "rem-42",
        "cluster_id": "c-7f3a9b2e",
        "instance_id": "i-1",
        "mode": "REMEDIATION_MODE_REBOOT_VM",
        "trigger": "REMEDIATION_TRIGGER_MANUAL",
        "state": state,
        "reason": "xid 79",
        "create_time": "2026-08-02T08:00:00Z"
    })
}

fn assert_remediation(r: &types::Remediation, state: types::RemediationState) {
    assert_eq!(r.id, "rem-42");
    assert_eq!(r.cluster_id.as_deref(), Some("c-7f3a9b2e"));
    assert_eq!(r.instance_id.as_deref(), Some("i-1"));
    assert_eq!(
        r.mode,
        Some(types::RemediationMode::RemediationModeRebootVm)
    );
    assert_eq!(
        r.trigger,
        Some(types::RemediationTrigger::RemediationTriggerManual)
    );
    assert_eq!(r.state, Some(state));
    assert_eq!(r.reason.as_deref(), Some("xid 79"));
    assert_eq!(r.create_time, Some(ts("2026-08-02T08:00:00Z")));
    assert_eq!(r.review_time, None);
}

/// Path of one remediation of node `i-1` of cluster `c-7f3a9b2e`, plus `suffix`.
fn remediation_path(suffix: &str) -> String {
    format!("/compute/clusters/c-7f3a9b2e/instances/i-1/remediations/rem-42{suffix}")
}

// --------------------------------------------------------------------- spec coverage guard

#[test]
fn every_spec_operation_has_a_test() {
    let spec_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../specs/together.yaml");
    let spec: Value = serde_saphyr::from_str(&std::fs::read_to_string(spec_path).unwrap()).unwrap();
    assert_eq!(
        spec["servers"][0]["url"],
        json!(gpucloud_together::DEFAULT_BASE_URL)
    );
    assert!(gpucloud_together::DEFAULT_BASE_URL.ends_with(STEM));
    let source = include_str!("together.rs");
    let mut ids = Vec::new();
    for (_, item) in spec["paths"].as_object().unwrap() {
        for verb in ["get", "put", "post", "delete", "patch"] {
            if let Some(id) = item.get(verb).and_then(|op| op["operationId"].as_str()) {
                assert!(
                    source.contains(&format!("async fn op_{id}(")),
                    "no test for {id}"
                );
                ids.push(id.to_string());
            }
        }
    }
    assert_eq!(ids.len(), 23, "{ids:?}");
}

// ----------------------------------------------------------------------- one per operation

#[tokio::test]
async fn op_list_clusters() {
    let (server, client) = serve(
        "GET",
        "/compute/clusters",
        200,
        json!({"clusters": [cluster_json()]}),
    )
    .await;
    let out = client
        .list_clusters()
        .project_id("proj-1")
        .send()
        .await
        .unwrap();
    assert_eq!(out.status(), 200);
    let clusters = out.into_inner().clusters;
    assert_eq!(clusters.len(), 1);
    assert_cluster(&clusters[0]);
    // The project filter is camelCase on the wire.
    expect(
        &server,
        "GET",
        "/compute/clusters",
        &[("projectId", "proj-1")],
        None,
    )
    .await;
}

#[tokio::test]
async fn op_create_cluster() {
    let (server, client) = serve("POST", "/compute/clusters", 200, cluster_json()).await;
    let body = types::GpuClusterCreateRequest::builder()
        .cluster_name("train-h200")
        .region("us-central-8")
        .gpu_type(types::GpuType::H200Sxm)
        .num_gpus(16_i64)
        .billing_type(types::BillingType::ScheduledCapacity)
        .cluster_type(Some(types::ClusterType::Slurm))
        .slurm_shm_size_gib(Some(64_i64))
        .nvidia_version_id(Some("nv-550-12.4".to_string()))
        .reservation_start_time(Some(ts("2026-09-01T00:00:00Z")))
        .reservation_end_time(Some(ts("2026-09-08T12:00:00Z")))
        .auto_scale(Some(true))
        .auto_scale_max_gpus(Some(32_i64))
        .shared_volume(Some(types::GpuClustersSharedVolumeCreateRequest {
            volume_name: "scratch".into(),
            size_tib: 2,
            region: "us-central-8".into(),
            is_lifecycle_independent: Some(false),
            project_id: None,
        }))
        .acceptance_tests_params(Some(types::AcceptanceTestsParams {
            enabled: Some(true),
            dcgm_diag_level: Some(types::DcgmDiagLevel::DcgmDiagLevelLong),
            gpu_burn_duration: Some(600),
            ..Default::default()
        }))
        .cluster_config(Some(
            types::InstanceClusterConfig::builder()
                .load_balancer(types::LoadBalancer::None)
                .ssh_ca_enabled(Some(true))
                .try_into()
                .unwrap(),
        ))
        .add_ons(vec![types::AddOnCreateRequest {
            name: "dash".into(),
            add_on_type: "dashboard".into(),
            config: None,
        }]);
    let out = client.create_cluster().body(body).send().await.unwrap();
    assert_eq!(out.status(), 200);
    assert_cluster(&out);
    let sent = json!({
        "cluster_name": "train-h200",
        "region": "us-central-8",
        "gpu_type": "H200_SXM",
        "num_gpus": 16,
        "billing_type": "SCHEDULED_CAPACITY",
        "cluster_type": "SLURM",
        "slurm_shm_size_gib": 64,
        "nvidia_version_id": "nv-550-12.4",
        "reservation_start_time": "2026-09-01T00:00:00Z",
        "reservation_end_time": "2026-09-08T12:00:00Z",
        "auto_scale": true,
        "auto_scale_max_gpus": 32,
        "shared_volume": {"volume_name": "scratch", "size_tib": 2, "region": "us-central-8", "is_lifecycle_independent": false},
        "acceptance_tests_params": {"enabled": true, "dcgm_diag_level": "DCGM_DIAG_LEVEL_LONG", "gpu_burn_duration": 600},
        "cluster_config": {"load_balancer": "NONE", "ssh_ca_enabled": true},
        "add_ons": [{"name": "dash", "add_on_type": "dashboard"}],
        // `auto_scaled`/`install_traefik` are not sent unless set (no spec `default`).
    });
    expect(&server, "POST", "/compute/clusters", &[], Some(sent)).await;
}

#[tokio::test]
async fn op_get_cluster() {
    let (server, client) = serve("GET", "/compute/clusters/c-7f3a9b2e", 200, cluster_json()).await;
    let out = client
        .get_cluster()
        .cluster_id("c-7f3a9b2e")
        .send()
        .await
        .unwrap();
    assert_cluster(&out.into_inner());
    expect(&server, "GET", "/compute/clusters/c-7f3a9b2e", &[], None).await;
}

#[tokio::test]
async fn op_update_cluster() {
    let (server, client) = serve("PUT", "/compute/clusters/c-7f3a9b2e", 200, cluster_json()).await;
    let body = types::GpuClusterUpdateRequest {
        num_gpus: Some(24),
        num_preemptible_gpus: Some(8),
        num_capacity_pool_gpus: Some(16),
        reservation_end_time: Some(ts("2026-10-01T00:00:00Z")),
        cluster_config: Some(
            types::InstanceClusterConfig::builder()
                .load_balancer(types::LoadBalancer::Traefik)
                .observability(Some(types::ObservabilityConfig {
                    enabled: Some(true),
                }))
                .try_into()
                .unwrap(),
        ),
        add_ons: vec![types::AddOnUpdateRequest {
            name: "dash".into(),
            config: Some(types::AddOnConfig {
                dashboard: Some(types::DashboardConfig {
                    enabled: Some(false),
                }),
                ..Default::default()
            }),
        }],
        ..Default::default()
    };
    let out = client
        .update_cluster()
        .cluster_id("c-7f3a9b2e")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_cluster(&out);
    let sent = json!({
        "num_gpus": 24,
        "num_preemptible_gpus": 8,
        "num_capacity_pool_gpus": 16,
        "reservation_end_time": "2026-10-01T00:00:00Z",
        "cluster_config": {"load_balancer": "TRAEFIK", "observability": {"enabled": true}},
        "add_ons": [{"name": "dash", "config": {"dashboard": {"enabled": false}}}]
    });
    expect(
        &server,
        "PUT",
        "/compute/clusters/c-7f3a9b2e",
        &[],
        Some(sent),
    )
    .await;
}

#[tokio::test]
async fn op_delete_cluster() {
    let (server, client) = serve(
        "DELETE",
        "/compute/clusters/c-7f3a9b2e",
        200,
        json!({"cluster_id": "c-7f3a9b2e"}),
    )
    .await;
    let out = client
        .delete_cluster()
        .cluster_id("c-7f3a9b2e")
        .send()
        .await
        .unwrap();
    assert_eq!(out.into_inner().cluster_id, "c-7f3a9b2e");
    expect(&server, "DELETE", "/compute/clusters/c-7f3a9b2e", &[], None).await;
}

#[tokio::test]
async fn op_list_regions() {
    let regions = json!({"regions": [{
        "name": "us-central-8",
        "supported_instance_types": ["H100_SXM", "B300_SXM"],
        "driver_versions": [{"id": "nv-550-12.4", "cuda_version": "12.4", "nvidia_driver_version": "550.90.07", "os": "ubuntu-22.04"}]
    }]});
    let (server, client) = serve("GET", "/compute/regions", 200, regions).await;
    let out = client.list_regions().send().await.unwrap().into_inner();
    let region = &out.regions[0];
    assert_eq!(region.name, "us-central-8");
    assert_eq!(region.supported_instance_types, ["H100_SXM", "B300_SXM"]);
    let driver = &region.driver_versions[0];
    assert_eq!(driver.id.as_deref(), Some("nv-550-12.4"));
    assert_eq!(driver.cuda_version.as_deref(), Some("12.4"));
    assert_eq!(driver.nvidia_driver_version.as_deref(), Some("550.90.07"));
    assert_eq!(driver.os.as_deref(), Some("ubuntu-22.04"));
    let request = expect(&server, "GET", "/compute/regions", &[], None).await;
    // progenitor also sends the spec's info.version.
    assert_eq!(header(&request, "api-version").as_deref(), Some("2.0.0"));
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
    };
    let out = client.create_volume().body(body).send().await.unwrap();
    assert_volume(&out);
    let sent = json!({"volume_name": "datasets", "size_tib": 4, "region": "us-central-8", "is_lifecycle_independent": true, "project_id": "proj-1"});
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

#[tokio::test]
async fn op_list_add_ons() {
    let p = "/compute/clusters/c-7f3a9b2e/addons";
    let (server, client) = serve("GET", p, 200, json!({"add_ons": [add_on_json()]})).await;
    let out = client
        .list_add_ons()
        .cluster_id("c-7f3a9b2e")
        .send()
        .await
        .unwrap();
    assert_eq!(out.add_ons.len(), 1);
    assert_add_on(&out.add_ons[0]);
    expect(&server, "GET", p, &[], None).await;
}

#[tokio::test]
async fn op_create_add_on() {
    let p = "/compute/clusters/c-7f3a9b2e/addons";
    let (server, client) = serve("POST", p, 200, add_on_json()).await;
    let body = types::ClusterAddOnCreateRequest {
        name: "dash".into(),
        add_on_type: "dashboard".into(),
        config: Some(types::AddOnConfig {
            dashboard: Some(types::DashboardConfig {
                enabled: Some(true),
            }),
            ..Default::default()
        }),
    };
    let out = client
        .create_add_on()
        .cluster_id("c-7f3a9b2e")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_add_on(&out);
    let sent = json!({"name": "dash", "add_on_type": "dashboard", "config": {"dashboard": {"enabled": true}}});
    expect(&server, "POST", p, &[], Some(sent)).await;
}

#[tokio::test]
async fn op_get_add_on() {
    let p = "/compute/clusters/c-7f3a9b2e/addons/ao-3";
    let (server, client) = serve("GET", p, 200, add_on_json()).await;
    let out = client
        .get_add_on()
        .cluster_id("c-7f3a9b2e")
        .addon_id("ao-3")
        .send()
        .await
        .unwrap();
    assert_add_on(&out);
    expect(&server, "GET", p, &[], None).await;
}

#[tokio::test]
async fn op_update_add_on() {
    let p = "/compute/clusters/c-7f3a9b2e/addons/ao-3";
    let (server, client) = serve("PUT", p, 200, add_on_json()).await;
    let body = types::ClusterAddOnUpdateRequest {
        config: Some(types::AddOnConfig {
            ingress: Some(types::IngressConfig {
                enabled: Some(false),
            }),
            headlamp: Some(types::HeadlampConfig {
                enabled: Some(true),
            }),
            ..Default::default()
        }),
    };
    let out = client
        .update_add_on()
        .cluster_id("c-7f3a9b2e")
        .addon_id("ao-3")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_add_on(&out);
    let sent = json!({"config": {"ingress": {"enabled": false}, "headlamp": {"enabled": true}}});
    expect(&server, "PUT", p, &[], Some(sent)).await;
}

#[tokio::test]
async fn op_delete_add_on() {
    let p = "/compute/clusters/c-7f3a9b2e/addons/ao-3";
    let (server, client) = serve("DELETE", p, 200, json!({})).await;
    let out = client
        .delete_add_on()
        .cluster_id("c-7f3a9b2e")
        .addon_id("ao-3")
        .send()
        .await
        .unwrap();
    assert_eq!(out.status(), 200);
    assert!(out.into_inner().is_empty());
    expect(&server, "DELETE", p, &[], None).await;
}

#[tokio::test]
async fn op_list_remediations() {
    // `-` stands for every node of the cluster. One value per array filter: the exploded and the
    // comma-joined forms coincide (see `list_remediations_array_filters_are_comma_joined`).
    let p = "/compute/clusters/c-7f3a9b2e/instances/-/remediations";
    let page = json!({"remediations": [remediation_json("RUNNING")], "next_page_token": "p2", "has_next": true});
    let (server, client) = serve("GET", p, 200, page).await;
    let out = client
        .list_remediations()
        .cluster_id("c-7f3a9b2e")
        .instance_id("-")
        .page_size(20_i64)
        .page_token("p1")
        .order_by("create_time desc")
        .state(vec![types::RemediationState::Running])
        .trigger(vec![types::RemediationTrigger::RemediationTriggerAutomated])
        .mode(vec![types::RemediationMode::RemediationModeRebootVm])
        .send()
        .await
        .unwrap()
        .into_inner();
    assert_remediation(&out.remediations[0], types::RemediationState::Running);
    assert_eq!(out.next_page_token.as_deref(), Some("p2"));
    assert_eq!(out.has_next, Some(true));
    let query = [
        ("mode", "REMEDIATION_MODE_REBOOT_VM"),
        ("order_by", "create_time desc"),
        ("page_size", "20"),
        ("page_token", "p1"),
        ("state", "RUNNING"),
        ("trigger", "REMEDIATION_TRIGGER_AUTOMATED"),
    ];
    expect(&server, "GET", p, &query, None).await;
}

#[tokio::test]
async fn list_remediations_array_filters_are_comma_joined() {
    let p = "/compute/clusters/c-7f3a9b2e/instances/-/remediations";
    let (server, client) = serve("GET", p, 200, json!({})).await;
    client
        .list_remediations()
        .cluster_id("c-7f3a9b2e")
        .instance_id("-")
        .state(vec![
            types::RemediationState::PendingApproval,
            types::RemediationState::Running,
        ])
        .trigger(vec![
            types::RemediationTrigger::RemediationTriggerManual,
            types::RemediationTrigger::RemediationTriggerAutomated,
        ])
        .mode(vec![
            types::RemediationMode::RemediationModeVmOnly,
            types::RemediationMode::RemediationModeHostAware,
        ])
        .send()
        .await
        .unwrap();
    let query = [
        (
            "mode",
            "REMEDIATION_MODE_VM_ONLY,REMEDIATION_MODE_HOST_AWARE",
        ),
        ("state", "PENDING_APPROVAL,RUNNING"),
        (
            "trigger",
            "REMEDIATION_TRIGGER_MANUAL,REMEDIATION_TRIGGER_AUTOMATED",
        ),
    ];
    expect(&server, "GET", p, &query, None).await;
}

#[tokio::test]
async fn op_create_remediation() {
    let p = "/compute/clusters/c-7f3a9b2e/instances/i-1/remediations";
    let (server, client) = serve("POST", p, 200, remediation_json("PENDING")).await;
    let out = client
        .create_remediation()
        .cluster_id("c-7f3a9b2e")
        .instance_id("i-1")
        .remediation_id("rem-42")
        .body(types::CreateRemediationRequest {
            mode: types::RemediationMode::RemediationModeRebootVm,
            reason: Some("xid 79".into()),
        })
        .send()
        .await
        .unwrap();
    assert_remediation(&out, types::RemediationState::Pending);
    let sent = json!({"mode": "REMEDIATION_MODE_REBOOT_VM", "reason": "xid 79"});
    expect(
        &server,
        "POST",
        p,
        &[("remediation_id", "rem-42")],
        Some(sent),
    )
    .await;
}

#[tokio::test]
async fn op_get_remediation() {
    let p = remediation_path("");
    let (server, client) = serve("GET", &p, 200, remediation_json("SUCCEEDED")).await;
    let out = client
        .get_remediation()
        .cluster_id("c-7f3a9b2e")
        .instance_id("i-1")
        .remediation_id("rem-42")
        .send()
        .await
        .unwrap();
    assert_remediation(&out, types::RemediationState::Succeeded);
    expect(&server, "GET", &p, &[], None).await;
}

#[tokio::test]
async fn op_approve_remediation() {
    let p = remediation_path("/approve");
    let (server, client) = serve("POST", &p, 200, remediation_json("PENDING")).await;
    let out = client
        .approve_remediation()
        .cluster_id("c-7f3a9b2e")
        .instance_id("i-1")
        .remediation_id("rem-42")
        .body(types::ApproveRemediationRequest {
            comment: Some("ok, host-aware".into()),
            mode: Some(types::RemediationMode::RemediationModeHostAware),
        })
        .send()
        .await
        .unwrap();
    assert_remediation(&out, types::RemediationState::Pending);
    let sent = json!({"comment": "ok, host-aware", "mode": "REMEDIATION_MODE_HOST_AWARE"});
    expect(&server, "POST", &p, &[], Some(sent)).await;
}

#[tokio::test]
async fn op_cancel_remediation() {
    // Takes no request body at all.
    let p = remediation_path("/cancel");
    let (server, client) = serve("POST", &p, 200, remediation_json("CANCELLED")).await;
    let out = client
        .cancel_remediation()
        .cluster_id("c-7f3a9b2e")
        .instance_id("i-1")
        .remediation_id("rem-42")
        .send()
        .await
        .unwrap();
    assert_remediation(&out, types::RemediationState::Cancelled);
    expect(&server, "POST", &p, &[], None).await;
}

#[tokio::test]
async fn op_reject_remediation() {
    let p = remediation_path("/reject");
    let (server, client) = serve("POST", &p, 200, remediation_json("CANCELLED")).await;
    let out = client
        .reject_remediation()
        .cluster_id("c-7f3a9b2e")
        .instance_id("i-1")
        .remediation_id("rem-42")
        .body(types::CommentBody {
            comment: Some("false positive".into()),
        })
        .send()
        .await
        .unwrap();
    assert_remediation(&out, types::RemediationState::Cancelled);
    let sent = json!({"comment": "false positive"});
    expect(&server, "POST", &p, &[], Some(sent)).await;
}

fn alerts_json() -> Value {
    json!({"alerts": [{
        "passive_health_check_alert_id": "a-1",
        "cluster_id": "c-7f3a9b2e",
        "instance_id": "i-1",
        "target_vm": "vm-1",
        "alert_name": "GpuXidError",
        "severity": "PHC_SEVERITY_CRITICAL",
        "annotations": {"summary": "Xid 79 on GPU 3"},
        "started_at": "2026-08-02T07:55:00Z",
        "resolved_at": null,
        "annotation": {"title": "GPU fell off the bus", "xid": {"events": [{"xid_code": "79", "mnemonic": "GPU_HAS_FALLEN_OFF_THE_BUS", "count": 2}]}}
    }], "next_page_token": "p3"})
}

#[tokio::test]
async fn op_list_passive_health_check_alerts() {
    let p = "/compute/passive_health_check_alerts";
    let (server, client) = serve("GET", p, 200, alerts_json()).await;
    let out = client
        .list_passive_health_check_alerts()
        .cluster_id("c-7f3a9b2e")
        .instance_id("i-1")
        .intent_id("intent-7")
        .page_size(10_i64)
        .page_token("p2")
        .status(types::PhcAlertStatus::PhcAlertStatusAll)
        .order_by(types::PhcAlertOrder::PhcAlertOrderStartedAtAsc)
        .severity_filter(vec![types::PhcSeverity::PhcSeverityCritical])
        .send()
        .await
        .unwrap()
        .into_inner();
    assert_eq!(out.next_page_token.as_deref(), Some("p3"));
    let alert = &out.alerts[0];
    assert_eq!(alert.passive_health_check_alert_id, "a-1");
    assert_eq!(alert.cluster_id.as_deref(), Some("c-7f3a9b2e"));
    assert_eq!(alert.target_vm.as_deref(), Some("vm-1"));
    assert_eq!(alert.alert_name.as_deref(), Some("GpuXidError"));
    assert_eq!(
        alert.severity,
        Some(types::PhcSeverity::PhcSeverityCritical)
    );
    assert_eq!(alert.annotations["summary"], "Xid 79 on GPU 3");
    assert_eq!(alert.started_at, Some(ts("2026-08-02T07:55:00Z")));
    assert_eq!(alert.resolved_at, None);
    let annotation = alert.annotation.as_ref().unwrap();
    assert_eq!(annotation.title.as_deref(), Some("GPU fell off the bus"));
    let event = &annotation.xid.as_ref().unwrap().events[0];
    assert_eq!(
        (event.xid_code.as_deref(), event.count),
        (Some("79"), Some(2))
    );
    assert_eq!(
        event.mnemonic.as_deref(),
        Some("GPU_HAS_FALLEN_OFF_THE_BUS")
    );
    let query = [
        ("cluster_id", "c-7f3a9b2e"),
        ("instance_id", "i-1"),
        ("intent_id", "intent-7"),
        ("order_by", "PHC_ALERT_ORDER_STARTED_AT_ASC"),
        ("page_size", "10"),
        ("page_token", "p2"),
        ("severity_filter", "PHC_SEVERITY_CRITICAL"),
        ("status", "PHC_ALERT_STATUS_ALL"),
    ];
    expect(&server, "GET", p, &query, None).await;
}

#[tokio::test]
async fn list_passive_health_check_alerts_severity_filter_is_comma_joined() {
    let p = "/compute/passive_health_check_alerts";
    let (server, client) = serve("GET", p, 200, json!({})).await;
    client
        .list_passive_health_check_alerts()
        .severity_filter(vec![
            types::PhcSeverity::PhcSeverityWarning,
            types::PhcSeverity::PhcSeverityCritical,
        ])
        .send()
        .await
        .unwrap();
    let query = [(
        "severity_filter",
        "PHC_SEVERITY_WARNING,PHC_SEVERITY_CRITICAL",
    )];
    expect(&server, "GET", p, &query, None).await;
}

#[tokio::test]
async fn unset_optional_query_params_are_not_sent() {
    // Not even `page_size`, whose schema has `default: 50`: the server applies it.
    let p = "/compute/passive_health_check_alerts";
    let (server, client) = serve("GET", p, 200, json!({})).await;
    let out = client
        .list_passive_health_check_alerts()
        .send()
        .await
        .unwrap();
    assert!(out.alerts.is_empty() && out.next_page_token.is_none());
    let request = expect(&server, "GET", p, &[], None).await;
    assert_eq!(request.url.query(), None);
}

#[tokio::test]
async fn path_params_are_percent_encoded_and_trailing_slash_base_url_is_normalised() {
    let server = mock_server().await;
    let p = "/v1/compute/clusters/team%20a%2Fc%231";
    Mock::given(method("GET"))
        .and(path(p))
        .respond_with(ResponseTemplate::new(200).set_body_json(cluster_json()))
        .mount(&server)
        .await;
    let client = Client::from_api_key(&format!("{}/v1/", server.uri()), KEY).unwrap();
    let out = client
        .get_cluster()
        .cluster_id("team a/c#1")
        .send()
        .await
        .unwrap();
    assert_cluster(&out);
    assert_eq!(single_request(&server).await.url.path(), p);
}

// ------------------------------------------------------------------------ documented examples

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

async fn doc_error(file: &str, status: u16) -> ResponseValue<types::ErrorResponse> {
    let (_server, client) =
        serve("POST", "/compute/clusters", status, fixture(PROVIDER, file)).await;
    let body = types::GpuClusterCreateRequest::builder()
        .region("us-central-8")
        .gpu_type("H100_SXM")
        .num_gpus(8_i64)
        .cluster_name("c")
        .billing_type("ON_DEMAND");
    let err = client.create_cluster().body(body).send().await.unwrap_err();
    assert_eq!(err.status().map(|s| s.as_u16()), Some(status));
    assert_no_key(&err);
    error_value(err)
}

#[tokio::test]
async fn error_grpc_gateway_envelope_decodes_for_4xx_and_5xx() {
    for status in [400, 404, 409, 500, 503] {
        let v = doc_error("error.grpc_gateway.json", status).await;
        assert_eq!(v.status().as_u16(), status);
        let e = v.into_inner();
        assert_eq!(e.code, Some(json!(0)));
        assert_eq!(e.message.as_deref(), Some("string"));
        assert!(e.details.is_empty());
        assert_eq!(e.error, None);
    }
}

#[tokio::test]
async fn error_errordata_envelope_decodes_for_4xx_and_5xx() {
    for status in [401, 422, 429, 500, 502] {
        let v = doc_error("error.errordata.json", status).await;
        assert_eq!(v.status().as_u16(), status);
        let e = v.into_inner();
        assert_eq!((e.code, e.message), (None, None));
        let data = e.error.unwrap();
        assert_eq!(data.message.as_deref(), Some("string"));
        assert_eq!(data.type_.as_deref(), Some("string"));
        assert_eq!((data.param, data.code), (None, None));
    }
}

#[tokio::test]
async fn error_realistic_grpc_status_with_details() {
    let body = json!({
        "code": 5,
        "message": "cluster c-gone not found",
        "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "NOT_FOUND"}]
    });
    let (_server, client) = serve("GET", "/compute/clusters/c-gone", 404, body).await;
    let err = client
        .get_cluster()
        .cluster_id("c-gone")
        .send()
        .await
        .unwrap_err();
    let v = error_value(err);
    assert_eq!(v.status(), 404);
    let e = v.into_inner();
    assert_eq!(e.code, Some(json!(5)));
    assert_eq!(e.message.as_deref(), Some("cluster c-gone not found"));
    assert_eq!(
        e.details[0]["@type"],
        "type.googleapis.com/google.rpc.ErrorInfo"
    );
    assert_eq!(e.details[0]["reason"], "NOT_FOUND");
}

// ---------------------------------------------------------------------- forward compatibility

#[tokio::test]
async fn forward_unknown_enum_values_decode_as_unknown_and_round_trip() {
    let mut body = cluster_json();
    body["status"] = json!("Hibernating");
    body["gpu_type"] = json!("GB300_NVL72");
    body["billing_type"] = json!("SPOT");
    body["phase_transitions"][0]["phase"] = json!("CLUSTER_PHASE_HIBERNATING");
    body["volumes"] = json!([{"volume_id": "v-1", "status": "archived"}]);
    let (_server, client) = serve("GET", "/compute/clusters/c-7f3a9b2e", 200, body).await;
    let c = client
        .get_cluster()
        .cluster_id("c-7f3a9b2e")
        .send()
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        c.status,
        Some(types::ClusterStatus::Unknown("Hibernating".into()))
    );
    assert_eq!(
        c.gpu_type,
        Some(types::GpuType::Unknown("GB300_NVL72".into()))
    );
    assert_eq!(
        c.billing_type,
        Some(types::BillingType::Unknown("SPOT".into()))
    );
    assert_eq!(
        c.phase_transitions[0].phase,
        Some(types::ClusterPhase::Unknown(
            "CLUSTER_PHASE_HIBERNATING".into()
        ))
    );
    let status = c.status.as_ref().unwrap();
    assert_eq!(status.as_str(), "Hibernating");
    assert!(!status.is_known());
    assert!(!types::ClusterStatus::KNOWN_VALUES.contains(&"Hibernating"));
    assert_eq!(c.cluster_type, Some(types::ClusterType::Slurm));
    // Re-serialised, the raw values come back unchanged.
    let again = serde_json::to_value(&c).unwrap();
    assert_eq!(again["status"], "Hibernating");
    assert_eq!(again["gpu_type"], "GB300_NVL72");
    assert_eq!(again["billing_type"], "SPOT");
    assert_eq!(
        again["phase_transitions"][0]["phase"],
        "CLUSTER_PHASE_HIBERNATING"
    );
    let back: types::GpuClusterInfo = serde_json::from_value(again).unwrap();
    assert_eq!(back, c);
}

#[test]
fn forward_shared_volume_status_unknown_is_a_known_value() {
    // The spec lists the wire value `unknown`; it is not the catch-all.
    let v: types::SharedVolumeStatus = serde_json::from_value(json!("unknown")).unwrap();
    assert_eq!(v, types::SharedVolumeStatus::UnknownValue);
    assert!(v.is_known());
    let v: types::SharedVolumeStatus = serde_json::from_value(json!("archived")).unwrap();
    assert_eq!(v, types::SharedVolumeStatus::Unknown("archived".into()));
    assert_eq!(serde_json::to_value(&v).unwrap(), json!("archived"));
}

#[tokio::test]
async fn forward_unknown_enum_values_are_sent_verbatim() {
    let p = "/compute/passive_health_check_alerts";
    let (server, client) = serve("GET", p, 200, json!({})).await;
    client
        .list_passive_health_check_alerts()
        .status(types::PhcAlertStatus::Unknown(
            "PHC_ALERT_STATUS_SNOOZED".into(),
        ))
        .send()
        .await
        .unwrap();
    expect(
        &server,
        "GET",
        p,
        &[("status", "PHC_ALERT_STATUS_SNOOZED")],
        None,
    )
    .await;

    let (server, client) = serve("PUT", "/compute/clusters/c-1", 200, cluster_json()).await;
    let body = types::GpuClusterUpdateRequest {
        cluster_type: Some("SLURM_V2".into()),
        ..Default::default()
    };
    client
        .update_cluster()
        .cluster_id("c-1")
        .body(body)
        .send()
        .await
        .unwrap();
    let sent = json!({"cluster_type": "SLURM_V2"});
    expect(&server, "PUT", "/compute/clusters/c-1", &[], Some(sent)).await;
}

#[tokio::test]
async fn forward_unknown_fields_are_ignored() {
    let mut body = cluster_json();
    body["spot_discount"] = json!({"percent": 30, "tiers": [1, 2]});
    body["gpu_worker_nodes"][0]["rack"] = json!("r12");
    body["phase_transitions"][0]["actor"] = json!("scheduler");
    let (_server, client) = serve("GET", "/compute/clusters/c-7f3a9b2e", 200, body).await;
    let c = client
        .get_cluster()
        .cluster_id("c-7f3a9b2e")
        .send()
        .await
        .unwrap()
        .into_inner();
    assert_cluster(&c);
    let again = serde_json::to_value(&c).unwrap();
    assert!(again.get("spot_discount").is_none());
}

#[tokio::test]
async fn nulls_decode_as_none() {
    let body = json!({
        "cluster_id": "c-1",
        "region": null,              // nullable string
        "num_gpus": null,            // nullable integer
        "install_traefik": null,     // nullable boolean
        "created_at": null,          // nullable date-time
        "status": null,              // nullable enum through allOf
        "gpu_type": null,
        "cluster_config": null,      // nullable object through allOf
        "oidc_config": null,
        "phase_transitions": [{"phase": null, "transition_time": null}],
        "gpu_worker_nodes": [{
            "node_id": "n-1",
            "memory_gib": null,
            "latest_remediation": null,
            "deleted_at": null
        }],
        "add_ons": [{"name": "dash", "config": {"dashboard": null}, "state": null}]
    });
    let (_server, client) = serve("GET", "/compute/clusters/c-1", 200, body).await;
    let c = client
        .get_cluster()
        .cluster_id("c-1")
        .send()
        .await
        .unwrap()
        .into_inner();
    assert_eq!(c.cluster_id, "c-1");
    assert_eq!(
        (c.region, c.num_gpus, c.install_traefik),
        (None, None, None)
    );
    assert_eq!((c.created_at, c.status, c.gpu_type), (None, None, None));
    assert_eq!((c.cluster_config, c.oidc_config), (None, None));
    assert_eq!(
        c.phase_transitions,
        [types::ClusterPhaseTransition::default()]
    );
    let node = &c.gpu_worker_nodes[0];
    assert_eq!(node.node_id, "n-1");
    assert_eq!((node.memory_gib, node.deleted_at), (None, None));
    assert_eq!(node.latest_remediation, None);
    assert_eq!(c.add_ons[0].config, Some(types::AddOnConfig::default()));
    assert_eq!(c.add_ons[0].state, None);

    // Remediation and alert: nullable enums, timestamps and the nested annotation object.
    let r: types::Remediation = serde_json::from_value(json!({
        "id": "rem-1", "mode": null, "state": null, "trigger": null, "review_time": null,
        "linked_alerts": [{"passive_health_check_alert_id": "a-1", "severity": null, "annotation": null, "started_at": null}]
    }))
    .unwrap();
    assert_eq!(
        (r.mode, r.state, r.trigger, r.review_time),
        (None, None, None, None)
    );
    let alert = &r.linked_alerts[0];
    assert_eq!(
        (&alert.severity, &alert.annotation, alert.started_at),
        (&None, &None, None)
    );
}

// ------------------------------------------------------------ invalid payloads and key safety

#[tokio::test]
async fn invalid_json_success_body_keeps_raw_bytes() {
    let raw = "<html><body>upstream connect error</body></html>";
    let template = ResponseTemplate::new(200).set_body_raw(raw, "text/html");
    let (_server, client) = serve_with("GET", "/compute/regions", template).await;
    let err = client.list_regions().send().await.unwrap_err();
    assert_no_key(&err);
    match err {
        Error::InvalidResponsePayload(bytes, e) => {
            assert_eq!(&bytes[..], raw.as_bytes());
            assert!(e.is_syntax(), "{e}");
        }
        other => panic!("expected InvalidResponsePayload, got {other}"),
    }
}

#[tokio::test]
async fn invalid_json_error_body_keeps_raw_bytes() {
    // A 502 from a proxy in front of the API: the error envelope cannot decode either.
    let raw = "Bad Gateway";
    let template = ResponseTemplate::new(502).set_body_raw(raw, "text/plain");
    let (_server, client) = serve_with("GET", "/compute/clusters/c-1", template).await;
    let err = client
        .get_cluster()
        .cluster_id("c-1")
        .send()
        .await
        .unwrap_err();
    assert_no_key(&err);
    match err {
        Error::InvalidResponsePayload(bytes, _) => assert_eq!(&bytes[..], raw.as_bytes()),
        other => panic!("expected InvalidResponsePayload, got {other}"),
    }
}

#[tokio::test]
async fn invalid_json_of_wrong_shape_is_an_invalid_payload() {
    // A required field missing (`cluster_id`) and a type mismatch both fail loudly.
    for body in [json!({"region": "us"}), json!({"cluster_id": 7})] {
        let (_server, client) = serve("GET", "/compute/clusters/c-1", 200, body.clone()).await;
        let err = client
            .get_cluster()
            .cluster_id("c-1")
            .send()
            .await
            .unwrap_err();
        match err {
            Error::InvalidResponsePayload(bytes, e) => {
                assert_eq!(serde_json::from_slice::<Value>(&bytes).unwrap(), body);
                assert!(e.is_data(), "{e}");
            }
            other => panic!("expected InvalidResponsePayload, got {other}"),
        }
    }
}

#[tokio::test]
async fn key_never_appears_in_any_error() {
    // Error response (status, headers and decoded body are printed).
    let (_s, client) = serve(
        "GET",
        "/compute/regions",
        401,
        json!({"message": "bad key"}),
    )
    .await;
    let err = client.list_regions().send().await.unwrap_err();
    assert!(format!("{err}").contains("401"));
    assert_no_key(&err);

    // Undeclared status: the whole reqwest::Response is printed.
    let (_s, client) = serve_with("GET", "/compute/regions", ResponseTemplate::new(204)).await;
    let err = client.list_regions().send().await.unwrap_err();
    assert!(matches!(err, Error::UnexpectedResponse(ref r) if r.status() == 204));
    assert_no_key(&err);

    // Transport failure: nothing listens on the port any more.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let client = Client::from_api_key(&format!("http://127.0.0.1:{port}/v1"), KEY).unwrap();
    let err = client.list_regions().send().await.unwrap_err();
    assert!(matches!(err, Error::CommunicationError(_)), "{err}");
    assert_no_key(&err);

    // Request rejected by a builder.
    let err = client.get_cluster().send().await.unwrap_err();
    assert_no_key(&err);
}

#[test]
fn key_rejected_by_constructor_is_named_not_shown() {
    let err = Client::from_api_key(gpucloud_together::DEFAULT_BASE_URL, "")
        .err()
        .unwrap();
    assert_eq!(err.to_string(), "the API key is empty");
    let bad = "tgt-secret with-space";
    let err = Client::from_api_key(gpucloud_together::DEFAULT_BASE_URL, bad)
        .err()
        .unwrap();
    assert_eq!(
        err.to_string(),
        "the API key contains whitespace, control or non-ASCII characters"
    );
    assert!(!format!("{err:?}").contains("secret"));
    let err = Client::from_api_key("ftp://api.together.ai/v1", KEY)
        .err()
        .unwrap();
    assert!(err.to_string().starts_with("invalid base URL"));
    assert_no_key(&err);
}

// --------------------------------------------------------- required values, no network call

async fn assert_rejected<T: Debug>(
    server: &MockServer,
    result: Result<T, Error<types::ErrorResponse>>,
    message: &str,
) {
    match result {
        Err(Error::InvalidRequest(m)) => assert_eq!(m, message),
        other => panic!("expected InvalidRequest({message:?}), got {other:?}"),
    }
    assert!(server.received_requests().await.unwrap().is_empty());
}

#[tokio::test]
async fn missing_required_values_are_rejected_before_sending() {
    let (server, client) = serve("POST", "/compute/clusters", 200, cluster_json()).await;

    let body = types::GpuClusterCreateRequest::builder()
        .region("us-central-8")
        .gpu_type(types::GpuType::H100Sxm)
        .num_gpus(8_i64)
        .billing_type(types::BillingType::OnDemand);
    let result = client.create_cluster().body(body).send().await;
    let message = "conversion to `GpuClusterCreateRequest` for body failed: \
                   no value supplied for cluster_name";
    assert_rejected(&server, result, message).await;

    let result = client
        .create_cluster()
        .body_map(|b| b.region("us-central-8"))
        .send()
        .await;
    assert_rejected(&server, result, "no value supplied for billing_type").await;

    let result = client.create_cluster().send().await;
    assert_rejected(&server, result, "no value supplied for billing_type").await;

    let result = client.get_cluster().send().await;
    assert_rejected(&server, result, "cluster_id was not initialized").await;

    let result = client.get_add_on().cluster_id("c-1").send().await;
    assert_rejected(&server, result, "addon_id was not initialized").await;

    let result = client
        .create_remediation()
        .cluster_id("c-1")
        .instance_id("i-1")
        .body(types::CreateRemediationRequest::builder().reason(Some("x".to_string())))
        .send()
        .await;
    let message = "conversion to `CreateRemediationRequest` for body failed: \
                   no value supplied for mode";
    assert_rejected(&server, result, message).await;

    let result = client.update_volume().send().await;
    assert_rejected(&server, result, "no value supplied for volume_id").await;
}
