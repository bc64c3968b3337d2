//! Clusters and regions: one test per operation, and path encoding.

use gpucloud_integration_tests::{header, mock_server, single_request, ts};
use gpucloud_together::{Client, types};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

use crate::KEY;
use crate::harness::{expect, serve};

pub(crate) fn cluster_json() -> Value {
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

pub(crate) fn assert_cluster(c: &types::GpuClusterInfo) {
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
            instance_cluster_id: None,
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
