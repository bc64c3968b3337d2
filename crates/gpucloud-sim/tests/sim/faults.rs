//! Every fault kind, observed on the wire: what a client receives, and whether the operation
//! happened.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use gpucloud_sim::{Fault, FaultKind, Provider};
use serde_json::{Value, json};

#[tokio::test]
async fn rate_limited_sends_429_with_retry_after_and_does_nothing() {
    let sim = sim().await;
    sim.faults().inject(
        Fault::new(
            Provider::Runcrate,
            FaultKind::RateLimited {
                retry_after_secs: 7,
            },
        )
        .on("create_cluster"),
    );
    let answer = call(
        &sim,
        Provider::Runcrate,
        "POST",
        "/clusters",
        Some(runcrate_create("x", "offer-h100-sxm-8x")),
    )
    .await;
    assert_eq!(answer.status, 429);
    assert_eq!(answer.headers["retry-after"], "7");
    assert_eq!(answer.json["error"]["code"], "rate_limited");
    assert!(
        sim.clusters(Provider::Runcrate).is_empty(),
        "a refusal creates nothing"
    );
    let exchange = sim.exchanges().pop().unwrap();
    assert_eq!(
        exchange.fault,
        Some(FaultKind::RateLimited {
            retry_after_secs: 7
        })
    );
    finish(sim).await;
}

#[tokio::test]
async fn server_errors_use_each_providers_shape() {
    let sim = sim().await;
    let faults = sim.faults();
    for provider in Provider::ALL {
        faults.inject(Fault::new(provider, FaultKind::ServerError { status: 503 }));
    }
    let together = call(&sim, Provider::Together, "GET", "/compute/regions", None).await;
    assert_eq!(
        (together.status, together.json["code"].clone()),
        (503, json!(14))
    );
    let runcrate = call(&sim, Provider::Runcrate, "GET", "/clusters/offers", None).await;
    assert_eq!(
        (runcrate.status, runcrate.json["error"]["code"].clone()),
        (503, json!("no_capacity"))
    );
    let e2e = call(
        &sim,
        Provider::E2e,
        "GET",
        "/distributed_jobs_v2/cluster/",
        None,
    )
    .await;
    assert_eq!((e2e.status, e2e.json["code"].clone()), (503, json!(503)));
    // Used up: the next requests succeed.
    assert_eq!(
        call(&sim, Provider::Together, "GET", "/compute/regions", None)
            .await
            .status,
        200
    );
    finish(sim).await;
}

