//! E2E Networks through the facade against a mock API: scoping query parameters and both
//! credentials on every request, error bodies in every shape (HTTP 200 with an error `code`,
//! Django's `{detail}`, proxy HTML), list pagination, creates reconciled by name.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use gpucloud::{
    ClusterId, ClusterSize, ClusterSpec, ClusterState, CreateOutcome, E2eOptions, Error, Price,
};
use serde_json::{Value, json};
use support::*;
use wiremock::Mock;
use wiremock::matchers::{method, path, query_param};

const CLUSTERS: &str = "/distributed_jobs_v2/cluster/";
const ID: i64 = 101;
const NAME: &str = "train-e2e";

fn one() -> String {
    format!("{CLUSTERS}{ID}/")
}

fn spec() -> ClusterSpec {
    ClusterSpec::new(NAME, ClusterSize::Nodes(2))
        .with_ssh_keys(["1001"])
        .with_options(E2eOptions {
            image_version_id: 2,
            sku_id: 139,
            sku_item_price_id: 645,
            security_group_id: 1001,
            lifecycle_script: None,
            sfs_mounts: Vec::new(),
        })
}

fn expected_body() -> Value {
    json!({
        "name": NAME,
        "image_version_id": 2,
        "ssh_key_ids": [1001],
        "security_group_id": 1001,
        "script_added": false,
        "sku_id": 139,
        "no_of_nodes": 2,
        "sku_item_price_id": 645,
    })
}

fn list_page(clusters: Vec<Value>) -> Value {
    json!({"code": 200, "data": clusters, "errors": {}, "message": "Success"})
}

async fn mount(api: &Api, verb: &str, at: &str, responder: impl wiremock::Respond + 'static) {
    Mock::given(method(verb))
        .and(path(at))
        .respond_with(responder)
        .mount(&api.server)
        .await;
}

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

    client.create(&spec()).await.unwrap();
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
async fn create_posts_once_when_no_cluster_has_the_name() {
    let api = Api::start().await;
    mount(
        &api,
        "GET",
        CLUSTERS,
        json_response(200, &list_page(vec![e2e_cluster(7, "other", "Running")])),
    )
    .await;
    mount(
        &api,
        "POST",
        CLUSTERS,
        json_response(201, &fixture("e2e", "create_cluster.response.201.json")),
    )
    .await;

    let result = api.e2e().create(&spec()).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::Created);
    assert_eq!(result.attempts, 1);
    assert_eq!(result.cluster.id, ClusterId::new("101"));
    assert_eq!(result.cluster.state, ClusterState::Provisioning);
    assert_eq!(
        result.cluster.price,
        Some(Price {
            per_hour: 12.3,
            currency: "INR".into()
        })
    );
    let posts = api.requests("POST", CLUSTERS).await;
    assert_eq!(posts.len(), 1);
    assert_eq!(body_json(&posts[0]), expected_body());
    assert_eq!(api.count("GET", CLUSTERS).await, 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn create_finds_an_existing_cluster_by_name() {
    let api = Api::start().await;
    mount(
        &api,
        "GET",
        CLUSTERS,
        json_response(200, &list_page(vec![e2e_cluster(ID, NAME, "Running")])),
    )
    .await;

    let result = api.e2e().create(&spec()).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::AlreadyExisted);
    assert_eq!(result.attempts, 0);
    assert_eq!(result.cluster.state, ClusterState::Ready);
    assert_eq!(api.count("POST", CLUSTERS).await, 0);
    api.assert_all_matched();
}

#[tokio::test]
async fn create_after_an_html_502_is_reconciled_through_the_list() {
    let api = Api::start().await;
    mount(
        &api,
        "GET",
        CLUSTERS,
        seq([
            json_response(200, &list_page(vec![])),
            json_response(200, &list_page(vec![e2e_cluster(ID, NAME, "Creating")])),
        ]),
    )
    .await;
    mount(
        &api,
        "POST",
        CLUSTERS,
        raw_response(502, HTML_502, "text/html"),
    )
    .await;

    let result = api.e2e().create(&spec()).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::CreatedReconciled);
    assert_eq!(result.attempts, 1);
    assert_eq!(result.cluster.id, ClusterId::new("101"));
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
    assert_eq!(api.count("GET", CLUSTERS).await, 2);
    assert_eq!(api.sleeps().len(), 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn create_after_a_504_and_an_empty_list_posts_again() {
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
        seq([
            raw_response(504, "upstream request timeout", "text/plain"),
            json_response(201, &fixture("e2e", "create_cluster.response.201.json")),
        ]),
    )
    .await;

    let result = api.e2e().create(&spec()).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::Created);
    assert_eq!(result.attempts, 2);
    assert_eq!(api.count("POST", CLUSTERS).await, 2);
    assert_eq!(api.count("GET", CLUSTERS).await, 2);
    api.assert_all_matched();
}

