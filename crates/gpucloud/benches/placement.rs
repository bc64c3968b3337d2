//! What a placement costs over a single-provider create, against the simulator with every
//! answer delayed (injected latency, so round trips dominate), as ratios measured in the same
//! run:
//!
//! 1. `single_explicit`: a Together create naming every id (no catalog): its name look-up and
//!    its POST.
//! 2. `single_intent`: the same create from intent only (GPU family and size): the catalog is
//!    fetched first (cached for the client's TTL, so a fresh client per create here).
//! 3. `placement_first_wins`: a placement over Together, Runcrate and E2E from intent, Together
//!    winning: the three catalogs are fetched at once, then Together's look-up and POST.
//! 4. `placement_failover`: the same with Together out of H100 capacity: its refused POST, then
//!    Runcrate's POST.
//!
//! The claim measured: a placement adds at most one round trip per provider (done
//! concurrently, so one round trip of wall time) over a single-provider create. Round trips
//! per create are counted from the simulator's own log and printed beside the ratios.
//!
//! Run: `cargo bench -p gpucloud --bench placement`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use criterion::Criterion;
use gpucloud::{
    Candidate, ClusterClient, ClusterSize, ClusterSpec, E2eConfig, E2eOptions, Placement,
    RuncrateConfig, TogetherConfig, TogetherOptions,
};
use gpucloud_sim::{
    CapacityFilter, Fault, FaultKind, Provider, RunningSim, SimConfig, Simulator, credentials,
};

/// The delay added to every answer.
const LATENCY: Duration = Duration::from_millis(20);

static NEXT: AtomicU64 = AtomicU64::new(0);

fn name() -> String {
    format!("bench-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

fn client(sim: &RunningSim, provider: Provider) -> ClusterClient {
    let url = sim.base_url(provider);
    let built = match provider {
        Provider::Together => ClusterClient::together(
            TogetherConfig::new(credentials::TOGETHER_API_KEY).with_base_url(url),
        ),
        Provider::Runcrate => ClusterClient::runcrate(
            RuncrateConfig::new(credentials::RUNCRATE_API_KEY).with_base_url(url),
        ),
        Provider::E2e => ClusterClient::e2e(
            E2eConfig::new(
                credentials::E2E_API_KEY,
                credentials::E2E_AUTH_TOKEN,
                credentials::E2E_PROJECT_ID,
                gpucloud::e2e::types::Location::Delhi,
            )
            .with_base_url(url),
        ),
    };
    built.unwrap_or_else(|e| panic!("{e}"))
}

fn intent(provider: Provider) -> ClusterSpec {
    let spec = ClusterSpec::new(name(), ClusterSize::Gpus(16)).with_gpu_model("H100");
    match provider {
        Provider::E2e => spec
            .with_ssh_keys(["101"])
            .with_options(E2eOptions::default().with_security_group_id(1)),
        _ => spec,
    }
}

fn explicit() -> ClusterSpec {
    ClusterSpec::new(name(), ClusterSize::Gpus(16))
        .with_gpu_model("H100_SXM")
        .with_region("us-central-8")
        .with_options(TogetherOptions::default().with_nvidia_version_id("cuda-12.8-driver-570"))
}

fn placement(sim: &RunningSim) -> Placement {
    Placement::new(
        [Provider::Together, Provider::Runcrate, Provider::E2e]
            .map(|p| Candidate::new(client(sim, p), intent(p))),
    )
}

/// Counts the round trips of one `create`, then benchmarks it as `placement/<label>`.
fn measure<F, Fut>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    runtime: &tokio::runtime::Runtime,
    sim: &RunningSim,
    counts: &mut Vec<(&'static str, usize)>,
    label: &'static str,
    create: F,
) where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let before = sim.exchanges().len();
    runtime.block_on(create());
    counts.push((label, round_trips(sim, before)));
    group.bench_function(label, |b| b.to_async(runtime).iter(&create));
}

/// Requests the simulator answered since `from`.
fn round_trips(sim: &RunningSim, from: usize) -> usize {
    sim.exchanges().len().saturating_sub(from)
}

fn unlimited(sim: &RunningSim) {
    for (provider, model) in [
        (Provider::Together, "H100"),
        (Provider::Runcrate, "H100"),
        (Provider::E2e, "H100"),
    ] {
        sim.capacity()
            .set(&CapacityFilter::new(provider, model), 1_000_000)
            .unwrap_or_else(|e| panic!("{e:?}"));
    }
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("{e}"));
    let sim = runtime
        .block_on(Simulator::start(SimConfig {
            time_scale: 0.0,
            ..SimConfig::default()
        }))
        .unwrap_or_else(|e| panic!("{e}"));
    unlimited(&sim);
    for provider in [Provider::Together, Provider::Runcrate, Provider::E2e] {
        sim.faults()
            .inject(Fault::new(provider, FaultKind::Slow { delay: LATENCY }).times(u32::MAX));
    }
    let mut criterion = Criterion::default()
        .sample_size(10)
        .measurement_time(Duration::from_secs(4))
        .configure_from_args();
    let mut counts = Vec::new();
    {
        let mut group = criterion.benchmark_group("placement");
        let together = || client(&sim, Provider::Together);
        measure(
            &mut group,
            &runtime,
            &sim,
            &mut counts,
            "single_explicit",
            || async {
                together()
                    .create(&explicit())
                    .await
                    .unwrap_or_else(|e| panic!("{e}"));
            },
        );
        measure(
            &mut group,
            &runtime,
            &sim,
            &mut counts,
            "single_intent",
            || async {
                together()
                    .create(&intent(Provider::Together))
                    .await
                    .unwrap_or_else(|e| panic!("{e}"));
            },
        );
        measure(
            &mut group,
            &runtime,
            &sim,
            &mut counts,
            "placement_first_wins",
            || async {
                placement(&sim)
                    .create()
                    .await
                    .unwrap_or_else(|e| panic!("{e}"));
            },
        );
        sim.capacity()
            .set(&CapacityFilter::new(Provider::Together, "H100"), 0)
            .unwrap_or_else(|e| panic!("{e:?}"));
        measure(
            &mut group,
            &runtime,
            &sim,
            &mut counts,
            "placement_failover",
            || async {
                placement(&sim)
                    .create()
                    .await
                    .unwrap_or_else(|e| panic!("{e}"));
            },
        );
        group.finish();
    }
    criterion.final_summary();
    for (label, trips) in &counts {
        println!("round trips {label}: {trips}");
    }
    for (candidate, baseline) in [
        ("single_intent", "single_explicit"),
        ("placement_first_wins", "single_intent"),
        ("placement_first_wins", "single_explicit"),
        ("placement_failover", "single_intent"),
    ] {
        if let (Some(value), Some(base)) = (mean_ns(candidate), mean_ns(baseline)) {
            println!(
                "ratio placement: {candidate} / {baseline} = {:.3} ({:.1} ms vs {:.1} ms)",
                value / base,
                value / 1e6,
                base / 1e6
            );
        }
    }
    runtime.block_on(sim.shutdown());
}

/// Criterion's mean for `placement/<bench>`, in nanoseconds, from its report files.
fn mean_ns(bench: &str) -> Option<f64> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target")
        });
    let file = target
        .join("criterion")
        .join("placement")
        .join(bench)
        .join("new/estimates.json");
    let estimates: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).ok()?).ok()?;
    estimates["mean"]["point_estimate"].as_f64()
}
