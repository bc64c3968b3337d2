//! Node remediations: one test per operation, and the array filters, comma-joined.

use gpucloud_integration_tests::ts;
use gpucloud_together::types;
use serde_json::{Value, json};

use crate::harness::{expect, serve};

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
    // One key per filter, its values joined by commas: what Together's official SDKs send
    // (the spec's `style: form, explode: false`), not the exploded form of its document.
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
async fn create_remediation_sends_no_query_unless_asked() {
    // The newest official SDK (Python 3.1.1) no longer sends `remediation_id`; ours sends it
    // only when the caller sets it.
    let p = "/compute/clusters/c-7f3a9b2e/instances/i-1/remediations";
    let (server, client) = serve("POST", p, 200, remediation_json("PENDING")).await;
    client
        .create_remediation()
        .cluster_id("c-7f3a9b2e")
        .instance_id("i-1")
        .body(types::CreateRemediationRequest {
            mode: types::RemediationMode::RemediationModeRebootVm,
            reason: None,
        })
        .send()
        .await
        .unwrap();
    let sent = json!({"mode": "REMEDIATION_MODE_REBOOT_VM"});
    expect(&server, "POST", p, &[], Some(sent)).await;
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
