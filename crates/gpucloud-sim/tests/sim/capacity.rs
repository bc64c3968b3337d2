//! Capacity through each provider's own API: creates and resizes use it up, deletes give it
//! back once the deleting state is over (Runcrate: once an all-or-nothing start has failed),
//! and a create that does not fit is refused in the provider's shape with nothing created.
//! Capacity is set with the in-process handle here (over HTTP: `capacity_control.rs`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::Duration;

use common::*;
use gpucloud_sim::{CapacityFilter, Offering, OfferingKey, Provider, RunningSim};
use serde_json::json;

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

/// (available, in_use) of the one offering with this key.
fn left(sim: &RunningSim, key: &OfferingKey) -> (u32, u32) {
    let all = sim.capacity().list();
    let offering: &Offering = all.iter().find(|o| &o.key == key).unwrap();
    (offering.available, offering.in_use)
}

fn together_key(region: &str, gpu_type: &str) -> OfferingKey {
    OfferingKey::Together {
        region: region.into(),
        gpu_type: gpu_type.into(),
    }
}

#[tokio::test]
async fn together_gpus_are_taken_by_creates_and_resizes_and_given_back_after_deleting() {
    let sim = sim().await;
    let key = together_key("us-central-8", "H100_SXM");
    let filter = CapacityFilter::new(Provider::Together, "H100_SXM").region("us-central-8");
    let changed = sim.capacity().set(&filter, 24).unwrap();
    assert_eq!(changed.len(), 1);
    assert_eq!(
        (changed[0].key.clone(), changed[0].available),
        (key.clone(), 24)
    );

    let create = |body| {
        call(
            &sim,
            Provider::Together,
            "POST",
            "/compute/clusters",
            Some(body),
        )
    };
    let first = create(together_create("a")).await;
    assert_eq!(first.status, 200, "{}", first.text);
    assert_eq!(left(&sim, &key), (8, 16));

    let refused = create(together_create("b")).await;
    assert_eq!(refused.status, 400);
    assert_eq!(
        refused.json,
        json!({"error": {
            "message": "no capacity for 16 H100_SXM GPUs in us-central-8 (8 available)",
            "type": "invalid_request_error",
            "param": "num_gpus",
            "code": "insufficient_capacity",
        }})
    );
    assert_eq!(sim.clusters(Provider::Together).len(), 1, "nothing created");
    // Another region's H100s are another offering.
    let mut elsewhere = together_create("eu");
    elsewhere["region"] = json!("eu-north-1");
    assert_eq!(create(elsewhere).await.status, 200);
    assert_eq!(
        left(&sim, &together_key("eu-north-1", "H100_SXM")),
        (1008, 16)
    );

    // Resizes take or give the difference.
    let id = first.json["cluster_id"].as_str().unwrap().to_string();
    let path = format!("/compute/clusters/{id}");
    let resize = |gpus: i64| {
        call(
            &sim,
            Provider::Together,
            "PUT",
            &path,
            Some(json!({"num_gpus": gpus})),
        )
    };
    sim.clock().advance(secs(300));
    let grow = resize(32).await;
    assert_eq!(grow.status, 400);
    assert_eq!(
        grow.json["error"]["message"],
        "no capacity for 16 more H100_SXM GPUs in us-central-8 (8 available)"
    );
    assert_eq!(resize(24).await.status, 200);
    assert_eq!(left(&sim, &key), (0, 24));
    sim.clock().advance(secs(120));
    assert_eq!(resize(8).await.status, 200);
    assert_eq!(left(&sim, &key), (16, 8));

    // Held while `Deleting` (60 s), given back once the cluster is gone.
    sim.clock().advance(secs(30));
    let deleted = call(&sim, Provider::Together, "DELETE", &path, None).await;
    assert_eq!(deleted.status, 200);
    sim.clock().advance(secs(59));
    assert_eq!(left(&sim, &key), (16, 8));
    sim.clock().advance(secs(1));
    assert_eq!(
        call(&sim, Provider::Together, "GET", &path, None)
            .await
            .status,
        404
    );
    assert_eq!(left(&sim, &key), (24, 0));
    let mut all_of_it = together_create("c");
    all_of_it["num_gpus"] = json!(24);
    assert_eq!(create(all_of_it).await.status, 200);
    assert_eq!(left(&sim, &key), (0, 24));
    finish(sim).await;
}

/// A Runcrate create of 2 H100 machines with this `Idempotency-Key`.
async fn keyed_create(sim: &RunningSim, key: &str) -> Answer {
    let body = runcrate_create("a", "offer-h100-sxm-8x");
    let headers = [("Idempotency-Key", key)];
    send(
        sim,
        Provider::Runcrate,
        "POST",
        "/clusters",
        Some(body),
        &headers,
    )
    .await
}

