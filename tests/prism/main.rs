//! Our Together client against Together's own contract, judged by a tool nobody here wrote:
//! [Stoplight Prism](https://github.com/stoplightio/prism) (`@stoplight/prism-cli`, pinned in
//! `.ci/prism/package.json`) serving Together's published OpenAPI document.
//!
//! - `static_mode`: every one of the 23 operations sends a valid request — zero request
//!   violations in Prism's own log — and Prism's example answer decodes into our types.
//! - `dynamic_mode`: Prism `--dynamic` answers with random schema-valid bodies;
//!   [`DYNAMIC_ANSWERS`] of them per operation must all decode.
//! - `facade_*`: the facade's create, get, list and delete through the same mock.
//!
//! Without Together's document (`TOGETHER_OPENAPI_REFERENCE`) or Prism each test prints one
//! `skipped: …` line and passes; CI installs Prism and sets `PRISM_BIN`, so there it must run.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod facade;
mod operations;
mod server;

use gpucloud_together::Client;
use operations::{OPERATIONS, call};
use server::Prism;

/// Random answers decoded per operation in dynamic mode.
pub const DYNAMIC_ANSWERS: usize = 50;

/// The key Prism's security check sees (any bearer token passes it).
pub const KEY: &str = "tgt-prism-key-0c1d";

fn client(prism: &Prism) -> Client {
    Client::from_api_key(&prism.base_url, KEY).unwrap()
}

#[test]
fn the_spec_has_the_operations_called_here() {
    let spec = concat!(env!("CARGO_MANIFEST_DIR"), "/../specs/together.yaml");
    let spec: serde_json::Value =
        serde_saphyr::from_str(&std::fs::read_to_string(spec).unwrap()).unwrap();
    let mut ids = Vec::new();
    for item in spec["paths"].as_object().unwrap().values() {
        for verb in ["get", "put", "post", "delete", "patch"] {
            if let Some(id) = item.get(verb).and_then(|op| op["operationId"].as_str()) {
                ids.push(id.to_string());
            }
        }
    }
    ids.sort();
    let mut called = OPERATIONS.map(String::from).to_vec();
    called.sort();
    assert_eq!(ids, called);
}

#[tokio::test]
async fn static_mode_every_request_is_valid_and_every_example_decodes() {
    let (document, bin) = tools_or_skip!();
    let prism = Prism::start(&bin, &document, false);
    let client = client(&prism);
    let mut failures = Vec::new();
    for op in OPERATIONS {
        if let Err(e) = call(&client, op).await {
            failures.push(e);
        }
    }
    prism.settle(OPERATIONS.len());
    let violations = prism.violations();
    println!(
        "prism static: {} operations, {} requests received by Prism, {} request violations, {} decode failures",
        OPERATIONS.len(),
        prism.requests_received(),
        violations.len(),
        failures.len()
    );
    assert_eq!(
        prism.requests_received(),
        OPERATIONS.len(),
        "{}",
        prism.log().join("\n")
    );
    assert!(
        violations.is_empty(),
        "Prism's validator:\n{}",
        violations.join("\n")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test]
async fn dynamic_mode_random_answers_of_every_operation_decode() {
    let (document, bin) = tools_or_skip!();
    let prism = Prism::start(&bin, &document, true);
    let client = client(&prism);
    let mut failures = Vec::new();
    let mut decoded = 0;
    for op in OPERATIONS {
        for _ in 0..DYNAMIC_ANSWERS {
            match call(&client, op).await {
                Ok(()) => decoded += 1,
                Err(e) => failures.push(e),
            }
        }
    }
    let total = OPERATIONS.len() * DYNAMIC_ANSWERS;
    prism.settle(total);
    let violations = prism.violations();
    println!(
        "prism dynamic: {} operations × {DYNAMIC_ANSWERS} random answers: {decoded} of {total} decoded, {} request violations",
        OPERATIONS.len(),
        violations.len()
    );
    assert!(
        violations.is_empty(),
        "Prism's validator:\n{}",
        violations.join("\n")
    );
    assert!(
        failures.is_empty(),
        "{} of {total} answers did not decode:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
