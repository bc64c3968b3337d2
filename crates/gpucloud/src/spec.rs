//! What to create, in provider-neutral words, plus typed per-provider options.
//!
//! Each provider module maps a [`ClusterSpec`] to its own create request and validates it there,
//! before anything is sent; a field the provider cannot honour is a validation error, never
//! silently dropped.
//!
//! These types are also the request files of the `gpucloud` command line. With the `schema`
//! feature they implement `schemars::JsonSchema`, and the doc comments below become the
//! descriptions of the JSON Schema that `gpucloud schema request` prints: write them for the
//! reader of a request file.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// A cluster to create.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ClusterSpec {
    /// The cluster's name. Creates are reconciled by name on providers without idempotency
    /// keys, so use a name unique within the account.
    pub name: String,
    /// GPU model in the provider's words (Together `H100_SXM`). Runcrate's offer and E2E's SKU
    /// determine the GPU, so leave it unset there.
    #[serde(default)]
    pub gpu_model: Option<String>,
    /// How big.
    pub size: ClusterSize,
    /// Together region (`us-central-8`); E2E location (`Delhi`, `Chennai`) overriding the
    /// configured one. Runcrate's offer determines the location.
    #[serde(default)]
    pub region: Option<String>,
    /// How it is billed.
    #[serde(default)]
    pub billing: Billing,
    /// SSH key ids to install (Runcrate UUIDs, E2E integer ids). Together takes none at create.
    #[serde(default)]
    pub ssh_keys: Vec<String>,
    /// Shared storage to attach.
    #[serde(default)]
    pub shared_storage: Option<SharedStorage>,
    /// The software stack.
    #[serde(default)]
    pub stack: Option<SoftwareStack>,
    /// Options only one provider has, for each provider (`[options.together]` and
    /// `[options.e2e]` side by side): each is used only by its own provider.
    #[serde(default)]
    pub options: ProviderOptions,
}

impl ClusterSpec {
    /// A spec with a name and a size; everything else at its default.
    pub fn new(name: impl Into<String>, size: ClusterSize) -> Self {
        Self {
            name: name.into(),
            gpu_model: None,
            size,
            region: None,
            billing: Billing::OnDemand,
            ssh_keys: Vec::new(),
            shared_storage: None,
            stack: None,
            options: ProviderOptions::default(),
        }
    }

    /// Sets the GPU model.
    pub fn with_gpu_model(mut self, model: impl Into<String>) -> Self {
        self.gpu_model = Some(model.into());
        self
    }

    /// Sets the region or location.
    pub fn with_region(mut self, region: impl Into<String>) -> Self {
        self.region = Some(region.into());
        self
    }

    /// Sets the billing.
    pub fn with_billing(mut self, billing: Billing) -> Self {
        self.billing = billing;
        self
    }

    /// Adds SSH key ids.
    pub fn with_ssh_keys(mut self, keys: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.ssh_keys.extend(keys.into_iter().map(Into::into));
        self
    }

    /// Sets shared storage.
    pub fn with_shared_storage(mut self, storage: SharedStorage) -> Self {
        self.shared_storage = Some(storage);
        self
    }

    /// Sets the software stack.
    pub fn with_stack(mut self, stack: SoftwareStack) -> Self {
        self.stack = Some(stack);
        self
    }

    /// Sets provider-specific options: those of the providers `options` names replace what
    /// was there, the others stay.
    pub fn with_options(mut self, options: impl Into<ProviderOptions>) -> Self {
        let options = options.into();
        if options.together.is_some() {
            self.options.together = options.together;
        }
        if options.runcrate.is_some() {
            self.options.runcrate = options.runcrate;
        }
        if options.e2e.is_some() {
            self.options.e2e = options.e2e;
        }
        self
    }
}

/// A cluster's size: Together counts GPUs, Runcrate and E2E count nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ClusterSize {
    /// Total GPUs.
    Gpus(u32),
    /// Machines.
    Nodes(u32),
}

/// How a cluster is paid for.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Billing {
    /// Pay per hour until deleted.
    #[default]
    OnDemand,
    /// Reserved for a number of days (Together `RESERVED` + `duration_days`).
    Reserved {
        /// Length of the reservation.
        days: u32,
    },
    /// A scheduled capacity window (Together `SCHEDULED_CAPACITY`).
    Scheduled {
        /// Start of the window.
        start: DateTime<Utc>,
        /// End of the window.
        end: DateTime<Utc>,
    },
}

/// Shared storage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum SharedStorage {
    /// An existing volume by id.
    Existing {
        /// The provider's volume id.
        id: String,
    },
    /// A new volume created with the cluster (Together).
    New {
        /// Volume name.
        name: String,
        /// Size in TiB.
        size_tib: u32,
    },
}

/// The software installed on the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SoftwareStack {
    /// Kubernetes.
    Kubernetes,
    /// Slurm.
    Slurm,
    /// Ray (Runcrate).
    Ray,
    /// Plain machines (Runcrate).
    None,
}

/// Options only one provider has, per provider. A request may carry several providers'
/// options at once (for a placement across providers); each provider reads only its own.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct ProviderOptions {
    /// Together's options.
    pub together: Option<TogetherOptions>,
    /// Runcrate's options.
    pub runcrate: Option<RuncrateOptions>,
    /// E2E's options.
    pub e2e: Option<E2eOptions>,
}

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

/// Runcrate-only create options.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct RuncrateOptions {
    /// The offer from `GET /clusters/offers` (required).
    pub offer_id: String,
    /// Allow an offer on community hosts.
    pub include_community: Option<bool>,
    /// The idempotency key for this logical create; one is generated when unset. Reuse it to
    /// make a re-run of your program find the cluster instead of starting another.
    pub idempotency_key: Option<String>,
    /// The Runcrate environment to create in.
    pub environment: Option<String>,
}

/// E2E-only create options (names as in the create body).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct E2eOptions {
    /// Image version for the nodes (from the deployment images endpoint).
    pub image_version_id: i64,
    /// Node type.
    pub sku_id: i64,
    /// Plan price id; region-specific.
    pub sku_item_price_id: i64,
    /// Security group.
    pub security_group_id: i64,
    /// A script run on each node after start (`script_added` is derived from it).
    pub lifecycle_script: Option<String>,
    /// SFS volumes to mount.
    pub sfs_mounts: Vec<E2eSfsMount>,
}

/// An SFS volume mount.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct E2eSfsMount {
    /// SFS id.
    pub id: i64,
    /// SFS name.
    pub name: String,
    /// Mount path on the nodes.
    pub mount_path: String,
}

impl From<TogetherOptions> for ProviderOptions {
    fn from(value: TogetherOptions) -> Self {
        Self {
            together: Some(value),
            ..Self::default()
        }
    }
}

impl From<RuncrateOptions> for ProviderOptions {
    fn from(value: RuncrateOptions) -> Self {
        Self {
            runcrate: Some(value),
            ..Self::default()
        }
    }
}

impl From<E2eOptions> for ProviderOptions {
    fn from(value: E2eOptions) -> Self {
        Self {
            e2e: Some(value),
            ..Self::default()
        }
    }
}

/// The README's examples, compiled (and the runnable ones run) as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
