//! List pagination: pages followed while full, and a create's look-up searching all of them.

use gpucloud::{ClusterId, CreateOutcome};
use serde_json::json;
use wiremock::Mock;
use wiremock::matchers::{method, path, query_param};

use super::{CLUSTERS, ID, NAME, list_page};
use crate::support::*;

#[tokio::test]
async fn list_follows_pages_until_an_empty_one() {
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
    Mock::given(method("GET"))
        .and(path(CLUSTERS))
        .and(query_param("page_no", "3"))
        .respond_with(json_response(200, &list_page(vec![])))
        .mount(&api.server)
        .await;

    let clusters = api.e2e().list().await.unwrap();

    assert_eq!(clusters.len(), 103);
    assert_eq!(clusters[0].id, ClusterId::new("1"));
    assert_eq!(clusters[102].id, ClusterId::new("103"));
    assert_eq!(clusters[102].name, "c-103");
    let gets = api.requests("GET", CLUSTERS).await;
    let pages: Vec<_> = gets.iter().map(|r| query(r)["page_no"].clone()).collect();
    assert_eq!(pages, ["1", "2", "3"]);
    api.assert_all_matched();
}

/// A server that answers fewer clusters than `per_page` asks for (a cap of its own) has not
/// ended the list: the pages after a short one are read until an empty one.
#[tokio::test]
async fn a_page_shorter_than_asked_for_is_not_the_end() {
    let api = Api::start().await;
    let capped = (1..=50)
        .map(|i| e2e_cluster(i, &format!("c-{i}"), "Running"))
        .collect::<Vec<_>>();
    for (page, clusters) in [
        ("1", capped),
        ("2", vec![e2e_cluster(ID, NAME, "Running")]),
        ("3", vec![]),
    ] {
        Mock::given(method("GET"))
            .and(path(CLUSTERS))
            .and(query_param("page_no", page))
            .respond_with(json_response(200, &list_page(clusters)))
            .mount(&api.server)
            .await;
    }

    // The create's look-up finds the cluster on page 2 and sends nothing; before, the short
    // page 1 ended the look-up and the POST went out beside the cluster.
    let error = api.e2e().create(&e2e_spec()).await.unwrap_err();

    assert!(
        matches!(error, gpucloud::Error::NameTaken { .. }),
        "{error:?}"
    );
    assert_eq!(api.count("POST", CLUSTERS).await, 0);
    assert_eq!(api.count("GET", CLUSTERS).await, 3);
    api.assert_all_matched();
}

/// A list that cannot be read to its end is an error, never a shorter list: more pages than
/// the most read, or a server that ignores the page number and answers page 1 again.
#[tokio::test]
async fn a_list_that_cannot_be_read_to_its_end_is_an_error() {
    // Every page full: the 100th still says more may follow.
    let api = Api::start().await;
    Mock::given(method("GET"))
        .and(path(CLUSTERS))
        .respond_with(|request: &wiremock::Request| {
            let page: i64 = query(request)["page_no"].parse().unwrap();
            json_response(
                200,
                &list_page(vec![e2e_cluster(page, &format!("c-{page}"), "Running")]),
            )
        })
        .mount(&api.server)
        .await;
    let error = api.e2e().list().await.unwrap_err();
    let gpucloud::Error::Decode(decode) = &error else {
        panic!("{error:?}")
    };
    assert!(
        decode.path == "page 100" && decode.message.contains("more pages follow"),
        "{error}"
    );
    assert_eq!(api.count("GET", CLUSTERS).await, 100);
    // …and a create's look-up that cannot finish sends nothing.
    let error = api.e2e().create(&e2e_spec()).await.unwrap_err();
    assert!(matches!(error, gpucloud::Error::Decode(_)), "{error:?}");
    assert_eq!(api.count("POST", CLUSTERS).await, 0);

    // Page 2 repeats page 1.
    let api = Api::start().await;
    mount(
        &api,
        "GET",
        CLUSTERS,
        json_response(200, &list_page(vec![e2e_cluster(7, "other", "Running")])),
    )
    .await;
    let error = api.e2e().list().await.unwrap_err();
    let gpucloud::Error::Decode(decode) = &error else {
        panic!("{error:?}")
    };
    assert!(
        decode.path == "page 2" && decode.message.contains("cluster 7 is listed again"),
        "{error}"
    );
    assert_eq!(api.count("GET", CLUSTERS).await, 2);
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
    Mock::given(method("GET"))
        .and(path(CLUSTERS))
        .and(query_param("page_no", "3"))
        .respond_with(json_response(200, &list_page(vec![])))
        .mount(&api.server)
        .await;

    let result = api
        .e2e()
        .create(&e2e_spec().with_adopt(true))
        .await
        .unwrap();

    assert_eq!(result.outcome, CreateOutcome::Adopted);
    assert_eq!(result.cluster.id, ClusterId::new("1101"));
    assert_eq!(api.count("POST", CLUSTERS).await, 0);
    api.assert_all_matched();
}
