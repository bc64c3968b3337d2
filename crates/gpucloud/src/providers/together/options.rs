//! [`TogetherOptions`]: what only Together's create takes, carried in a request's
//! `ProviderOptions`.

use serde::{Deserialize, Serialize};

/// Together-only create options (names as in `GPUClusterCreateRequest`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct TogetherOptions {
    /// Shared memory (GiB) for SLURM clusters; required with the Slurm stack.
    pub slurm_shm_size_gib: Option<u32>,
    /// Scale GPU workers between `num_gpus` and `auto_scale_max_gpus`.
    pub auto_scale: bool,
    /// Upper bound for autoscaling; required and ≥ `num_gpus` when `auto_scale`.
    pub auto_scale_max_gpus: Option<u32>,
    /// Driver/CUDA catalog id from `GET /compute/regions`.
    pub nvidia_version_id: Option<String>,
    /// Legacy selector; must come with `nvidia_driver_version`.
    pub cuda_version: Option<String>,
    /// Legacy selector; must come with `cuda_version`.
    pub nvidia_driver_version: Option<String>,
    /// Capacity pool to draw from.
    pub capacity_pool_id: Option<String>,
    /// GPUs from the capacity pool: a multiple of 8, ≤ the cluster's GPUs.
    pub num_capacity_pool_gpus: Option<u32>,
    /// Preemptible GPUs: a multiple of 8, ≤ the cluster's GPUs.
    pub num_preemptible_gpus: Option<u32>,
    /// Prepaid reserved GPUs.
    pub num_reserved_gpus: Option<u32>,
    /// Project to create in.
    pub project_id: Option<String>,
    /// Install Traefik (Kubernetes only).
    pub install_traefik: bool,
    /// Custom Slurm image.
    pub slurm_image: Option<String>,
}
