//! One valid call per operation of `specs/together.yaml`, through the generated client, with its
//! answer decoded into our types. The requests are the ones the mock-server tests send
//! (`tests/together/`), so Prism judges the same wire format.

use chrono::{DateTime, Utc};
use gpucloud_together::{Client, types};

/// Every operation id of `specs/together.yaml`, in spec order.
pub const OPERATIONS: [&str; 23] = [
    "list_clusters",
    "create_cluster",
    "get_cluster",
    "update_cluster",
    "delete_cluster",
    "list_regions",
    "list_volumes",
    "create_volume",
    "update_volume",
    "get_volume",
    "delete_volume",
    "list_add_ons",
    "create_add_on",
    "get_add_on",
    "update_add_on",
    "delete_add_on",
    "list_remediations",
    "create_remediation",
    "get_remediation",
    "approve_remediation",
    "cancel_remediation",
    "reject_remediation",
    "list_passive_health_check_alerts",
];

const CLUSTER: &str = "c-7f3a9b2e";
const INSTANCE: &str = "i-1";
const REMEDIATION: &str = "rem-42";

fn ts(s: &str) -> DateTime<Utc> {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// What a failed call says: the operation, and the generated client's error (for a decoding
/// failure, the serde error and the body it could not decode).
fn failed<E: std::fmt::Debug>(op: &str) -> impl FnOnce(gpucloud_together::Error<E>) -> String {
    let op = op.to_string();
    move |e| match e {
        gpucloud_together::Error::InvalidResponsePayload(body, error) => format!(
            "{op}: answer does not decode: {error}\n  body: {}",
            String::from_utf8_lossy(&body)
        ),
        other => format!("{op}: {other:?}"),
    }
}

fn create_cluster_body() -> types::builder::GpuClusterCreateRequest {
    types::GpuClusterCreateRequest::builder()
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
            // Newer than Together's document (the Python SDK 3.1.1 has it): not sent to Prism.
            instance_cluster_id: None,
        }))
        .add_ons(vec![types::AddOnCreateRequest {
            name: "dash".into(),
            add_on_type: "dashboard".into(),
            config: None,
        }])
}

fn update_cluster_body() -> types::GpuClusterUpdateRequest {
    types::GpuClusterUpdateRequest {
        num_gpus: Some(24),
        reservation_end_time: Some(ts("2026-10-01T00:00:00Z")),
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
    }
}

fn add_on_config() -> types::AddOnConfig {
    types::AddOnConfig {
        dashboard: Some(types::DashboardConfig {
            enabled: Some(true),
        }),
        ..Default::default()
    }
}