#[tokio::test]
async fn slow_answers_arrive_late_but_the_operation_happened_at_once() {
    let sim = sim().await;
    sim.faults().inject(
        Fault::new(
            Provider::E2e,
            FaultKind::Slow {
                delay: Duration::from_millis(300),
            },
        )
        .on("create_cluster"),
    );
    let started = Instant::now();
    let request = call(
        &sim,
        Provider::E2e,
        "POST",
        "/distributed_jobs_v2/cluster/",
        Some(e2e_create("slow")),
    );
    let (answer, seen_meanwhile) = tokio::join!(request, async {
        // The answer cannot arrive before 300 ms; the cluster must show up well before.
        for _ in 0..25 {
            if sim.clusters(Provider::E2e).len() == 1 {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        false
    });
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert_eq!(answer.status, 201);
    assert!(
        seen_meanwhile,
        "the cluster exists before the answer is sent"
    );
    finish(sim).await;
}

#[tokio::test]
async fn dropped_connections_get_no_answer_but_the_cluster_exists() {
    let sim = sim().await;
    sim.faults()
        .inject(Fault::new(Provider::Together, FaultKind::DropConnection).on("create_cluster"));
    let result = authed(&sim, Provider::Together, "POST", "/compute/clusters")
        .json(&together_create("dropped"))
        .send()
        .await;
    let error = result.unwrap_err();
    assert!(!error.is_connect() && !error.is_timeout(), "{error:?}");
    assert_eq!(sim.clusters(Provider::Together).len(), 1);
    assert_eq!(sim.exchanges().pop().unwrap().status, None);
    finish(sim).await;
}

#[tokio::test]
async fn truncated_bodies_are_half_of_the_real_json() {
    let sim = sim().await;
    sim.faults()
        .inject(Fault::new(Provider::Runcrate, FaultKind::TruncatedBody).on("list_offers"));
    let cut = call(&sim, Provider::Runcrate, "GET", "/clusters/offers", None).await;
    let whole = call(&sim, Provider::Runcrate, "GET", "/clusters/offers", None).await;
    assert_eq!(cut.status, 200);
    assert!(serde_json::from_str::<Value>(&cut.text).is_err());
    assert!(whole.text.starts_with(&cut.text) && cut.text.len() == whole.text.len() / 2);
    finish(sim).await;
}

#[tokio::test]
async fn html_bodies_look_like_a_proxy_error_page() {
    let sim = sim().await;
    sim.faults().inject(
        Fault::new(Provider::E2e, FaultKind::HtmlBody { status: 502 }).on("create_cluster"),
    );
    let answer = call(
        &sim,
        Provider::E2e,
        "POST",
        "/distributed_jobs_v2/cluster/",
        Some(e2e_create("html")),
    )
    .await;
    assert_eq!(answer.status, 502);
    assert_eq!(answer.headers["content-type"], "text/html");
    assert!(answer.text.contains("<h1>502 Bad Gateway</h1>"));
    assert_eq!(
        sim.clusters(Provider::E2e).len(),
        1,
        "the create itself went through"
    );
    finish(sim).await;
}

#[tokio::test]
async fn ok_with_error_code_is_http_200_carrying_the_error() {
    let sim = sim().await;
    sim.faults().inject(
        Fault::new(Provider::E2e, FaultKind::OkWithErrorCode { code: 500 }).on("list_clusters"),
    );
    let answer = call(
        &sim,
        Provider::E2e,
        "GET",
        "/distributed_jobs_v2/cluster/",
        None,
    )
    .await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.json["code"], 500);
    assert!(answer.json.get("data").is_none());
    finish(sim).await;
}

#[tokio::test]
async fn unknown_status_shows_a_value_the_spec_does_not_list() {
    let sim = sim().await;
    let created = call(
        &sim,
        Provider::Runcrate,
        "POST",
        "/clusters",
        Some(runcrate_create("x", "offer-h100-sxm-8x")),
    )
    .await;
    let path = format!("/clusters/{}", created.json["data"]["id"].as_str().unwrap());
    sim.faults().inject(
        Fault::new(
            Provider::Runcrate,
            FaultKind::UnknownStatus {
                status: "hibernating".into(),
            },
        )
        .on("get_cluster")
        .times(2),
    );
    for _ in 0..2 {
        assert_eq!(
            call(&sim, Provider::Runcrate, "GET", &path, None)
                .await
                .json["data"]["status"],
            "hibernating"
        );
    }
    assert_eq!(
        call(&sim, Provider::Runcrate, "GET", &path, None)
            .await
            .json["data"]["status"],
        "provisioning"
    );
    finish(sim).await;
}

#[tokio::test]
async fn faults_match_their_operation_and_can_be_cleared() {
    let sim = sim().await;
    let faults = sim.faults();
    faults.inject(
        Fault::new(Provider::Together, FaultKind::ServerError { status: 500 }).on("get_cluster"),
    );
    assert_eq!(
        call(&sim, Provider::Together, "GET", "/compute/regions", None)
            .await
            .status,
        200
    );
    assert_eq!(
        call(&sim, Provider::Runcrate, "GET", "/clusters/offers", None)
            .await
            .status,
        200
    );
    assert_eq!(faults.pending().len(), 1);
    faults.clear();
    assert!(faults.pending().is_empty());
    finish(sim).await;
}
