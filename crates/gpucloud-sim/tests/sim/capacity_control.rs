//! `/_sim/capacity` over HTTP, without credentials: every offering listed, `PUT` by a
//! provider's own model word and by family (narrowed by ids), 404 naming what exists, 400
//! naming the bad field with nothing changed, `DELETE` restoring the defaults — and what it
//! sets is what the providers' creates then see.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use gpucloud_sim::Provider;
use serde_json::{Value, json};

async fn put(sim: &gpucloud_sim::RunningSim, body: Value) -> Answer {
    control(sim, "PUT", "/capacity", Some(&body.to_string())).await
}

/// The `label` of every listed offering: `provider:ids`.
fn labels(answer: &Answer) -> Vec<String> {
    answer.json["offerings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let ids = match o["provider"].as_str().unwrap() {
                "together" => format!(
                    "{}/{}",
                    o["region"].as_str().unwrap(),
                    o["gpu_type"].as_str().unwrap()
                ),
                "runcrate" => o["offer_id"].as_str().unwrap().to_string(),
                _ => format!("{}@{}", o["sku_id"], o["location"].as_str().unwrap()),
            };
            format!("{}:{ids}", o["provider"].as_str().unwrap())
        })
        .collect()
}

fn amounts(answer: &Answer) -> Vec<u64> {
    answer.json["offerings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["available"].as_u64().unwrap())
        .collect()
}

#[tokio::test]
async fn get_lists_every_offering_with_its_ids_family_unit_and_amount() {
    let sim = sim().await;
    let listed = control(&sim, "GET", "/capacity", None).await;
    assert_eq!(listed.status, 200);
    assert_eq!(
        labels(&listed),
        [
            "together:us-central-8/H100_SXM",
            "together:us-central-8/H200_SXM",
            "together:us-central-8/B200_SXM",
            "together:us-central-8/B300_SXM",
            "together:us-central-4/H100_SXM",
            "together:us-central-4/H100_SXM_INF",
            "together:us-central-4/L40_PCIE",
            "together:us-central-4/RTX_6000_PCI",
            "together:eu-north-1/H100_SXM",
            "together:eu-north-1/H200_SXM",
            "runcrate:offer-h100-sxm-8x",
            "runcrate:offer-h200-sxm-8x",
            "runcrate:offer-b200-8x",
            "runcrate:offer-a100-pcie-4x-community",
            "runcrate:offer-fail",
            "e2e:201@Delhi",
            "e2e:201@Chennai",
            "e2e:202@Delhi",
            "e2e:202@Chennai",
        ]
    );
    let offerings = listed.json["offerings"].as_array().unwrap();
    assert_eq!(
        offerings[9],
        json!({"provider": "together", "region": "eu-north-1", "gpu_type": "H200_SXM",
               "gpu_model": "H200_SXM", "family": "H200", "unit": "gpus", "available": 1024, "in_use": 0})
    );
    assert_eq!(
        offerings[11],
        json!({"provider": "runcrate", "offer_id": "offer-h200-sxm-8x", "gpu_model": "H200 141GB SXM",
               "family": "H200", "unit": "nodes", "available": 64, "in_use": 0})
    );
    assert_eq!(
        offerings[18],
        json!({"provider": "e2e", "sku_id": 202, "location": "Chennai", "gpu_model": "H200",
               "family": "H200", "unit": "nodes", "available": 32, "in_use": 0})
    );
    assert_eq!(offerings[7]["family"], "RTX6000");
    // The in-process handle sees the same.
    assert_eq!(sim.capacity().list().len(), offerings.len());
    finish(sim).await;
}

#[tokio::test]
async fn put_by_provider_word_or_family_sets_what_creates_may_take() {
    let sim = sim().await;
    // Together's own word: every region's H100_SXM, not H100_SXM_INF.
    let word = put(
        &sim,
        json!({"provider": "together", "gpu_model": "H100_SXM", "available_gpus": 0}),
    )
    .await;
    assert_eq!(word.status, 200, "{}", word.text);
    assert_eq!(
        labels(&word),
        [
            "together:us-central-8/H100_SXM",
            "together:us-central-4/H100_SXM",
            "together:eu-north-1/H100_SXM"
        ]
    );
    assert_eq!(amounts(&word), [0, 0, 0]);
    let refused = call(
        &sim,
        Provider::Together,
        "POST",
        "/compute/clusters",
        Some(together_create("t")),
    )
    .await;
    assert_eq!(
        (refused.status, &refused.json["error"]["message"]),
        (
            400,
            &json!("no capacity for 16 H100_SXM GPUs in us-central-8 (0 available)")
        )
    );
    // A family, in any case: every H100 offering, narrowed by region.
    let family = put(&sim, json!({"provider": "together", "gpu_model": "h100", "region": "us-central-4", "available_gpus": 8})).await;
    assert_eq!(
        labels(&family),
        [
            "together:us-central-4/H100_SXM",
            "together:us-central-4/H100_SXM_INF"
        ]
    );
    assert_eq!(amounts(&family), [8, 8]);

    let runcrate = put(
        &sim,
        json!({"provider": "runcrate", "gpu_model": "H100", "available_nodes": 0}),
    )
    .await;
    assert_eq!(
        labels(&runcrate),
        ["runcrate:offer-h100-sxm-8x", "runcrate:offer-fail"]
    );
    let h200 = put(
        &sim,
        json!({"provider": "runcrate", "gpu_model": "H200 141GB SXM", "available_nodes": 2}),
    )
    .await;
    assert_eq!(
        (labels(&h200), amounts(&h200)),
        (vec!["runcrate:offer-h200-sxm-8x".to_string()], vec![2])
    );
    let body = runcrate_create("r", "offer-h100-sxm-8x");
    let refused = call(&sim, Provider::Runcrate, "POST", "/clusters", Some(body)).await;
    assert_eq!(
        (refused.status, &refused.json["error"]["code"]),
        (503, &json!("launch_refused"))
    );
    let body = runcrate_create("r", "offer-h200-sxm-8x");
    assert_eq!(
        call(&sim, Provider::Runcrate, "POST", "/clusters", Some(body))
            .await
            .status,
        201
    );

    let e2e = put(&sim, json!({"provider": "e2e", "gpu_model": "H200", "location": "Chennai", "available_nodes": 1})).await;
    assert_eq!(labels(&e2e), ["e2e:202@Chennai"]);
    let by_sku = put(
        &sim,
        json!({"provider": "e2e", "gpu_model": "H100", "sku_id": 201, "available_nodes": 0}),
    )
    .await;
    assert_eq!(labels(&by_sku), ["e2e:201@Delhi", "e2e:201@Chennai"]);

    // Setting what is available keeps what clusters hold: 2 H200 machines in use, 5 more.
    let more = put(
        &sim,
        json!({"provider": "runcrate", "gpu_model": "H200", "available_nodes": 5}),
    )
    .await;
    assert_eq!(
        more.json["offerings"][0],
        json!({"provider": "runcrate", "offer_id": "offer-h200-sxm-8x", "gpu_model": "H200 141GB SXM",
               "family": "H200", "unit": "nodes", "available": 5, "in_use": 2})
    );
    finish(sim).await;
}

#[tokio::test]
async fn no_match_is_a_404_naming_what_exists_and_changes_nothing() {
    let sim = sim().await;
    let before = control(&sim, "GET", "/capacity", None).await.json;
    let missing = put(
        &sim,
        json!({"provider": "runcrate", "gpu_model": "H300", "available_nodes": 1}),
    )
    .await;
    assert_eq!(missing.status, 404);
    assert_eq!(
        missing.json["error"],
        "runcrate has no offering matching gpu_model \"H300\"; it has offer-h100-sxm-8x (H100 80GB SXM), \
         offer-h200-sxm-8x (H200 141GB SXM), offer-b200-8x (B200 180GB SXM), \
         offer-a100-pcie-4x-community (A100 80GB PCIe), offer-fail (H100 80GB SXM)"
    );
    assert_eq!(missing.json["offerings"].as_array().unwrap().len(), 5);
    for body in [
        // us-central-4 has no H200; another provider's word is no family.
        json!({"provider": "together", "gpu_model": "H200_SXM", "region": "us-central-4", "available_gpus": 0}),
        json!({"provider": "runcrate", "gpu_model": "H100_SXM", "available_nodes": 0}),
        json!({"provider": "e2e", "gpu_model": "H100", "sku_id": 202, "available_nodes": 0}),
    ] {
        let answer = put(&sim, body.clone()).await;
        assert_eq!(answer.status, 404, "{body}: {}", answer.text);
        assert!(
            answer.json["error"]
                .as_str()
                .unwrap()
                .contains("has no offering matching")
        );
    }
    let after = control(&sim, "GET", "/capacity", None).await.json;
    assert_eq!(before, after);
    finish(sim).await;
}

#[tokio::test]
async fn bad_bodies_are_400s_naming_the_field_and_change_nothing() {
    let sim = sim().await;
    let before = control(&sim, "GET", "/capacity", None).await.json;
    let cases: Vec<(&str, &str)> = vec![
        ("not json", "body"),
        ("[]", "body"),
        (r#"{"gpu_model": "H100", "available_gpus": 0}"#, "provider"),
        (
            r#"{"provider": "aws", "gpu_model": "H100", "available_gpus": 0}"#,
            "provider",
        ),
        (
            r#"{"provider": "together", "available_gpus": 0}"#,
            "gpu_model",
        ),
        (
            r#"{"provider": "together", "gpu_model": "", "available_gpus": 0}"#,
            "gpu_model",
        ),
        (
            r#"{"provider": "together", "gpu_model": 100, "available_gpus": 0}"#,
            "gpu_model",
        ),
        (
            r#"{"provider": "together", "gpu_model": "H100"}"#,
            "available_gpus",
        ),
        (
            r#"{"provider": "together", "gpu_model": "H100", "available_nodes": 1}"#,
            "available_nodes",
        ),
        (
            r#"{"provider": "runcrate", "gpu_model": "H100", "available_gpus": 8}"#,
            "available_gpus",
        ),
        (
            r#"{"provider": "e2e", "gpu_model": "H100", "available_nodes": -1}"#,
            "available_nodes",
        ),
        (
            r#"{"provider": "e2e", "gpu_model": "H100", "available_nodes": 1.5}"#,
            "available_nodes",
        ),
        (
            r#"{"provider": "e2e", "gpu_model": "H100", "available_nodes": "2"}"#,
            "available_nodes",
        ),
        (
            r#"{"provider": "e2e", "gpu_model": "H100", "available_nodes": 1000001}"#,
            "available_nodes",
        ),
        (
            r#"{"provider": "runcrate", "gpu_model": "H100", "available_nodes": 1, "region": "x"}"#,
            "region",
        ),
        (
            r#"{"provider": "e2e", "gpu_model": "H100", "available_nodes": 1, "offer_id": "x"}"#,
            "offer_id",
        ),
        (
            r#"{"provider": "together", "gpu_model": "H100", "available_gpus": 1, "sku_id": 201}"#,
            "sku_id",
        ),
        (
            r#"{"provider": "e2e", "gpu_model": "H100", "available_nodes": 1, "sku_id": "201"}"#,
            "sku_id",
        ),
        (
            r#"{"provider": "e2e", "gpu_model": "H100", "available_nodes": 1, "location": 3}"#,
            "location",
        ),
        (
            r#"{"provider": "e2e", "gpu_model": "H100", "available_nodes": 1, "colour": "red"}"#,
            "colour",
        ),
    ];
    for (body, field) in cases {
        let answer = control(&sim, "PUT", "/capacity", Some(body)).await;
        assert_eq!(answer.status, 400, "{body}: {}", answer.text);
        let message = answer.json["error"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("{field}:")),
            "{body}: {message}"
        );
    }
    let wrong_unit = put(
        &sim,
        json!({"provider": "runcrate", "gpu_model": "H100", "available_gpus": 8}),
    )
    .await;
    assert_eq!(
        wrong_unit.json["error"],
        "available_gpus: runcrate counts nodes: give available_nodes"
    );
    let after = control(&sim, "GET", "/capacity", None).await.json;
    assert_eq!(before, after);
    finish(sim).await;
}

#[tokio::test]
async fn delete_restores_the_defaults_less_what_clusters_hold() {
    let sim = sim().await;
    let defaults = control(&sim, "GET", "/capacity", None).await;
    let created = call(
        &sim,
        Provider::Together,
        "POST",
        "/compute/clusters",
        Some(together_create("t")),
    )
    .await;
    assert_eq!(created.status, 200);
    for provider in ["runcrate", "e2e"] {
        let answer = put(
            &sim,
            json!({"provider": provider, "gpu_model": "H100", "available_nodes": 0}),
        )
        .await;
        assert_eq!(answer.status, 200);
    }
    let zero = put(
        &sim,
        json!({"provider": "together", "gpu_model": "H100", "available_gpus": 0}),
    )
    .await;
    assert_eq!(amounts(&zero), [0, 0, 0, 0]);

    let restored = control(&sim, "DELETE", "/capacity", None).await;
    assert_eq!(restored.status, 200);
    assert_eq!(labels(&restored), labels(&defaults));
    let mut expected = amounts(&defaults);
    expected[0] -= 16; // the live cluster's GPUs in us-central-8
    assert_eq!(amounts(&restored), expected);
    assert_eq!(restored.json["offerings"][0]["in_use"], 16);
    assert_eq!(
        control(&sim, "GET", "/capacity", None).await.json,
        restored.json
    );
    // The handle's reset does the same.
    sim.capacity()
        .set(&gpucloud_sim::CapacityFilter::new(Provider::E2e, "H200"), 0)
        .unwrap();
    sim.capacity().reset();
    assert_eq!(
        control(&sim, "GET", "/capacity", None).await.json,
        restored.json
    );
    finish(sim).await;
}
