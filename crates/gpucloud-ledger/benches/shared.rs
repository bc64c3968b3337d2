//! Creates per second through the ledger, with 1, 4 and 16 callers creating at once against
//! the simulator, as ratios to the same creates with the ledger off, measured in the same run:
//! `off_cN` (no journal), `sqlite_cN` (a file), `postgres_cN` (a private PostgreSQL server on
//! loopback, started by the bench; skipped without one). Each caller has its own ledger
//! handle and client, as separate processes would, and creates its own name (distinct names:
//! the cost of recording and claiming, not of waiting for one another). Runcrate's create is
//! one POST (no look-up by name), so the ledger's share of a create is the largest here.
//! Twice: with the simulator answering at once (group `ledger`: the ledger's cost against
//! nothing) and with 20 ms added to every answer (group `ledger_20ms`: nearer a provider's
//! round trip, which is hundreds of milliseconds for a real create).
//!
//! Run: `cargo bench -p gpucloud-ledger --bench shared`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/ledger/postgres/mod.rs"]
mod postgres;
#[path = "../tests/ledger/support/mod.rs"]
mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use criterion::Criterion;
use gpucloud::ClusterClient;
use gpucloud::clock::TokioClock;
use gpucloud::journal::Journal;
use gpucloud_ledger::{Ledger, LedgerOptions};
use gpucloud_sim::{CapacityFilter, Fault, FaultKind, Provider, RunningSim};

const CALLERS: [usize; 3] = [1, 4, 16];

static NEXT: AtomicU64 = AtomicU64::new(0);

fn callers(sim: &RunningSim, n: usize, location: Option<&str>) -> Vec<ClusterClient> {
    (0..n)
        .map(|_| {
            let journal = location.map(|l| {
                Arc::new(Ledger::open_location(l, &LedgerOptions::default()).unwrap())
                    as Arc<dyn Journal>
            });
            support::client_at(
                &sim.base_url(Provider::Runcrate),
                Provider::Runcrate,
                journal,
                Arc::new(TokioClock::default()),
            )
        })
        .collect()
}

/// One round: every caller creates a name of its own, all at once.
async fn round(clients: &[ClusterClient]) {
    let tasks: Vec<_> = clients
        .iter()
        .map(|client| {
            let client = client.clone();
            let name = format!("bench-{}", NEXT.fetch_add(1, Ordering::Relaxed));
            tokio::spawn(async move {
                client
                    .create(&support::spec(Provider::Runcrate, &name))
                    .await
                    .unwrap_or_else(|e| panic!("{e}"))
            })
        })
        .collect();
    for task in futures_util::future::join_all(tasks).await {
        task.unwrap();
    }
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let sim = runtime.block_on(support::sim());
    sim.capacity()
        .set(
            &CapacityFilter::new(Provider::Runcrate, "H100"),
            100_000_000,
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
    let (_dir, path) = support::ledger_path();
    let server = postgres::PgServer::start();
    let mut backends = vec![("off", None), ("sqlite", Some(path.display().to_string()))];
    if let Some(server) = &server {
        backends.push((
            "postgres",
            Some(format!("{}?sslmode=disable", server.url())),
        ));
    }
    let mut criterion = Criterion::default()
        .sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    for (group_name, latency) in [("ledger", None), ("ledger_20ms", Some(20))] {
        sim.faults().clear();
        if let Some(ms) = latency {
            sim.faults().inject(
                Fault::new(
                    Provider::Runcrate,
                    FaultKind::Slow {
                        delay: Duration::from_millis(ms),
                    },
                )
                .times(u32::MAX),
            );
        }
        let mut group = criterion.benchmark_group(group_name);
        for (backend, location) in &backends {
            for n in CALLERS {
                let clients = callers(&sim, n, location.as_deref());
                group.bench_function(format!("{backend}_c{n}"), |b| {
                    b.to_async(&runtime).iter(|| round(&clients));
                });
            }
        }
        group.finish();
    }
    criterion.final_summary();
    println!("group | backend | callers | creates/s | time ratio to the ledger off");
    for group in ["ledger", "ledger_20ms"] {
        for (backend, _) in &backends {
            for n in CALLERS {
                let (Some(value), Some(base)) = (
                    mean_ns(group, &format!("{backend}_c{n}")),
                    mean_ns(group, &format!("off_c{n}")),
                ) else {
                    continue;
                };
                #[allow(clippy::cast_precision_loss)]
                let per_second = n as f64 / (value / 1e9);
                println!(
                    "{group} | {backend} | {n} | {per_second:.0} | {:.2} (throughput {:.2} of \
                     the ledger off)",
                    value / base,
                    base / value
                );
            }
        }
    }
    runtime.block_on(sim.shutdown());
}

/// Criterion's mean for `<group>/<bench>`, in nanoseconds, from its report files.
fn mean_ns(group: &str, bench: &str) -> Option<f64> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target")
        });
    let file = target
        .join("criterion")
        .join(group)
        .join(bench)
        .join("new/estimates.json");
    let estimates: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).ok()?).ok()?;
    estimates["mean"]["point_estimate"].as_f64()
}
