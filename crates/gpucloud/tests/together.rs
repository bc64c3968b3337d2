//! Together through the facade against a mock API: creates reconciled by name (never re-sent
//! blindly), reads and deletes retried with backoff and `Retry-After`, error mapping, decode
//! errors naming the JSON path.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use gpucloud::{
    ClusterClient, ClusterId, ClusterSize, ClusterSpec, ClusterState, CreateOutcome, Error,
    RetryPolicy, TogetherOptions,
};
use serde_json::{Value, json};
use support::*;
use wiremock::Mock;
use wiremock::matchers::{method, path};

const CLUSTERS: &str = "/compute/clusters";
const NAME: &str = "train-42";
const ID: &str = "c-7f3a";

fn spec() -> ClusterSpec {
    ClusterSpec::new(NAME, ClusterSize::Gpus(16))
        .with_gpu_model("H100_SXM")
        .with_region("us-central-8")
        .with_options(TogetherOptions {
            nvidia_version_id: Some("cuda-12.8-driver-570".into()),
            ..Default::default()
        })
}

/// The request body `spec()` must become (Together's `GPUClusterCreateRequest`).
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
    Mock::given(method("GET"))
        .and(path(CLUSTERS))
        .respond_with(responder)
        .mount(&api.server)
        .await;
}

async fn mount_create(api: &Api, responder: impl wiremock::Respond + 'static) {
    Mock::given(method("POST"))
        .and(path(CLUSTERS))
        .respond_with(responder)
        .mount(&api.server)
        .await;
}

async fn mount_get(api: &Api, responder: impl wiremock::Respond + 'static) {
    Mock::given(method("GET"))
        .and(path(format!("{CLUSTERS}/{ID}")))
        .respond_with(responder)
        .mount(&api.server)
        .await;
}

// ---------------------------------------------------------------- create

#[tokio::test]
async fn create_posts_once_when_no_cluster_has_the_name() {
    let api = Api::start().await;
    let other = together_cluster("c-other", "someone-else", "Ready", &["CLUSTER_PHASE_READY"]);
    mount_list(&api, json_response(200, &together_list(&[other]))).await;
    mount_create(&api, json_response(200, &created())).await;

    let result = api.together().create(&spec()).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::Created);
    assert_eq!(result.attempts, 1);
    assert_eq!(result.cluster.id, ClusterId::new(ID));
    assert_eq!(result.cluster.name, NAME);
    assert_eq!(result.cluster.state, ClusterState::Provisioning);
    let posts = api.requests("POST", CLUSTERS).await;
    assert_eq!(posts.len(), 1);
    assert_eq!(body_json(&posts[0]), expected_body());
    assert_eq!(
        header(&posts[0], "authorization").as_deref(),
        Some(format!("Bearer {TOGETHER_KEY}").as_str())
    );
    assert_eq!(
        header(&posts[0], "content-type").as_deref(),
        Some("application/json")
    );
    assert_eq!(
        api.count("GET", CLUSTERS).await,
        1,
        "one look-up by name before the POST"
    );
    assert!(api.sleeps().is_empty());
    api.assert_all_matched();
}

#[tokio::test]
async fn create_sends_nothing_when_the_name_exists() {
    let api = Api::start().await;
    let existing = together_cluster(ID, NAME, "Ready", &["CLUSTER_PHASE_READY"]);
    mount_list(&api, json_response(200, &together_list(&[existing]))).await;
    mount_create(&api, json_response(200, &created())).await;

    let result = api.together().create(&spec()).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::AlreadyExisted);
    assert_eq!(result.attempts, 0);
    assert_eq!(result.cluster.id, ClusterId::new(ID));
    assert_eq!(result.cluster.state, ClusterState::Ready);
    assert_eq!(api.count("POST", CLUSTERS).await, 0);
    assert_eq!(api.count("GET", CLUSTERS).await, 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn create_after_a_502_finds_the_cluster_instead_of_posting_again() {
    let api = Api::start().await;
    let listed = together_cluster(
        ID,
        NAME,
        "WaitingForControlPlaneNodes",
        &["CLUSTER_PHASE_QUEUED"],
    );
    mount_list(
        &api,
        seq([
            json_response(200, &together_list(&[])),
            json_response(200, &together_list(&[listed])),
        ]),
    )
    .await;
    mount_create(
        &api,
        json_response(502, &envelope("upstream connect error")),
    )
    .await;

    let result = api.together().create(&spec()).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::CreatedReconciled);
    assert_eq!(result.attempts, 1);
    assert_eq!(result.cluster.id, ClusterId::new(ID));
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
    assert_eq!(
        api.count("GET", CLUSTERS).await,
        2,
        "look-up before and after the ambiguous failure"
    );
    assert_eq!(api.sleeps().len(), 1, "one backoff before the look-up");
    api.assert_all_matched();
}

