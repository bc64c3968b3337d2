//! `gpucloud demo`: an embedded simulator, and create → wait → get → delete on every provider
//! from requests that name no catalog id (each resolved from the provider's catalog), then
//! one placement that fails over because its first provider has no capacity.
//!
//! Needs no account and no environment: the clients are built with the simulator's base URLs
//! and its fixed test credentials, never from the process environment.

use std::net::SocketAddr;
use std::time::Duration;

use clap::Args;
use gpucloud::catalog::Constraints;
use gpucloud::{
    AttemptOutcome, Candidate, ClusterClient, ClusterSize, ClusterSpec, E2eOptions, Error,
    Placement, ProviderKind, Ready, SoftwareStack,
};
use gpucloud_sim::{CapacityFilter, Provider, RunningSim};
use serde::Serialize;

use super::progress_waits::wait_with_progress;
use super::sim::{self, parse_time_scale};
use crate::context::Context;
use crate::error::{CliError, one_line};
use crate::flags::WaitArgs;
use crate::output::{self, Output, elapsed};
use crate::progress::ProgressDisplay;
use crate::sanitize::cell;

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Simulated seconds per real second.
    #[arg(long, value_name = "X", default_value_t = 600.0, value_parser = parse_time_scale)]
    pub time_scale: f64,
}

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
pub async fn run(ctx: &Context, args: &DemoArgs) -> Result<(), CliError> {
    let out = ctx.output();
    let sim = sim::start(SocketAddr::from(([127, 0, 0, 1], 0)), args.time_scale, 0).await?;
    if out.is_human() {
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
        if out.is_human() {
            say!("\n== {provider}");
        }
        match one(&sim, provider, args.time_scale, out).await {
            Ok(outcome) => outcomes.push(outcome),
            Err(error) => {
                tell!("{provider}: error: {}", one_line(&error));
                first_error.get_or_insert(CliError::Cloud(error));
            }
        }
    }
    if let Err(error) = failover(&sim, out).await {
        tell!("failover: error: {}", one_line(&error));
        first_error.get_or_insert(CliError::Cloud(error));
    }
    sim.shutdown().await;
    out.result(outcomes.as_slice(), summary)?;
    first_error.map_or(Ok(()), Err)
}

/// Together has no H100 left: a placement over Together, Runcrate and E2E, cheapest first
/// under a 60 USD/h ceiling (the simulator's price book prices Together and converts E2E's
/// rupees), passes over Together (no capacity) and Runcrate (its API cannot delete a cluster,
/// and the demo does not allow one) and ends on E2E, with one cluster in all, which it then
/// deletes.
async fn failover(sim: &RunningSim, out: Output) -> Result<(), Error> {
    let no_h100 = CapacityFilter::new(Provider::Together, "H100");
    if sim.capacity().set(&no_h100, 0).is_err() {
        return Err(Error::Configuration {
            setting: "demo".into(),
            problem: "the simulator lists no Together H100 offering".into(),
        });
    }
    if out.is_human() {
        say!(
            "\n== failover: Together has no H100 capacity left; --provider any --cheapest-first \
             --max-price-per-hour 60 (USD; the simulator's own illustrative price book prices \
             what states no price, and its rate converts rupees)"
        );
    }
    let pricing = gpucloud::config_file::ConfigFile::parse(
        std::path::Path::new("the simulator's price book"),
        &sim.price_book(),
    )
    .map_err(|e| Error::Configuration {
        setting: "demo".into(),
        problem: e.to_string(),
    })?
    .pricing;
    let name = "demo-anywhere";
    // Every provider, in `ProviderKind::ALL`'s order: Together, Runcrate, E2E.
    let candidates = ProviderKind::ALL
        .into_iter()
        .map(|provider| Ok(Candidate::new(client(sim, provider)?, spec(provider, name))))
        .collect::<Result<Vec<_>, Error>>()?;
    let placed = Placement::new(candidates)
        .cheapest_first()
        .with_max_price_per_hour(60.0, "USD")
        .with_pricing(pricing.clone())
        .create()
        .await;
    sim.capacity().reset();
    let placed = placed?;
    if out.is_human() {
        for attempt in &placed.attempts {
            let what = match &attempt.outcome {
                made @ (AttemptOutcome::Created
                | AttemptOutcome::Found
                | AttemptOutcome::Adopted) => made.describe(),
                AttemptOutcome::Refused { reason, .. } => {
                    format!("passed over: {}", crate::error::flatten(reason))
                }
                AttemptOutcome::Skipped { kind, reason } => format!(
                    "passed over: {}{}",
                    crate::error::flatten(reason),
                    super::placement::hint(*kind)
                ),
                AttemptOutcome::Failed { reason, .. } => {
                    format!("failed: {}", crate::error::flatten(reason))
                }
                AttemptOutcome::NotTried => "not tried".into(),
            };
            say!("{}: {what}", attempt.place());
        }
        let price = placed
            .resolution
            .price_per_hour()
            .and_then(|(amount, currency)| {
                let converted = pricing.convert(amount, currency, "USD").ok()?;
                Some(format!(", {} per hour", converted.describe(amount, "USD")))
            })
            .unwrap_or_default();
        say!(
            "One cluster in all: {} cluster {} ({}{price}).",
            placed.provider,
            cell(&placed.created.cluster.id),
            name
        );
    }
    let winner = client(sim, placed.provider)?;
    winner.delete(&placed.created.cluster.id).await?;
    if out.is_human() {
        say!(
            "Deleted {} cluster {}.",
            placed.provider,
            cell(&placed.created.cluster.id)
        );
    }
    Ok(())
}

