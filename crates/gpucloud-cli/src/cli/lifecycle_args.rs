//! The flags of the commands that follow a cluster after its create: verified deletes, resize,
//! access (kubeconfig, SSH), the ledger and the sweep of what is still alive.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use gpucloud::ProviderKind;

use super::{ClusterTargetArgs, WaitArgs, bounds};

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

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("size").required(true).args(["gpus", "nodes"])))]
pub struct ResizeArgs {
    #[command(flatten)]
    pub target: ClusterTargetArgs,
    /// The cluster: its id as the provider issued it, or its name (looked up in the
    /// ledger and, without --provider, in the providers' lists).
    #[arg(value_name = "CLUSTER", value_parser = bounds::cluster_id)]
    pub id: String,
    /// The new number of GPUs (Together: a positive multiple of 8).
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

#[derive(Debug, Args)]
pub struct KubeconfigArgs {
    #[command(flatten)]
    pub target: ClusterTargetArgs,
    /// The cluster: its id as the provider issued it, or its name (looked up in the
    /// ledger and, without --provider, in the providers' lists).
    #[arg(value_name = "CLUSTER", value_parser = bounds::cluster_id)]
    pub id: String,
    /// Write it to this file (created or replaced, readable by you only: mode 0600).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Print it on stdout even when stdout is a terminal (it holds credentials).
    #[arg(long, conflicts_with = "output")]
    pub print: bool,
}

#[derive(Debug, Args)]
pub struct SshArgs {
    #[command(flatten)]
    pub target: ClusterTargetArgs,
    /// The cluster: its id as the provider issued it, or its name (looked up in the
    /// ledger and, without --provider, in the providers' lists).
    #[arg(value_name = "CLUSTER", value_parser = bounds::cluster_id)]
    pub id: String,
    /// The node: its id, or its position in `clusters get` (0 is the first). Default: the
    /// first GPU worker with an address (then any node with one).
    #[arg(long, value_name = "NODE")]
    pub node: Option<String>,
    /// Run ssh (without a shell) instead of printing the command.
    #[arg(long)]
    pub exec: bool,
    /// A command to run on the node (after `--`, with its arguments): ssh runs it there and
    /// gpucloud exits with its exit status. Implies --exec.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Only clusters created longer ago than this (for example 4h).
    #[arg(long, value_name = "DURATION", value_parser = bounds::age, required_unless_present = "expired")]
    pub older_than: Option<Duration>,
    /// Only clusters past the deadline their create's --ttl set (with --older-than: both).
    #[arg(long)]
    pub expired: bool,
    /// Delete what is found, and verify each delete; without it, only list.
    #[arg(long)]
    pub delete: bool,
    /// With --delete: do not ask first. On a terminal (stdin and stderr both) the sweep lists
    /// what it would delete and asks; without a terminal it never asks.
    #[arg(long, short = 'y', requires = "delete")]
    pub yes: bool,
    /// Only this provider's clusters (default: every provider in the ledger).
    #[arg(long, short = 'p', value_enum)]
    pub provider: Option<ProviderKind>,
    /// Give up on one HTTP request after this long (1s to 1h).
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = bounds::request_timeout)]
    pub request_timeout: Duration,
    #[command(flatten)]
    pub wait: WaitArgs,
}

#[derive(Debug, Args)]
pub struct LedgerArgs {
    /// Also show creates that made nothing, and clusters known to be gone.
    #[arg(long)]
    pub all: bool,
    /// Ask each provider for the current state of every cluster that may be alive first
    /// (one get each, through the endpoint and account that created it), and record it;
    /// without it, the ledger shows the last state a command saw and sends nothing.
    #[arg(long)]
    pub refresh: bool,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("size").args(["gpus", "nodes"])))]
pub struct CatalogArgs {
    /// The provider, a comma-separated list, or `all`.
    #[arg(long, short = 'p', value_name = "PROVIDER[,…]|all", value_parser = super::parse_providers)]
    pub provider: super::Providers,
    /// Only offerings of this GPU model (the provider's word, or a family such as H100).
    #[arg(long, value_name = "MODEL")]
    pub gpu_model: Option<String>,
    /// Only offerings that can take this many GPUs (in whole nodes).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub gpus: Option<u32>,
    /// Only offerings that can take this many nodes.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub nodes: Option<u32>,
    /// Only offerings in this region (Together region, Runcrate location, E2E location).
    #[arg(long, value_name = "REGION")]
    pub region: Option<String>,
    /// Give up on one HTTP request after this long (1s to 1h).
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = bounds::request_timeout)]
    pub request_timeout: Duration,
}
