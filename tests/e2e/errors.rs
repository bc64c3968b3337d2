//! Documented error fixtures, the other error shapes, and failures reported with HTTP 200.

use gpucloud_e2e::types::{self, Location};
use gpucloud_integration_tests::{error_response, fixture, fixture_index, mock_server};
use serde_json::json;
use wiremock::ResponseTemplate;

use crate::harness::{assert_no_secret, client, create_answered, serve};
use crate::{CLUSTER, PROJECT, PROVIDER};

#[tokio::test]
async fn every_indexed_error_fixture_is_an_error_response() {
    let errors: Vec<_> = fixture_index(PROVIDER)
        .into_iter()
        .filter(|e| e.kind == "error")
        .collect();
    assert_eq!(errors.len(), 3);
    for entry in errors {
        assert_eq!(entry.schema, "E2eError");
        let status = entry.status.unwrap();
        let doc = fixture(PROVIDER, &entry.file);
        let result = create_answered(ResponseTemplate::new(status).set_body_json(&doc)).await;
        assert_no_secret(result.as_ref().unwrap_err());
        let value = error_response(result);
        assert_eq!(value.status().as_u16(), status);
        let error = value.into_inner();
        match entry.file.as_str() {
            "error.400.json" => {
                assert_eq!(error.code, Some(400));
                assert_eq!(error.message.as_deref(), Some("Bad Request"));
                assert_eq!(
                    error.errors,
                    Some(json!({"sku_id": ["This field is required."]}))
                );
                assert_eq!(error.detail, None);
            }
            "error.401.json" => {
                assert_eq!(error.code, Some(401));
                assert_eq!(error.message.as_deref(), Some("Unauthorized access."));
                assert_eq!(error.errors, None);
                assert_eq!(error.detail, None);
            }
            "error.401.detail.json" => {
                assert_eq!(
                    error,
                    types::E2eError {
                        detail: Some("Authentication credentials were not provided.".into()),
                        ..Default::default()
                    }
                );
            }
            other => panic!("unexpected error fixture {other}"),
        }
    }
}

#[tokio::test]
async fn status_code_error_shape_and_other_operations_errors_decode() {
    let server = mock_server().await;
    serve(
        &server,
        "GET",
        "/distributed_jobs_v2/cluster/",
        401,
        json!({"status_code": 401, "message": "Invalid token"}),
    )
    .await;
    serve(
        &server,
        "DELETE",
        "/distributed_jobs_v2/cluster/101/",
        400,
        json!({"code": 400, "errors": {"cluster_id": ["Cluster is still creating."]}, "message": "Bad Request"}),
    )
    .await;
    let c = client(&server);

    let value = error_response(
        c.list_clusters()
            .project_id(PROJECT)
            .location(Location::Delhi)
            .send()
            .await,
    );
    assert_eq!(value.status().as_u16(), 401);
    assert_eq!(value.status_code, Some(401));
    assert_eq!(value.message.as_deref(), Some("Invalid token"));
    assert_eq!(value.code, None);

    let value = error_response(
        c.delete_cluster()
            .cluster_id(CLUSTER)
            .project_id(PROJECT)
            .location(Location::Delhi)
            .send()
            .await,
    );
    assert_eq!(value.status().as_u16(), 400);
    assert_eq!(
        value.errors.as_ref().unwrap()["cluster_id"][0],
        json!("Cluster is still creating.")
    );
}

#[tokio::test]
async fn failure_reported_with_http_200_is_an_ok_envelope_the_caller_must_check() {
    // E2E sometimes answers HTTP 200 with `code >= 400` or `errors: true`; the generated client
    // returns Ok and the envelope carries the failure.
    let server = mock_server().await;
    serve(
        &server,
        "GET",
        "/distributed_jobs_v2/cluster/",
        200,
        json!({"code": 400, "data": [], "errors": true, "message": "Invalid project"}),
    )
    .await;
    let list = client(&server)
        .list_clusters()
        .project_id(PROJECT)
        .location(Location::Delhi)
        .send()
        .await
        .unwrap()
        .into_inner();
    assert_eq!(list.code, Some(400));
    assert_eq!(list.errors, Some(json!(true)));
    assert_eq!(list.message.as_deref(), Some("Invalid project"));
}
