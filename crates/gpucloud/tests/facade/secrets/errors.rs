//! Errors of every kind, from every provider, rendered every way: no credential shows.

use std::time::Duration;

use gpucloud::{ClusterClient, ClusterId, Error};
use serde_json::json;
use wiremock::Mock;
use wiremock::matchers::{method, path};

use super::{RUNCRATE_ID, assert_no_secret, provoke, renderings, runcrate_spec};
use crate::support::*;

#[tokio::test]
async fn together_errors_show_no_key() {
    let api = Api::start().await;
    let client = api.together();
    let mut errors = provoke(&api, "GET", "/compute/clusters/c-1", &client, "c-1").await;
    api.reset().await;
    let mut cluster = together_cluster("c-1", "n", "Ready", &[]);
    cluster["num_gpus"] = json!("sixteen");
    Mock::given(method("GET"))
        .and(path("/compute/clusters/c-1"))
        .respond_with(json_response(200, &cluster))
        .mount(&api.server)
        .await;
    errors.push((
        "decode".into(),
        client.get(&ClusterId::new("c-1")).await.unwrap_err(),
    ));
    let dead = ClusterClient::together(api.together_config().with_base_url(DEAD_URL)).unwrap();
    errors.push((
        "transport".into(),
        dead.get(&ClusterId::new("c-1")).await.unwrap_err(),
    ));
    errors.push((
        "create transport".into(),
        dead.create(&together_spec()).await.unwrap_err(),
    ));

    assert!(errors.iter().any(|(_, e)| matches!(e, Error::Decode(_))));
    assert!(
        errors
            .iter()
            .any(|(_, e)| matches!(e, Error::Transport { .. }))
    );
    assert!(
        errors
            .iter()
            .any(|(_, e)| matches!(e, Error::Authentication(_)))
    );
    for (name, error) in &errors {
        assert_no_secret(&format!("together {name}"), &renderings(error));
    }
}

#[tokio::test]
async fn runcrate_errors_show_no_key() {
    let api = Api::start().await;
    let client = api.runcrate();
    let at = format!("/clusters/{RUNCRATE_ID}");
    let mut errors = provoke(&api, "GET", &at, &client, RUNCRATE_ID).await;
    api.reset().await;
    let mut body = runcrate_cluster(RUNCRATE_ID, "train");
    body["data"]["node_count"] = json!("two");
    Mock::given(method("GET"))
        .and(path(at.as_str()))
        .respond_with(json_response(200, &body))
        .mount(&api.server)
        .await;
    errors.push((
        "decode".into(),
        client.get(&ClusterId::new(RUNCRATE_ID)).await.unwrap_err(),
    ));
    Mock::given(method("POST"))
        .and(path("/clusters"))
        .respond_with(json_response(
            402,
            &json!({"error": {"code": "BUDGET_REACHED", "message": "budget"}}),
        ))
        .mount(&api.server)
        .await;
    errors.push((
        "create 402".into(),
        client.create(&runcrate_spec()).await.unwrap_err(),
    ));
    let dead = ClusterClient::runcrate(api.runcrate_config().with_base_url(DEAD_URL)).unwrap();
    errors.push((
        "transport".into(),
        dead.get(&ClusterId::new(RUNCRATE_ID)).await.unwrap_err(),
    ));
    errors.push((
        "create transport".into(),
        dead.create(&runcrate_spec()).await.unwrap_err(),
    ));

    assert!(errors.iter().any(|(_, e)| matches!(e, Error::Decode(_))));
    assert!(
        errors
            .iter()
            .any(|(_, e)| matches!(e, Error::InsufficientFunds(_)))
    );
    assert!(
        errors
            .iter()
            .any(|(_, e)| matches!(e, Error::Transport { .. }))
    );
    for (name, error) in &errors {
        assert_no_secret(&format!("runcrate {name}"), &renderings(error));
    }
}

#[tokio::test]
async fn e2e_errors_show_neither_apikey_nor_token() {
    let api = Api::start().await;
    let client = api.e2e();
    let mut errors = provoke(
        &api,
        "GET",
        "/distributed_jobs_v2/cluster/101/",
        &client,
        "101",
    )
    .await;
    // The requests did carry the apikey in their URL: the test is not vacuous.
    assert!(
        api.all()
            .await
            .iter()
            .all(|r| query(r).get("apikey").map(String::as_str) == Some(E2E_API_KEY))
    );
    api.reset().await;
    let mut cluster = e2e_cluster(101, "n", "Running");
    cluster["no_of_nodes"] = json!("two");
    Mock::given(method("GET"))
        .and(path("/distributed_jobs_v2/cluster/101/"))
        .respond_with(json_response(200, &e2e_envelope(200, cluster)))
        .mount(&api.server)
        .await;
    errors.push((
        "decode".into(),
        client.get(&ClusterId::new("101")).await.unwrap_err(),
    ));
    Mock::given(method("GET"))
        .and(path("/distributed_jobs_v2/cluster/102/"))
        .respond_with(json_response(
            200,
            &json!({"code": 400, "message": "Bad Request", "errors": {"x": ["y"]}}),
        ))
        .mount(&api.server)
        .await;
    errors.push((
        "200 with code 400".into(),
        client.get(&ClusterId::new("102")).await.unwrap_err(),
    ));
    Mock::given(method("GET"))
        .and(path("/distributed_jobs_v2/cluster/103/"))
        .respond_with(
            json_response(200, &e2e_envelope(200, e2e_cluster(103, "n", "Running")))
                .set_delay(Duration::from_secs(3)),
        )
        .mount(&api.server)
        .await;
    let slow =
        ClusterClient::e2e(api.e2e_config().with_timeout(Duration::from_millis(200))).unwrap();
    errors.push((
        "timeout".into(),
        slow.get(&ClusterId::new("103")).await.unwrap_err(),
    ));
    let dead = ClusterClient::e2e(api.e2e_config().with_base_url(DEAD_URL)).unwrap();
    errors.push((
        "transport".into(),
        dead.get(&ClusterId::new("101")).await.unwrap_err(),
    ));
    errors.push(("list transport".into(), dead.list().await.unwrap_err()));
    errors.push((
        "create transport".into(),
        dead.create(&e2e_spec()).await.unwrap_err(),
    ));
    errors.push((
        "delete transport".into(),
        dead.delete(&ClusterId::new("101")).await.unwrap_err(),
    ));

    assert!(errors.iter().any(|(_, e)| matches!(e, Error::Decode(_))));
    assert!(
        errors
            .iter()
            .filter(|(_, e)| matches!(e, Error::Transport { .. }))
            .count()
            >= 5
    );
    assert!(
        errors
            .iter()
            .any(|(_, e)| matches!(e, Error::Api(a) if a.status == 502))
    );
    for (name, error) in &errors {
        assert_no_secret(&format!("e2e {name}"), &renderings(error));
    }
}
