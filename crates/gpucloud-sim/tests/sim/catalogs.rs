//! The catalogs each provider serves, and that create accepts what they list and refuses what
//! they do not, as the provider would: H100 and H200 on all three (Together's regions,
//! Runcrate's offers, E2E's plans), the ids other tests rely on unchanged.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use gpucloud_sim::Provider;
use serde_json::{Value, json};

fn strings(list: &Value, field: &str) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|item| item[field].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn together_regions_offer_h100_and_h200_and_create_follows_them() {
    let sim = sim().await;
    let regions = call(&sim, Provider::Together, "GET", "/compute/regions", None).await;
    assert_eq!(regions.status, 200);
    let list = &regions.json["regions"];
    assert_eq!(
        strings(list, "name"),
        ["us-central-8", "us-central-4", "eu-north-1"]
    );
    assert_eq!(
        list[0]["supported_instance_types"],
        json!(["H100_SXM", "H200_SXM", "B200_SXM", "B300_SXM"])
    );
    assert_eq!(
        list[2],
        json!({
            "name": "eu-north-1",
            "supported_instance_types": ["H100_SXM", "H200_SXM"],
            "driver_versions": [{
                "id": "cuda-12.8-driver-570", "cuda_version": "12.8",
                "nvidia_driver_version": "570", "os": "ubuntu-22.04",
            }],
        })
    );

    let mut h200 = together_create("eu");
    h200["region"] = json!("eu-north-1");
    h200["gpu_type"] = json!("H200_SXM");
    let created = call(
        &sim,
        Provider::Together,
        "POST",
        "/compute/clusters",
        Some(h200),
    )
    .await;
    assert_eq!(created.status, 200, "{}", created.text);
    assert_eq!(
        (
            &created.json["region"],
            &created.json["gpu_type"],
            &created.json["nvidia_driver_version_id"]
        ),
        (
            &json!("eu-north-1"),
            &json!("H200_SXM"),
            &json!("cuda-12.8-driver-570")
        )
    );

    let mut b200 = together_create("eu-b200");
    b200["region"] = json!("eu-north-1");
    b200["gpu_type"] = json!("B200_SXM");
    let refused = call(
        &sim,
        Provider::Together,
        "POST",
        "/compute/clusters",
        Some(b200),
    )
    .await;
    assert_eq!(refused.status, 400);
    assert_eq!(
        refused.json["message"],
        "invalid create_cluster.gpu_type: B200_SXM is not offered in eu-north-1; it offers H100_SXM, H200_SXM"
    );
    let mut old_driver = together_create("eu-old");
    old_driver["region"] = json!("eu-north-1");
    old_driver["nvidia_version_id"] = json!("cuda-12.6-driver-565");
    let refused = call(
        &sim,
        Provider::Together,
        "POST",
        "/compute/clusters",
        Some(old_driver),
    )
    .await;
    assert_eq!(refused.status, 400);
    assert_eq!(
        refused.json["message"],
        "invalid create_cluster.nvidia_version_id: \"cuda-12.6-driver-565\" is not in the catalog of eu-north-1"
    );
    assert_eq!(sim.clusters(Provider::Together).len(), 1);
    finish(sim).await;
}

#[tokio::test]
async fn runcrate_offers_h100_and_h200_and_create_follows_them() {
    let sim = sim().await;
    let offers = call(&sim, Provider::Runcrate, "GET", "/clusters/offers", None).await;
    assert_eq!(offers.status, 200);
    let gpu_types = strings(&offers.json["data"], "gpu_type");
    assert!(gpu_types.contains(&"H100 80GB SXM".to_string()));
    assert_eq!(
        offers.json["data"][1],
        json!({
            "id": "offer-h200-sxm-8x", "gpu_type": "H200 141GB SXM", "gpus_per_node": 8,
            "hourly_rate_per_node": 31.92, "location": "Kansas City, MO", "country_code": "US",
            "host_tier": "datacenter", "deployment_type": "vm",
            "interconnect": {"kind": "infiniband", "label": "InfiniBand NDR 8×400", "rate_gbps": 3200.0},
            "min_nodes": 2, "max_nodes": 32, "allowed_node_counts": null,
            "stacks": ["none", "slurm", "kubernetes", "ray"], "volume": true, "note": null,
        })
    );

    let created = call(
        &sim,
        Provider::Runcrate,
        "POST",
        "/clusters",
        Some(runcrate_create("h200", "offer-h200-sxm-8x")),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.text);
    let data = &created.json["data"];
    assert_eq!(
        (
            &data["gpu_type"],
            &data["gpus_per_node"],
            &data["hourly_rate"]
        ),
        (&json!("H200 141GB SXM"), &json!(8), &json!(63.84))
    );

    let mut too_many = runcrate_create("big", "offer-h200-sxm-8x");
    too_many["node_count"] = json!(33);
    let refused = call(
        &sim,
        Provider::Runcrate,
        "POST",
        "/clusters",
        Some(too_many),
    )
    .await;
    assert_eq!(refused.status, 422);
    assert_eq!(
        refused.json["error"]["message"],
        "node_count: offer offer-h200-sxm-8x takes 2..=32 machines, not 33"
    );
    let unknown = call(
        &sim,
        Provider::Runcrate,
        "POST",
        "/clusters",
        Some(runcrate_create("x", "offer-h300-8x")),
    )
    .await;
    assert_eq!(
        (unknown.status, &unknown.json["error"]["message"]),
        (404, &json!("offer \"offer-h300-8x\" not found"))
    );
    assert_eq!(sim.clusters(Provider::Runcrate).len(), 1);
    finish(sim).await;
}

