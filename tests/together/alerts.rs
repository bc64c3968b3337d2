//! Passive health-check alerts: the operation, its severity filter (comma-joined), and unset
//! query parameters left out.

use gpucloud_integration_tests::ts;
use gpucloud_together::types;
use serde_json::{Value, json};

use crate::harness::{expect, serve};

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
    // Comma-joined, as Together's official SDKs send array query parameters.
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