#[tokio::test]
async fn create_400_with_field_errors_is_returned_at_once() {
    let api = Api::start().await;
    mount(
        &api,
        "GET",
        CLUSTERS,
        json_response(200, &list_page(vec![])),
    )
    .await;
    let body = fixture("e2e", "error.400.json");
    mount(&api, "POST", CLUSTERS, json_response(400, &body)).await;

    let error = api.e2e().create(&spec()).await.unwrap_err();

    let Error::Api(api_error) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(api_error.status, 400);
    assert_eq!(api_error.code.as_deref(), Some("400"));
    assert_eq!(api_error.message.as_deref(), Some("Bad Request"));
    assert_eq!(
        serde_json::from_str::<Value>(&api_error.body).unwrap(),
        body,
        "field errors kept in the raw body"
    );
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn create_201_whose_body_code_is_an_error_is_an_error() {
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
        json_response(201, &fixture("e2e", "error.400.json")),
    )
    .await;

    let error = api.e2e().create(&spec()).await.unwrap_err();

    assert_eq!(error.status(), Some(400), "{error:?}");
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn create_http_200_whose_body_code_is_400_is_an_error_with_status_400() {
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
        json_response(200, &fixture("e2e", "error.400.json")),
    )
    .await;

    let error = api.e2e().create(&spec()).await.unwrap_err();

    assert_eq!(error.status(), Some(400), "{error:?}");
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
}

