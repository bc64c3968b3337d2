//! Together's part of the command line: its create options as flags.

use clap::Args;
use gpucloud::TogetherOptions;

use super::first_given;

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

    /// The Together options these flags give.
    pub fn options(&self) -> TogetherOptions {
        let mut options = TogetherOptions::default();
        options.slurm_shm_size_gib = self.slurm_shm_size_gib;
        options.auto_scale = self.auto_scale_max_gpus.is_some();
        options.auto_scale_max_gpus = self.auto_scale_max_gpus;
        options
            .nvidia_version_id
            .clone_from(&self.nvidia_version_id);
        options.cuda_version.clone_from(&self.cuda_version);
        options
            .nvidia_driver_version
            .clone_from(&self.nvidia_driver_version);
        options.capacity_pool_id.clone_from(&self.capacity_pool_id);
        options.num_capacity_pool_gpus = self.num_capacity_pool_gpus;
        options.num_preemptible_gpus = self.num_preemptible_gpus;
        options.num_reserved_gpus = self.num_reserved_gpus;
        options.project_id.clone_from(&self.project_id);
        options.install_traefik = self.install_traefik;
        options.slurm_image.clone_from(&self.slurm_image);
        options
    }
}

/// What a user sets for Together's request field `field` (as its errors name it): the flag, or
/// the configuration file's key; `None` for a field no flag sets.
pub fn flag_for(field: &str) -> Option<&'static str> {
    Some(match field {
        "cluster_name" => "--name",
        "num_gpus" => "--gpus",
        "gpu_type" => "--gpu-model",
        "region" => "--region",
        "nvidia_version_id" => "--nvidia-version-id, or --gpu-model to resolve it",
        "duration_days" => "--reserved-days",
        "storage_id" => "--volume",
        _ => return None,
    })
}
