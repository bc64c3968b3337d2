//! Waits, repeats and inputs the provider cannot stretch: a `Retry-After` beyond the ceiling (or
//! beyond any clock) ends the retries at once, creates answered with a 4xx are never re-sent, a
//! retry budget that runs dry stops retrying, ids are checked before the network and an answer
//! without an id is never a cluster.

use gpucloud::{ClusterClient, ClusterId, Error, RetryBudget, RetryPolicy};
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

use crate::support::*;

async fn answer(api: &Api, verb: &str, at: &str, response: impl wiremock::Respond + 'static) {
    Mock::given(method(verb))
        .and(path(at))
        .respond_with(response)
        .mount(&api.server)
        .await;
}

fn throttled(retry_after: &str) -> ResponseTemplate {
    json_response(429, &json!({"error": {"message": "slow down"}}))
        .insert_header("Retry-After", retry_after)
}

#[tokio::test]
async fn a_create_answered_with_an_absurd_retry_after_ends_at_once() {
    for retry_after in ["100000", "99999999999999999999999999"] {
        let api = Api::start().await;
        answer(
            &api,
            "GET",
            "/compute/clusters",
            json_response(200, &together_list(&[])),
        )
        .await;
        answer(&api, "POST", "/compute/clusters", throttled(retry_after)).await;

        let error = api.together().create(&together_spec()).await.unwrap_err();

        assert!(matches!(error, Error::RateLimited { .. }), "{error:?}");
        assert_eq!(
            api.count("POST", "/compute/clusters").await,
            1,
            "{retry_after}"
        );
        assert!(api.sleeps().is_empty(), "no sleep for {retry_after}");

        // The same on E2E's create and on every read.
        let api = Api::start().await;
        answer(
            &api,
            "GET",
            "/distributed_jobs_v2/cluster/",
            throttled(retry_after),
        )
        .await;
        let error = api.e2e().list().await.unwrap_err();
        assert!(matches!(error, Error::RateLimited { .. }), "{error:?}");
        assert_eq!(api.count("GET", "/distributed_jobs_v2/cluster/").await, 1);
        assert!(api.sleeps().is_empty());
    }
}

#[tokio::test]
async fn a_create_answered_with_a_4xx_is_never_sent_again() {
    for status in [400, 403, 404, 409, 422] {
        let api = Api::start().await;
        answer(
            &api,
            "GET",
            "/distributed_jobs_v2/cluster/",
            json_response(200, &e2e_envelope(200, json!([]))),
        )
        .await;
        answer(
            &api,
            "POST",
            "/distributed_jobs_v2/cluster/",
            json_response(
                status,
                &json!({"code": status, "message": "no", "errors": {}}),
            ),
        )
        .await;

        let error = api.e2e().create(&e2e_spec()).await.unwrap_err();

        assert_eq!(error.status(), Some(status), "{error:?}");
        assert_eq!(
            api.count("POST", "/distributed_jobs_v2/cluster/").await,
            1,
            "{status}"
        );
        assert_eq!(
            api.count("GET", "/distributed_jobs_v2/cluster/").await,
            1,
            "{status}"
        );
    }
}

#[tokio::test]
async fn an_empty_retry_budget_stops_retrying_across_calls() {
    let api = Api::start().await;
    answer(
        &api,
        "GET",
        "/compute/clusters/c-1",
        json_response(503, &json!({"error": {"message": "unavailable"}})),
    )
    .await;
    // Room for two retries (5 tokens each) in all, whatever the policy allows per call.
    let client = ClusterClient::together(
        api.together_config()
            .with_retry_policy(RetryPolicy::default().with_max_attempts(10))
            .with_retry_budget(RetryBudget::new(10)),
    )
    .unwrap();
    let id = ClusterId::new("c-1");

    assert_eq!(client.get(&id).await.unwrap_err().status(), Some(503));
    assert_eq!(api.count("GET", "/compute/clusters/c-1").await, 3);
    assert_eq!(client.settings().budget.available(), 0);
    assert_eq!(client.get(&id).await.unwrap_err().status(), Some(503));
    assert_eq!(
        api.count("GET", "/compute/clusters/c-1").await,
        4,
        "no retry once the budget is spent"
    );
    // Clones share the bucket.
    let clone = client.clone();
    assert_eq!(clone.get(&id).await.unwrap_err().status(), Some(503));
    assert_eq!(api.count("GET", "/compute/clusters/c-1").await, 5);
}