#[tokio::test]
async fn create_after_a_502_and_an_empty_list_posts_again() {
    let api = Api::start().await;
    mount_list(&api, json_response(200, &together_list(&[]))).await;
    mount_create(
        &api,
        seq([
            json_response(502, &envelope("bad gateway")),
            json_response(200, &created()),
        ]),
    )
    .await;

    let result = api.together().create(&spec()).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::Created);
    assert_eq!(result.attempts, 2);
    let posts = api.requests("POST", CLUSTERS).await;
    assert_eq!(posts.len(), 2);
    assert_eq!(
        body_json(&posts[0]),
        body_json(&posts[1]),
        "the same request both times"
    );
    assert_eq!(api.count("GET", CLUSTERS).await, 2);
    assert_eq!(api.sleeps().len(), 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn create_with_an_html_502_is_ambiguous_too() {
    let api = Api::start().await;
    let listed = together_cluster(
        ID,
        NAME,
        "WaitingForControlPlaneNodes",
        &["CLUSTER_PHASE_QUEUED"],
    );
    mount_list(
        &api,
        seq([
            json_response(200, &together_list(&[])),
            json_response(200, &together_list(&[listed])),
        ]),
    )
    .await;
    mount_create(&api, raw_response(502, HTML_502, "text/html")).await;

    let result = api.together().create(&spec()).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::CreatedReconciled);
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
    assert_eq!(api.count("GET", CLUSTERS).await, 2);
    api.assert_all_matched();
}

