//! The flags of a create request (`clusters create`, `plan`): a file, or the neutral fields
//! plus one group of options per provider.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use clap::{Args, ValueEnum};
use gpucloud::SoftwareStack;

use crate::providers::e2e::E2eFlags;
use crate::providers::runcrate::RuncrateFlags;
use crate::providers::together::TogetherFlags;

/// The request: a file, or flags.
#[derive(Debug, Args)]
pub struct RequestArgs {
    /// Read the request from a TOML, YAML or JSON file (by extension) instead of flags.
    #[arg(
        long,
        short = 'f',
        value_name = "PATH",
        conflicts_with_all = ["SpecFlags", "TogetherFlags", "RuncrateFlags", "E2eFlags"]
    )]
    pub file: Option<PathBuf>,
    /// The cluster's name (unique in the account: creates are reconciled by name). With
    /// --file, replaces the file's name, so one request file serves many clusters.
    #[arg(long, required_unless_present = "file", help_heading = "Request")]
    pub name: Option<String>,
    /// How long the cluster may live (8h, 90m): its deadline is recorded in the ledger,
    /// `gpucloud ledger` shows the time left, and `gpucloud clusters sweep --expired --delete`
    /// deletes it once passed (run that from cron, a timer or a scheduled CI job). With
    /// --file, replaces the file's `ttl`.
    #[arg(long, value_name = "DURATION", value_parser = super::bounds::ttl, help_heading = "Request")]
    pub ttl: Option<std::time::Duration>,
    /// Ask the provider itself to end the cluster at its --ttl, so the deadline holds without
    /// a sweep running anywhere. Only Together can: the cluster is created RESERVED for the
    /// ttl rounded up to whole days (and billed as a reservation), and Together
    /// decommissions it when the reservation ends; the plan shows the rounding. Other
    /// providers refuse it.
    #[arg(long, requires = "ttl", help_heading = "Request")]
    pub ttl_by_provider: bool,
    /// Take a live cluster of this name that gpucloud did not create (a teammate's, one made
    /// in the console) as this create's result, and make it ours: recorded as adopted, so
    /// `clusters sweep` and a --ttl may delete it. Without it, such a cluster stops the create
    /// (exit 4) and nothing is sent; a failed or deleting one is never adopted.
    #[arg(long, help_heading = "Request")]
    pub adopt: bool,
    #[command(flatten)]
    pub spec: SpecFlags,
    #[command(flatten)]
    pub together: TogetherFlags,
    #[command(flatten)]
    pub runcrate: RuncrateFlags,
    #[command(flatten)]
    pub e2e: E2eFlags,
}

/// The provider-neutral part of a request.
#[derive(Debug, Args)]
#[command(next_help_heading = "Request")]
pub struct SpecFlags {
    /// Size in GPUs. Together takes it as it is (a multiple of 8); resolved from a GPU model,
    /// Runcrate and E2E take it as nodes of the chosen offering (GPUs ÷ GPUs per node).
    #[arg(long, value_name = "N", conflicts_with = "nodes")]
    pub gpus: Option<u32>,
    /// Size in nodes. Runcrate and E2E take it as it is; resolved from a GPU model, Together
    /// takes it as GPUs (nodes × the offering's GPUs per node).
    #[arg(long, value_name = "N")]
    pub nodes: Option<u32>,
    /// GPU model in the provider's words (Together: H100_SXM).
    #[arg(long, value_name = "MODEL")]
    pub gpu_model: Option<String>,
    /// Together region (us-central-8), or E2E location (Delhi, Chennai).
    #[arg(long)]
    pub region: Option<String>,
    /// Without --region, regions to try first, in this order (comma-separated or repeated);
    /// others follow. Default: the provider's `preferred_regions` in the configuration file.
    #[arg(
        long = "prefer-region",
        value_name = "REGION",
        value_delimiter = ',',
        conflicts_with = "region"
    )]
    pub preferred_regions: Vec<String>,
    /// Reserve for this many days (Together).
    #[arg(long, value_name = "DAYS", conflicts_with = "scheduled_start")]
    pub reserved_days: Option<u32>,
    /// Start of a scheduled capacity window, RFC 3339 (Together).
    #[arg(long, value_name = "TIME", requires = "scheduled_end", value_parser = parse_time)]
    pub scheduled_start: Option<DateTime<Utc>>,
    /// End of a scheduled capacity window, RFC 3339 (Together).
    #[arg(long, value_name = "TIME", requires = "scheduled_start", value_parser = parse_time)]
    pub scheduled_end: Option<DateTime<Utc>>,
    /// SSH key id to install (Runcrate UUID, E2E integer id); repeat for more.
    #[arg(long = "ssh-key", value_name = "ID")]
    pub ssh_keys: Vec<String>,
    /// Attach this existing shared volume.
    #[arg(long, value_name = "ID", conflicts_with = "new_volume")]
    pub volume: Option<String>,
    /// Create a shared volume of this name with the cluster (Together).
    #[arg(long, value_name = "NAME", requires = "new_volume_tib")]
    pub new_volume: Option<String>,
    /// Size of the new shared volume in TiB.
    #[arg(long, value_name = "TIB", requires = "new_volume")]
    pub new_volume_tib: Option<u32>,
    /// The software stack.
    #[arg(long, value_enum)]
    pub stack: Option<StackArg>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StackArg {
    Kubernetes,
    Slurm,
    Ray,
    None,
}

impl From<StackArg> for SoftwareStack {
    fn from(value: StackArg) -> Self {
        match value {
            StackArg::Kubernetes => Self::Kubernetes,
            StackArg::Slurm => Self::Slurm,
            StackArg::Ray => Self::Ray,
            StackArg::None => Self::None,
        }
    }
}

fn parse_time(raw: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(raw)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| format!("not an RFC 3339 time like 2026-03-01T00:00:00Z ({e})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_checked_by_the_parser() {
        assert!(parse_time("2026-03-01T00:00:00+05:30").is_ok());
        assert!(parse_time("tomorrow").is_err());
    }
}
