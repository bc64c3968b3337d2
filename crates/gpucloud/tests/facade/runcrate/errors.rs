//! Error envelopes mapped to typed errors; refusals that created nothing are not retried.

use gpucloud::{ClusterClient, Error};
use serde_json::Value;

use super::{CLUSTERS, error_body, mount_create, spec};
use crate::support::*;

#[tokio::test]
async fn another_conflict_is_returned_at_once() {
    let api = Api::start().await;
    mount_create(
        &api,
        json_response(
            409,
            &error_body("name_taken", "a cluster named train exists", None),
        ),
    )
    .await;

    let error = api.runcrate().create(&spec(None)).await.unwrap_err();

    let Error::Conflict(api_error) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(api_error.code.as_deref(), Some("name_taken"));
    assert_eq!(api_error.reason, None);
    assert!(!error.is_retryable());
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn budget_reached_is_insufficient_funds_and_not_retried() {
    let api = Api::start().await;
    let body = error_body("BUDGET_REACHED", "monthly budget reached", None);
    mount_create(&api, json_response(402, &body)).await;

    let error = api.runcrate().create(&spec(None)).await.unwrap_err();

    let Error::InsufficientFunds(api_error) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(api_error.status, 402);
    assert_eq!(api_error.code.as_deref(), Some("BUDGET_REACHED"));
    assert_eq!(api_error.message.as_deref(), Some("monthly budget reached"));
    assert_eq!(
        serde_json::from_str::<Value>(&api_error.body).unwrap(),
        body
    );
    assert_eq!(
        error.to_string(),
        "insufficient funds or quota: runcrate create_cluster answered HTTP 402 [BUDGET_REACHED]: monthly budget reached"
    );
    assert!(!error.is_retryable());
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
    assert!(api.sleeps().is_empty());
    api.assert_all_matched();
}

#[tokio::test]
async fn no_capacity_503_is_not_retried() {
    let api = Api::start().await;
    mount_create(
        &api,
        json_response(
            503,
            &error_body("no_capacity", "no capacity for this offer", None),
        ),
    )
    .await;

    let error = api.runcrate().create(&spec(None)).await.unwrap_err();

    let Error::NoCapacity(api_error) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(api_error.status, 503);
    assert_eq!(
        api.count("POST", CLUSTERS).await,
        1,
        "a refusal that created nothing is final for this create"
    );
    assert!(api.sleeps().is_empty());
}

#[tokio::test]
async fn launch_refused_is_no_capacity_and_not_retried() {
    let api = Api::start().await;
    mount_create(
        &api,
        json_response(
            502,
            &error_body("launch_refused", "the host refused the launch", None),
        ),
    )
    .await;

    let error = api.runcrate().create(&spec(None)).await.unwrap_err();

    assert!(matches!(error, Error::NoCapacity(_)), "{error:?}");
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
}

#[tokio::test]
async fn no_capacity_maps_status_503_and_launch_refused() {
    // The mapping half of the two ignored tests above, which holds today.
    for (status, code) in [(503u16, "no_capacity"), (502, "launch_refused")] {
        let api = Api::start().await;
        mount_create(
            &api,
            json_response(status, &error_body(code, "refused", None)),
        )
        .await;
        let client = ClusterClient::runcrate(
            api.runcrate_config()
                .with_retry_policy(gpucloud::RetryPolicy::none()),
        )
        .unwrap();

        let error = client.create(&spec(None)).await.unwrap_err();

        let Error::NoCapacity(api_error) = &error else {
            panic!("{status}: {error:?}")
        };
        assert_eq!(
            (api_error.status, api_error.code.as_deref()),
            (status, Some(code))
        );
        assert_eq!(api.count("POST", CLUSTERS).await, 1);
    }
}

#[tokio::test]
async fn invalid_key_is_authentication() {
    let api = Api::start().await;
    mount_create(
        &api,
        json_response(401, &error_body("unauthorized", "invalid API key", None)),
    )
    .await;

    let error = api.runcrate().create(&spec(None)).await.unwrap_err();

    assert!(matches!(error, Error::Authentication(_)), "{error:?}");
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
    api.assert_all_matched();
}
