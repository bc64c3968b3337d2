//! The flags of a create request (`clusters create`, `plan`): a file, or the neutral fields
//! plus one group of options per provider.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use clap::{Args, ValueEnum};
use gpucloud::SoftwareStack;

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
    /// The cluster's name (unique in the account: creates are reconciled by name).
    #[arg(long, required_unless_present = "file")]
    pub name: Option<String>,
    /// Size in GPUs (Together).
    #[arg(long, value_name = "N", conflicts_with = "nodes")]
    pub gpus: Option<u32>,
    /// Size in nodes (Runcrate, E2E).
    #[arg(long, value_name = "N")]
    pub nodes: Option<u32>,
    /// GPU model in the provider's words (Together: H100_SXM).
    #[arg(long, value_name = "MODEL")]
    pub gpu_model: Option<String>,
    /// Together region (us-central-8), or E2E location (Delhi, Chennai).
    #[arg(long)]
    pub region: Option<String>,
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

/// Together-only options (names as in `GPUClusterCreateRequest`).
#[derive(Debug, Args)]
#[command(next_help_heading = "Together options")]
pub struct TogetherFlags {
    /// Driver/CUDA catalog id from `gpucloud catalog` (default: the region's newest, or the
    /// one of --cuda-version).
    #[arg(long, value_name = "ID")]
    pub nvidia_version_id: Option<String>,
    /// The CUDA version (`12.8`): picks the region's driver entry of that version; with
    /// --nvidia-driver-version, the legacy selector sent as it is.
    #[arg(long, value_name = "VERSION")]
    pub cuda_version: Option<String>,
    /// Legacy selector; give it with --cuda-version.
    #[arg(long, value_name = "VERSION")]
    pub nvidia_driver_version: Option<String>,
    /// Shared memory for Slurm clusters, GiB (required with --stack slurm).
    #[arg(long, value_name = "GIB")]
    pub slurm_shm_size_gib: Option<u32>,
    /// Custom Slurm image.
    #[arg(long, value_name = "IMAGE")]
    pub slurm_image: Option<String>,
    /// Autoscale up to this many GPUs.
    #[arg(long, value_name = "N")]
    pub auto_scale_max_gpus: Option<u32>,
    /// Capacity pool to draw from.
    #[arg(long, value_name = "ID")]
    pub capacity_pool_id: Option<String>,
    /// GPUs from the capacity pool (a multiple of 8).
    #[arg(long, value_name = "N")]
    pub num_capacity_pool_gpus: Option<u32>,
    /// Preemptible GPUs (a multiple of 8).
    #[arg(long, value_name = "N")]
    pub num_preemptible_gpus: Option<u32>,
    /// Prepaid reserved GPUs.
    #[arg(long, value_name = "N")]
    pub num_reserved_gpus: Option<u32>,
    /// Project to create in.
    #[arg(long, value_name = "ID")]
    pub project_id: Option<String>,
    /// Install Traefik (Kubernetes).
    #[arg(long)]
    pub install_traefik: bool,
}

/// Runcrate-only options.
#[derive(Debug, Args)]
#[command(next_help_heading = "Runcrate options")]
pub struct RuncrateFlags {
    /// The offer, from `gpucloud catalog` (default: resolved from --gpu-model, size and
    /// --stack).
    #[arg(long, value_name = "ID")]
    pub offer_id: Option<String>,
    /// Allow an offer on community hosts.
    #[arg(long)]
    pub include_community: bool,
    /// Idempotency key of this create; reuse it to make a re-run find the same cluster.
    #[arg(long, value_name = "KEY")]
    pub idempotency_key: Option<String>,
    /// The Runcrate environment to create in.
    #[arg(long, value_name = "NAME")]
    pub environment: Option<String>,
}