#[tokio::test]
async fn ids_are_checked_before_the_network() {
    let api = Api::start().await;
    let long = "x".repeat(257);
    for client in [api.together(), api.runcrate(), api.e2e()] {
        for bad in ["", "  ", "c-1\n", "c\u{1b}[2J", long.as_str()] {
            let id = ClusterId::new(bad);
            let get = client.get(&id).await.unwrap_err();
            let delete = client.delete(&id).await.unwrap_err();
            for error in [get, delete] {
                let Error::Validation(rule) = &error else {
                    panic!("{:?} {bad:?}: {error:?}", client.provider())
                };
                assert_eq!(rule.field, "cluster id");
            }
        }
    }
    assert!(api.all().await.is_empty(), "nothing was sent");

    // The longest id allowed is sent.
    let longest = ClusterId::new("x".repeat(256));
    let error = api.together().get(&longest).await.unwrap_err();
    assert_eq!(error.status(), Some(UNMATCHED_STATUS), "{error:?}");
    assert_eq!(api.all().await.len(), 1);
}

#[tokio::test]
async fn a_retried_create_that_succeeds_refunds_its_retry() {
    let api = Api::start().await;
    answer(
        &api,
        "GET",
        "/compute/clusters",
        json_response(200, &together_list(&[])),
    )
    .await;
    answer(
        &api,
        "POST",
        "/compute/clusters",
        seq([
            throttled("1"),
            json_response(200, &together_cluster("c-1", "train-42", "Ready", &[])),
        ]),
    )
    .await;
    let budget = RetryBudget::new(10);
    let client =
        ClusterClient::together(api.together_config().with_retry_budget(budget.clone())).unwrap();

    let created = client.create(&together_spec()).await.unwrap();

    assert_eq!(created.attempts, 2);
    assert_eq!(api.sleeps(), [std::time::Duration::from_secs(1)]);
    assert_eq!(budget.available(), 10, "the retry's 5 tokens came back");
}

#[tokio::test]
async fn an_answer_without_a_cluster_id_is_a_decode_error_not_a_cluster() {
    let api = Api::start().await;
    answer(
        &api,
        "GET",
        "/distributed_jobs_v2/cluster/",
        json_response(200, &e2e_envelope(200, json!([]))),
    )
    .await;
    let mut nameless = e2e_cluster(101, "train-e2e", "Creating");
    nameless.as_object_mut().unwrap().remove("id");
    answer(
        &api,
        "POST",
        "/distributed_jobs_v2/cluster/",
        json_response(201, &e2e_envelope(201, nameless)),
    )
    .await;

    let error = api.e2e().create(&e2e_spec()).await.unwrap_err();

    let Error::Decode(decode) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(decode.path, "id");
    assert!(error.is_ambiguous(), "the create may have happened");

    // A Together get whose cluster id is empty.
    let api = Api::start().await;
    answer(
        &api,
        "GET",
        "/compute/clusters/c-1",
        json_response(200, &together_cluster("", "x", "Ready", &[])),
    )
    .await;
    let error = api
        .together()
        .get(&ClusterId::new("c-1"))
        .await
        .unwrap_err();
    assert!(matches!(error, Error::Decode(_)), "{error:?}");
}

#[tokio::test]
async fn a_success_whose_body_matches_an_earlier_error_page_is_still_a_success_that_failed_to_decode()
 {
    let api = Api::start().await;
    answer(
        &api,
        "GET",
        "/compute/clusters/c-1",
        seq([
            raw_response(502, HTML_502, "text/html"),
            raw_response(200, HTML_502, "text/html"),
        ]),
    )
    .await;
    let client =
        ClusterClient::together(api.together_config().with_retry_policy(RetryPolicy::none()))
            .unwrap();
    let id = ClusterId::new("c-1");

    let first = client.get(&id).await.unwrap_err();
    let second = client.get(&id).await.unwrap_err();

    assert_eq!(first.status(), Some(502), "{first:?}");
    assert!(
        matches!(second, Error::Decode(_)),
        "the 200 is not the earlier 502: {second:?}"
    );
}
