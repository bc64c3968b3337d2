//! Error bodies in every shape E2E answers with: HTTP 200 or 201 carrying an error `code`,
//! Django's `{detail}`, `{status_code}`, proxy HTML; which of them are retried.

use gpucloud::{ClusterId, ClusterState, Error};
use serde_json::{Value, json};

use super::{CLUSTERS, ID, NAME, list_page, one};
use crate::support::*;

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

    let error = api.e2e().create(&e2e_spec()).await.unwrap_err();

    let Error::Api(api_error) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(api_error.status, 400);
    assert_eq!(api_error.code.as_deref(), Some("400"));
    assert_eq!(
        api_error.message.as_deref(),
        Some("Bad Request (sku_id: This field is required.)"),
        "the field errors are part of the message"
    );
    assert_eq!(
        error.to_string(),
        "e2e create_cluster answered HTTP 400: Bad Request (sku_id: This field is required.)"
    );
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

    let error = api.e2e().create(&e2e_spec()).await.unwrap_err();

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

    let error = api.e2e().create(&e2e_spec()).await.unwrap_err();

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
    assert_eq!(
        api_error.message.as_deref(),
        Some("Bad Request (cluster_id: Invalid cluster.)"),
        "the field errors are part of the message"
    );
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
    e2e_list_ends_after_page_1(&api, CLUSTERS).await;
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
    // Page 1 twice (the 500 in a 200, then the answer), then the empty page 2.
    assert_eq!(api.count("GET", CLUSTERS).await, 3);
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

/// E2E's own CLI (e2ectl 0.6.1) takes an HTTP 2xx as a failure when the body's `status_code`
/// is ≥ 400, its `detail` is a non-empty string or `errors` is `true`; so does the facade.
#[tokio::test]
async fn get_http_200_with_the_cli_s_other_failure_signals_is_an_error() {
    let cases = [
        (
            json!({"status_code": 404, "message": "Cluster not found"}),
            "NotFound",
            404,
            "Cluster not found",
        ),
        (
            json!({"detail": "Invalid token."}),
            "Api",
            200,
            "Invalid token.",
        ),
        (
            json!({"errors": true, "message": "Something failed"}),
            "Api",
            200,
            "Something failed",
        ),
    ];
    for (body, kind, status, message) in cases {
        let api = Api::start().await;
        mount(&api, "GET", &one(), json_response(200, &body)).await;
        let error = api
            .e2e()
            .get(&ClusterId::new(ID.to_string()))
            .await
            .unwrap_err();
        let (found, api_error) = match &error {
            Error::NotFound(api_error) => ("NotFound", api_error),
            Error::Api(api_error) => ("Api", api_error),
            other => panic!("{body}: {other:?}"),
        };
        assert_eq!(found, kind, "{body}");
        assert_eq!(api_error.status, status, "{body}");
        assert_eq!(api_error.message.as_deref(), Some(message), "{body}");
        assert_eq!(api.count("GET", &one()).await, 1, "{body}");
    }
}
