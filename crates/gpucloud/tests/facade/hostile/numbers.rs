//! Numbers from a provider checked like user input: a size the answer does not state is
//! unknown (never 0), products of two answered numbers are checked, and a price is only
//! computed from numbers the answer states.

use gpucloud::{ClusterId, ClusterSize, Error};
use serde_json::{Value, json};

use crate::support::*;

const E2E_AT: &str = "/distributed_jobs_v2/cluster/101/";

fn e2e_with_nodes(nodes: Option<Value>) -> Value {
    let mut cluster = e2e_cluster(101, "train-e2e", "Running");
    match nodes {
        Some(n) => cluster["no_of_nodes"] = n,
        None => {
            cluster.as_object_mut().unwrap().remove("no_of_nodes");
        }
    }
    e2e_envelope(200, cluster)
}

/// E2E resizes by adding nodes: the delta is target minus the stated count. An answer that
/// states no count (or an impossible one) sends nothing; before, a missing count was read as
/// 0 and `--nodes 4` on a 2-node cluster added 4 (6 billing), a negative one added more.
#[tokio::test]
async fn e2e_never_adds_nodes_from_a_count_the_answer_does_not_state() {
    for nodes in [None, Some(json!(null)), Some(json!(0)), Some(json!(-3))] {
        let api = Api::start().await;
        mount(
            &api,
            "GET",
            E2E_AT,
            json_response(200, &e2e_with_nodes(nodes.clone())),
        )
        .await;

        let error = api
            .e2e()
            .resize(&ClusterId::new("101"), ClusterSize::Nodes(4))
            .await
            .unwrap_err();

        let Error::Decode(decode) = &error else {
            panic!("{nodes:?}: {error:?}")
        };
        assert_eq!(decode.path, "data/no_of_nodes");
        assert!(
            decode.message.contains("nothing was sent"),
            "{}",
            decode.message
        );
        assert_eq!(api.count("PUT", E2E_AT).await, 0, "{nodes:?}");
    }
}

/// The delta sent is exactly target minus the stated count, for every stated count.
#[tokio::test]
async fn e2e_sends_target_minus_the_stated_count() {
    for (have, target, sent) in [(2, 4, 2), (1, 3, 2), (5, 6, 1)] {
        let api = Api::start().await;
        mount(
            &api,
            "GET",
            E2E_AT,
            seq([
                json_response(200, &e2e_with_nodes(Some(json!(have)))),
                json_response(200, &e2e_with_nodes(Some(json!(target)))),
            ]),
        )
        .await;
        mount(
            &api,
            "PUT",
            E2E_AT,
            json_response(
                200,
                &json!({"code": 200, "data": {}, "errors": {}, "message": "ok"}),
            ),
        )
        .await;

        api.e2e()
            .resize(&ClusterId::new("101"), ClusterSize::Nodes(target))
            .await
            .unwrap();

        let puts = api.requests("PUT", E2E_AT).await;
        assert_eq!(puts.len(), 1);
        assert_eq!(body_json(&puts[0])["additional_nodes"], json!(sent));
    }
}

/// A create answered with absurd numbers (a node count and GPUs per node whose product does
/// not fit) is a cluster with an unknown GPU count, never a panic after the paid POST.
#[tokio::test]
async fn runcrate_absurd_counts_do_not_panic_after_a_paid_create() {
    for (nodes, per_node) in [
        (json!(i64::MAX), json!(2)),
        (json!(-4), json!(8)),
        (json!(3_000_000_000_i64), json!(3_000_000_000_i64)),
    ] {
        let api = Api::start().await;
        let mut body = runcrate_cluster("0b7c3f7e-4b8e-4f6a-9d58-3c1f0d3a9e11", "train");
        body["data"]["node_count"] = nodes.clone();
        body["data"]["gpus_per_node"] = per_node;
        mount(&api, "POST", "/clusters", json_response(201, &body)).await;

        let created = api
            .runcrate()
            .create(&runcrate_spec())
            .await
            .unwrap_or_else(|e| panic!("{nodes}: {e:?}"));

        assert_eq!(created.cluster.gpu_count, None, "{nodes}");
        assert_eq!(
            created.cluster.id.as_str(),
            "0b7c3f7e-4b8e-4f6a-9d58-3c1f0d3a9e11"
        );
        assert_eq!(api.count("POST", "/clusters").await, 1);
    }
}

/// E2E's price is the plan's unit price times the stated node count: with no count stated it
/// is unknown (so a price ceiling cannot pass on it), never 0.
#[tokio::test]
async fn e2e_price_without_a_stated_node_count_is_unknown() {
    let api = Api::start().await;
    mount(
        &api,
        "GET",
        E2E_AT,
        json_response(200, &e2e_with_nodes(None)),
    )
    .await;
    let cluster = api.e2e().get(&ClusterId::new("101")).await.unwrap();
    assert_eq!(cluster.price, None);

    let api = Api::start().await;
    mount(
        &api,
        "GET",
        E2E_AT,
        json_response(200, &e2e_with_nodes(Some(json!(3)))),
    )
    .await;
    let cluster = api.e2e().get(&ClusterId::new("101")).await.unwrap();
    let price = cluster.price.unwrap();
    assert!((price.per_hour - 3.0 * 12.3).abs() < 1e-9, "{price:?}");
}

/// A price no bill could have (negative) is no price: it can never pass a ceiling.
#[tokio::test]
async fn runcrate_a_negative_rate_is_no_price() {
    let api = Api::start().await;
    let mut body = runcrate_cluster("0b7c3f7e-4b8e-4f6a-9d58-3c1f0d3a9e11", "train");
    body["data"]["hourly_rate"] = json!(-400.0);
    mount(&api, "POST", "/clusters", json_response(201, &body)).await;
    let created = api.runcrate().create(&runcrate_spec()).await.unwrap();
    assert_eq!(created.cluster.price, None);
}

/// A ceiling that is not a number would make every price "fit" (and every created cluster
/// "over" it): refused before anything is looked up or sent.
#[tokio::test]
async fn a_price_ceiling_that_is_not_a_finite_amount_is_refused() {
    let api = Api::start().await;
    for amount in [f64::NAN, f64::INFINITY, -1.0] {
        let plans =
            gpucloud::Placement::new([gpucloud::Candidate::new(api.together(), together_spec())])
                .with_max_price_per_hour(amount, "USD")
                .plan()
                .await;
        let Err(Error::Validation(rule)) = &plans[0].resolution else {
            panic!("{amount}: {:?}", plans[0].resolution)
        };
        assert_eq!(rule.field, "max_price_per_hour");
    }
    assert!(api.all().await.is_empty());
}
