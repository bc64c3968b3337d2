//! Transient failures retried with jittered backoff, `Retry-After` honoured, and the
//! policy's limits (attempts, longest wait) respected.

use std::time::Duration;

use gpucloud::{ClusterClient, ClusterId, ClusterState, CreateOutcome, Error, RetryPolicy};

use super::{CLUSTERS, ID, NAME, created, envelope, mount_create, mount_get, mount_list};
use crate::support::*;

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

    let result = api.together().create(&together_spec()).await.unwrap();

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
    let policy = RetryPolicy::default().with_max_attempts(2);
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
