//! The simulator takes what Together's official SDKs send: array filters comma-joined
//! (`state=A,B`, percent-encoded or not), remediation creates without `remediation_id`, volume
//! creates with `instance_cluster_id` (Python SDK 3.1.1); and an automated remediation (raised
//! with the `automated_remediation` fault) can be approved and rejected.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::Duration;

use common::*;
use gpucloud_sim::{Fault, FaultKind, Provider};
use serde_json::{Value, json};

const T: Provider = Provider::Together;

fn states(list: &Value) -> Vec<String> {
    let mut states: Vec<String> = list["remediations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["state"].as_str().unwrap().to_string())
        .collect();
    states.sort();
    states
}

#[tokio::test]
async fn comma_joined_filters_and_automated_remediations() {
    let sim = sim().await;
    let created = call(
        &sim,
        T,
        "POST",
        "/compute/clusters",
        Some(together_create("w")),
    )
    .await;
    assert_eq!(created.status, 200, "{}", created.text);
    let id = created.json["cluster_id"].as_str().unwrap().to_string();
    sim.clock().advance(Duration::from_secs(3600));
    let remediations = format!("/compute/clusters/{id}/instances/-/remediations");

    // No `remediation_id` query, as the Python SDK 3.1.1 creates one.
    let manual = call(
        &sim,
        T,
        "POST",
        &remediations,
        Some(json!({"mode": "REMEDIATION_MODE_REBOOT_VM"})),
    )
    .await;
    assert_eq!(manual.status, 200, "{}", manual.text);
    assert_eq!(manual.json["state"], "PENDING");
    assert_eq!(manual.json["trigger"], "REMEDIATION_TRIGGER_MANUAL");

    // Two remediations Together's automation raised, awaiting approval.
    sim.faults()
        .inject(Fault::new(T, FaultKind::AutomatedRemediation).times(2));
    let mut automated = Vec::new();
    for _ in 0..2 {
        let answer = call(
            &sim,
            T,
            "POST",
            &remediations,
            Some(json!({"mode": "REMEDIATION_MODE_HOST_AWARE", "reason": "xid 79"})),
        )
        .await;
        assert_eq!(answer.json["state"], "PENDING_APPROVAL", "{}", answer.text);
        assert_eq!(answer.json["trigger"], "REMEDIATION_TRIGGER_AUTOMATED");
        automated.push(answer.json["id"].as_str().unwrap().to_string());
    }

    // Comma-joined, percent-encoded as httpx sends it, plain, and with the key repeated.
    for query in [
        "state=PENDING_APPROVAL%2CPENDING",
        "state=PENDING_APPROVAL,PENDING",
        "state=PENDING_APPROVAL&state=PENDING",
    ] {
        let list = call(&sim, T, "GET", &format!("{remediations}?{query}"), None).await;
        assert_eq!(list.status, 200, "{query}: {}", list.text);
        assert_eq!(
            states(&list.json),
            ["PENDING", "PENDING_APPROVAL", "PENDING_APPROVAL"],
            "{query}"
        );
    }
    let awaiting = call(
        &sim,
        T,
        "GET",
        &format!("{remediations}?state=PENDING_APPROVAL&trigger=REMEDIATION_TRIGGER_AUTOMATED,REMEDIATION_TRIGGER_MANUAL"),
        None,
    )
    .await;
    assert_eq!(
        states(&awaiting.json),
        ["PENDING_APPROVAL", "PENDING_APPROVAL"]
    );
    let bogus = call(
        &sim,
        T,
        "GET",
        &format!("{remediations}?state=PENDING,BOGUS"),
        None,
    )
    .await;
    assert_eq!(bogus.status, 400, "{}", bogus.text);

    let approved = call(
        &sim,
        T,
        "POST",
        &format!("{remediations}/{}/approve", automated[0]),
        Some(json!({"comment": "go"})),
    )
    .await;
    assert_eq!(
        (approved.status, approved.json["state"].clone()),
        (200, json!("PENDING")),
        "{}",
        approved.text
    );
    let rejected = call(
        &sim,
        T,
        "POST",
        &format!("{remediations}/{}/reject", automated[1]),
        Some(json!({"comment": "false positive"})),
    )
    .await;
    assert_eq!(
        (rejected.status, rejected.json["state"].clone()),
        (200, json!("CANCELLED")),
        "{}",
        rejected.text
    );
    assert_eq!(rejected.json["review_comment"], "false positive");

    let volume = call(
        &sim,
        T,
        "POST",
        "/compute/clusters/storage/volumes",
        Some(
            json!({"volume_name": "near", "size_tib": 1, "region": "us-central-8",
            "instance_cluster_id": id}),
        ),
    )
    .await;
    assert_eq!(volume.status, 200, "{}", volume.text);
    finish(sim).await;
}

#[tokio::test]
async fn the_automated_remediation_fault_is_together_s_create_remediation_only() {
    let sim = sim().await;
    let post = |body: Value| {
        let sim = &sim;
        async move { control(sim, "POST", "/faults", Some(&body.to_string())).await }
    };
    let ok = post(json!({"provider": "together", "kind": "automated_remediation"})).await;
    assert_eq!(ok.status, 200, "{}", ok.text);
    for wrong in [
        json!({"provider": "runcrate", "kind": "automated_remediation"}),
        json!({"provider": "together", "operation": "create_cluster", "kind": "automated_remediation"}),
    ] {
        let answer = post(wrong.clone()).await;
        assert_eq!(answer.status, 400, "{wrong}");
        assert!(
            answer.text.contains("create_remediation"),
            "{}",
            answer.text
        );
    }
    assert_eq!(
        sim.faults().pending()[0].kind,
        FaultKind::AutomatedRemediation
    );
    sim.shutdown().await;
}
