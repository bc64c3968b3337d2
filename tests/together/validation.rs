//! Builders rejecting a missing required value before any network call.

use std::fmt::Debug;

use gpucloud_integration_tests::{assert_nothing_sent, invalid_request};
use gpucloud_together::{Error, types};
use wiremock::MockServer;

use crate::clusters::cluster_json;
use crate::harness::serve;

/// `result` is the builder's rejection with `message`, and nothing reached the server.
async fn assert_rejected<T: Debug>(
    server: &MockServer,
    result: Result<T, Error<types::ErrorResponse>>,
    message: &str,
) {
    assert_eq!(invalid_request(result), message);
    assert_nothing_sent(server).await;
}

#[tokio::test]
async fn missing_required_values_are_rejected_before_sending() {
    let (server, client) = serve("POST", "/compute/clusters", 200, cluster_json()).await;

    let body = types::GpuClusterCreateRequest::builder()
        .region("us-central-8")
        .gpu_type(types::GpuType::H100Sxm)
        .num_gpus(8_i64)
        .billing_type(types::BillingType::OnDemand);
    let result = client.create_cluster().body(body).send().await;
    let message = "conversion to `GpuClusterCreateRequest` for body failed: \
                   no value supplied for cluster_name";
    assert_rejected(&server, result, message).await;

    let result = client
        .create_cluster()
        .body_map(|b| b.region("us-central-8"))
        .send()
        .await;
    assert_rejected(&server, result, "no value supplied for billing_type").await;

    let result = client.create_cluster().send().await;
    assert_rejected(&server, result, "no value supplied for billing_type").await;

    let result = client.get_cluster().send().await;
    assert_rejected(&server, result, "cluster_id was not initialized").await;

    let result = client.get_add_on().cluster_id("c-1").send().await;
    assert_rejected(&server, result, "addon_id was not initialized").await;

    let result = client
        .create_remediation()
        .cluster_id("c-1")
        .instance_id("i-1")
        .body(types::CreateRemediationRequest::builder().reason(Some("x".to_string())))
        .send()
        .await;
    let message = "conversion to `CreateRemediationRequest` for body failed: \
                   no value supplied for mode";
    assert_rejected(&server, result, message).await;

    let result = client.update_volume().send().await;
    assert_rejected(&server, result, "no value supplied for volume_id").await;
}
