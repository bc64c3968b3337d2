//! The operator's control API under `/_sim/`, over HTTP and without provider credentials:
//! faults injected (one or a list), listed, cleared, and hitting the provider paths; bad
//! bodies answered 400 naming the field; unknown control paths 404.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use gpucloud_sim::{Fault, FaultKind, Provider, RunningSim};
use serde_json::{Value, json};

async fn post(sim: &RunningSim, body: Value) -> Answer {
    control(sim, "POST", "/faults", Some(&body.to_string())).await
}

#[tokio::test]
async fn faults_are_injected_listed_used_and_cleared_over_http() {
    let sim = sim().await;
    assert!(sim.control_url().ends_with("/_sim"));
    let empty = control(&sim, "GET", "/faults", None).await;
    assert_eq!(
        (empty.status, empty.json.clone()),
        (200, json!({"faults": []}))
    );

    let one = post(
        &sim,
        json!({"provider": "together", "operation": "get_cluster", "kind": "server_error", "status": 503, "times": 2}),
    )
    .await;
    assert_eq!(one.status, 200, "{}", one.text);
    assert_eq!(
        one.json["faults"],
        json!([{"provider": "together", "operation": "get_cluster", "kind": "server_error", "status": 503, "times": 2}])
    );
    let list = post(
        &sim,
        json!([
            {"provider": "runcrate", "kind": "rate_limited", "retry_after": 7},
            {"provider": "e2e", "operation": "list_clusters", "kind": "slow", "delay_ms": 5},
            {"provider": "e2e", "kind": "unknown_status", "status": "Hibernating"},
            {"provider": "together", "operation": "create_cluster", "kind": "fail_provisioning"},
            {"provider": "runcrate", "kind": "drop_connection"},
            {"provider": "runcrate", "kind": "truncated_body"},
            {"provider": "e2e", "kind": "html_body"},
            {"provider": "e2e", "kind": "ok_with_error_code", "status": 403},
        ]),
    )
    .await;
    assert_eq!(list.status, 200, "{}", list.text);
    let listed = control(&sim, "GET", "/faults", None).await.json;
    let listed = listed["faults"].as_array().unwrap();
    assert_eq!(listed.len(), 9);
    assert_eq!(listed[1]["retry_after"], 7);
    assert_eq!(listed[2]["delay_ms"], 5);
    assert_eq!(listed[7]["status"], 502, "html_body's default status");
    assert_eq!(listed[4]["operation"], "create_cluster");
    // The same faults, as the in-process handle sees them.
    let pending = sim.faults().pending();
    assert_eq!(
        pending[0],
        Fault::new(Provider::Together, FaultKind::ServerError { status: 503 })
            .on("get_cluster")
            .times(2)
    );
    assert_eq!(pending[4].kind, FaultKind::FailProvisioning);

    // They hit the provider paths: Together's get twice, then no more.
    for _ in 0..2 {
        let hit = call(&sim, Provider::Together, "GET", "/compute/clusters/x", None).await;
        assert_eq!(hit.status, 503);
    }
    let after = call(&sim, Provider::Together, "GET", "/compute/clusters/x", None).await;
    assert_eq!(after.status, 404);
    let listed = control(&sim, "GET", "/faults", None).await.json;
    assert_eq!(listed["faults"].as_array().unwrap().len(), 8);

    let cleared = control(&sim, "DELETE", "/faults", None).await;
    assert_eq!((cleared.status, cleared.json), (200, json!({"faults": []})));
    assert!(sim.faults().pending().is_empty());
    let calm = call(&sim, Provider::Runcrate, "GET", "/clusters/offers", None).await;
    assert_eq!(calm.status, 200);
    finish(sim).await;
}

#[tokio::test]
async fn bad_bodies_are_400s_naming_the_field_and_inject_nothing() {
    let sim = sim().await;
    let cases: Vec<(&str, &str)> = vec![
        ("not json", "body"),
        ("[]", "body"),
        ("42", "body"),
        (r#"{"kind": "drop_connection"}"#, "provider"),
        (
            r#"{"provider": "aws", "kind": "drop_connection"}"#,
            "provider",
        ),
        (r#"{"provider": 3, "kind": "drop_connection"}"#, "provider"),
        (r#"{"provider": "e2e"}"#, "kind"),
        (r#"{"provider": "e2e", "kind": "explode"}"#, "kind"),
        (
            r#"{"provider": "e2e", "kind": "drop_connection", "times": 0}"#,
            "times",
        ),
        (
            r#"{"provider": "e2e", "kind": "drop_connection", "times": "2"}"#,
            "times",
        ),
        (
            r#"{"provider": "e2e", "kind": "drop_connection", "operation": "launch"}"#,
            "operation",
        ),
        (
            r#"{"provider": "e2e", "kind": "drop_connection", "operation": 1}"#,
            "operation",
        ),
        (
            r#"{"provider": "e2e", "kind": "server_error", "delay_ms": 5}"#,
            "delay_ms",
        ),
        (
            r#"{"provider": "e2e", "kind": "server_error", "status": 99}"#,
            "status",
        ),
        (
            r#"{"provider": "e2e", "kind": "rate_limited", "retry_after": -1}"#,
            "retry_after",
        ),
        (
            r#"{"provider": "e2e", "kind": "slow", "delay_ms": 600001}"#,
            "delay_ms",
        ),
        (r#"{"provider": "e2e", "kind": "unknown_status"}"#, "status"),
        (
            r#"{"provider": "e2e", "kind": "unknown_status", "status": 7}"#,
            "status",
        ),
        (
            r#"{"provider": "e2e", "kind": "drop_connection", "colour": "red"}"#,
            "colour",
        ),
        (
            r#"{"provider": "together", "operation": "get_cluster", "kind": "fail_provisioning"}"#,
            "operation",
        ),
        (
            r#"[{"provider": "e2e", "kind": "drop_connection"}, {"provider": "e2e", "kind": "boom"}]"#,
            "faults[1].kind",
        ),
        (
            r#"[{"provider": "e2e", "kind": "drop_connection"}, 5]"#,
            "faults[1]",
        ),
    ];
    for (body, field) in cases {
        let answer = control(&sim, "POST", "/faults", Some(body)).await;
        assert_eq!(answer.status, 400, "{body}: {}", answer.text);
        let message = answer.json["error"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("{field}:")),
            "{body}: {message}"
        );
    }
    assert!(
        sim.faults().pending().is_empty(),
        "a bad body injects nothing"
    );
    finish(sim).await;
}

#[tokio::test]
async fn unknown_control_paths_are_404_and_other_methods_405() {
    let sim = sim().await;
    for path in ["", "/", "/nothing", "/faults/1", "/faults/"] {
        let answer = control(&sim, "GET", path, None).await;
        assert_eq!(answer.status, 404, "/_sim{path}");
        assert_eq!(
            answer.json["endpoints"],
            json!(["/_sim/faults", "/_sim/capacity"])
        );
    }
    let put = control(&sim, "PUT", "/faults", Some("{}")).await;
    assert_eq!(put.status, 405);
    assert_eq!(put.headers["allow"], "GET, POST, DELETE");
    let post = control(&sim, "POST", "/capacity", Some("{}")).await;
    assert_eq!(post.status, 405);
    assert_eq!(post.headers["allow"], "GET, PUT, DELETE");
    assert_eq!(post.json["error"], "POST is not allowed on /_sim/capacity");
    // The control API is no provider's: their paths keep their own credential checks.
    let unauthenticated = http()
        .get(format!(
            "{}/compute/clusters",
            sim.base_url(Provider::Together)
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(unauthenticated.status(), 401);
    finish(sim).await;
}
