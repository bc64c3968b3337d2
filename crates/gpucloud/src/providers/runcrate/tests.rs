//! Runcrate: the status table and each documented create rule.

use gpucloud_runcrate::types;

use super::state::*;
use super::*;
use crate::cluster::ClusterState;
use crate::spec::{ClusterSize, RuncrateOptions, SoftwareStack};

const OFFER: &str = "offer-h100-8x";

fn spec(nodes: u32) -> ClusterSpec {
    ClusterSpec::new("train", ClusterSize::Nodes(nodes)).with_options(RuncrateOptions {
        offer_id: OFFER.into(),
        idempotency_key: Some("key-1".into()),
        ..Default::default()
    })
}

fn field_of(result: Result<RuncrateCreate, Error>) -> String {
    match result {
        Err(Error::Validation(v)) => v.field,
        other => panic!("expected a validation error, got {other:?}"),
    }
}

#[test]
fn status_table() {
    assert_eq!(
        status_state("provisioning", None),
        ClusterState::Provisioning
    );
    assert_eq!(status_state("ready", None), ClusterState::Ready);
    assert_eq!(
        status_state("failed", Some("no capacity")),
        ClusterState::Failed("no capacity".into())
    );
    assert_eq!(status_state("terminating", None), ClusterState::Deleting);
    assert_eq!(status_state("terminated", None), ClusterState::Deleted);
    assert_eq!(
        status_state("resizing", None),
        ClusterState::Unknown("resizing".into())
    );
}

#[test]
fn documented_response_is_provisioning_and_keeps_price() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/runcrate/create_cluster.response.201.json"
    ))
    .unwrap();
    let response: types::ClusterResponse = serde_json::from_str(&text).unwrap();
    let cluster = view(response.data.clone());
    // The docs example also carries terminated_at (placeholder timestamps), which settles it.
    assert_eq!(cluster.state, ClusterState::Deleted);
    assert_eq!(
        cluster.price.as_ref().map(|p| p.currency.as_str()),
        Some("USD")
    );
    let mut live = response.data.clone();
    live.terminated_at = None;
    live.failure_reason = None;
    assert_eq!(state_of(&live), ClusterState::Provisioning);
}

#[test]
fn spec_maps_to_the_documented_request() {
    let create = create_request(
        &spec(4)
            .with_stack(SoftwareStack::Slurm)
            .with_ssh_keys(["3c90c3cc-0d44-4b50-8888-8dd25736052a"]),
    )
    .unwrap();
    let body = serde_json::to_value(&create.body).unwrap();
    assert_eq!(
        body,
        serde_json::json!({"name": "train", "offer_id": OFFER, "node_count": 4, "stack": "slurm",
            "ssh_key_ids": ["3c90c3cc-0d44-4b50-8888-8dd25736052a"]})
    );
    assert_eq!(create.idempotency_key, "key-1");
    let generated = create_request(&ClusterSpec::new("a", ClusterSize::Nodes(2)).with_options(
        RuncrateOptions {
            offer_id: OFFER.into(),
            ..Default::default()
        },
    ))
    .unwrap();
    assert!(generated.idempotency_key.parse::<uuid::Uuid>().is_ok());
    assert_eq!(
        serde_json::to_value(&generated.body).unwrap()["stack"],
        "none"
    );
}

// Docs: node_count 2–64.
#[test]
fn node_count_is_two_to_sixty_four() {
    assert_eq!(field_of(create_request(&spec(1))), "node_count");
    assert_eq!(field_of(create_request(&spec(65))), "node_count");
    assert!(create_request(&spec(2)).is_ok());
    assert!(create_request(&spec(64)).is_ok());
}

// Docs: name pattern ^[A-Za-z0-9][A-Za-z0-9-]{0,62}$.
#[test]
fn name_follows_the_documented_pattern() {
    for bad in ["", "-train", "train_1", "trän", &"a".repeat(64)] {
        let mut s = spec(2);
        s.name = bad.to_string();
        assert_eq!(field_of(create_request(&s)), "name", "{bad:?}");
    }
    let mut s = spec(2);
    s.name = format!("a{}", "-".repeat(62));
    assert!(create_request(&s).is_ok());
}

// Docs: at most 20 SSH keys.
#[test]
fn at_most_twenty_ssh_keys() {
    let keys: Vec<String> = (0..21).map(|_| uuid::Uuid::new_v4().to_string()).collect();
    assert_eq!(
        field_of(create_request(&spec(2).with_ssh_keys(keys[..21].to_vec()))),
        "ssh_key_ids"
    );
    assert!(create_request(&spec(2).with_ssh_keys(keys[..20].to_vec())).is_ok());
    assert_eq!(
        field_of(create_request(&spec(2).with_ssh_keys(["not-a-uuid"]))),
        "ssh_key_ids"
    );
}

// Docs: Idempotency-Key is 1–255 visible ASCII characters.
#[test]
fn idempotency_key_is_visible_ascii() {
    for bad in ["", "has space", "ключ", &"k".repeat(256)] {
        let s = spec(2).with_options(RuncrateOptions {
            offer_id: OFFER.into(),
            idempotency_key: Some(bad.to_string()),
            ..Default::default()
        });
        assert_eq!(field_of(create_request(&s)), "Idempotency-Key", "{bad:?}");
    }
    // 255 characters is the most it may have.
    let longest = spec(2).with_options(RuncrateOptions {
        offer_id: OFFER.into(),
        idempotency_key: Some("k".repeat(255)),
        ..Default::default()
    });
    assert!(create_request(&longest).is_ok());
}

#[test]
fn what_the_offer_decides_is_rejected() {
    assert_eq!(
        field_of(create_request(&spec(2).with_gpu_model("H100"))),
        "gpu_model"
    );
    assert_eq!(
        field_of(create_request(&spec(2).with_region("us"))),
        "region"
    );
    assert_eq!(
        field_of(create_request(&ClusterSpec::new(
            "a",
            ClusterSize::Nodes(2)
        ))),
        "offer_id"
    );
    let mut s = spec(2);
    s.size = ClusterSize::Gpus(16);
    assert_eq!(field_of(create_request(&s)), "node_count");
}

#[test]
fn a_ttl_by_the_provider_is_refused_runcrate_ends_no_cluster_itself() {
    let spec = spec(1)
        .with_ttl(std::time::Duration::from_secs(3600))
        .with_ttl_by_provider(true);
    assert_eq!(field_of(create_request(&spec)), "ttl_by_provider");
}
