//! Each provider checks credentials its own way and rejects bad ones in its own shape.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use gpucloud_sim::{Provider, credentials};
use serde_json::json;

async fn raw(
    sim: &gpucloud_sim::RunningSim,
    provider: Provider,
    path: &str,
    bearer: Option<&str>,
) -> Answer {
    let url = format!("{}{path}", sim.base_url(provider));
    let mut request = http().get(url);
    if let Some(token) = bearer {
        request = request.bearer_auth(token);
    }
    answer(request.send().await.unwrap()).await
}

#[tokio::test]
async fn together_needs_its_bearer_key() {
    let sim = sim().await;
    for bearer in [None, Some("wrong"), Some(credentials::RUNCRATE_API_KEY)] {
        let answer = raw(&sim, Provider::Together, "/compute/regions", bearer).await;
        assert_eq!(answer.status, 401, "{bearer:?}");
        assert_eq!(answer.json["error"]["code"], "invalid_api_key");
    }
    let ok = raw(
        &sim,
        Provider::Together,
        "/compute/regions",
        Some(credentials::TOGETHER_API_KEY),
    )
    .await;
    assert_eq!(ok.status, 200);
    finish(sim).await;
}

#[tokio::test]
async fn runcrate_needs_its_rc_live_key() {
    let sim = sim().await;
    for bearer in [None, Some("rc_live_wrong")] {
        let answer = raw(&sim, Provider::Runcrate, "/clusters/offers", bearer).await;
        assert_eq!(answer.status, 401);
        assert_eq!(answer.json["error"]["code"], "unauthorized");
    }
    let ok = raw(
        &sim,
        Provider::Runcrate,
        "/clusters/offers",
        Some(credentials::RUNCRATE_API_KEY),
    )
    .await;
    assert_eq!(ok.status, 200);
    finish(sim).await;
}

#[tokio::test]
async fn e2e_needs_the_apikey_and_the_token_together() {
    let sim = sim().await;
    let path = "/distributed_jobs_v2/cluster/?project_id=4242&location=Delhi";
    // No token at all: Django REST framework's own answer.
    let url = format!(
        "{}{path}&apikey={}",
        sim.base_url(Provider::E2e),
        credentials::E2E_API_KEY
    );
    let answer = common::answer(http().get(&url).send().await.unwrap()).await;
    assert_eq!(answer.status, 401);
    assert_eq!(
        answer.json,
        json!({"detail": "Authentication credentials were not provided."})
    );
    // A token without the key, or with a wrong key: the documented 401 envelope.
    for key in ["", "&apikey=wrong"] {
        let url = format!("{}{path}{key}", sim.base_url(Provider::E2e));
        let response = http()
            .get(url)
            .bearer_auth(credentials::E2E_AUTH_TOKEN)
            .send()
            .await
            .unwrap();
        let answer = common::answer(response).await;
        assert_eq!(answer.status, 401);
        assert_eq!(
            answer.json,
            json!({"code": 401, "message": "Unauthorized access."})
        );
    }
    let ok = call(
        &sim,
        Provider::E2e,
        "GET",
        "/distributed_jobs_v2/cluster/",
        None,
    )
    .await;
    assert_eq!((ok.status, ok.json["code"].clone()), (200, json!(200)));
    finish(sim).await;
}

#[tokio::test]
async fn e2e_refuses_another_project() {
    let sim = sim().await;
    let url = format!(
        "{}/distributed_jobs_v2/cluster/",
        sim.base_url(Provider::E2e)
    );
    let response = http()
        .get(url)
        .bearer_auth(credentials::E2E_AUTH_TOKEN)
        .query(&[
            ("apikey", credentials::E2E_API_KEY),
            ("project_id", "1"),
            ("location", "Delhi"),
        ])
        .send()
        .await
        .unwrap();
    let answer = common::answer(response).await;
    assert_eq!(
        (answer.status, answer.json["code"].clone()),
        (403, json!(403))
    );
    finish(sim).await;
}
