//! Cluster add-ons: one test per operation.

use gpucloud_together::types;
use serde_json::{Value, json};

use crate::harness::{expect, serve};

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
