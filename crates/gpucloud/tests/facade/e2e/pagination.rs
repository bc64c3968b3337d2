//! List pagination: pages followed while full, and a create's look-up searching all of them.

use gpucloud::{ClusterId, CreateOutcome};
use serde_json::json;
use wiremock::Mock;
use wiremock::matchers::{method, path, query_param};

use super::{CLUSTERS, ID, NAME, list_page};
use crate::support::*;

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

    let result = api.e2e().create(&e2e_spec()).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::AlreadyExisted);
    assert_eq!(result.cluster.id, ClusterId::new("1101"));
    assert_eq!(api.count("POST", CLUSTERS).await, 0);
    api.assert_all_matched();
}
