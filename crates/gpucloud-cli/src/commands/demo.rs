//! `gpucloud demo`: an embedded simulator, and create → wait → get → delete on every provider.
//!
//! Needs no account and no environment: the clients are built with the simulator's base URLs
//! and its fixed test credentials, never from the process environment.

use std::net::SocketAddr;
use std::time::Duration;

use gpucloud::{
    ClusterClient, ClusterSize, ClusterSpec, E2eConfig, E2eOptions, Error, ProviderKind,
    RuncrateConfig, RuncrateOptions, SoftwareStack, TogetherConfig, TogetherOptions,
};
use gpucloud_sim::{RunningSim, credentials};
use serde::Serialize;

use super::clusters::wait_with_progress;
use super::sim::{self, E2E_LOCATION, sim_provider};
use crate::cli::{DemoArgs, WaitArgs};
use crate::error::{CliError, one_line};
use crate::output;
use crate::progress::{ProgressDisplay, elapsed};
use crate::sanitize::cell;

/// What happened on one provider.
#[derive(Debug, Serialize)]
struct Outcome {
    provider: ProviderKind,
    cluster_id: String,
    state: String,
    nodes_reachable: usize,
    nodes_known: usize,
    gpus: Option<u32>,
    /// Real seconds until ready.
    ready_after_secs: f64,
    /// `deleted`, or why not.
    delete: String,
}

/// Runs the demo; fails with the first provider's error, after trying every provider.
pub async fn run(args: &DemoArgs, json: bool) -> Result<(), CliError> {
    let sim = sim::start(SocketAddr::from(([127, 0, 0, 1], 0)), args.time_scale, 0).await?;
    if !json {
        say!(
            "Started the simulator on http://{} at {}x speed (progress shows simulated time); \
             no credentials needed.",
            sim.addr(),
            args.time_scale
        );
    }
    let mut outcomes = Vec::new();
    let mut first_error = None;
    for provider in ProviderKind::ALL {
        if !json {
            say!("\n== {provider}");
        }
        match one(&sim, provider, args.time_scale, json).await {
            Ok(outcome) => outcomes.push(outcome),
            Err(error) => {
                tell!("{provider}: error: {}", one_line(&error));
                first_error.get_or_insert(CliError::Cloud(error));
            }
        }
    }
    sim.shutdown().await;
    if json {
        output::json(&outcomes)?;
    } else {
        summary(&outcomes);
    }
    first_error.map_or(Ok(()), Err)
}

fn client(sim: &RunningSim, provider: ProviderKind) -> Result<ClusterClient, Error> {
    let base_url = sim.base_url(sim_provider(provider));
    match provider {
        ProviderKind::Together => ClusterClient::together(
            TogetherConfig::new(credentials::TOGETHER_API_KEY).with_base_url(base_url),
        ),
        ProviderKind::Runcrate => ClusterClient::runcrate(
            RuncrateConfig::new(credentials::RUNCRATE_API_KEY).with_base_url(base_url),
        ),
        ProviderKind::E2e => ClusterClient::e2e(
            E2eConfig::new(
                credentials::E2E_API_KEY,
                credentials::E2E_AUTH_TOKEN,
                credentials::E2E_PROJECT_ID,
                gpucloud::e2e::types::Location::from(E2E_LOCATION),
            )
            .with_base_url(base_url),
        ),
    }
}

/// A small, valid request for each provider (values the simulator's catalog offers).
fn spec(provider: ProviderKind) -> ClusterSpec {
    let name = format!("demo-{provider}");
    match provider {
        ProviderKind::Together => ClusterSpec::new(name, ClusterSize::Gpus(16))
            .with_gpu_model("H100_SXM")
            .with_region("us-central-8")
            .with_stack(SoftwareStack::Kubernetes)
            .with_options(TogetherOptions {
                nvidia_version_id: Some("cuda-12.8-driver-570".into()),
                ..TogetherOptions::default()
            }),
        ProviderKind::Runcrate => ClusterSpec::new(name, ClusterSize::Nodes(2))
            .with_stack(SoftwareStack::Slurm)
            .with_options(RuncrateOptions {
                offer_id: "offer-h100-sxm-8x".into(),
                ..RuncrateOptions::default()
            }),
        ProviderKind::E2e => ClusterSpec::new(name, ClusterSize::Nodes(2))
            .with_ssh_keys(["1"])
            .with_options(E2eOptions {
                // Ubuntu Slurm, 8×H100, its hourly plan in Delhi.
                image_version_id: 2,
                sku_id: 201,
                sku_item_price_id: 811,
                security_group_id: 1,
                ..E2eOptions::default()
            }),
    }
}

/// Polling follows simulated time: what takes minutes at 1x is polled every few
/// milliseconds at 600x.
fn wait_args(time_scale: f64) -> WaitArgs {
    let scaled = |secs: f64, floor: f64| Duration::from_secs_f64((secs / time_scale).max(floor));
    WaitArgs {
        timeout: scaled(2.0 * 3600.0, 60.0),
        interval: scaled(5.0, 0.02),
        max_interval: scaled(60.0, 0.1),
    }
}

async fn one(
    sim: &RunningSim,
    provider: ProviderKind,
    time_scale: f64,
    json: bool,
) -> Result<Outcome, Error> {
    let client = client(sim, provider)?;
    let spec = spec(provider);
    let created = client.create(&spec).await?;
    let id = created.cluster.id.clone();
    if !json {
        output::created_headline(&created);
    }
    let started = std::time::Instant::now();
    let display = ProgressDisplay::new(format!("{provider}: "), time_scale);
    let ready = wait_with_progress(&client, &id, &wait_args(time_scale), display).await?;
    let took = started.elapsed();
    let got = client.get(&id).await?;
    let (reachable, known) = output::node_counts(&got);
    if !json {
        say!(
            "Ready after {} (about {} simulated); get: {}, {reachable}/{known} nodes reachable.",
            elapsed_precise(took),
            elapsed(took.mul_f64(time_scale)),
            cell(&got.state)
        );
    }
    let delete = match client.delete(&id).await {
        Ok(()) => "deleted".to_string(),
        Err(Error::Unsupported { .. }) => "unsupported".to_string(),
        Err(error) => return Err(error),
    };
    if !json {
        match delete.as_str() {
            "deleted" => say!("Deleted {provider} cluster {}.", cell(&id)),
            _ => say!(
                "Not deleted: {provider} does not support deleting clusters; this one ends with the simulator."
            ),
        }
    }
    Ok(Outcome {
        provider,
        cluster_id: id.to_string(),
        state: ready.state.to_string(),
        nodes_reachable: reachable,
        nodes_known: known,
        gpus: got.gpu_count,
        ready_after_secs: (took.as_secs_f64() * 10.0).round() / 10.0,
        delete,
    })
}

/// `1.2s`.
fn elapsed_precise(duration: Duration) -> String {
    format!("{:.1}s", duration.as_secs_f64())
}

fn summary(outcomes: &[Outcome]) {
    let mut table = output::table(&[
        "provider",
        "cluster",
        "state",
        "nodes",
        "gpus",
        "delete",
        "ready after",
    ]);
    for o in outcomes {
        table.add_row([
            o.provider.to_string(),
            cell(&o.cluster_id),
            cell(&o.state),
            format!("{}/{}", o.nodes_reachable, o.nodes_known),
            o.gpus.map_or_else(|| "-".into(), |g| g.to_string()),
            o.delete.clone(),
            format!("{:.1}s", o.ready_after_secs),
        ]);
    }
    say!("\nSummary\n{}", output::render(&mut table));
}
