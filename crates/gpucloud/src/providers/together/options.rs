//! [`TogetherOptions`]: what only Together's create takes, carried in a request's
//! `ProviderOptions`.

use serde::{Deserialize, Serialize};

/// Together-only create options (names as in `GPUClusterCreateRequest`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
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

impl TogetherOptions {
    /// The driver/CUDA catalog id (`nvidia_version_id`). When unset, the catalog picks one
    /// for the region (`ClusterClient::resolve`).
    #[must_use]
    pub fn with_nvidia_version_id(mut self, id: impl Into<String>) -> Self {
        self.nvidia_version_id = Some(id.into());
        self
    }

    /// The legacy driver selector: a CUDA version and an NVIDIA driver version, which Together
    /// takes only together.
    #[must_use]
    pub fn with_legacy_driver(
        mut self,
        cuda_version: impl Into<String>,
        nvidia_driver_version: impl Into<String>,
    ) -> Self {
        self.cuda_version = Some(cuda_version.into());
        self.nvidia_driver_version = Some(nvidia_driver_version.into());
        self
    }

    /// Shared memory (GiB) for a Slurm cluster.
    #[must_use]
    pub fn with_slurm_shm_size_gib(mut self, gib: u32) -> Self {
        self.slurm_shm_size_gib = Some(gib);
        self
    }

    /// A custom Slurm image.
    #[must_use]
    pub fn with_slurm_image(mut self, image: impl Into<String>) -> Self {
        self.slurm_image = Some(image.into());
        self
    }

    /// Scale GPU workers between the cluster's GPUs and `max_gpus` (both fields Together
    /// needs for autoscaling, set at once).
    #[must_use]
    pub fn with_auto_scale(mut self, max_gpus: u32) -> Self {
        self.auto_scale = true;
        self.auto_scale_max_gpus = Some(max_gpus);
        self
    }

    /// Draw `gpus` of the cluster's GPUs from the capacity pool `id`.
    #[must_use]
    pub fn with_capacity_pool(mut self, id: impl Into<String>, gpus: u32) -> Self {
        self.capacity_pool_id = Some(id.into());
        self.num_capacity_pool_gpus = Some(gpus);
        self
    }

    /// Preemptible GPUs among the cluster's.
    #[must_use]
    pub fn with_preemptible_gpus(mut self, gpus: u32) -> Self {
        self.num_preemptible_gpus = Some(gpus);
        self
    }

    /// Prepaid reserved GPUs among the cluster's.
    #[must_use]
    pub fn with_reserved_gpus(mut self, gpus: u32) -> Self {
        self.num_reserved_gpus = Some(gpus);
        self
    }

    /// The project to create in.
    #[must_use]
    pub fn with_project_id(mut self, id: impl Into<String>) -> Self {
        self.project_id = Some(id.into());
        self
    }

    /// Install Traefik (Kubernetes only).
    #[must_use]
    pub fn with_traefik(mut self, install: bool) -> Self {
        self.install_traefik = install;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_builder_sets_its_fields_and_only_those() {
        let built = TogetherOptions::default()
            .with_nvidia_version_id("cuda-12.8-driver-570")
            .with_legacy_driver("12.8", "570")
            .with_slurm_shm_size_gib(64)
            .with_slurm_image("slurm:24")
            .with_auto_scale(32)
            .with_capacity_pool("pool-1", 8)
            .with_preemptible_gpus(16)
            .with_reserved_gpus(24)
            .with_project_id("proj")
            .with_traefik(true);
        let expected = TogetherOptions {
            slurm_shm_size_gib: Some(64),
            auto_scale: true,
            auto_scale_max_gpus: Some(32),
            nvidia_version_id: Some("cuda-12.8-driver-570".into()),
            cuda_version: Some("12.8".into()),
            nvidia_driver_version: Some("570".into()),
            capacity_pool_id: Some("pool-1".into()),
            num_capacity_pool_gpus: Some(8),
            num_preemptible_gpus: Some(16),
            num_reserved_gpus: Some(24),
            project_id: Some("proj".into()),
            install_traefik: true,
            slurm_image: Some("slurm:24".into()),
        };
        assert_eq!(built, expected);
    }
}