/// E2E-only options.
#[derive(Debug, Args)]
#[command(next_help_heading = "E2E options")]
pub struct E2eFlags {
    /// Image version of the nodes (default: the newest image of --stack, Slurm if none).
    #[arg(long, value_name = "ID")]
    pub image_version_id: Option<i64>,
    /// Node type (default: resolved from --gpu-model and size).
    #[arg(long, value_name = "ID")]
    pub sku_id: Option<i64>,
    /// Plan price id, region-specific (default: the node type's hourly plan, or its
    /// committed plan with --reserved-days).
    #[arg(long, value_name = "ID")]
    pub sku_item_price_id: Option<i64>,
    /// Security group of your account (required).
    #[arg(long, value_name = "ID")]
    pub security_group_id: Option<i64>,
    /// A file whose content runs on each node after start.
    #[arg(long, value_name = "PATH")]
    pub lifecycle_script: Option<PathBuf>,
    /// Mount an SFS volume, as ID:NAME:MOUNT_PATH; repeat for more.
    #[arg(long = "sfs-mount", value_name = "ID:NAME:PATH", value_parser = parse_sfs_mount)]
    pub sfs_mounts: Vec<gpucloud::E2eSfsMount>,
}

/// The first of `flags` that was given (`(name, given)` pairs).
fn first_given<const N: usize>(flags: [(&'static str, bool); N]) -> Option<&'static str> {
    flags
        .into_iter()
        .find_map(|(name, given)| given.then_some(name))
}

impl TogetherFlags {
    /// The first Together option given, if any.
    pub fn first_given(&self) -> Option<&'static str> {
        first_given([
            ("--nvidia-version-id", self.nvidia_version_id.is_some()),
            ("--cuda-version", self.cuda_version.is_some()),
            (
                "--nvidia-driver-version",
                self.nvidia_driver_version.is_some(),
            ),
            ("--slurm-shm-size-gib", self.slurm_shm_size_gib.is_some()),
            ("--slurm-image", self.slurm_image.is_some()),
            ("--auto-scale-max-gpus", self.auto_scale_max_gpus.is_some()),
            ("--capacity-pool-id", self.capacity_pool_id.is_some()),
            (
                "--num-capacity-pool-gpus",
                self.num_capacity_pool_gpus.is_some(),
            ),
            (
                "--num-preemptible-gpus",
                self.num_preemptible_gpus.is_some(),
            ),
            ("--num-reserved-gpus", self.num_reserved_gpus.is_some()),
            ("--project-id", self.project_id.is_some()),
            ("--install-traefik", self.install_traefik),
        ])
    }
}

impl RuncrateFlags {
    /// The first Runcrate option given, if any.
    pub fn first_given(&self) -> Option<&'static str> {
        first_given([
            ("--offer-id", self.offer_id.is_some()),
            ("--include-community", self.include_community),
            ("--idempotency-key", self.idempotency_key.is_some()),
            ("--environment", self.environment.is_some()),
        ])
    }
}

impl E2eFlags {
    /// The first E2E option given, if any.
    pub fn first_given(&self) -> Option<&'static str> {
        first_given([
            ("--image-version-id", self.image_version_id.is_some()),
            ("--sku-id", self.sku_id.is_some()),
            ("--sku-item-price-id", self.sku_item_price_id.is_some()),
            ("--security-group-id", self.security_group_id.is_some()),
            ("--lifecycle-script", self.lifecycle_script.is_some()),
            ("--sfs-mount", !self.sfs_mounts.is_empty()),
        ])
    }
}

fn parse_time(raw: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(raw)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| format!("not an RFC 3339 time like 2026-03-01T00:00:00Z ({e})"))
}

fn parse_sfs_mount(raw: &str) -> Result<gpucloud::E2eSfsMount, String> {
    let mut parts = raw.splitn(3, ':');
    let (Some(id), Some(name), Some(mount_path)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err("expected ID:NAME:MOUNT_PATH".into());
    };
    let id = id
        .parse::<i64>()
        .map_err(|_| format!("SFS id {id:?} is not an integer"))?;
    Ok(gpucloud::E2eSfsMount {
        id,
        name: name.to_string(),
        mount_path: mount_path.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sfs_mounts_and_times_are_checked_by_the_parser() {
        assert_eq!(
            parse_sfs_mount("7:data:/mnt/data").map(|m| (m.id, m.mount_path)),
            Ok((7, "/mnt/data".to_string()))
        );
        assert!(parse_sfs_mount("x:data:/mnt").is_err());
        assert!(parse_time("2026-03-01T00:00:00+05:30").is_ok());
        assert!(parse_time("tomorrow").is_err());
    }
}
