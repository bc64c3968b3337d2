//! Requests are checked against the specs' schemas (and a few documented business rules), and
//! refused in each provider's error shape, naming the field.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use gpucloud_sim::Provider;
use serde_json::json;

#[tokio::test]
async fn together_names_the_broken_field() {
    let sim = sim().await;
    let mut body = together_create("t");
    body["num_gpus"] = json!(12);
    let answer = call(
        &sim,
        Provider::Together,
        "POST",
        "/compute/clusters",
        Some(body),
    )
    .await;
    assert_eq!(answer.status, 400);
    assert_eq!(answer.json["code"], 3, "gRPC INVALID_ARGUMENT");
    assert_eq!(
        answer.json["details"][0]["field_violations"][0]["field"],
        "num_gpus"
    );
    assert!(
        answer.json["message"]
            .as_str()
            .unwrap()
            .contains("num_gpus")
    );

    let mut body = together_create("t");
    body.as_object_mut().unwrap().remove("cluster_name");
    body["gpu_type"] = json!("TPU");
    let answer = call(
        &sim,
        Provider::Together,
        "POST",
        "/compute/clusters",
        Some(body),
    )
    .await;
    let fields: Vec<_> = answer.json["details"][0]["field_violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["field"].as_str().unwrap().to_string())
        .collect();
    assert!(
        fields.contains(&"cluster_name".into()) && fields.contains(&"gpu_type".into()),
        "{fields:?}"
    );

    // Business rules beyond the schema: the region must offer the GPU; one NVIDIA selector.
    let mut body = together_create("t");
    body["region"] = json!("us-central-4");
    body["gpu_type"] = json!("B200_SXM");
    let answer = call(
        &sim,
        Provider::Together,
        "POST",
        "/compute/clusters",
        Some(body),
    )
    .await;
    assert_eq!(answer.status, 400);
    assert!(
        answer.json["message"]
            .as_str()
            .unwrap()
            .contains("gpu_type")
    );
    let mut body = together_create("t");
    body["cuda_version"] = json!("12.8");
    let answer = call(
        &sim,
        Provider::Together,
        "POST",
        "/compute/clusters",
        Some(body),
    )
    .await;
    assert!(
        answer.json["message"]
            .as_str()
            .unwrap()
            .contains("cuda_version"),
        "{}",
        answer.text
    );
    finish(sim).await;
}

#[tokio::test]
async fn runcrate_answers_422_for_the_body_and_400_for_parameters() {
    let sim = sim().await;
    let mut body = runcrate_create("bad name!", "offer-h100-sxm-8x");
    body["node_count"] = json!(1);
    let answer = call(&sim, Provider::Runcrate, "POST", "/clusters", Some(body)).await;
    assert_eq!(answer.status, 422);
    assert_eq!(answer.json["error"]["code"], "validation_error");
    let fields: Vec<_> = answer.json["error"]["details"]["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(fields, ["name", "node_count"]);

    let body = runcrate_create("ok", "offer-h100-sxm-8x");
    let answer = send(
        &sim,
        Provider::Runcrate,
        "POST",
        "/clusters",
        Some(body),
        &[("Idempotency-Key", "has space")],
    )
    .await;
    assert_eq!(answer.status, 400);
    assert_eq!(answer.json["error"]["details"]["field"], "Idempotency-Key");

    let answer = call(
        &sim,
        Provider::Runcrate,
        "GET",
        "/clusters/not-a-uuid",
        None,
    )
    .await;
    assert_eq!(
        (
            answer.status,
            answer.json["error"]["details"]["field"].clone()
        ),
        (400, json!("id"))
    );

    // The offer's own rules.
    let body = runcrate_create("ok", "offer-nope");
    let answer = call(&sim, Provider::Runcrate, "POST", "/clusters", Some(body)).await;
    assert_eq!(
        (answer.status, answer.json["error"]["code"].clone()),
        (404, json!("not_found"))
    );
    let mut body = runcrate_create("ok", "offer-a100-pcie-4x-community");
    body["stack"] = json!("none");
    let answer = call(&sim, Provider::Runcrate, "POST", "/clusters", Some(body)).await;
    assert_eq!(
        answer.json["error"]["details"]["field"],
        "include_community"
    );
    let mut body = runcrate_create("ok", "offer-h100-sxm-8x");
    body["node_count"] = json!(64);
    let answer = call(&sim, Provider::Runcrate, "POST", "/clusters", Some(body)).await;
    assert_eq!(
        answer.status, 402,
        "a balance of $1500 does not cover 64 H100 machines"
    );
    finish(sim).await;
}

#[tokio::test]
async fn e2e_maps_each_field_to_its_messages() {
    let sim = sim().await;
    let mut body = e2e_create("e");
    body.as_object_mut().unwrap().remove("sku_id");
    body["no_of_nodes"] = json!("two");
    let answer = call(
        &sim,
        Provider::E2e,
        "POST",
        "/distributed_jobs_v2/cluster/",
        Some(body),
    )
    .await;
    assert_eq!(answer.status, 400);
    assert_eq!(answer.json["message"], "Bad Request");
    assert!(
        answer.json["errors"]["sku_id"].is_array(),
        "{}",
        answer.text
    );
    assert!(
        answer.json["errors"]["no_of_nodes"].is_array(),
        "{}",
        answer.text
    );

    // Plans are region-specific: a Delhi plan in Chennai is refused.
    let url = format!(
        "{}/distributed_jobs_v2/cluster/",
        sim.base_url(Provider::E2e)
    );
    let request = http()
        .post(url)
        .bearer_auth(gpucloud_sim::credentials::E2E_AUTH_TOKEN)
        .query(&[
            ("apikey", gpucloud_sim::credentials::E2E_API_KEY),
            ("project_id", "4242"),
            ("location", "Chennai"),
        ])
        .json(&e2e_create("e"));
    let answer = common::answer(request.send().await.unwrap()).await;
    assert!(
        answer.json["errors"]["sku_item_price_id"].is_array(),
        "{}",
        answer.text
    );

    let answer = call(
        &sim,
        Provider::E2e,
        "GET",
        "/distributed_jobs_v2/deployment_images/Slurm/?job_type=NeMo",
        None,
    )
    .await;
    assert!(answer.json["errors"]["job_type"].is_array());
    finish(sim).await;
}

#[tokio::test]
async fn query_parameters_are_typed_and_checked() {
    let sim = sim().await;
    let url = format!(
        "{}/distributed_jobs_v2/cluster/",
        sim.base_url(Provider::E2e)
    );
    let request = http()
        .get(url)
        .bearer_auth(gpucloud_sim::credentials::E2E_AUTH_TOKEN)
        .query(&[
            ("apikey", gpucloud_sim::credentials::E2E_API_KEY),
            ("project_id", "x"),
            ("location", "Mumbai"),
        ]);
    let answer = common::answer(request.send().await.unwrap()).await;
    assert_eq!(answer.status, 400);
    assert!(
        answer.json["errors"]["project_id"].is_array()
            && answer.json["errors"]["location"].is_array(),
        "{}",
        answer.text
    );

    let answer = call(
        &sim,
        Provider::Runcrate,
        "GET",
        "/clusters/offers?volume=maybe",
        None,
    )
    .await;
    assert_eq!(
        (
            answer.status,
            answer.json["error"]["details"]["field"].clone()
        ),
        (400, json!("volume"))
    );
    let answer = call(
        &sim,
        Provider::E2e,
        "GET",
        "/distributed_jobs_v2/cluster/plans/",
        None,
    )
    .await;
    assert_eq!(answer.json["errors"]["variant"][0], "is required");
    finish(sim).await;
}

#[tokio::test]
async fn only_documented_operations_are_served() {
    let sim = sim().await;
    // Runcrate documents no list and no delete.
    let answer = call(&sim, Provider::Runcrate, "GET", "/clusters", None).await;
    assert_eq!(answer.status, 405);
    let answer = call(
        &sim,
        Provider::Runcrate,
        "DELETE",
        "/clusters/4b1f8e3a-0000-4000-8000-000000000000",
        None,
    )
    .await;
    assert_eq!(answer.status, 405);
    let answer = call(&sim, Provider::Together, "GET", "/compute/nothing", None).await;
    assert_eq!(answer.status, 404);
    // E2E's paths end with a slash.
    let answer = call(
        &sim,
        Provider::E2e,
        "GET",
        "/distributed_jobs_v2/cluster",
        None,
    )
    .await;
    assert_eq!(answer.status, 404);
    // Not JSON at all.
    let request = authed(&sim, Provider::Together, "POST", "/compute/clusters").body("{nope");
    let answer = common::answer(request.send().await.unwrap()).await;
    assert_eq!(answer.status, 400);
    assert!(
        answer.json["message"]
            .as_str()
            .unwrap()
            .contains("not valid JSON")
    );
    finish(sim).await;
}
