//! `gpucloud clusters delete`: delete a cluster and, with `--wait`, verify it is gone.

use clap::Args;
use gpucloud::ProviderKind;
use gpucloud::Timeline;
use serde::Serialize;

use super::progress_waits::delete_with_progress;
use crate::context::Context;
use crate::error::CliError;
use crate::flags::{ClusterTargetArgs, WaitArgs, bounds};
use crate::output;
use crate::output::elapsed;
use crate::sanitize::cell;

#[derive(Debug, Args)]
pub struct DeleteArgs {
    #[command(flatten)]
    pub target: ClusterTargetArgs,
    /// The cluster: its id as the provider issued it, or its name (looked up in the
    /// ledger and, without --provider, in the providers' lists).
    #[arg(value_name = "CLUSTER", value_parser = bounds::cluster_id)]
    pub id: String,
    /// Return only once the provider no longer has the cluster (a 404 or a deleted state),
    /// and say how long it took.
    #[arg(long)]
    pub wait: bool,
    #[command(flatten)]
    pub wait_options: WaitArgs,
    /// Do not ask first. On a terminal (stdin and stderr both) the delete shows the cluster,
    /// its provider and its cost so far, and asks; without a terminal it never asks.
    #[arg(long, short = 'y')]
    pub yes: bool,
}

/// `--json` output of a delete.
#[derive(Serialize)]
struct Deleted<'a> {
    provider: ProviderKind,
    id: &'a str,
    deleted: bool,
    /// With `--wait`: whether the provider had no such cluster to begin with.
    #[serde(skip_serializing_if = "Option::is_none")]
    already_gone: Option<bool>,
    /// With `--wait`: seconds from the DELETE until the provider no longer had it.
    #[serde(skip_serializing_if = "Option::is_none")]
    took_secs: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timeline: Option<&'a Timeline>,
}

pub async fn run(ctx: &Context, args: &DeleteArgs) -> Result<(), CliError> {
    let (client, id) = crate::cluster_ref::resolve(ctx, &args.target, &args.id).await?;
    let provider = client.provider();
    if !args.yes && crate::confirm::interactive() {
        // What would be deleted, read from the provider itself: a person answers for this
        // cluster, not for an id.
        let cluster = client.get(&id).await?;
        tell!("{}", about(&cluster, chrono::Utc::now()));
        crate::confirm::ask(&format!("Delete {provider} cluster {}?", cell(&id))).await?;
    }
    if !args.wait {
        client.delete(&id).await?;
        let deleted = Deleted {
            provider,
            id: id.as_str(),
            deleted: true,
            already_gone: None,
            took_secs: None,
            timeline: None,
        };
        return ctx.output().result(&deleted, |_| {
            say!("Deleted {provider} cluster {}.", cell(&id));
        });
    }
    let deletion = delete_with_progress(&client, &id, &args.wait_options).await?;
    if ctx.output().is_json() {
        return output::json(&Deleted {
            provider,
            id: id.as_str(),
            deleted: true,
            already_gone: Some(deletion.already_gone),
            took_secs: Some(deletion.took.as_secs_f64()),
            timeline: deletion.timeline.as_ref(),
        });
    }
    if deletion.already_gone {
        say!("{provider} cluster {} was already gone.", cell(&id));
    } else {
        say!(
            "Deleted {provider} cluster {}: the provider confirmed it gone after {}.",
            cell(&id),
            elapsed(deletion.took)
        );
    }
    Ok(())
}

/// A cluster about to be deleted, in one line: its provider, id and name, its state, how long
/// it has run and what it has cost so far, or why that is not known.
fn about(cluster: &gpucloud::Cluster, now: chrono::DateTime<chrono::Utc>) -> String {
    let age = cluster.created_at.and_then(|at| (now - at).to_std().ok());
    let running = age.map_or_else(
        || "since an unknown time".to_string(),
        |age| format!("for {}", elapsed(age)),
    );
    format!(
        "{} cluster {} ({}): {}, {running}; {}.",
        cluster.provider,
        cell(&cluster.id),
        cell(&cluster.name),
        cell(&cluster.state),
        cost_so_far(cluster.price.as_ref(), age)
    )
}

/// The stated price times the time run, or why that is not known.
fn cost_so_far(price: Option<&gpucloud::Price>, age: Option<std::time::Duration>) -> String {
    match (price, age) {
        (Some(price), Some(age)) if price.per_hour.is_finite() && price.per_hour >= 0.0 => {
            format!(
                "about {:.2} {} so far at {:.2} {}/h",
                price.per_hour * age.as_secs_f64() / 3600.0,
                cell(&price.currency),
                price.per_hour,
                cell(&price.currency)
            )
        }
        (Some(_), None) => "cost so far unknown: the provider states no start time".into(),
        _ => "cost so far unknown: the provider states no price (`gpucloud ledger` shows what \
              the ledger knows)"
            .into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cost_so_far_is_the_price_times_the_time_run_or_why_not() {
        let price = gpucloud::Price {
            per_hour: 10.0,
            currency: "USD".into(),
        };
        let ninety = Some(std::time::Duration::from_secs(90 * 60));
        assert_eq!(
            cost_so_far(Some(&price), ninety),
            "about 15.00 USD so far at 10.00 USD/h"
        );
        assert!(cost_so_far(Some(&price), None).contains("no start time"));
        assert!(cost_so_far(None, ninety).contains("states no price"));
        let impossible = gpucloud::Price {
            per_hour: f64::NAN,
            currency: "USD".into(),
        };
        assert!(cost_so_far(Some(&impossible), ninety).contains("unknown"));
    }
}
