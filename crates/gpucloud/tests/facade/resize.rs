//! Resizing: Together's absolute `num_gpus` (checked before sending), E2E's relative
//! `scale_cluster` (sent once, computed from the current node count; it cannot shrink),
//! Runcrate unsupported; and waiting until the new size is reached.

use crate::support::*;
use gpucloud::SizeReached;
use gpucloud::{ClusterId, ClusterSize, Error, WaitOptions};
use serde_json::{Value, json};
use wiremock::Mock;
use wiremock::matchers::{method, path};

async fn answer(api: &Api, verb: &str, at: &str, response: impl wiremock::Respond + 'static) {
    Mock::given(method(verb))
        .and(path(at))
        .respond_with(response)
        .mount(&api.server)
        .await;
}

fn together_at(gpus: u32, status: &str) -> Value {
    let mut cluster = together_cluster("c-1", "train-42", status, &[]);
    cluster["num_gpus"] = json!(gpus);
    cluster
}

#[tokio::test]
async fn together_sends_the_new_gpu_count_and_waits_for_it() {
    let api = Api::start().await;
    answer(
        &api,
        "PUT",
        "/compute/clusters/c-1",
        json_response(200, &together_at(16, "Ready")),
    )
    .await;
    answer(
        &api,
        "GET",
        "/compute/clusters/c-1",
        seq([
            json_response(200, &together_at(16, "Ready")),
            json_response(200, &together_at(24, "WaitingForDataPlaneNodes")),
            json_response(200, &together_at(24, "Ready")),
        ]),
    )
    .await;
    let client = api.together();
    let id = ClusterId::new("c-1");

    client.resize(&id, ClusterSize::Gpus(24)).await.unwrap();
    let resized = client
        .wait(&id, &SizeReached(ClusterSize::Gpus(24)))
        .with_options(WaitOptions::default())
        .run(|_| {})
        .await
        .map(|w| w.output)
        .map_err(gpucloud::Error::from)
        .unwrap();

    let puts = api.requests("PUT", "/compute/clusters/c-1").await;
    assert_eq!(puts.len(), 1);
    assert_eq!(body_json(&puts[0]), json!({"num_gpus": 24}));
    assert_eq!(resized.gpu_count, Some(24));
    assert_eq!(
        api.count("GET", "/compute/clusters/c-1").await,
        3,
        "ready at 16 is not ready at 24"
    );
}

#[tokio::test]
async fn sizes_a_provider_cannot_take_are_refused_before_sending() {
    let api = Api::start().await;
    let id = ClusterId::new("c-1");
    for size in [
        ClusterSize::Gpus(20),
        ClusterSize::Gpus(0),
        ClusterSize::Nodes(3),
    ] {
        let error = api.together().resize(&id, size).await.unwrap_err();
        assert!(matches!(error, Error::Validation(_)), "{size:?}: {error:?}");
    }
    let runcrate = api
        .runcrate()
        .resize(
            &ClusterId::new("3c90c3cc-0d44-4b50-8888-8dd25736052a"),
            ClusterSize::Nodes(4),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(runcrate, Error::Unsupported { .. }),
        "{runcrate:?}"
    );
    assert!(api.all().await.is_empty());
}

fn e2e_at(nodes: i64) -> Value {
    let mut cluster = e2e_cluster(101, "train-e2e", "Running");
    cluster["no_of_nodes"] = json!(nodes);
    e2e_envelope(200, cluster)
}

#[tokio::test]
async fn e2e_adds_the_missing_nodes_once() {
    let api = Api::start().await;
    let at = "/distributed_jobs_v2/cluster/101/";
    answer(
        &api,
        "GET",
        at,
        seq([
            json_response(200, &e2e_at(2)),
            json_response(200, &e2e_at(3)),
        ]),
    )
    .await;
    answer(
        &api,
        "PUT",
        at,
        json_response(
            200,
            &json!({"code": 200, "data": {}, "errors": {}, "message": "ok"}),
        ),
    )
    .await;

    let resized = api
        .e2e()
        .resize(&ClusterId::new("101"), ClusterSize::Nodes(3))
        .await
        .unwrap();

    let puts = api.requests("PUT", at).await;
    assert_eq!(puts.len(), 1);
    assert_eq!(
        body_json(&puts[0]),
        json!({"action": "scale_cluster", "additional_nodes": 1})
    );
    let e2e_query = query(&puts[0]);
    assert_eq!(
        e2e_query.get("project_id").map(String::as_str),
        Some("4242")
    );
    assert!(
        matches!(resized.raw, gpucloud::ProviderCluster::E2e(ref c) if c.no_of_nodes == Some(3))
    );
}

#[tokio::test]
async fn e2e_refuses_to_shrink_and_does_nothing_at_the_same_size() {
    let api = Api::start().await;
    let at = "/distributed_jobs_v2/cluster/101/";
    answer(&api, "GET", at, json_response(200, &e2e_at(3))).await;
    let client = api.e2e();
    let id = ClusterId::new("101");

    let error = client.resize(&id, ClusterSize::Nodes(2)).await.unwrap_err();
    let Error::Validation(rule) = &error else {
        panic!("{error:?}")
    };
    assert!(rule.rule.contains("only adds nodes"), "{rule:?}");
    client.resize(&id, ClusterSize::Nodes(3)).await.unwrap();

    assert_eq!(api.count("PUT", at).await, 0);
}
