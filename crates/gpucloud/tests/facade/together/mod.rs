//! Together through the facade against a mock API: creates reconciled by name (never re-sent
//! blindly), reads and deletes retried with backoff and `Retry-After`, error mapping, decode
//! errors naming the JSON path.
//!
//! One module per behaviour: `reconciliation`, `retries`, `errors`, `delete`, `decoding`. The
//! spec every create sends is `support::together_spec()`.

mod decoding;
mod delete;
mod errors;
mod reconciliation;
mod retries;

use crate::support::*;
use serde_json::{Value, json};

const CLUSTERS: &str = "/compute/clusters";
const NAME: &str = "train-42";
const ID: &str = "c-7f3a";

/// The request body `together_spec()` must become (Together's `GPUClusterCreateRequest`).
fn expected_body() -> Value {
    json!({
        "cluster_name": NAME,
        "gpu_type": "H100_SXM",
        "num_gpus": 16,
        "region": "us-central-8",
        "billing_type": "ON_DEMAND",
        "nvidia_version_id": "cuda-12.8-driver-570",
    })
}

fn created() -> Value {
    together_cluster(
        ID,
        NAME,
        "WaitingForControlPlaneNodes",
        &["CLUSTER_PHASE_QUEUED"],
    )
}

fn envelope(message: &str) -> Value {
    json!({"error": {"message": message, "type": "server_error", "param": null, "code": null}})
}

async fn mount_list(api: &Api, responder: impl wiremock::Respond + 'static) {
    mount(api, "GET", CLUSTERS, responder).await;
}

async fn mount_create(api: &Api, responder: impl wiremock::Respond + 'static) {
    mount(api, "POST", CLUSTERS, responder).await;
}

async fn mount_get(api: &Api, responder: impl wiremock::Respond + 'static) {
    mount(api, "GET", format!("{CLUSTERS}/{ID}"), responder).await;
}
