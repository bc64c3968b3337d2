//! The two error envelopes, from the docs and realistic, served with 4xx and 5xx statuses.

use gpucloud_integration_tests::{error_response, fixture};
use gpucloud_together::{ResponseValue, types};
use serde_json::json;

use crate::PROVIDER;
use crate::harness::{assert_no_key, serve};

async fn doc_error(file: &str, status: u16) -> ResponseValue<types::ErrorResponse> {
    let (_server, client) =
        serve("POST", "/compute/clusters", status, fixture(PROVIDER, file)).await;
    let body = types::GpuClusterCreateRequest::builder()
        .region("us-central-8")
        .gpu_type("H100_SXM")
        .num_gpus(8_i64)
        .cluster_name("c")
        .billing_type("ON_DEMAND");
    let result = client.create_cluster().body(body).send().await;
    let err = result.as_ref().unwrap_err();
    assert_eq!(err.status().map(|s| s.as_u16()), Some(status));
    assert_no_key(err);
    error_response(result)
}

#[tokio::test]
async fn error_grpc_gateway_envelope_decodes_for_4xx_and_5xx() {
    for status in [400, 404, 409, 500, 503] {
        let v = doc_error("error.grpc_gateway.json", status).await;
        assert_eq!(v.status().as_u16(), status);
        let e = v.into_inner();
        assert_eq!(e.code, Some(json!(0)));
        assert_eq!(e.message.as_deref(), Some("string"));
        assert!(e.details.is_empty());
        assert_eq!(e.error, None);
    }
}

#[tokio::test]
async fn error_errordata_envelope_decodes_for_4xx_and_5xx() {
    for status in [401, 422, 429, 500, 502] {
        let v = doc_error("error.errordata.json", status).await;
        assert_eq!(v.status().as_u16(), status);
        let e = v.into_inner();
        assert_eq!((e.code, e.message), (None, None));
        let data = e.error.unwrap();
        assert_eq!(data.message.as_deref(), Some("string"));
        assert_eq!(data.type_.as_deref(), Some("string"));
        assert_eq!((data.param, data.code), (None, None));
    }
}

#[tokio::test]
async fn error_realistic_grpc_status_with_details() {
    let body = json!({
        "code": 5,
        "message": "cluster c-gone not found",
        "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "NOT_FOUND"}]
    });
    let (_server, client) = serve("GET", "/compute/clusters/c-gone", 404, body).await;
    let v = error_response(client.get_cluster().cluster_id("c-gone").send().await);
    assert_eq!(v.status(), 404);
    let e = v.into_inner();
    assert_eq!(e.code, Some(json!(5)));
    assert_eq!(e.message.as_deref(), Some("cluster c-gone not found"));
    assert_eq!(
        e.details[0]["@type"],
        "type.googleapis.com/google.rpc.ErrorInfo"
    );
    assert_eq!(e.details[0]["reason"], "NOT_FOUND");
}