/// A client of `provider` pointed at `sim` exactly as a user's shell would point it: from the
/// environment `gpucloud sim` prints.
fn client(sim: &RunningSim, provider: ProviderKind) -> Result<ClusterClient, Error> {
    let environment = sim.environment();
    let vars = |name: &str| {
        environment
            .iter()
            .find(|(variable, _)| *variable == name)
            .map(|(_, value)| value.clone())
    };
    ClusterClient::from_vars(provider, &vars, |_| {})
}

/// A request for each provider that names no catalog id: a GPU model, a size and a stack
/// (E2E also needs what belongs to the account: an SSH key and a security group).
fn spec(provider: ProviderKind, name: &str) -> ClusterSpec {
    let spec = ClusterSpec::new(name, ClusterSize::Gpus(16)).with_gpu_model("H100");
    match provider {
        ProviderKind::Together => spec.with_stack(SoftwareStack::Kubernetes),
        ProviderKind::Runcrate => spec.with_stack(SoftwareStack::Slurm),
        ProviderKind::E2e => spec
            .with_stack(SoftwareStack::Slurm)
            .with_ssh_keys(["1"])
            .with_options(E2eOptions::default().with_security_group_id(1)),
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
    out: Output,
) -> Result<Outcome, Error> {
    let client = client(sim, provider)?;
    let spec = spec(provider, &format!("demo-{provider}"));
    let resolution = client.resolve(&spec, &Constraints::default()).await?;
    if out.is_human() {
        let choices: Vec<String> = resolution
            .choices
            .iter()
            .map(|c| format!("{} {}", c.field, cell(&c.value)))
            .collect();
        say!("Resolved from the catalog: {}.", choices.join(", "));
    }
    let created = client.create_resolved(&resolution).await?;
    let id = created.cluster.id.clone();
    if out.is_human() {
        output::created_headline(&created);
    }
    let started = std::time::Instant::now();
    let display = ProgressDisplay::new(format!("{provider}: "), time_scale);
    let ready = wait_with_progress(&client, &id, &wait_args(time_scale), &Ready, display).await?;
    let took = started.elapsed();
    let got = client.get(&id).await?;
    let (reachable, known) = output::node_counts(&got);
    if out.is_human() {
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
    if out.is_human() {
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
    let mut table = crate::table::table(&[
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
    say!("\nSummary\n{}", crate::table::render(&mut table));
}
