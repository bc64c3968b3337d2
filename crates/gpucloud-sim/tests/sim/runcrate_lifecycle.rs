//! Runcrate clusters through simulated time: provisioning, `up_at` and billing, ready; the
//! all-or-nothing failure; `Idempotency-Key` replay and the in-flight conflict; the offers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::Duration;

use common::*;
use gpucloud_sim::{Fault, FaultKind, Provider};
use serde_json::{Value, json};

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

#[tokio::test]
async fn runcrate_provisions_then_bills_then_is_ready() {
    let sim = sim().await;
    let clock = sim.clock();
    let created = call(
        &sim,
        Provider::Runcrate,
        "POST",
        "/clusters",
        Some(runcrate_create("train", "offer-h100-sxm-8x")),
    )
    .await;
    assert_eq!(created.status, 201);
    let cluster = &created.json["data"];
    assert_eq!(
        (cluster["status"].as_str(), cluster["stack_status"].as_str()),
        (Some("provisioning"), Some("pending"))
    );
    assert_eq!(cluster["nodes"][1]["name"], "train-1");
    assert!(cluster["nodes"][0]["ip"].is_null() && cluster["up_at"].is_null());
    let get = format!("/clusters/{}", cluster["id"].as_str().unwrap());

    clock.advance(secs(61));
    let cluster = call(&sim, Provider::Runcrate, "GET", &get, None).await.json["data"].clone();
    assert_eq!(cluster["status"], "provisioning");
    assert_eq!(cluster["up_at"], "2026-01-01T00:01:00Z");
    assert_eq!(
        cluster["billing"],
        json!({"billed_since": "2026-01-01T00:01:00Z", "nodes_billed": 2})
    );
    assert!(
        cluster["nodes"][0]["ssh_command"]
            .as_str()
            .unwrap()
            .starts_with("ssh ubuntu@")
    );

    clock.advance(secs(30));
    let cluster = call(&sim, Provider::Runcrate, "GET", &get, None).await.json["data"].clone();
    assert_eq!(cluster["status"], "ready");
    assert_eq!(cluster["ready_at"], "2026-01-01T00:01:30Z");
    assert_eq!(cluster["hourly_rate"], 47.84);
    assert!(cluster["connection"]["snippets"]["sbatch"].is_string());
    assert!(cluster["connection"]["snippets"]["ray_tunnel"].is_null());
    finish(sim).await;
}

#[tokio::test]
async fn runcrate_fails_all_or_nothing_and_bills_nothing() {
    let sim = sim().await;
    let created = call(
        &sim,
        Provider::Runcrate,
        "POST",
        "/clusters",
        Some(runcrate_create("doomed", "offer-fail")),
    )
    .await;
    let get = format!("/clusters/{}", created.json["data"]["id"].as_str().unwrap());
    sim.clock().advance(secs(46));
    let cluster = call(&sim, Provider::Runcrate, "GET", &get, None).await.json["data"].clone();
    assert_eq!(cluster["status"], "failed");
    assert_eq!(cluster["failure_reason"], "machine_failed_to_start");
    assert!(
        cluster["failure_detail"]
            .as_str()
            .unwrap()
            .contains("all-or-nothing")
    );
    assert!(cluster["up_at"].is_null() && cluster["billing"]["billed_since"].is_null());
    assert_eq!(cluster["billing"]["nodes_billed"], 0);
    assert!(
        cluster["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n["status"] == "released" && n["ip"].is_null())
    );
    finish(sim).await;
}

#[tokio::test]
async fn runcrate_replays_a_key_and_refuses_it_while_in_flight() {
    let sim = sim().await;
    let key = [("Idempotency-Key", "create-train-1")];
    let body = runcrate_create("train", "offer-h100-sxm-8x");
    let first = send(
        &sim,
        Provider::Runcrate,
        "POST",
        "/clusters",
        Some(body.clone()),
        &key,
    )
    .await;
    let again = send(
        &sim,
        Provider::Runcrate,
        "POST",
        "/clusters",
        Some(body.clone()),
        &key,
    )
    .await;
    assert_eq!((first.status, again.status), (201, 200));
    assert_eq!(first.json["data"]["id"], again.json["data"]["id"]);
    // Another environment is another key space.
    let other = send(
        &sim,
        Provider::Runcrate,
        "POST",
        "/clusters?environment=staging",
        Some(body.clone()),
        &key,
    )
    .await;
    assert_eq!(other.status, 201);
    assert_eq!(sim.clusters(Provider::Runcrate).len(), 2);

    // While the first request with a key is still being answered, a repeat gets 409.
    sim.faults().inject(
        Fault::new(
            Provider::Runcrate,
            FaultKind::Slow {
                delay: Duration::from_millis(400),
            },
        )
        .on("create_cluster"),
    );
    let slow_key = [("Idempotency-Key", "create-train-2")];
    let first = {
        let (base, body) = (sim.base_url(Provider::Runcrate), body.clone());
        tokio::spawn(async move {
            let request = http()
                .post(format!("{base}/clusters"))
                .bearer_auth(gpucloud_sim::credentials::RUNCRATE_API_KEY)
                .header("Idempotency-Key", "create-train-2")
                .json(&body);
            answer(request.send().await.unwrap()).await
        })
    };
    // Once the first request has created its cluster (its answer is still 400 ms away)...
    while sim.clusters(Provider::Runcrate).len() < 3 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let conflict = send(
        &sim,
        Provider::Runcrate,
        "POST",
        "/clusters",
        Some(body.clone()),
        &slow_key,
    )
    .await;
    let slow = first.await.unwrap();
    assert_eq!(slow.status, 201);
    assert_eq!(conflict.status, 409);
    assert_eq!(
        conflict.json["error"]["details"]["reason"],
        "idempotency_in_progress"
    );
    let replay = send(
        &sim,
        Provider::Runcrate,
        "POST",
        "/clusters",
        Some(body),
        &slow_key,
    )
    .await;
    assert_eq!(
        (replay.status, &replay.json["data"]["id"]),
        (200, &slow.json["data"]["id"])
    );
    finish(sim).await;
}

#[tokio::test]
async fn runcrate_lists_offers_and_filters_by_volume() {
    let sim = sim().await;
    let all = call(&sim, Provider::Runcrate, "GET", "/clusters/offers", None)
        .await
        .json;
    let volume = call(
        &sim,
        Provider::Runcrate,
        "GET",
        "/clusters/offers?volume=true",
        None,
    )
    .await
    .json;
    let ids = |list: &Value| -> Vec<String> {
        list["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        ids(&all),
        [
            "offer-h100-sxm-8x",
            "offer-h200-sxm-8x",
            "offer-b200-8x",
            "offer-a100-pcie-4x-community",
            "offer-fail"
        ]
    );
    assert!(
        volume["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|o| o["volume"] == true)
    );
    assert_eq!(
        ids(&volume),
        [
            "offer-h100-sxm-8x",
            "offer-h200-sxm-8x",
            "offer-b200-8x",
            "offer-fail"
        ]
    );
    finish(sim).await;
}
