//! Decoding: errors naming the JSON path, unknown statuses kept, unmatched requests named.

use gpucloud::{ClusterId, ClusterState, Error};
use serde_json::json;

use super::{CLUSTERS, ID, NAME, mount_get};
use crate::support::*;

#[tokio::test]
async fn decode_error_names_the_json_path_and_keeps_the_body_start() {
    let api = Api::start().await;
    let mut cluster = together_cluster(ID, NAME, "Ready", &["CLUSTER_PHASE_READY"]);
    cluster["num_gpus"] = json!("sixteen");
    let body = serde_json::to_string(&cluster).unwrap();
    mount_get(&api, raw_response(200, &body, "application/json")).await;

    let error = api.together().get(&ClusterId::new(ID)).await.unwrap_err();

    let Error::Decode(decode) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(decode.path, "num_gpus");
    assert_eq!(decode.operation, "get_cluster");
    assert!(
        decode.message.contains("invalid type: string \"sixteen\""),
        "{}",
        decode.message
    );
    assert!(
        decode.body_excerpt.starts_with(&body[..200]),
        "{}",
        decode.body_excerpt
    );
    assert!(decode.body_excerpt.chars().count() <= 513);
    let shown = error.to_string();
    assert!(shown.contains("at num_gpus"), "{shown}");
    assert_eq!(
        api.count("GET", &format!("{CLUSTERS}/{ID}")).await,
        1,
        "a bad 200 body is not retried"
    );
    api.assert_all_matched();
}

#[tokio::test]
async fn unknown_status_and_phase_decode_as_unknown() {
    let api = Api::start().await;
    let cluster = together_cluster(ID, NAME, "Hibernating", &["CLUSTER_PHASE_HIBERNATING"]);
    mount_get(&api, json_response(200, &cluster)).await;

    let cluster = api.together().get(&ClusterId::new(ID)).await.unwrap();

    assert_eq!(cluster.state, ClusterState::Unknown("Hibernating".into()));
    assert_eq!(cluster.phase.as_deref(), Some("CLUSTER_PHASE_HIBERNATING"));
    api.assert_all_matched();
}

#[tokio::test]
async fn unmatched_requests_are_named_by_the_catch_all() {
    let api = Api::start().await;

    let error = api
        .together()
        .get(&ClusterId::new("nope"))
        .await
        .unwrap_err();

    assert!(
        format!("{error}").contains("no mock matched: GET "),
        "{error}"
    );
    let unmatched = api.unmatched();
    assert_eq!(unmatched.len(), 1, "{unmatched:?}");
    assert!(
        unmatched[0].starts_with("GET http://") && unmatched[0].ends_with("/compute/clusters/nope"),
        "{unmatched:?}"
    );
}
