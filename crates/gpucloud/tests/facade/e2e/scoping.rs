//! What every request carries: the project and location parameters and both credentials;
//! an id E2E cannot take sends nothing.

use gpucloud::{ClusterId, Error};
use serde_json::json;

use super::{CLUSTERS, ID, NAME, list_page, one};
use crate::support::*;

/// Asserts the scoping parameters and both credentials on one request.
fn assert_scoped(request: &wiremock::Request) {
    let query = query(request);
    assert_eq!(
        query.get("project_id").map(String::as_str),
        Some("4242"),
        "{}",
        request.url
    );
    assert_eq!(
        query.get("location").map(String::as_str),
        Some("Delhi"),
        "{}",
        request.url
    );
    assert_eq!(
        query.get("apikey").map(String::as_str),
        Some(E2E_API_KEY),
        "{}",
        request.url
    );
    assert_eq!(
        header(request, "authorization").as_deref(),
        Some(format!("Bearer {E2E_TOKEN}").as_str())
    );
}

#[tokio::test]
async fn every_request_carries_project_location_apikey_and_token() {
    let api = Api::start().await;
    mount(
        &api,
        "GET",
        CLUSTERS,
        json_response(200, &list_page(vec![])),
    )
    .await;
    mount(
        &api,
        "POST",
        CLUSTERS,
        json_response(201, &fixture("e2e", "create_cluster.response.201.json")),
    )
    .await;
    mount(
        &api,
        "GET",
        &one(),
        json_response(200, &e2e_envelope(200, e2e_cluster(ID, NAME, "Creating"))),
    )
    .await;
    mount(&api, "DELETE", &one(), json_response(200, &json!({"code": 200, "data": "Cluster deleted successfully", "errors": {}, "message": "Success"}))).await;
    let client = api.e2e();

    client.create(&e2e_spec()).await.unwrap();
    client.get(&ClusterId::new(ID.to_string())).await.unwrap();
    client.list().await.unwrap();
    client
        .delete(&ClusterId::new(ID.to_string()))
        .await
        .unwrap();

    let all = api.all().await;
    let counts = api.counts().await;
    assert_eq!(
        counts.get(&format!("GET {CLUSTERS}")),
        Some(&2),
        "{counts:?}"
    );
    assert_eq!(
        counts.get(&format!("POST {CLUSTERS}")),
        Some(&1),
        "{counts:?}"
    );
    assert_eq!(
        counts.get(&format!("GET {}", one())),
        Some(&1),
        "{counts:?}"
    );
    assert_eq!(
        counts.get(&format!("DELETE {}", one())),
        Some(&1),
        "{counts:?}"
    );
    assert_eq!(all.len(), 5);
    for request in &all {
        assert_scoped(request);
    }
    api.assert_all_matched();
}

#[tokio::test]
async fn non_numeric_id_sends_nothing() {
    let api = Api::start().await;

    let error = api.e2e().get(&ClusterId::new("abc")).await.unwrap_err();

    let Error::Validation(validation) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(validation.field, "cluster_id");
    assert!(api.all().await.is_empty());
}

/// A cluster is read, resized and deleted in the client's location: one created in another
/// location could never be waited for, and its delete would answer 404 ("already gone")
/// while it bills there. Such a create is refused before anything is sent.
#[tokio::test]
async fn a_create_in_another_location_than_the_clients_is_refused() {
    let api = Api::start().await;
    let error = api
        .e2e()
        .create(&e2e_spec().with_region("Chennai"))
        .await
        .unwrap_err();
    let gpucloud::Error::Validation(rule) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(rule.field, "location");
    assert!(rule.rule.contains("E2E_LOCATION=Chennai"), "{}", rule.rule);
    assert!(api.all().await.is_empty(), "nothing was sent");
}

/// Every rule a request breaks is said at once (before: one field per run).
#[tokio::test]
async fn every_missing_field_is_named_in_one_error() {
    let api = Api::start().await;
    let mut spec = e2e_spec();
    spec.ssh_keys.clear();
    if let Some(options) = spec.options.e2e.as_mut() {
        options.security_group_id = 0;
    }
    let error = api.e2e().create(&spec).await.unwrap_err();
    let Error::Validation(rule) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(rule.field, "security_group_id, ssh_key_ids");
    assert_eq!(
        rule.rule,
        "security_group_id is missing: a positive id is required; ssh_key_ids is required: at \
         least one SSH key id"
    );
    assert!(api.all().await.is_empty());
}