/// The `list_plans` items of `location`: (sku id, gpu_card_type, [(plan id, price)]).
async fn e2e_plans(sim: &gpucloud_sim::RunningSim, location: &str) -> Vec<(i64, Value, Value)> {
    let path = "/distributed_jobs_v2/cluster/plans/?variant=e2e";
    let plans = e2e_in(sim, location, "GET", path, None).await;
    assert_eq!(plans.status, 200, "{}", plans.text);
    plans.json["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|sku| {
            let prices: Vec<Value> = sku["plans"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| json!([p["sku_item_price_id"], p["unit_price"]]))
                .collect();
            (
                sku["sku_id"].as_i64().unwrap(),
                sku["gpu_card_type"].clone(),
                json!(prices),
            )
        })
        .collect()
}

#[tokio::test]
async fn e2e_plans_offer_h100_and_h200_in_both_locations_and_create_follows_them() {
    let sim = sim().await;
    assert_eq!(
        e2e_plans(&sim, "Delhi").await,
        [
            (139, Value::Null, json!([[645, 12.3]])),
            (
                201,
                json!("H100"),
                json!([[811, 2040.0], [812, 1_250_000.0]])
            ),
            (202, json!("H200"), json!([[831, 2400.0]])),
        ]
    );
    assert_eq!(
        e2e_plans(&sim, "Chennai").await,
        [
            (139, Value::Null, json!([[646, 12.3]])),
            (201, json!("H100"), json!([[821, 1980.0]])),
            (202, json!("H200"), json!([[841, 2350.0]])),
        ]
    );

    let path = "/distributed_jobs_v2/cluster/";
    let mut delhi = e2e_create("h200-delhi");
    delhi["sku_id"] = json!(202);
    delhi["sku_item_price_id"] = json!(831);
    let created = e2e_in(&sim, "Delhi", "POST", path, Some(delhi.clone())).await;
    assert_eq!(created.status, 201, "{}", created.text);
    let specs = &created.json["data"]["sku_details"]["specs"];
    assert_eq!(
        (&specs["name"], &specs["gpu"], &specs["gpu_card_type"]),
        (&json!("GDC3.8xH200-141"), &json!(8), &json!("H200"))
    );
    let mut chennai = delhi.clone();
    chennai["sku_item_price_id"] = json!(841);
    let created = e2e_in(&sim, "Chennai", "POST", path, Some(chennai.clone())).await;
    assert_eq!(created.status, 201, "{}", created.text);

    // A Chennai plan in Delhi, and an unknown node type: refused as E2E does.
    let refused = e2e_in(&sim, "Delhi", "POST", path, Some(chennai)).await;
    assert_eq!(
        (refused.status, &refused.json["errors"]),
        (
            400,
            &json!({"sku_item_price_id": ["This plan is not available for GDC3.8xH200-141 in Delhi."]})
        )
    );
    delhi["sku_id"] = json!(999);
    let refused = e2e_in(&sim, "Delhi", "POST", path, Some(delhi)).await;
    assert_eq!(
        (refused.status, &refused.json["errors"]),
        (400, &json!({"sku_id": ["Invalid SKU."]}))
    );
    assert_eq!(sim.clusters(Provider::E2e).len(), 2);
    finish(sim).await;
}
