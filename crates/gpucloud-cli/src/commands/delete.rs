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