#[tokio::test]
async fn runcrate_refuses_with_503_launch_refused_and_gets_machines_back_when_a_start_fails() {
    let sim = sim().await;
    let h100 = OfferingKey::Runcrate {
        offer_id: "offer-h100-sxm-8x".into(),
    };
    let filter =
        CapacityFilter::new(Provider::Runcrate, "H100 80GB SXM").offer_id("offer-h100-sxm-8x");
    sim.capacity().set(&filter, 3).unwrap();
    let create = |key: &'static str| keyed_create(&sim, key);
    assert_eq!(create("k-1").await.status, 201);
    assert_eq!(left(&sim, &h100), (1, 2));

    let refused = create("k-2").await;
    assert_eq!(refused.status, 503);
    assert_eq!(
        refused.json,
        json!({"error": {
            "code": "launch_refused",
            "message": "No capacity for 2 × H100 80GB SXM machines on offer offer-h100-sxm-8x (1 available); nothing was created.",
            "details": {
                "reason": "insufficient_capacity", "offer_id": "offer-h100-sxm-8x",
                "requested_nodes": 2, "available_nodes": 1,
            },
        }})
    );
    assert_eq!(sim.clusters(Provider::Runcrate).len(), 1, "nothing created");
    // The refused key was never used: once capacity is back, it creates (201, not a replay).
    sim.capacity().set(&filter, 2).unwrap();
    assert_eq!(create("k-2").await.status, 201);
    assert_eq!(left(&sim, &h100), (0, 4));

    // All or nothing: a start that fails releases every machine (at 45 s).
    let doomed = OfferingKey::Runcrate {
        offer_id: "offer-fail".into(),
    };
    let fail = CapacityFilter::new(Provider::Runcrate, "H100 80GB SXM").offer_id("offer-fail");
    sim.capacity().set(&fail, 2).unwrap();
    let failing = call(
        &sim,
        Provider::Runcrate,
        "POST",
        "/clusters",
        Some(runcrate_create("f", "offer-fail")),
    )
    .await;
    assert_eq!(failing.status, 201);
    assert_eq!(left(&sim, &doomed), (0, 2));
    sim.clock().advance(secs(44));
    assert_eq!(left(&sim, &doomed), (0, 2));
    sim.clock().advance(secs(1));
    let id = failing.json["data"]["id"].as_str().unwrap();
    let failed = call(
        &sim,
        Provider::Runcrate,
        "GET",
        &format!("/clusters/{id}"),
        None,
    )
    .await;
    assert_eq!(failed.json["data"]["status"], "failed");
    assert_eq!(left(&sim, &doomed), (2, 0));
    // A ready cluster keeps its machines (Runcrate documents no delete).
    assert_eq!(left(&sim, &h100), (0, 4));
    finish(sim).await;
}

#[tokio::test]
async fn e2e_nodes_are_taken_by_creates_and_scales_and_given_back_after_deleting() {
    let sim = sim().await;
    let delhi = OfferingKey::E2e {
        sku_id: 201,
        location: "Delhi".into(),
    };
    let filter = CapacityFilter::new(Provider::E2e, "H100")
        .sku_id(201)
        .location("Delhi");
    assert_eq!(sim.capacity().set(&filter, 3).unwrap().len(), 1);
    let path = "/distributed_jobs_v2/cluster/";
    let created = call(&sim, Provider::E2e, "POST", path, Some(e2e_create("a"))).await;
    assert_eq!(created.status, 201);
    assert_eq!(left(&sim, &delhi), (1, 2));

    let refused = call(&sim, Provider::E2e, "POST", path, Some(e2e_create("b"))).await;
    assert_eq!(refused.status, 400);
    assert_eq!(
        refused.json,
        json!({
            "code": 400,
            "errors": {},
            "message": "Insufficient capacity: 2 nodes of GDC3.8xH100-80 requested in Delhi, 1 available.",
        })
    );
    assert_eq!(sim.clusters(Provider::E2e).len(), 1, "nothing created");
    let chennai = OfferingKey::E2e {
        sku_id: 201,
        location: "Chennai".into(),
    };
    assert_eq!(
        left(&sim, &chennai),
        (32, 0),
        "another location is another offering"
    );

    // Scaling takes the added nodes.
    let one = format!("{path}{}/", created.json["data"]["id"]);
    sim.clock().advance(secs(120));
    let scale = |n: i64| {
        call(
            &sim,
            Provider::E2e,
            "PUT",
            &one,
            Some(json!({"action": "scale_cluster", "additional_nodes": n})),
        )
    };
    let too_many = scale(2).await;
    assert_eq!(too_many.status, 400);
    assert_eq!(
        too_many.json["message"],
        "Insufficient capacity: 2 more nodes of GDC3.8xH100-80 requested in Delhi, 1 available."
    );
    assert_eq!(scale(1).await.json["data"]["no_of_nodes"], 3);
    assert_eq!(left(&sim, &delhi), (0, 3));

    // Held while `Deleting` (30 s), given back once the cluster is gone.
    assert_eq!(
        call(&sim, Provider::E2e, "DELETE", &one, None).await.status,
        200
    );
    sim.clock().advance(secs(29));
    assert_eq!(left(&sim, &delhi), (0, 3));
    sim.clock().advance(secs(1));
    assert_eq!(
        call(&sim, Provider::E2e, "GET", &one, None).await.status,
        404
    );
    assert_eq!(left(&sim, &delhi), (3, 0));
    finish(sim).await;
}
