//! Runcrate through the facade against a mock API: one `Idempotency-Key` per logical create,
//! reused across retries; 200 vs 201 outcomes; error envelope mapping; no list or delete.
//!
//! One module per behaviour: `idempotency`, `errors`, `reads`.

mod errors;
mod idempotency;
mod reads;

use crate::support::*;
use gpucloud::{ClusterSize, ClusterSpec, RuncrateOptions};
use serde_json::{Value, json};

const CLUSTERS: &str = "/clusters";
const ID: &str = "3c90c3cc-0d44-4b50-8888-8dd25736052a";
const NAME: &str = "train";

fn spec(key: Option<&str>) -> ClusterSpec {
    let mut options = RuncrateOptions::for_offer("offer-h100x8-iad");
    options.idempotency_key = key.map(str::to_string);
    ClusterSpec::new(NAME, ClusterSize::Nodes(2)).with_options(options)
}

fn expected_body() -> Value {
    json!({"name": NAME, "offer_id": "offer-h100x8-iad", "node_count": 2, "stack": "none"})
}

fn error_body(code: &str, message: &str, reason: Option<&str>) -> Value {
    let details = match reason {
        Some(reason) => json!({ "reason": reason }),
        None => json!({}),
    };
    json!({"error": {"code": code, "message": message, "details": details}})
}

async fn mount_create(api: &Api, responder: impl wiremock::Respond + 'static) {
    mount(api, "POST", CLUSTERS, responder).await;
}

/// The Idempotency-Key of every POST, in order.
async fn keys(api: &Api) -> Vec<String> {
    api.requests("POST", CLUSTERS)
        .await
        .iter()
        .map(|r| header(r, "idempotency-key").expect("Idempotency-Key"))
        .collect()
}
