//! Together and E2E clusters through simulated time: each provider's phases and status words,
//! nodes gaining addresses, volumes and resizes, E2E's scale action, deletes that take a while
//! and then 404. (Runcrate: `runcrate_lifecycle.rs`.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use base64::Engine as _;

use std::time::Duration;

use common::*;
use gpucloud_sim::Provider;
use serde_json::{Value, json};

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

fn phases(cluster: &Value) -> Vec<String> {
    cluster["phase_transitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            p["phase"]
                .as_str()
                .unwrap()
                .trim_start_matches("CLUSTER_PHASE_")
                .to_string()
        })
        .collect()
}

#[tokio::test]
async fn together_goes_through_its_phases_to_ready_then_deleting_then_gone() {
    let sim = sim().await;
    let clock = sim.clock();
    let created = call(
        &sim,
        Provider::Together,
        "POST",
        "/compute/clusters",
        Some(together_create("t")),
    )
    .await;
    assert_eq!(created.status, 200);
    let id = created.json["cluster_id"].as_str().unwrap().to_string();
    assert_eq!(phases(&created.json), ["QUEUED"]);
    assert_eq!(created.json["status"], "WaitingForControlPlaneNodes");
    let path = format!("/compute/clusters/{id}");
    let get = || call(&sim, Provider::Together, "GET", &path, None);

    clock.advance(secs(65));
    let cluster = get().await.json;
    assert_eq!(cluster["status"], "WaitingForDataPlaneNodes");
    assert_eq!(
        cluster["gpu_worker_nodes"].as_array().unwrap().len(),
        2,
        "16 GPUs = 2 workers"
    );
    assert!(cluster["gpu_worker_nodes"][0]["host_name"].is_null());
    assert!(cluster["control_plane_nodes"][0]["public_ipv4"].is_null());

    clock.advance(secs(120)); // 185 s
    let cluster = get().await.json;
    assert_eq!(cluster["status"], "InstallingDrivers");
    assert!(
        cluster["gpu_worker_nodes"][0]["host_name"]
            .as_str()
            .unwrap()
            .ends_with(".cloud.together.ai")
    );
    assert!(cluster["gpu_worker_nodes"][0]["public_ipv4"].is_string());
    // Base64-encoded, as Together's CLI reads it.
    let kube_config = base64::engine::general_purpose::STANDARD
        .decode(cluster["kube_config"].as_str().unwrap())
        .unwrap();
    let kube_config = String::from_utf8(kube_config).unwrap();
    assert!(
        kube_config.starts_with("apiVersion: v1\nkind: Config\n"),
        "{kube_config}"
    );

    clock.advance(secs(120)); // 305 s
    let cluster = get().await.json;
    assert_eq!(cluster["status"], "Ready");
    assert_eq!(
        phases(&cluster),
        [
            "QUEUED",
            "WAITING_FOR_CONTROL_PLANE_NODES",
            "WAITING_FOR_DATA_PLANE_NODES",
            "WAITING_FOR_SUBNET",
            "INSTALLING_DRIVERS",
            "RUNNING_ACCEPTANCE_TESTS",
            "READY"
        ]
    );
    assert_eq!(cluster["first_ready_at"], "2026-01-01T00:05:00Z");

    let deleted = call(
        &sim,
        Provider::Together,
        "DELETE",
        &format!("/compute/clusters/{id}"),
        None,
    )
    .await;
    assert_eq!(deleted.json, json!({"cluster_id": id}));
    assert_eq!(get().await.json["status"], "Deleting");
    clock.advance(secs(61));
    let gone = get().await;
    assert_eq!((gone.status, gone.json["code"].clone()), (404, json!(5)));
    assert!(sim.clusters(Provider::Together).is_empty());
    finish(sim).await;
}

