//! One `Idempotency-Key` per logical create, given or generated, reused by every retry;
//! 201 means created, 200 means the key already had a cluster.

use std::time::Duration;

use gpucloud::{ClusterClient, ClusterId, CreateOutcome, ProviderKind};

use super::{CLUSTERS, ID, NAME, error_body, expected_body, keys, mount_create, spec};
use crate::support::*;

#[tokio::test]
async fn created_with_the_given_idempotency_key() {
    let api = Api::start().await;
    mount_create(&api, json_response(201, &runcrate_cluster(ID, NAME))).await;

    let result = api
        .runcrate()
        .create(&spec(Some("my-run-2026-01-01")))
        .await
        .unwrap();

    assert_eq!(result.outcome, CreateOutcome::Created);
    assert_eq!(result.attempts, 1);
    assert_eq!(result.cluster.id, ClusterId::new(ID));
    assert_eq!(result.cluster.name, NAME);
    assert_eq!(result.cluster.provider, ProviderKind::Runcrate);
    let posts = api.requests("POST", CLUSTERS).await;
    assert_eq!(posts.len(), 1);
    assert_eq!(
        header(&posts[0], "idempotency-key").as_deref(),
        Some("my-run-2026-01-01")
    );
    assert_eq!(
        header(&posts[0], "authorization").as_deref(),
        Some(format!("Bearer {RUNCRATE_KEY}").as_str())
    );
    assert_eq!(body_json(&posts[0]), expected_body());
    assert!(api.sleeps().is_empty());
    api.assert_all_matched();
}

#[tokio::test]
async fn a_uuid_key_is_generated_when_none_is_given_and_differs_per_create() {
    let api = Api::start().await;
    mount_create(&api, json_response(201, &runcrate_cluster(ID, NAME))).await;
    let client = api.runcrate();

    client.create(&spec(None)).await.unwrap();
    client.create(&spec(None)).await.unwrap();

    let keys = keys(&api).await;
    assert_eq!(keys.len(), 2);
    for key in &keys {
        let uuid: uuid::Uuid = key
            .parse()
            .unwrap_or_else(|_| panic!("{key} is not a UUID"));
        assert_eq!(uuid.get_version_num(), 4);
    }
    assert_ne!(keys[0], keys[1], "one key per logical create");
    api.assert_all_matched();
}

#[tokio::test]
async fn a_502_is_retried_with_the_same_key_and_a_200_means_reconciled() {
    let api = Api::start().await;
    mount_create(
        &api,
        seq([
            json_response(502, &error_body("bad_gateway", "upstream timed out", None)),
            json_response(200, &runcrate_cluster(ID, NAME)),
        ]),
    )
    .await;

    let result = api.runcrate().create(&spec(None)).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::CreatedReconciled);
    assert_eq!(result.attempts, 2);
    let keys = keys(&api).await;
    assert_eq!(keys.len(), 2);
    assert_eq!(keys[0], keys[1], "the retry reuses the key");
    let posts = api.requests("POST", CLUSTERS).await;
    assert_eq!(body_json(&posts[0]), body_json(&posts[1]));
    assert_eq!(api.sleeps().len(), 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn a_timeout_is_retried_with_the_same_key() {
    let api = Api::start().await;
    mount_create(
        &api,
        seq([
            json_response(201, &runcrate_cluster(ID, NAME)).set_delay(Duration::from_secs(10)),
            json_response(200, &runcrate_cluster(ID, NAME)),
        ]),
    )
    .await;
    let client =
        ClusterClient::runcrate(api.runcrate_config().with_timeout(Duration::from_secs(1)))
            .unwrap();

    let result = client.create(&spec(Some("key-timeout-1"))).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::CreatedReconciled);
    assert_eq!(result.attempts, 2);
    assert_eq!(keys(&api).await, ["key-timeout-1", "key-timeout-1"]);
    api.assert_all_matched();
}

#[tokio::test]
async fn a_first_answer_200_means_the_key_already_had_a_cluster() {
    let api = Api::start().await;
    mount_create(&api, json_response(200, &runcrate_cluster(ID, NAME))).await;

    let result = api
        .runcrate()
        .create(&spec(Some("rerun-key")))
        .await
        .unwrap();

    assert_eq!(result.outcome, CreateOutcome::AlreadyExisted);
    assert_eq!(result.attempts, 1);
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn idempotency_in_progress_is_retried_with_the_same_key() {
    let api = Api::start().await;
    mount_create(
        &api,
        seq([
            json_response(
                409,
                &error_body(
                    "conflict",
                    "a request with this key is in progress",
                    Some("idempotency_in_progress"),
                ),
            ),
            json_response(201, &runcrate_cluster(ID, NAME)),
        ]),
    )
    .await;

    let result = api.runcrate().create(&spec(Some("key-409"))).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::Created);
    assert_eq!(result.attempts, 2);
    assert_eq!(keys(&api).await, ["key-409", "key-409"]);
    assert_eq!(api.sleeps().len(), 1);
    api.assert_all_matched();
}
