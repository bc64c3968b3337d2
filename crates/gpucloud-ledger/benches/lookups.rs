//! What the look-up by name before each create costs a loop of separate processes (a shell
//! loop of `gpucloud clusters create`) as the account grows: sequential Together creates,
//! each through a client of its own (nothing shared in memory, as between processes), against
//! accounts of 0, 10, 1,000 and 10,000 clusters in the simulator, as creates per second and as
//! ratios to the empty account, measured in the same run:
//!
//! - `shared` (the default with a ledger): each create opens the ledger, and the names of the
//!   first create's list of the account, kept there for `name_lookup_max_age` (5 s), serve
//!   the rest;
//! - `fresh` (`name_lookup_max_age` zero, what every process did before): each create lists
//!   the whole account first.
//!
//! Run: `cargo bench -p gpucloud-ledger --bench lookups`. Prints one table; no criterion (one
//! create against a large account takes up to a second, and the ratios are the result).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gpucloud::journal::Journal;
use gpucloud::{ClusterClient, ClusterSize, ClusterSpec, ReconcilePolicy, TogetherConfig};
use gpucloud_ledger::{Ledger, LedgerOptions};
use gpucloud_sim::{CapacityFilter, Provider, RunningSim, SimConfig, Simulator, credentials};

/// Creates per measured loop (a fresh look-up against 10,000 clusters takes about a second).
const SHARED_LOOP: usize = 64;
const FRESH_LOOP: usize = 8;

/// A new client, as a new process makes; with the ledger at `ledger` if given.
fn client(sim: &RunningSim, max_age: Duration, ledger: Option<&Path>) -> ClusterClient {
    let mut config = TogetherConfig::new(credentials::TOGETHER_API_KEY)
        .with_base_url(sim.base_url(Provider::Together))
        .with_reconcile_policy(ReconcilePolicy::default().with_name_lookup_max_age(max_age));
    if let Some(path) = ledger {
        let ledger = Ledger::open_with(path, &LedgerOptions::default()).unwrap();
        config = config.with_journal(Arc::new(ledger) as Arc<dyn Journal>);
    }
    ClusterClient::together(config).unwrap()
}

fn spec(name: String) -> ClusterSpec {
    ClusterSpec::new(name, ClusterSize::Gpus(8))
        .with_gpu_model("H100_SXM")
        .with_region("us-central-8")
        .with_options(
            gpucloud::TogetherOptions::default().with_nvidia_version_id("cuda-12.8-driver-570"),
        )
}

/// Creates per second of `count` sequential creates named `{label}-{i}`, each through a
/// new client.
async fn rate(
    sim: &RunningSim,
    max_age: Duration,
    ledger: &Path,
    label: &str,
    count: usize,
) -> f64 {
    let started = Instant::now();
    for i in 0..count {
        client(sim, max_age, Some(ledger))
            .create(&spec(format!("{label}-{i}")))
            .await
            .unwrap();
    }
    // Loops are small; an f64 of one is exact.
    #[allow(clippy::cast_precision_loss)]
    let per_second = count as f64 / started.elapsed().as_secs_f64();
    per_second
}

/// A simulator whose Together account holds `size` clusters (seeded through one client,
/// whose creates share one look-up, so that seeding stays quick).
async fn account_of(size: usize) -> RunningSim {
    let sim = Simulator::start(SimConfig {
        time_scale: 0.0,
        ..SimConfig::default()
    })
    .await
    .unwrap();
    sim.capacity()
        .set(
            &CapacityFilter::new(Provider::Together, "H100"),
            100_000_000,
        )
        .unwrap();
    let seeder = client(&sim, Duration::from_secs(3600), None);
    for chunk in (0..size).collect::<Vec<_>>().chunks(8) {
        let batch = chunk.iter().map(|i| {
            let seeder = seeder.clone();
            async move { seeder.create(&spec(format!("seed-{i}"))).await }
        });
        for made in futures_util::future::join_all(batch).await {
            made.unwrap();
        }
    }
    sim
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        // Warm-up: the first simulator, ledger and client of a process pay for what later
        // ones reuse.
        let warm = account_of(10).await;
        rate(
            &warm,
            Duration::ZERO,
            &dir.path().join("warm.sqlite3"),
            "warm-up",
            FRESH_LOOP,
        )
        .await;
        warm.shutdown().await;
        let mut rows = Vec::new();
        for size in [0usize, 10, 1_000, 10_000] {
            let sim = account_of(size).await;
            let ledger = dir.path().join(format!("shared-{size}.sqlite3"));
            let shared = rate(&sim, Duration::from_secs(5), &ledger, "shared", SHARED_LOOP).await;
            let ledger = dir.path().join(format!("fresh-{size}.sqlite3"));
            let fresh = rate(&sim, Duration::ZERO, &ledger, "fresh", FRESH_LOOP).await;
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