#[tokio::test]
async fn together_volumes_bind_to_clusters_and_resizes_add_workers() {
    let sim = sim().await;
    let clock = sim.clock();
    let volume = call(
        &sim,
        Provider::Together,
        "POST",
        "/compute/clusters/storage/volumes",
        Some(json!({"volume_name": "data", "size_tib": 2, "region": "us-central-8"})),
    )
    .await
    .json;
    assert_eq!(volume["status"], "provisioning");
    let volume_id = volume["volume_id"].as_str().unwrap();
    clock.advance(secs(31));
    let mut body = together_create("with-volume");
    body["volume_id"] = json!(volume_id);
    let cluster = call(
        &sim,
        Provider::Together,
        "POST",
        "/compute/clusters",
        Some(body),
    )
    .await
    .json;
    assert_eq!(cluster["volumes"][0]["status"], "bound");
    let delete = call(
        &sim,
        Provider::Together,
        "DELETE",
        &format!("/compute/clusters/storage/volumes/{volume_id}"),
        None,
    )
    .await;
    assert_eq!(delete.status, 400, "attached volumes cannot be deleted");
    clock.advance(secs(305));
    let cluster = call(
        &sim,
        Provider::Together,
        "GET",
        &format!(
            "/compute/clusters/{}",
            cluster["cluster_id"].as_str().unwrap()
        ),
        None,
    )
    .await
    .json;
    assert!(phases(&cluster).contains(&"WAITING_FOR_SHARED_VOLUME".to_string()));

    let id = cluster["cluster_id"].as_str().unwrap();
    let resized = call(
        &sim,
        Provider::Together,
        "PUT",
        &format!("/compute/clusters/{id}"),
        Some(json!({"num_gpus": 32})),
    )
    .await
    .json;
    assert_eq!(resized["num_gpus"], 32);
    assert_eq!(resized["gpu_worker_nodes"].as_array().unwrap().len(), 4);
    assert_eq!(
        resized["node_lifecycle_events"][0]["reason"],
        "TogetherScaledUp"
    );
    assert_eq!(resized["status"], "WaitingForDataPlaneNodes");
    clock.advance(secs(121));
    let path = format!("/compute/clusters/{id}");
    let ready = call(&sim, Provider::Together, "GET", &path, None)
        .await
        .json;
    assert_eq!(
        (ready["status"].as_str(), ready["num_gpus"].as_i64()),
        (Some("Ready"), Some(32))
    );
    finish(sim).await;
}

#[tokio::test]
async fn e2e_creates_runs_scales_and_deletes() {
    let sim = sim().await;
    let clock = sim.clock();
    let created = call(
        &sim,
        Provider::E2e,
        "POST",
        "/distributed_jobs_v2/cluster/",
        Some(e2e_create("e")),
    )
    .await;
    assert_eq!(
        (created.status, created.json["code"].clone()),
        (201, json!(201))
    );
    assert_eq!(created.json["message"], "Cluster created successfully");
    let cluster = &created.json["data"];
    assert_eq!(
        (
            cluster["status"].as_str(),
            cluster["ssh_public_ip"].as_str()
        ),
        (Some("Creating"), Some(""))
    );
    assert_eq!(cluster["worker_nodes"], json!([]));
    let path = format!("/distributed_jobs_v2/cluster/{}/", cluster["id"]);

    clock.advance(secs(121));
    let cluster = call(&sim, Provider::E2e, "GET", &path, None).await.json["data"].clone();
    assert_eq!(cluster["status"], "Running");
    assert_eq!(cluster["total_gpu"], 16);
    assert_eq!(cluster["worker_nodes"].as_array().unwrap().len(), 2);
    assert_ne!(cluster["ssh_public_ip"], "");

    let scaled = call(
        &sim,
        Provider::E2e,
        "PUT",
        &path,
        Some(json!({"action": "scale_cluster", "additional_nodes": 2})),
    )
    .await;
    let cluster = &scaled.json["data"];
    assert_eq!(
        (cluster["no_of_nodes"].as_i64(), cluster["status"].as_str()),
        (Some(4), Some("Scaling"))
    );
    assert_eq!(cluster["worker_nodes"][3]["status"], "Creating");
    clock.advance(secs(91));
    let cluster = call(&sim, Provider::E2e, "GET", &path, None).await.json["data"].clone();
    assert_eq!(cluster["worker_nodes"][3]["status"], "Running");
    assert_eq!(cluster["status"], "Running");
    let missing = call(
        &sim,
        Provider::E2e,
        "PUT",
        &path,
        Some(json!({"action": "scale_cluster"})),
    )
    .await;
    assert!(missing.json["errors"]["additional_nodes"].is_array());

    let deleted = call(&sim, Provider::E2e, "DELETE", &path, None).await;
    assert_eq!(deleted.json["data"], "Cluster deleted successfully");
    assert_eq!(
        call(&sim, Provider::E2e, "GET", &path, None).await.json["data"]["status"],
        "Deleting"
    );
    clock.advance(secs(31));
    let gone = call(&sim, Provider::E2e, "GET", &path, None).await;
    assert_eq!((gone.status, gone.json["code"].clone()), (404, json!(404)));
    finish(sim).await;
}

#[tokio::test]
async fn ids_depend_on_the_seed_only() {
    let start = |seed| {
        gpucloud_sim::Simulator::start(gpucloud_sim::SimConfig {
            seed,
            time_scale: 0.0,
            ..Default::default()
        })
    };
    let (a, b, c) = (
        start(1).await.unwrap(),
        start(1).await.unwrap(),
        start(2).await.unwrap(),
    );
    let mut ids = Vec::new();
    for sim in [&a, &b, &c] {
        let created = call(
            sim,
            Provider::Runcrate,
            "POST",
            "/clusters",
            Some(runcrate_create("x", "offer-h100-sxm-8x")),
        )
        .await;
        ids.push(created.json["data"]["id"].as_str().unwrap().to_string());
    }
    assert_eq!(ids[0], ids[1]);
    assert_ne!(ids[0], ids[2]);
    for sim in [a, b, c] {
        finish(sim).await;
    }
}
