//! Runcrate through the facade against a mock API: one `Idempotency-Key` per logical create,
//! reused across retries; 200 vs 201 outcomes; error envelope mapping; no list or delete.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use gpucloud::{
    ClusterClient, ClusterId, ClusterSize, ClusterSpec, CreateOutcome, Error, ProviderKind,
    RuncrateOptions,
};
use serde_json::{Value, json};
use support::*;
use wiremock::Mock;
use wiremock::matchers::{method, path};

const CLUSTERS: &str = "/clusters";
const ID: &str = "3c90c3cc-0d44-4b50-8888-8dd25736052a";
const NAME: &str = "train";

fn spec(key: Option<&str>) -> ClusterSpec {
    ClusterSpec::new(NAME, ClusterSize::Nodes(2)).with_options(RuncrateOptions {
        offer_id: "offer-h100x8-iad".into(),
        idempotency_key: key.map(str::to_string),
        ..Default::default()
    })
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
    Mock::given(method("POST"))
        .and(path(CLUSTERS))
        .respond_with(responder)
        .mount(&api.server)
        .await;
}

/// The Idempotency-Key of every POST, in order.
async fn keys(api: &Api) -> Vec<String> {
    api.requests("POST", CLUSTERS)
        .await
        .iter()
        .map(|r| header(r, "idempotency-key").expect("Idempotency-Key"))
        .collect()
}

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

#[tokio::test]
async fn another_conflict_is_returned_at_once() {
    let api = Api::start().await;
    mount_create(
        &api,
        json_response(
            409,
            &error_body("name_taken", "a cluster named train exists", None),
        ),
    )
    .await;

    let error = api.runcrate().create(&spec(None)).await.unwrap_err();

    let Error::Conflict(api_error) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(api_error.code.as_deref(), Some("name_taken"));
    assert_eq!(api_error.reason, None);
    assert!(!error.is_retryable());
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn budget_reached_is_insufficient_funds_and_not_retried() {
    let api = Api::start().await;
    let body = error_body("BUDGET_REACHED", "monthly budget reached", None);
    mount_create(&api, json_response(402, &body)).await;

    let error = api.runcrate().create(&spec(None)).await.unwrap_err();

    let Error::InsufficientFunds(api_error) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(api_error.status, 402);
    assert_eq!(api_error.code.as_deref(), Some("BUDGET_REACHED"));
    assert_eq!(api_error.message.as_deref(), Some("monthly budget reached"));
    assert_eq!(
        serde_json::from_str::<Value>(&api_error.body).unwrap(),
        body
    );
    assert_eq!(
        error.to_string(),
        "insufficient funds or quota: runcrate create_cluster answered HTTP 402 [BUDGET_REACHED]: monthly budget reached"
    );
    assert!(!error.is_retryable());
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
    assert!(api.sleeps().is_empty());
    api.assert_all_matched();
}

#[tokio::test]
async fn no_capacity_503_is_not_retried() {
    let api = Api::start().await;
    mount_create(
        &api,
        json_response(
            503,
            &error_body("no_capacity", "no capacity for this offer", None),
        ),
    )
    .await;

    let error = api.runcrate().create(&spec(None)).await.unwrap_err();

    let Error::NoCapacity(api_error) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(api_error.status, 503);
    assert_eq!(
        api.count("POST", CLUSTERS).await,
        1,
        "a refusal that created nothing is final for this create"
    );
    assert!(api.sleeps().is_empty());
}

#[tokio::test]
async fn launch_refused_is_no_capacity_and_not_retried() {
    let api = Api::start().await;
    mount_create(
        &api,
        json_response(
            502,
            &error_body("launch_refused", "the host refused the launch", None),
        ),
    )
    .await;

    let error = api.runcrate().create(&spec(None)).await.unwrap_err();

    assert!(matches!(error, Error::NoCapacity(_)), "{error:?}");
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
}

#[tokio::test]
async fn no_capacity_maps_status_503_and_launch_refused() {
    // The mapping half of the two ignored tests above, which holds today.
    for (status, code) in [(503u16, "no_capacity"), (502, "launch_refused")] {
        let api = Api::start().await;
        mount_create(
            &api,
            json_response(status, &error_body(code, "refused", None)),
        )
        .await;
        let client = ClusterClient::runcrate(
            api.runcrate_config()
                .with_retry_policy(gpucloud::RetryPolicy::none()),
        )
        .unwrap();

        let error = client.create(&spec(None)).await.unwrap_err();

        let Error::NoCapacity(api_error) = &error else {
            panic!("{status}: {error:?}")
        };
        assert_eq!(
            (api_error.status, api_error.code.as_deref()),
            (status, Some(code))
        );
        assert_eq!(api.count("POST", CLUSTERS).await, 1);
    }
}

#[tokio::test]
async fn invalid_key_is_authentication() {
    let api = Api::start().await;
    mount_create(
        &api,
        json_response(401, &error_body("unauthorized", "invalid API key", None)),
    )
    .await;

    let error = api.runcrate().create(&spec(None)).await.unwrap_err();

    assert!(matches!(error, Error::Authentication(_)), "{error:?}");
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn list_and_delete_are_unsupported_and_send_nothing() {
    let api = Api::start().await;
    let client = api.runcrate();

    let list = client.list().await.unwrap_err();
    let delete = client.delete(&ClusterId::new(ID)).await.unwrap_err();

    assert!(
        matches!(
            list,
            Error::Unsupported {
                provider: ProviderKind::Runcrate,
                ..
            }
        ),
        "{list:?}"
    );
    assert!(
        matches!(
            delete,
            Error::Unsupported {
                provider: ProviderKind::Runcrate,
                ..
            }
        ),
        "{delete:?}"
    );
    assert_eq!(
        list.to_string(),
        "runcrate does not support listing clusters"
    );
    assert_eq!(
        delete.to_string(),
        "runcrate does not support deleting clusters"
    );
    assert!(!list.is_retryable());
    assert!(api.all().await.is_empty());
}

#[tokio::test]
async fn get_retries_500_then_decodes() {
    let api = Api::start().await;
    Mock::given(method("GET"))
        .and(path(format!("{CLUSTERS}/{ID}")))
        .respond_with(seq([
            json_response(500, &error_body("internal", "oops", None)),
            json_response(200, &runcrate_cluster(ID, NAME)),
        ]))
        .mount(&api.server)
        .await;

    let cluster = api.runcrate().get(&ClusterId::new(ID)).await.unwrap();

    assert_eq!(cluster.id, ClusterId::new(ID));
    assert_eq!(cluster.phase.as_deref(), Some("provisioning"));
    assert_eq!(api.count("GET", &format!("{CLUSTERS}/{ID}")).await, 2);
    assert_eq!(api.sleeps().len(), 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn get_with_a_non_uuid_id_sends_nothing() {
    let api = Api::start().await;

    let error = api
        .runcrate()
        .get(&ClusterId::new("not-a-uuid"))
        .await
        .unwrap_err();

    assert!(matches!(error, Error::Validation(_)), "{error:?}");
    assert!(api.all().await.is_empty());
}