#[tokio::test]
async fn get_http_200_whose_body_code_is_400_is_an_error() {
    let api = Api::start().await;
    let body = json!({"code": 400, "message": "Bad Request", "errors": {"cluster_id": ["Invalid cluster."]}});
    mount(&api, "GET", &one(), json_response(200, &body)).await;

    let error = api
        .e2e()
        .get(&ClusterId::new(ID.to_string()))
        .await
        .unwrap_err();

    let Error::Api(api_error) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(api_error.status, 400);
    assert_eq!(api_error.code.as_deref(), Some("400"));
    assert_eq!(api_error.message.as_deref(), Some("Bad Request"));
    assert!(
        api_error.body.contains("Invalid cluster."),
        "{}",
        api_error.body
    );
    assert!(!error.is_retryable());
    assert_eq!(api.count("GET", &one()).await, 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn get_http_200_whose_body_code_is_401_is_authentication() {
    let api = Api::start().await;
    mount(
        &api,
        "GET",
        &one(),
        json_response(200, &fixture("e2e", "error.401.json")),
    )
    .await;

    let error = api
        .e2e()
        .get(&ClusterId::new(ID.to_string()))
        .await
        .unwrap_err();

    let Error::Authentication(api_error) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(api_error.status, 401);
    assert_eq!(api_error.message.as_deref(), Some("Unauthorized access."));
    api.assert_all_matched();
}

#[tokio::test]
async fn list_http_200_whose_body_code_is_500_is_retried() {
    let api = Api::start().await;
    let failing =
        json!({"code": 500, "message": "Internal Server Error", "data": [], "errors": {}});
    mount(
        &api,
        "GET",
        CLUSTERS,
        seq([
            json_response(200, &failing),
            json_response(200, &list_page(vec![e2e_cluster(ID, NAME, "Running")])),
        ]),
    )
    .await;

    let clusters = api.e2e().list().await.unwrap();

    assert_eq!(clusters.len(), 1);
    assert_eq!(api.count("GET", CLUSTERS).await, 2);
    api.assert_all_matched();
}

#[tokio::test]
async fn detail_401_is_authentication_with_that_message() {
    let api = Api::start().await;
    mount(
        &api,
        "GET",
        &one(),
        json_response(401, &fixture("e2e", "error.401.detail.json")),
    )
    .await;

    let error = api
        .e2e()
        .get(&ClusterId::new(ID.to_string()))
        .await
        .unwrap_err();

    let Error::Authentication(api_error) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(api_error.status, 401);
    assert_eq!(
        api_error.message.as_deref(),
        Some("Authentication credentials were not provided.")
    );
    assert_eq!(
        api_error.body,
        r#"{"detail":"Authentication credentials were not provided."}"#
    );
    assert!(!error.is_retryable());
    assert_eq!(api.count("GET", &one()).await, 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn status_code_shape_is_mapped() {
    let api = Api::start().await;
    mount(
        &api,
        "GET",
        &one(),
        json_response(
            403,
            &json!({"status_code": 403, "message": "Forbidden for this project"}),
        ),
    )
    .await;

    let error = api
        .e2e()
        .get(&ClusterId::new(ID.to_string()))
        .await
        .unwrap_err();

    let Error::Authentication(api_error) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(api_error.status, 403);
    assert_eq!(
        api_error.message.as_deref(),
        Some("Forbidden for this project")
    );
    api.assert_all_matched();
}

#[tokio::test]
async fn html_502_is_retried_and_kept_in_the_error() {
    let api = Api::start().await;
    mount(
        &api,
        "GET",
        &one(),
        raw_response(502, HTML_502, "text/html"),
    )
    .await;

    let error = api
        .e2e()
        .get(&ClusterId::new(ID.to_string()))
        .await
        .unwrap_err();

    let Error::Api(api_error) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(api_error.status, 502);
    assert_eq!(api_error.body, HTML_502);
    assert_eq!(api_error.message, None);
    assert!(error.is_retryable());
    assert_eq!(api.count("GET", &one()).await, max_attempts());
    assert_eq!(api.sleeps().len(), max_attempts() - 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn html_502_then_success() {
    let api = Api::start().await;
    mount(
        &api,
        "GET",
        &one(),
        seq([
            raw_response(502, HTML_502, "text/html"),
            json_response(200, &e2e_envelope(200, e2e_cluster(ID, NAME, "Running"))),
        ]),
    )
    .await;

    let cluster = api
        .e2e()
        .get(&ClusterId::new(ID.to_string()))
        .await
        .unwrap();

    assert_eq!(cluster.state, ClusterState::Ready);
    assert_eq!(cluster.name, NAME);
    assert_eq!(api.count("GET", &one()).await, 2);
    api.assert_all_matched();
}

#[tokio::test]
async fn list_follows_pages_while_they_are_full() {
    let api = Api::start().await;
    let page = |from: i64, n: i64| {
        (from..from + n)
            .map(|i| e2e_cluster(i, &format!("c-{i}"), "Running"))
            .collect::<Vec<_>>()
    };
    Mock::given(method("GET"))
        .and(path(CLUSTERS))
        .and(query_param("page_no", "1"))
        .and(query_param("per_page", "100"))
        .respond_with(json_response(200, &list_page(page(1, 100))))
        .mount(&api.server)
        .await;
    Mock::given(method("GET"))
        .and(path(CLUSTERS))
        .and(query_param("page_no", "2"))
        .and(query_param("per_page", "100"))
        .respond_with(json_response(200, &list_page(page(101, 3))))
        .mount(&api.server)
        .await;

    let clusters = api.e2e().list().await.unwrap();

    assert_eq!(clusters.len(), 103);
    assert_eq!(clusters[0].id, ClusterId::new("1"));
    assert_eq!(clusters[102].id, ClusterId::new("103"));
    assert_eq!(clusters[102].name, "c-103");
    let gets = api.requests("GET", CLUSTERS).await;
    let pages: Vec<_> = gets.iter().map(|r| query(r)["page_no"].clone()).collect();
    assert_eq!(pages, ["1", "2"]);
    api.assert_all_matched();
}

#[tokio::test]
async fn list_stops_after_an_exactly_full_last_page_and_an_empty_one() {
    let api = Api::start().await;
    let page = (1..=100)
        .map(|i| e2e_cluster(i, &format!("c-{i}"), "Running"))
        .collect::<Vec<_>>();
    Mock::given(method("GET"))
        .and(path(CLUSTERS))
        .and(query_param("page_no", "1"))
        .respond_with(json_response(200, &list_page(page)))
        .mount(&api.server)
        .await;
    Mock::given(method("GET"))
        .and(path(CLUSTERS))
        .and(query_param("page_no", "2"))
        .respond_with(json_response(
            200,
            &json!({"code": 200, "errors": {}, "message": "Success"}),
        ))
        .mount(&api.server)
        .await;

    let clusters = api.e2e().list().await.unwrap();

    assert_eq!(clusters.len(), 100);
    assert_eq!(api.count("GET", CLUSTERS).await, 2);
    api.assert_all_matched();
}

#[tokio::test]
async fn create_reconciliation_searches_every_page() {
    let api = Api::start().await;
    let full = (1..=100)
        .map(|i| e2e_cluster(i, &format!("c-{i}"), "Running"))
        .collect::<Vec<_>>();
    Mock::given(method("GET"))
        .and(path(CLUSTERS))
        .and(query_param("page_no", "1"))
        .respond_with(json_response(200, &list_page(full)))
        .mount(&api.server)
        .await;
    Mock::given(method("GET"))
        .and(path(CLUSTERS))
        .and(query_param("page_no", "2"))
        .respond_with(json_response(
            200,
            &list_page(vec![e2e_cluster(ID + 1000, NAME, "Creating")]),
        ))
        .mount(&api.server)
        .await;

    let result = api.e2e().create(&spec()).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::AlreadyExisted);
    assert_eq!(result.cluster.id, ClusterId::new("1101"));
    assert_eq!(api.count("POST", CLUSTERS).await, 0);
    api.assert_all_matched();
}

#[tokio::test]
async fn delete_404_after_a_503_means_the_first_attempt_worked() {
    let api = Api::start().await;
    mount(
        &api,
        "DELETE",
        &one(),
        seq([
            raw_response(503, "Service Unavailable", "text/plain"),
            json_response(404, &json!({"code": 404, "message": "Not Found"})),
        ]),
    )
    .await;

    api.e2e()
        .delete(&ClusterId::new(ID.to_string()))
        .await
        .unwrap();

    assert_eq!(api.count("DELETE", &one()).await, 2);
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
