//! What the look-up by name before each create costs as the account grows: batches of Together
//! creates (each its own name, 8 at a time through one client) against accounts of 0, 10,
//! 1,000 and 10,000 clusters in the simulator, as creates per second and as ratios to the empty
//! account, measured in the same run:
//!
//! - `shared` (the default, `ReconcilePolicy::name_lookup_max_age` 5 s): the batch waits for
//!   one list of the account and every create reads it;
//! - `fresh` (`name_lookup_max_age` zero, what every create did before): each create lists the
//!   whole account first, so a batch of N costs N lists.
//!
//! Run: `cargo bench -p gpucloud --bench lookups`. Prints one table; no criterion (one
//! batch against a large account takes seconds, and the ratios are the result).

use std::time::{Duration, Instant};

use gpucloud::{ClusterClient, ClusterSize, ClusterSpec, ReconcilePolicy, TogetherConfig};
use gpucloud_sim::{CapacityFilter, Provider, RunningSim, SimConfig, Simulator, credentials};

/// Creates per measured batch (a shared look-up serves a whole batch, a fresh one each
/// create, which against 10,000 clusters takes about a second), and concurrent creates in it.
const SHARED_BATCH: usize = 256;
const FRESH_BATCH: usize = 16;
const CONCURRENCY: usize = 8;

fn client(sim: &RunningSim, max_age: Duration) -> ClusterClient {
    ClusterClient::together(
        TogetherConfig::new(credentials::TOGETHER_API_KEY)
            .with_base_url(sim.base_url(Provider::Together))
            .with_reconcile_policy(ReconcilePolicy::default().with_name_lookup_max_age(max_age)),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn spec(name: String) -> ClusterSpec {
    ClusterSpec::new(name, ClusterSize::Gpus(8))
        .with_gpu_model("H100_SXM")
        .with_region("us-central-8")
        .with_options(
            gpucloud::TogetherOptions::default().with_nvidia_version_id("cuda-12.8-driver-570"),
        )
}

/// `count` creates named `{prefix}-{i}` through `client`, `CONCURRENCY` at a time.
async fn creates(client: &ClusterClient, prefix: &str, count: usize) {
    for chunk in (0..count).collect::<Vec<_>>().chunks(CONCURRENCY) {
        let batch = chunk.iter().map(|i| {
            let client = client.clone();
            let name = format!("{prefix}-{i}");
            async move { client.create(&spec(name)).await }
        });
        for made in futures_util::future::join_all(batch).await {
            made.unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

/// Creates per second of one batch of `count` on a fresh client with `max_age`.
async fn rate(sim: &RunningSim, max_age: Duration, label: &str, count: usize) -> f64 {
    let client = client(sim, max_age);
    let started = Instant::now();
    creates(&client, label, count).await;
    // Batches are small; an f64 of one is exact.
    #[allow(clippy::cast_precision_loss)]
    let per_second = count as f64 / started.elapsed().as_secs_f64();
    per_second
}

/// A simulator whose Together account holds `size` clusters.
async fn account_of(size: usize) -> RunningSim {
    let sim = Simulator::start(SimConfig {
        time_scale: 0.0,
        ..SimConfig::default()
    })
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    sim.capacity()
        .set(
            &CapacityFilter::new(Provider::Together, "H100"),
            100_000_000,
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
    // Seeded with one shared look-up, so that seeding stays quick.
    creates(&client(&sim, Duration::from_secs(3600)), "seed", size).await;
    sim
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("{e}"));
    runtime.block_on(async {
        // Warm-up: the first simulator and client of a process pay for what later ones reuse.
        let warm = account_of(10).await;
        rate(&warm, Duration::ZERO, "warm-up", FRESH_BATCH).await;
        warm.shutdown().await;
        let mut rows = Vec::new();
        for size in [0usize, 10, 1_000, 10_000] {
            let sim = account_of(size).await;
            let shared = rate(&sim, Duration::from_secs(5), "shared", SHARED_BATCH).await;
            sim.shutdown().await;
            let sim = account_of(size).await;
            let fresh = rate(&sim, Duration::ZERO, "fresh", FRESH_BATCH).await;
            sim.shutdown().await;
            rows.push((size, shared, fresh));
        }
        let (_, shared_0, fresh_0) = rows[0];
        println!(
            "clusters in the account | shared creates/s | ratio to empty | fresh creates/s | \
             ratio to empty"
        );
        for (size, shared, fresh) in &rows {
            println!(
                "{size} | {shared:.0} | {:.2} | {fresh:.0} | {:.2}",
                shared / shared_0,
                fresh / fresh_0
            );
        }
    });
}
