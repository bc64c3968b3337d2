//! What the facade costs, as ratios against baselines measured in the same process:
//!
//! 1. `get_cluster` round trip: `ClusterClient::get` (auth hook, tracing span, retry wrapper,
//!    typed decode, neutral view) vs a bare `reqwest` GET + `serde_json::Value` decode, against
//!    the same local server and body.
//! 2. Decoding a Together cluster with 1,000 GPU worker nodes into the generated types (and
//!    into the neutral view) vs into `serde_json::Value`.
//!
//! Run: `cargo bench -p gpucloud --bench facade_overhead`. The last lines print the ratios.

use std::path::PathBuf;

use std::hint::black_box;

use criterion::Criterion;
use gpucloud::{ClusterClient, ClusterId, RetryPolicy, TogetherConfig};
use gpucloud_together::types::GpuClusterInfo;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn cluster_json(workers: usize) -> String {
    let nodes: Vec<serde_json::Value> = (0..workers)
        .map(|i| {
            serde_json::json!({
                "node_id": format!("node-{i:04}"), "status": "Running", "host_name": format!("gpu-worker-{i:04}"),
                "num_cpu_cores": 208, "num_gpus": 8, "memory_gib": 2048.0, "networks": ["ib0", "ib1", "eth0"],
                "instance_id": format!("i-{i:08x}"), "public_ipv4": format!("10.{}.{}.{}", i / 65536, (i / 256) % 256, i % 256),
                "ib_hca_type": "ConnectX-7", "ib_hca_count": 8, "nvswitch_count": 4, "nvswitch_type": "NVSwitch3",
                "ephemeral_storage": "28Ti", "auto_remediation_enabled": true,
                "phase_transitions": [
                    {"phase": "NODE_PHASE_PENDING", "transition_time": "2026-11-01T10:00:00Z"},
                    {"phase": "NODE_PHASE_RUNNING", "transition_time": "2026-11-01T10:12:00Z"}
                ]
            })
        })
        .collect();
    serde_json::json!({
        "cluster_id": "c-bench", "cluster_name": "bench", "cluster_type": "KUBERNETES", "region": "us-central-8",
        "gpu_type": "H100_SXM", "status": "Ready", "num_gpus": workers * 8, "billing_type": "ON_DEMAND",
        "created_at": "2026-11-01T10:00:00Z", "first_ready_at": "2026-11-01T10:20:00Z",
        "phase_transitions": [{"phase": "CLUSTER_PHASE_READY", "transition_time": "2026-11-01T10:20:00Z"}],
        "control_plane_nodes": [], "gpu_worker_nodes": nodes, "volumes": [], "add_ons": []
    })
    .to_string()
}

fn bench_round_trip(c: &mut Criterion, runtime: &tokio::runtime::Runtime) {
    let body = cluster_json(4);
    let server = runtime.block_on(async {
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .and(path("/v1/compute/clusters/c-bench"))
            .respond_with(ResponseTemplate::new(200).set_body_raw(body.clone(), "application/json"))
            .mount(&server)
            .await;
        server
    });
    let base = format!("{}/v1", server.uri());
    let facade = ClusterClient::together(
        TogetherConfig::new("bench-key")
            .with_base_url(&base)
            .with_retry_policy(RetryPolicy::none()),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let id = ClusterId::new("c-bench");
    // The same TLS configuration as the facade's (reqwest has no crypto provider of its own).
    let bare = gpucloud_core::tls::client_builder()
        .unwrap_or_else(|e| panic!("{e}"))
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let url = format!("{base}/compute/clusters/c-bench");

    let mut group = c.benchmark_group("get_cluster");
    group.bench_function("baseline_reqwest_value", |b| {
        b.to_async(runtime).iter(|| async {
            let response = bare
                .get(&url)
                .bearer_auth("bench-key")
                .send()
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            let bytes = response.bytes().await.unwrap_or_else(|e| panic!("{e}"));
            black_box(serde_json::from_slice::<serde_json::Value>(&bytes).unwrap_or_default())
        })
    });
    group.bench_function("facade_get", |b| {
        b.to_async(runtime)
            .iter(|| async { black_box(facade.get(&id).await.unwrap_or_else(|e| panic!("{e}"))) })
    });
    group.finish();
}

fn bench_decode(c: &mut Criterion) {
    let body = cluster_json(1000);
    let mut group = c.benchmark_group("decode_1000_nodes");
    group.bench_function("baseline_value", |b| {
        b.iter(|| {
            black_box(
                serde_json::from_str::<serde_json::Value>(black_box(&body)).unwrap_or_default(),
            )
        })
    });
    group.bench_function("typed", |b| {
        b.iter(|| black_box(serde_json::from_str::<GpuClusterInfo>(black_box(&body)).ok()))
    });
    group.bench_function("typed_and_view", |b| {
        b.iter(|| {
            let info = serde_json::from_str::<GpuClusterInfo>(black_box(&body)).ok();
            black_box(info.map(gpucloud::Cluster::from))
        })
    });
    group.finish();
}

/// Criterion's mean estimate (ns) of `group/bench` from this run.
fn mean_ns(group: &str, bench: &str) -> Option<f64> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    let file = target
        .join("criterion")
        .join(group)
        .join(bench)
        .join("new/estimates.json");
    let estimates: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).ok()?).ok()?;
    estimates["mean"]["point_estimate"].as_f64()
}

fn report(group: &str, baseline: &str, candidates: &[&str]) {
    let Some(base) = mean_ns(group, baseline) else {
        return;
    };
    for candidate in candidates {
        if let Some(value) = mean_ns(group, candidate) {
            println!(
                "ratio {group}: {candidate} / {baseline} = {:.3} ({:.1} µs vs {:.1} µs)",
                value / base,
                value / 1e3,
                base / 1e3
            );
        }
    }
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("{e}"));
    let mut criterion = Criterion::default().configure_from_args();
    bench_round_trip(&mut criterion, &runtime);
    bench_decode(&mut criterion);
    criterion.final_summary();
    report("get_cluster", "baseline_reqwest_value", &["facade_get"]);
    report(
        "decode_1000_nodes",
        "baseline_value",
        &["typed", "typed_and_view"],
    );
}
