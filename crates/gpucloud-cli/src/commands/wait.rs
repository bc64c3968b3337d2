//! `gpucloud clusters wait`: wait until a cluster is ready, showing its progress.

use clap::Args;
use gpucloud::Ready;

use super::progress_waits::wait_with_progress;
use crate::context::Context;
use crate::error::CliError;
use crate::flags::{ClusterTargetArgs, WaitArgs, bounds};
use crate::output;
use crate::progress::ProgressDisplay;

#[derive(Debug, Args)]
pub struct WaitCommandArgs {
    #[command(flatten)]
    pub target: ClusterTargetArgs,
    /// The cluster: its id as the provider issued it, or its name (looked up in the ledger and,
    /// without --provider, in the providers' lists).
    #[arg(value_name = "CLUSTER", value_parser = bounds::cluster_id)]
    pub id: String,
    #[command(flatten)]
    pub wait: WaitArgs,
}

pub async fn run(ctx: &Context, args: &WaitCommandArgs) -> Result<(), CliError> {
    let (client, id) = crate::cluster_ref::resolve(ctx, &args.target, &args.id).await?;
    let cluster = wait_with_progress(
        &client,
        &id,
        &args.wait,
        &Ready,
        ProgressDisplay::new("", 1.0),
    )
    .await?;
    ctx.output().result(&cluster, |cluster| {
        output::cluster(cluster);
        output::next_steps(cluster);
    })
}
