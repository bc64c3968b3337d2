//! Creates reconciled by name: looked up before the POST and after an ambiguous failure.

use gpucloud::{ClusterId, ClusterState, CreateOutcome, Price};

use super::{CLUSTERS, ID, NAME, expected_body, list_page};
use crate::support::*;

#[tokio::test]
async fn create_posts_once_when_no_cluster_has_the_name() {
    let api = Api::start().await;
    e2e_list_ends_after_page_1(&api, CLUSTERS).await;
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

    let result = api.e2e().create(&e2e_spec()).await.unwrap();

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
    // Page 1 lists one cluster; page 2, empty, ends the list.
    assert_eq!(api.count("GET", CLUSTERS).await, 2);
    api.assert_all_matched();
}

/// Someone else's cluster of the name is not ours: taken only when adopted.
#[tokio::test]
async fn create_adopts_a_cluster_of_the_name_only_when_asked() {
    let api = Api::start().await;
    e2e_list_ends_after_page_1(&api, CLUSTERS).await;
    mount(
        &api,
        "GET",
        CLUSTERS,
        json_response(200, &list_page(vec![e2e_cluster(ID, NAME, "Running")])),
    )
    .await;

    let error = api.e2e().create(&e2e_spec()).await.unwrap_err();
    assert!(
        matches!(&error, gpucloud::Error::NameTaken { cluster, adoptable: true, .. }
            if cluster.as_str() == "101"),
        "{error:?}"
    );

    let result = api
        .e2e()
        .create(&e2e_spec().with_adopt(true))
        .await
        .unwrap();

    assert_eq!(result.outcome, CreateOutcome::Adopted);
    assert_eq!(result.attempts, 0);
    assert_eq!(result.cluster.state, ClusterState::Ready);
    assert_eq!(api.count("POST", CLUSTERS).await, 0);
    api.assert_all_matched();
}

#[tokio::test]
async fn create_after_an_html_502_is_reconciled_through_the_list() {
    let api = Api::start().await;
    e2e_list_ends_after_page_1(&api, CLUSTERS).await;
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

    let result = api.e2e().create(&e2e_spec()).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::CreatedReconciled);
    assert_eq!(result.attempts, 1);
    assert_eq!(result.cluster.id, ClusterId::new("101"));
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
    // An empty list before the POST; after it, a page with the cluster and an empty page 2.
    assert_eq!(api.count("GET", CLUSTERS).await, 3);
    assert!(
        api.sleeps().is_empty(),
        "the look-up follows the failure at once"
    );
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

    let result = api.e2e().create(&e2e_spec()).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::Created);
    assert_eq!(result.attempts, 2);
    assert_eq!(api.count("POST", CLUSTERS).await, 2);
    assert_eq!(api.count("GET", CLUSTERS).await, 1 + SETTLE_LOOK_UPS);
    assert_eq!(api.sleeps(), settle_window_pauses());
    api.assert_all_matched();
}

/// A failed or deleting cluster of the name is never the create's result, adopted or not.
#[tokio::test]
async fn a_failed_or_deleting_cluster_of_the_name_is_never_taken() {
    for status in ["Failed", "Deleting"] {
        let api = Api::start().await;
        e2e_list_ends_after_page_1(&api, CLUSTERS).await;
        mount(
            &api,
            "GET",
            CLUSTERS,
            json_response(200, &list_page(vec![e2e_cluster(ID, NAME, status)])),
        )
        .await;
        for adopt in [false, true] {
            let error = api
                .e2e()
                .create(&e2e_spec().with_adopt(adopt))
                .await
                .unwrap_err();
            assert!(
                matches!(
                    error,
                    gpucloud::Error::NameTaken {
                        adoptable: false,
                        ..
                    }
                ),
                "{status}: {error:?}"
            );
        }
        assert_eq!(api.count("POST", CLUSTERS).await, 0, "{status}");
    }
}