/// Sends operation `op` once and decodes its answer.
pub async fn call(client: &Client, op: &str) -> Result<(), String> {
    let f = || failed(op);
    match op {
        "list_clusters" => drop(
            client
                .list_clusters()
                .project_id("proj-1")
                .send()
                .await
                .map_err(f())?,
        ),
        "create_cluster" => drop(
            client
                .create_cluster()
                .body(create_cluster_body())
                .send()
                .await
                .map_err(f())?,
        ),
        "get_cluster" => drop(
            client
                .get_cluster()
                .cluster_id(CLUSTER)
                .send()
                .await
                .map_err(f())?,
        ),
        "update_cluster" => drop(
            client
                .update_cluster()
                .cluster_id(CLUSTER)
                .body(update_cluster_body())
                .send()
                .await
                .map_err(f())?,
        ),
        "delete_cluster" => drop(
            client
                .delete_cluster()
                .cluster_id(CLUSTER)
                .send()
                .await
                .map_err(f())?,
        ),
        "list_regions" => drop(client.list_regions().send().await.map_err(f())?),
        "list_volumes" => drop(
            client
                .list_volumes()
                .project_id("proj-1")
                .send()
                .await
                .map_err(f())?,
        ),
        "create_volume" => {
            let body = types::GpuClustersSharedVolumeCreateRequest {
                volume_name: "datasets".into(),
                size_tib: 4,
                region: "us-central-8".into(),
                is_lifecycle_independent: Some(true),
                project_id: Some("proj-1".into()),
                instance_cluster_id: None,
            };
            drop(
                client
                    .create_volume()
                    .body(body)
                    .send()
                    .await
                    .map_err(f())?,
            )
        }
        "update_volume" => {
            let body = types::GpuClustersSharedVolumeUpdateRequest {
                volume_id: "v-9".into(),
                size_tib: Some(4),
            };
            drop(
                client
                    .update_volume()
                    .body(body)
                    .send()
                    .await
                    .map_err(f())?,
            )
        }
        "get_volume" => drop(
            client
                .get_volume()
                .volume_id("v-9")
                .send()
                .await
                .map_err(f())?,
        ),
        "delete_volume" => drop(
            client
                .delete_volume()
                .volume_id("v-9")
                .send()
                .await
                .map_err(f())?,
        ),
        "list_add_ons" => drop(
            client
                .list_add_ons()
                .cluster_id(CLUSTER)
                .send()
                .await
                .map_err(f())?,
        ),
        "create_add_on" => {
            let body = types::ClusterAddOnCreateRequest {
                name: "dash".into(),
                add_on_type: "dashboard".into(),
                config: Some(add_on_config()),
            };
            drop(
                client
                    .create_add_on()
                    .cluster_id(CLUSTER)
                    .body(body)
                    .send()
                    .await
                    .map_err(f())?,
            )
        }
        "get_add_on" => drop(
            client
                .get_add_on()
                .cluster_id(CLUSTER)
                .addon_id("ao-3")
                .send()
                .await
                .map_err(f())?,
        ),
        "update_add_on" => {
            let body = types::ClusterAddOnUpdateRequest {
                config: Some(add_on_config()),
            };
            let request = client
                .update_add_on()
                .cluster_id(CLUSTER)
                .addon_id("ao-3")
                .body(body);
            drop(request.send().await.map_err(f())?)
        }
        "delete_add_on" => drop(
            client
                .delete_add_on()
                .cluster_id(CLUSTER)
                .addon_id("ao-3")
                .send()
                .await
                .map_err(f())?,
        ),
        "list_remediations" => {
            let request = client
                .list_remediations()
                .cluster_id(CLUSTER)
                .instance_id("-")
                .page_size(20_i64)
                .page_token("p1")
                .order_by("create_time desc")
                // One value per filter: the client comma-joins arrays as Together's SDKs do,
                // and Prism, reading the document's default (exploded) style, would take
                // `RUNNING,PENDING` for one value. With one value both forms are the same text.
                .state(vec![types::RemediationState::Running])
                .trigger(vec![types::RemediationTrigger::RemediationTriggerAutomated])
                .mode(vec![types::RemediationMode::RemediationModeRebootVm]);
            drop(request.send().await.map_err(f())?)
        }
        "create_remediation" => {
            let request = client
                .create_remediation()
                .cluster_id(CLUSTER)
                .instance_id(INSTANCE)
                .remediation_id(REMEDIATION)
                .body(types::CreateRemediationRequest {
                    mode: types::RemediationMode::RemediationModeRebootVm,
                    reason: Some("xid 79".into()),
                });
            drop(request.send().await.map_err(f())?)
        }
        "get_remediation" => {
            let request = client
                .get_remediation()
                .cluster_id(CLUSTER)
                .instance_id(INSTANCE)
                .remediation_id(REMEDIATION);
            drop(request.send().await.map_err(f())?)
        }
        "approve_remediation" => {
            let request = client
                .approve_remediation()
                .cluster_id(CLUSTER)
                .instance_id(INSTANCE)
                .remediation_id(REMEDIATION)
                .body(types::ApproveRemediationRequest {
                    comment: Some("ok, host-aware".into()),
                    mode: Some(types::RemediationMode::RemediationModeHostAware),
                });
            drop(request.send().await.map_err(f())?)
        }
        "cancel_remediation" => {
            let request = client
                .cancel_remediation()
                .cluster_id(CLUSTER)
                .instance_id(INSTANCE)
                .remediation_id(REMEDIATION);
            drop(request.send().await.map_err(f())?)
        }
        "reject_remediation" => {
            let request = client
                .reject_remediation()
                .cluster_id(CLUSTER)
                .instance_id(INSTANCE)
                .remediation_id(REMEDIATION)
                .body(types::CommentBody {
                    comment: Some("false positive".into()),
                });
            drop(request.send().await.map_err(f())?)
        }
        "list_passive_health_check_alerts" => {
            let request = client
                .list_passive_health_check_alerts()
                .cluster_id(CLUSTER)
                .instance_id(INSTANCE)
                .intent_id("intent-7")
                .page_size(10_i64)
                .page_token("p2")
                .status(types::PhcAlertStatus::PhcAlertStatusAll)
                .order_by(types::PhcAlertOrder::PhcAlertOrderStartedAtAsc)
                .severity_filter(vec![types::PhcSeverity::PhcSeverityCritical]);
            drop(request.send().await.map_err(f())?)
        }
        other => return Err(format!("no call written for operation {other}")),
    }
    Ok(())
}
