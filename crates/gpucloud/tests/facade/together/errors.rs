//! Error mapping: each refusal becomes its typed `Error` with the provider's message, code and
//! raw body, returned at once; an invalid spec sends nothing.

use gpucloud::{ClusterId, ClusterSize, Error};
use serde_json::json;

use super::{CLUSTERS, ID, envelope, mount_create, mount_get, mount_list};
use crate::support::*;

#[tokio::test]
async fn create_rejected_with_400_is_returned_at_once_with_the_envelope() {
    let api = Api::start().await;
    mount_list(&api, json_response(200, &together_list(&[]))).await;
    let body = r#"{"error":{"message":"num_gpus exceeds regional quota","type":"invalid_request_error","param":"num_gpus","code":"quota_exceeded"}}"#;
    mount_create(&api, raw_response(400, body, "application/json")).await;

    let error = api.together().create(&together_spec()).await.unwrap_err();

    // A refusal about quota is read as such (a placement fails over on it).
    let Error::InsufficientFunds(api_error) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(api_error.status, 400);
    assert_eq!(
        api_error.message.as_deref(),
        Some("num_gpus exceeds regional quota")
    );
    assert_eq!(api_error.code.as_deref(), Some("quota_exceeded"));
    assert_eq!(api_error.reason, None, "Together's envelope has no reason");
    assert_eq!(api_error.body, body, "the raw body is kept verbatim");
    assert!(!error.is_retryable());
    assert!(!error.is_ambiguous());
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
    assert_eq!(api.count("GET", CLUSTERS).await, 1);
    assert!(api.sleeps().is_empty());
    api.assert_all_matched();
}

#[tokio::test]
async fn create_grpc_gateway_error_shape_is_mapped() {
    let api = Api::start().await;
    mount_list(&api, json_response(200, &together_list(&[]))).await;
    mount_create(
        &api,
        json_response(
            403,
            &json!({"code": 7, "message": "permission denied", "details": []}),
        ),
    )
    .await;

    let error = api.together().create(&together_spec()).await.unwrap_err();

    let Error::Authentication(api_error) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(api_error.status, 403);
    assert_eq!(api_error.code.as_deref(), Some("7"));
    assert_eq!(api_error.message.as_deref(), Some("permission denied"));
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn create_invalid_spec_sends_nothing() {
    let api = Api::start().await;
    let bad = together_spec().with_size(ClusterSize::Gpus(12));

    let error = api.together().create(&bad).await.unwrap_err();

    let Error::Validation(validation) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(validation.field, "num_gpus");
    assert!(api.all().await.is_empty());
}

#[tokio::test]
async fn get_html_502_is_an_api_error_keeping_the_body() {
    let api = Api::start().await;
    mount_get(&api, raw_response(502, HTML_502, "text/html")).await;

    let error = api.together().get(&ClusterId::new(ID)).await.unwrap_err();

    assert_eq!(error.status(), Some(502), "{error:?}");
    let Error::Api(api_error) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(api_error.body, HTML_502);
}

#[tokio::test]
async fn get_404_is_not_found_and_not_retried() {
    let api = Api::start().await;
    mount_get(
        &api,
        json_response(404, &json!({"code": 5, "message": "cluster not found"})),
    )
    .await;

    let error = api.together().get(&ClusterId::new(ID)).await.unwrap_err();

    let Error::NotFound(api_error) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(api_error.message.as_deref(), Some("cluster not found"));
    assert_eq!(api_error.operation, "get_cluster");
    assert_eq!(api.count("GET", &format!("{CLUSTERS}/{ID}")).await, 1);
    assert!(api.sleeps().is_empty());
    api.assert_all_matched();
}

#[tokio::test]
async fn get_400_is_not_retried() {
    let api = Api::start().await;
    mount_get(&api, json_response(400, &envelope("bad cluster id"))).await;

    let error = api.together().get(&ClusterId::new(ID)).await.unwrap_err();

    assert!(matches!(error, Error::Api(_)), "{error:?}");
    assert_eq!(error.status(), Some(400));
    assert!(!error.is_retryable());
    assert_eq!(api.count("GET", &format!("{CLUSTERS}/{ID}")).await, 1);
    assert!(api.sleeps().is_empty());
    api.assert_all_matched();
}
