//! Forward compatibility: unknown enum values, unknown fields and `null`s.

use gpucloud_together::types;
use serde_json::json;

use crate::clusters::{assert_cluster, cluster_json};
use crate::harness::{expect, serve};

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