#[tokio::test]
async fn create_that_keeps_failing_stops_after_max_attempts() {
    let api = Api::start().await;
    mount_list(&api, json_response(200, &together_list(&[]))).await;
    mount_create(&api, json_response(503, &envelope("unavailable"))).await;

    let error = api.together().create(&spec()).await.unwrap_err();

    assert_eq!(error.status(), Some(503));
    let attempts = max_attempts();
    assert_eq!(api.count("POST", CLUSTERS).await, attempts);
    assert_eq!(
        api.count("GET", CLUSTERS).await,
        attempts,
        "one look-up first, then one after each failure but the last"
    );
    assert_eq!(api.sleeps().len(), attempts - 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn create_rejected_with_400_is_returned_at_once_with_the_envelope() {
    let api = Api::start().await;
    mount_list(&api, json_response(200, &together_list(&[]))).await;
    let body = r#"{"error":{"message":"num_gpus exceeds regional quota","type":"invalid_request_error","param":"num_gpus","code":"quota_exceeded"}}"#;
    mount_create(&api, raw_response(400, body, "application/json")).await;

    let error = api.together().create(&spec()).await.unwrap_err();

    let Error::Api(api_error) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(api_error.status, 400);
    assert_eq!(
        api_error.message.as_deref(),
        Some("num_gpus exceeds regional quota")
    );
    assert_eq!(api_error.code.as_deref(), Some("quota_exceeded"));
    assert_eq!(api_error.body, body, "the raw body is kept verbatim");
    assert!(!error.is_retryable());
    assert!(!error.is_ambiguous());
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
    assert_eq!(api.count("GET", CLUSTERS).await, 1);
    assert!(api.sleeps().is_empty());
    api.assert_all_matched();
}

#[tokio::test]
async fn create_grpc_gateway_error_shape_is_mapped() {
    let api = Api::start().await;
    mount_list(&api, json_response(200, &together_list(&[]))).await;
    mount_create(
        &api,
        json_response(
            403,
            &json!({"code": 7, "message": "permission denied", "details": []}),
        ),
    )
    .await;

    let error = api.together().create(&spec()).await.unwrap_err();

    let Error::Authentication(api_error) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(api_error.status, 403);
    assert_eq!(api_error.code.as_deref(), Some("7"));
    assert_eq!(api_error.message.as_deref(), Some("permission denied"));
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn create_throttled_is_retried_after_retry_after_without_a_look_up() {
    let api = Api::start().await;
    mount_list(&api, json_response(200, &together_list(&[]))).await;
    mount_create(
        &api,
        seq([
            json_response(429, &envelope("slow down")).insert_header("Retry-After", "2"),
            json_response(200, &created()),
        ]),
    )
    .await;

    let result = api.together().create(&spec()).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::Created);
    assert_eq!(result.attempts, 2);
    assert_eq!(api.count("POST", CLUSTERS).await, 2);
    assert_eq!(
        api.count("GET", CLUSTERS).await,
        1,
        "a 429 created nothing: no look-up needed"
    );
    assert_eq!(api.sleeps(), [Duration::from_secs(2)]);
    api.assert_all_matched();
}

#[tokio::test]
async fn create_timing_out_is_ambiguous_and_reconciled() {
    let api = Api::start().await;
    let listed = together_cluster(
        ID,
        NAME,
        "WaitingForControlPlaneNodes",
        &["CLUSTER_PHASE_QUEUED"],
    );
    mount_list(
        &api,
        seq([
            json_response(200, &together_list(&[])),
            json_response(200, &together_list(&[listed])),
        ]),
    )
    .await;
    mount_create(
        &api,
        json_response(200, &created()).set_delay(Duration::from_secs(10)),
    )
    .await;
    let client =
        ClusterClient::together(api.together_config().with_timeout(Duration::from_secs(1)))
            .unwrap();

    let result = client.create(&spec()).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::CreatedReconciled);
    assert_eq!(result.attempts, 1);
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
    assert_eq!(api.count("GET", CLUSTERS).await, 2);
    api.assert_all_matched();
}

#[tokio::test]
async fn create_invalid_spec_sends_nothing() {
    let api = Api::start().await;
    let bad = ClusterSpec {
        size: ClusterSize::Gpus(12),
        ..spec()
    };

    let error = api.together().create(&bad).await.unwrap_err();

    let Error::Validation(validation) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(validation.field, "num_gpus");
    assert!(api.all().await.is_empty());
}

// ---------------------------------------------------------------- reads

#[tokio::test]
async fn get_retries_503s_then_decodes() {
    let api = Api::start().await;
    let ready = together_cluster(
        ID,
        NAME,
        "Ready",
        &["CLUSTER_PHASE_QUEUED", "CLUSTER_PHASE_READY"],
    );
    mount_get(
        &api,
        seq([
            json_response(503, &envelope("unavailable")),
            json_response(503, &envelope("unavailable")),
            json_response(200, &ready),
        ]),
    )
    .await;

    let cluster = api.together().get(&ClusterId::new(ID)).await.unwrap();

    assert_eq!(cluster.id, ClusterId::new(ID));
    assert_eq!(cluster.name, NAME);
    assert_eq!(cluster.state, ClusterState::Ready);
    assert_eq!(cluster.phase.as_deref(), Some("CLUSTER_PHASE_READY"));
    assert_eq!(cluster.gpu_count, Some(16));
    assert_eq!(
        serde_json::to_value(&cluster.raw).unwrap()["cluster_id"],
        ID
    );
    let gets = api.requests("GET", &format!("{CLUSTERS}/{ID}")).await;
    assert_eq!(gets.len(), 3);
    for get in &gets {
        assert_eq!(
            header(get, "authorization").as_deref(),
            Some(format!("Bearer {TOGETHER_KEY}").as_str())
        );
    }
    let sleeps = api.sleeps();
    assert_eq!(sleeps.len(), 2);
    // Full jitter under a doubling ceiling (500 ms, then 1 s).
    assert!(sleeps[0] <= Duration::from_millis(500), "{sleeps:?}");
    assert!(sleeps[1] <= Duration::from_secs(1), "{sleeps:?}");
    api.assert_all_matched();
}

#[tokio::test]
async fn get_retries_each_transient_status() {
    for status in [408u16, 429, 500, 502, 503, 504] {
        let api = Api::start().await;
        let ready = together_cluster(ID, NAME, "Ready", &["CLUSTER_PHASE_READY"]);
        mount_get(
            &api,
            seq([
                json_response(status, &envelope("transient")),
                json_response(200, &ready),
            ]),
        )
        .await;

        let cluster = api.together().get(&ClusterId::new(ID)).await;

        assert!(cluster.is_ok(), "HTTP {status}: {cluster:?}");
        assert_eq!(
            api.count("GET", &format!("{CLUSTERS}/{ID}")).await,
            2,
            "HTTP {status}"
        );
        assert_eq!(api.sleeps().len(), 1, "HTTP {status}");
    }
}

#[tokio::test]
async fn get_retries_a_502_with_an_html_body() {
    let api = Api::start().await;
    let ready = together_cluster(ID, NAME, "Ready", &["CLUSTER_PHASE_READY"]);
    mount_get(
        &api,
        seq([
            raw_response(502, HTML_502, "text/html"),
            json_response(200, &ready),
        ]),
    )
    .await;

    let cluster = api.together().get(&ClusterId::new(ID)).await;

    assert!(cluster.is_ok(), "{cluster:?}");
    assert_eq!(api.count("GET", &format!("{CLUSTERS}/{ID}")).await, 2);
}

#[tokio::test]
async fn get_html_502_is_an_api_error_keeping_the_body() {
    let api = Api::start().await;
    mount_get(&api, raw_response(502, HTML_502, "text/html")).await;

    let error = api.together().get(&ClusterId::new(ID)).await.unwrap_err();

    assert_eq!(error.status(), Some(502), "{error:?}");
    let Error::Api(api_error) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(api_error.body, HTML_502);
}

#[tokio::test]
async fn get_honours_retry_after() {
    let api = Api::start().await;
    let ready = together_cluster(ID, NAME, "Ready", &["CLUSTER_PHASE_READY"]);
    mount_get(
        &api,
        seq([
            json_response(429, &envelope("rate limited")).insert_header("Retry-After", "7"),
            json_response(200, &ready),
        ]),
    )
    .await;

    api.together().get(&ClusterId::new(ID)).await.unwrap();

    assert_eq!(api.sleeps(), [Duration::from_secs(7)]);
    assert_eq!(api.count("GET", &format!("{CLUSTERS}/{ID}")).await, 2);
    api.assert_all_matched();
}

#[tokio::test]
async fn get_gives_up_on_a_retry_after_beyond_the_policy() {
    let api = Api::start().await;
    mount_get(
        &api,
        json_response(429, &envelope("come back in an hour")).insert_header("Retry-After", "3600"),
    )
    .await;

    let error = api.together().get(&ClusterId::new(ID)).await.unwrap_err();

    let Error::RateLimited {
        error: api_error,
        retry_after,
    } = &error
    else {
        panic!("{error:?}")
    };
    assert_eq!(*retry_after, Some(Duration::from_secs(3600)));
    assert_eq!(error.retry_after(), Some(Duration::from_secs(3600)));
    assert_eq!(api_error.status, 429);
    assert_eq!(api_error.message.as_deref(), Some("come back in an hour"));
    assert_eq!(api.count("GET", &format!("{CLUSTERS}/{ID}")).await, 1);
    assert!(api.sleeps().is_empty());
    api.assert_all_matched();
}

#[tokio::test]
async fn get_404_is_not_found_and_not_retried() {
    let api = Api::start().await;
    mount_get(
        &api,
        json_response(404, &json!({"code": 5, "message": "cluster not found"})),
    )
    .await;

    let error = api.together().get(&ClusterId::new(ID)).await.unwrap_err();

    let Error::NotFound(api_error) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(api_error.message.as_deref(), Some("cluster not found"));
    assert_eq!(api_error.operation, "get_cluster");
    assert_eq!(api.count("GET", &format!("{CLUSTERS}/{ID}")).await, 1);
    assert!(api.sleeps().is_empty());
    api.assert_all_matched();
}

#[tokio::test]
async fn get_400_is_not_retried() {
    let api = Api::start().await;
    mount_get(&api, json_response(400, &envelope("bad cluster id"))).await;

    let error = api.together().get(&ClusterId::new(ID)).await.unwrap_err();

    assert!(matches!(error, Error::Api(_)), "{error:?}");
    assert_eq!(error.status(), Some(400));
    assert!(!error.is_retryable());
    assert_eq!(api.count("GET", &format!("{CLUSTERS}/{ID}")).await, 1);
    assert!(api.sleeps().is_empty());
    api.assert_all_matched();
}

#[tokio::test]
async fn get_persistent_503_stops_after_max_attempts() {
    let api = Api::start().await;
    mount_get(&api, json_response(503, &envelope("unavailable"))).await;

    let error = api.together().get(&ClusterId::new(ID)).await.unwrap_err();

    assert_eq!(error.status(), Some(503));
    assert!(error.is_retryable());
    assert_eq!(
        api.count("GET", &format!("{CLUSTERS}/{ID}")).await,
        max_attempts()
    );
    assert_eq!(api.sleeps().len(), max_attempts() - 1);
}

#[tokio::test]
async fn get_uses_the_configured_retry_policy() {
    let api = Api::start().await;
    mount_get(&api, json_response(503, &envelope("unavailable"))).await;
    let policy = RetryPolicy {
        max_attempts: 2,
        ..RetryPolicy::default()
    };
    let client = ClusterClient::together(api.together_config().with_retry_policy(policy)).unwrap();

    client.get(&ClusterId::new(ID)).await.unwrap_err();

    assert_eq!(api.count("GET", &format!("{CLUSTERS}/{ID}")).await, 2);
    assert_eq!(api.sleeps().len(), 1);
}

#[tokio::test]
async fn connection_failures_are_transport_errors_retried_max_attempts_times() {
    let api = Api::start().await;
    let client = ClusterClient::together(api.together_config().with_base_url(DEAD_URL)).unwrap();

    let error = client.get(&ClusterId::new(ID)).await.unwrap_err();

    let Error::Transport { operation, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(*operation, "get_cluster");
    assert!(error.is_retryable());
    assert!(!error.is_ambiguous(), "a refused connection reached nobody");
    assert_eq!(error.status(), None);
    assert_eq!(api.sleeps().len(), max_attempts() - 1);
}

#[tokio::test]
async fn list_returns_every_cluster() {
    let api = Api::start().await;
    let clusters = [
        together_cluster("c-1", "a", "Ready", &["CLUSTER_PHASE_READY"]),
        together_cluster("c-2", "b", "Paused", &["CLUSTER_PHASE_PAUSED"]),
    ];
    mount_list(
        &api,
        seq([
            json_response(502, &envelope("bad gateway")),
            json_response(200, &together_list(&clusters)),
        ]),
    )
    .await;

    let listed = api.together().list().await.unwrap();

    let summary: Vec<_> = listed
        .iter()
        .map(|c| (c.id.as_str().to_string(), c.name.clone(), c.state.clone()))
        .collect();
    assert_eq!(
        summary,
        [
            ("c-1".to_string(), "a".to_string(), ClusterState::Ready),
            ("c-2".to_string(), "b".to_string(), ClusterState::Paused)
        ]
    );
    assert_eq!(api.count("GET", CLUSTERS).await, 2);
    api.assert_all_matched();
}

// ---------------------------------------------------------------- delete

#[tokio::test]
async fn delete_404_after_a_502_means_the_first_attempt_worked() {
    let api = Api::start().await;
    Mock::given(method("DELETE"))
        .and(path(format!("{CLUSTERS}/{ID}")))
        .respond_with(seq([
            json_response(502, &envelope("bad gateway")),
            json_response(404, &json!({"message": "not found"})),
        ]))
        .mount(&api.server)
        .await;

    api.together().delete(&ClusterId::new(ID)).await.unwrap();

    assert_eq!(api.count("DELETE", &format!("{CLUSTERS}/{ID}")).await, 2);
    assert_eq!(api.sleeps().len(), 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn delete_404_on_the_first_attempt_is_not_found() {
    let api = Api::start().await;
    Mock::given(method("DELETE"))
        .and(path(format!("{CLUSTERS}/{ID}")))
        .respond_with(json_response(404, &json!({"message": "not found"})))
        .mount(&api.server)
        .await;

    let error = api
        .together()
        .delete(&ClusterId::new(ID))
        .await
        .unwrap_err();

    assert!(matches!(error, Error::NotFound(_)), "{error:?}");
    assert_eq!(api.count("DELETE", &format!("{CLUSTERS}/{ID}")).await, 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn delete_succeeds_with_the_documented_body() {
    let api = Api::start().await;
    Mock::given(method("DELETE"))
        .and(path(format!("{CLUSTERS}/{ID}")))
        .respond_with(json_response(200, &json!({"cluster_id": ID})))
        .mount(&api.server)
        .await;

    api.together().delete(&ClusterId::new(ID)).await.unwrap();

    assert_eq!(api.count("DELETE", &format!("{CLUSTERS}/{ID}")).await, 1);
    assert!(api.sleeps().is_empty());
    api.assert_all_matched();
}

// ---------------------------------------------------------------- decoding

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
