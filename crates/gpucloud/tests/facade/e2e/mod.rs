//! E2E Networks through the facade against a mock API: scoping query parameters and both
//! credentials on every request, error bodies in every shape (HTTP 200 with an error `code`,
//! Django's `{detail}`, proxy HTML), list pagination, creates reconciled by name.
//!
//! One module per behaviour: `scoping`, `creates`, `error_bodies`, `pagination`, `delete`. The
//! spec every create sends is `support::e2e_spec()`.

mod creates;
mod delete;
mod error_bodies;
mod pagination;
mod scoping;

use serde_json::{Value, json};

const CLUSTERS: &str = "/distributed_jobs_v2/cluster/";
const ID: i64 = 101;
const NAME: &str = "train-e2e";

fn one() -> String {
    format!("{CLUSTERS}{ID}/")
}

/// The request body `e2e_spec()` must become.
fn expected_body() -> Value {
    json!({
        "name": NAME,
        "image_version_id": 2,
        "ssh_key_ids": [1001],
        "security_group_id": 1001,
        "script_added": false,
        "sku_id": 139,
        "no_of_nodes": 2,
        "sku_item_price_id": 645,
    })
}

fn list_page(clusters: Vec<Value>) -> Value {
    json!({"code": 200, "data": clusters, "errors": {}, "message": "Success"})
}
