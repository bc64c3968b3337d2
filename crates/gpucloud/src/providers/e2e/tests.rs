//! E2E: the status table and each documented create rule.

use super::state::*;
use super::*;
use crate::cluster::ClusterState;
use crate::spec::{ClusterSize, E2eOptions, E2eSfsMount};

fn options() -> E2eOptions {
    E2eOptions {
        image_version_id: 11,
        sku_id: 22,
        sku_item_price_id: 33,
        security_group_id: 44,
        ..Default::default()
    }
}

fn spec() -> ClusterSpec {
    ClusterSpec::new("train", ClusterSize::Nodes(2))
        .with_ssh_keys(["7"])
        .with_options(options())
}

fn field_of(result: Result<types::CreateClusterRequest, Error>) -> String {
    match result {
        Err(Error::Validation(v)) => v.field,
        other => panic!("expected a validation error, got {other:?}"),
    }
}

#[test]
fn status_table() {
    assert_eq!(status_state("Creating"), ClusterState::Provisioning);
    assert_eq!(status_state("Running"), ClusterState::Ready);
    assert_eq!(
        status_state("Failed"),
        ClusterState::Failed("Failed".into())
    );
    assert_eq!(status_state("Deleting"), ClusterState::Deleting);
    assert_eq!(
        status_state("Hibernating"),
        ClusterState::Unknown("Hibernating".into())
    );
}

#[test]
fn documented_response_view() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/e2e/create_cluster.response.201.json"
    ))
    .unwrap();
    let response: types::ClusterResponse = serde_json::from_str(&text).unwrap();
    let cluster = view(response.data.clone().unwrap());
    assert_eq!(cluster.id.as_str(), "101");
    assert_eq!(cluster.state, ClusterState::Provisioning);
    assert_eq!(cluster.phase.as_deref(), Some("Creating"));
    // ssh_public_ip is "" before assignment: no login node yet.
    assert!(cluster.nodes.is_empty());
    // Once assigned, the login node comes first, with that address.
    let mut assigned = response.data.unwrap();
    assigned.ssh_public_ip = Some("203.0.113.9".into());
    let cluster = view(assigned);
    assert_eq!(cluster.nodes[0].id, "login");
    assert_eq!(cluster.nodes[0].public_ip.as_deref(), Some("203.0.113.9"));
}

#[test]
fn spec_maps_to_the_documented_body() {
    let spec = spec().with_options(E2eOptions {
        lifecycle_script: Some("echo hi".into()),
        sfs_mounts: vec![E2eSfsMount {
            id: 5,
            name: "data".into(),
            mount_path: "/mnt/data".into(),
        }],
        ..options()
    });
    let body = serde_json::to_value(create_request(&spec).unwrap()).unwrap();
    assert_eq!(
        body,
        serde_json::json!({
            "name": "train", "image_version_id": 11, "ssh_key_ids": [7], "security_group_id": 44,
            "script_added": true, "lifecycle_script": "echo hi",
            "sfs_mount_list": [{"id": 5, "name": "data", "mount_path": "/mnt/data"}],
            "sku_id": 22, "no_of_nodes": 2, "sku_item_price_id": 33
        })
    );
}

// Docs: image_version_id, ssh_key_ids, security_group_id, sku_id, no_of_nodes and
// sku_item_price_id are required.
#[test]
fn required_ids() {
    for (field, options) in [
        (
            "image_version_id",
            E2eOptions {
                image_version_id: 0,
                ..options()
            },
        ),
        (
            "sku_id",
            E2eOptions {
                sku_id: 0,
                ..options()
            },
        ),
        (
            "sku_item_price_id",
            E2eOptions {
                sku_item_price_id: -1,
                ..options()
            },
        ),
        (
            "security_group_id",
            E2eOptions {
                security_group_id: 0,
                ..options()
            },
        ),
    ] {
        assert_eq!(
            field_of(create_request(&spec().with_options(options))),
            field
        );
    }
    let mut s = spec();
    s.ssh_keys.clear();
    assert_eq!(field_of(create_request(&s)), "ssh_key_ids");
    assert_eq!(
        field_of(create_request(&spec().with_ssh_keys(["abc"]))),
        "ssh_key_ids"
    );
    let mut s = spec();
    s.size = ClusterSize::Nodes(0);
    assert_eq!(field_of(create_request(&s)), "no_of_nodes");
    // An id never given is missing; a negative one is wrong, and said as it was given.
    let rule_of = |options: E2eOptions| match create_request(&spec().with_options(options)) {
        Err(Error::Validation(v)) => v.rule,
        other => panic!("expected a validation error, got {other:?}"),
    };
    let missing = rule_of(E2eOptions {
        security_group_id: 0,
        ..options()
    });
    assert_eq!(missing, "is missing: a positive id is required");
    let negative = rule_of(E2eOptions {
        security_group_id: -3,
        ..options()
    });
    assert_eq!(negative, "must be a positive id (got -3)");
    assert!(create_request(&spec()).is_ok(), "positive ids pass");
}

// Docs: script_added says whether lifecycle_script is provided.
#[test]
fn lifecycle_script_matches_script_added() {
    let mut body = create_request(&spec()).unwrap();
    assert_eq!(body.script_added, Some(false));
    body.script_added = Some(true);
    assert!(matches!(validate(&body), Err(Error::Validation(v)) if v.field == "lifecycle_script"));
    body.script_added = Some(false);
    body.lifecycle_script = Some("echo".into());
    assert!(matches!(validate(&body), Err(Error::Validation(v)) if v.field == "script_added"));
}

#[test]
fn locations_are_open_but_must_be_names() {
    assert_eq!(parse_location(" delhi ").unwrap(), Location::Delhi);
    assert_eq!(
        parse_location(" Mumbai ").unwrap(),
        Location::Unknown("Mumbai".into())
    );
    for bad in ["", "  ", "Del\nhi"] {
        let rule = parse_location(bad).unwrap_err();
        assert!(rule.contains("documented: Delhi, Chennai"), "{rule}");
    }
}

#[test]
fn a_ttl_by_the_provider_is_refused_e2e_ends_no_cluster_itself() {
    let spec = spec()
        .with_ttl(std::time::Duration::from_secs(3600))
        .with_ttl_by_provider(true);
    assert_eq!(field_of(create_request(&spec)), "ttl_by_provider");
}
