//! `gpucloud clusters resize`: change a cluster's size and, with `--wait`, wait until it is
//! ready at the new size.

use clap::Args;
use gpucloud::{ClusterSize, Resize, SizeReached};

use super::progress_waits::wait_with_progress;
use crate::context::Context;
use crate::error::CliError;
use crate::flags::{ClusterTargetArgs, WaitArgs, bounds};
use crate::output;
use crate::progress::ProgressDisplay;
use crate::sanitize::cell;

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("size").required(true).args(["gpus", "nodes"])))]
pub struct ResizeArgs {
    #[command(flatten)]
    pub target: ClusterTargetArgs,
    /// The cluster: its id as the provider issued it, or its name (looked up in the
    /// ledger and, without --provider, in the providers' lists).
    #[arg(value_name = "CLUSTER", value_parser = bounds::cluster_id)]
    pub id: String,
    /// The new number of GPUs (Together: a positive multiple of 8; E2E: whole nodes of the
    /// cluster's GPUs per node, rounded up and said).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub gpus: Option<u32>,
    /// The new number of nodes (E2E: more than now; it cannot remove nodes).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub nodes: Option<u32>,
    /// Wait until the cluster is ready at the new size.
    #[arg(long)]
    pub wait: bool,
    #[command(flatten)]
    pub wait_options: WaitArgs,
}

pub async fn run(ctx: &Context, args: &ResizeArgs) -> Result<(), CliError> {
    let (size, shown) = match (args.gpus, args.nodes) {
        (Some(gpus), None) => (ClusterSize::Gpus(gpus), format!("{gpus} GPUs")),
        (None, Some(nodes)) => (ClusterSize::Nodes(nodes), format!("{nodes} nodes")),
        // clap's group makes exactly one of them required.
        _ => {
            return Err(CliError::Usage(
                "give exactly one of --gpus and --nodes".into(),
            ));
        }
    };
    let (client, id) = crate::cluster_ref::resolve(ctx, &args.target, &args.id).await?;
    // A provider that sizes in nodes takes GPUs as whole nodes of the cluster's own GPUs per
    // node, rounded up; the rounding is said before anything is sent, and the wait is for
    // that many nodes.
    let (size, shown) = match size {
        ClusterSize::Gpus(gpus) if client.provider().profile().resize == Resize::AddNodes => {
            let current = client.get(&id).await?;
            let per_node = current.gpus_per_node().ok_or_else(|| {
                CliError::Input(format!(
                    "{} sizes clusters in nodes, and cluster {} states no GPUs per node to \
                     turn {gpus} GPUs into nodes: use --nodes",
                    client.provider(),
                    cell(&id)
                ))
            })?;
            let nodes = gpucloud::nodes_for_gpus(gpus, per_node).ok_or_else(|| {
                CliError::Input(format!(
                    "--gpus {gpus}: too many for nodes of {per_node} GPUs"
                ))
            })?;
            let exact = u64::from(nodes) * u64::from(per_node) == u64::from(gpus);
            let rounding = if exact {
                String::new()
            } else {
                format!(
                    ", {} GPUs: rounded up to whole nodes",
                    u64::from(nodes) * u64::from(per_node)
                )
            };
            tell!(
                "{gpus} GPUs on {} is {nodes} nodes of {per_node} GPUs{rounding}.",
                client.provider()
            );
            (ClusterSize::Nodes(nodes), format!("{nodes} nodes"))
        }
        other => (other, shown),
    };
    let mut cluster = client.resize(&id, size).await?;
    let out = ctx.output();
    if args.wait {
        if out.is_human() {
            say!(
                "Resizing {} cluster {} to {shown}.",
                client.provider(),
                cell(&id)
            );
        }
        let display = ProgressDisplay::new("", 1.0);
        cluster = wait_with_progress(
            &client,
            &id,
            &args.wait_options,
            &SizeReached(size),
            display,
        )
        .await?;
    }
    out.result(&cluster, |cluster| {
        if !args.wait {
            say!(
                "Asked {} to resize cluster {} to {shown}; `--wait` follows it.",
                client.provider(),
                cell(&id)
            );
        }
        say!();
        output::cluster(cluster);
    })
}
