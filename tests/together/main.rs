//! Integration tests for `gpucloud-together` against a local mock server, one module per API
//! area.
//!
//! - `op_*`: one test per operation of `specs/together.yaml` (the exact request sent and the typed
//!   decoding of a realistic response); `every_spec_operation_has_a_test` keeps the list complete.
//! - `doc_*`: the docs page's example request and response (`tests/fixtures/together`).
//! - `error_*`: the two error envelopes, served with 4xx and 5xx statuses.
//! - `forward_*` / `nulls_*`: unknown enum values, unknown fields and `null`s.
//! - `invalid_*` / `key_*`: bodies that are not JSON, and the API key never leaking into errors.
//! - `missing_*`: builders rejecting a missing required value before any network call.

// `allow-unwrap-in-tests` covers `#[test]` bodies only, not the helpers they share.
#![allow(clippy::unwrap_used)]

mod add_ons;
mod alerts;
mod clusters;
mod documented;
mod errors;
mod forward;
mod harness;
mod invalid_payloads;
mod key_hygiene;
mod remediations;
mod validation;
mod volumes;

use serde_json::{Value, json};

const PROVIDER: &str = "together";
const KEY: &str = "tgt-test-key-4f1c0a9e7b2d";
/// The path stem of [`gpucloud_together::DEFAULT_BASE_URL`], kept in the mock base URL.
const STEM: &str = "/v1";

/// The source of every module, searched for the `op_<operationId>` tests.
const TEST_SOURCES: &[&str] = &[
    include_str!("add_ons.rs"),
    include_str!("alerts.rs"),
    include_str!("clusters.rs"),
    include_str!("documented.rs"),
    include_str!("errors.rs"),
    include_str!("forward.rs"),
    include_str!("harness.rs"),
    include_str!("invalid_payloads.rs"),
    include_str!("key_hygiene.rs"),
    include_str!("remediations.rs"),
    include_str!("validation.rs"),
    include_str!("volumes.rs"),
];

#[test]
fn every_spec_operation_has_a_test() {
    let spec_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../specs/together.yaml");
    let spec: Value = serde_saphyr::from_str(&std::fs::read_to_string(spec_path).unwrap()).unwrap();
    assert_eq!(
        spec["servers"][0]["url"],
        json!(gpucloud_together::DEFAULT_BASE_URL)
    );
    assert!(gpucloud_together::DEFAULT_BASE_URL.ends_with(STEM));
    let mut ids = Vec::new();
    for (_, item) in spec["paths"].as_object().unwrap() {
        for verb in ["get", "put", "post", "delete", "patch"] {
            if let Some(id) = item.get(verb).and_then(|op| op["operationId"].as_str()) {
                let test = format!("async fn op_{id}(");
                assert!(
                    TEST_SOURCES.iter().any(|source| source.contains(&test)),
                    "no test for {id}"
                );
                ids.push(id.to_string());
            }
        }
    }
    assert_eq!(ids.len(), 23, "{ids:?}");
}
