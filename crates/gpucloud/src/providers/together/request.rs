//! Together's create request, mapped from a neutral [`ClusterSpec`], and the documented rules
//! it must satisfy before it is sent.

use gpucloud_together::types::{self, BillingType, ClusterType, GpuType};

use super::PROVIDER;
use crate::error::{Error, ValidationError};
use crate::spec::{Billing, ClusterSize, ClusterSpec, SharedStorage, SoftwareStack};

const CREATE_DOC: &str = "Together docs, Create a GPU cluster";
const REFERENCE: &str = "Together OpenAPI GPUClusterCreateRequest";

/// The whole days of a reservation that covers `ttl` (rounded up, at least one): what
/// Together is sent as `duration_days` when it is asked to end the cluster itself.
pub(crate) fn reservation_days(ttl: std::time::Duration) -> u32 {
    u32::try_from(ttl.as_secs().div_ceil(DAY).max(1)).unwrap_or(u32::MAX)
}

/// How long the reservation of [`reservation_days`] runs: when Together ends the cluster.
pub(crate) fn reservation(ttl: std::time::Duration) -> std::time::Duration {
    std::time::Duration::from_secs(u64::from(reservation_days(ttl)).saturating_mul(DAY))
}

/// Seconds in a day.
const DAY: u64 = 24 * 3600;

fn invalid(field: &str, rule: impl Into<String>, source: &'static str) -> Error {
    Error::Validation(ValidationError {
        provider: PROVIDER,
        field: field.into(),
        rule: rule.into(),
        source,
    })
}

/// Maps a neutral spec to Together's create request, then validates it.
pub fn create_request(spec: &ClusterSpec) -> Result<types::GpuClusterCreateRequest, Error> {
    let options = spec.options.together.clone().unwrap_or_default();
    let ClusterSize::Gpus(num_gpus) = spec.size else {
        return Err(invalid(
            "num_gpus",
            "Together sizes clusters in GPUs: ask for a number of GPUs (--gpus), not nodes",
            CREATE_DOC,
        ));
    };
    let gpu_type = spec
        .gpu_model
        .as_deref()
        .ok_or_else(|| invalid("gpu_type", "is required", CREATE_DOC))?;
    let region = spec.region.as_deref().ok_or_else(|| {
        invalid(
            "region",
            "is required (see GET /compute/regions)",
            CREATE_DOC,
        )
    })?;
    if !spec.ssh_keys.is_empty() {
        return Err(invalid(
            "ssh_keys",
            "Together takes no SSH keys when creating a cluster",
            CREATE_DOC,
        ));
    }
    let cluster_type = match spec.stack {
        None => None,
        Some(SoftwareStack::Kubernetes) => Some(ClusterType::Kubernetes),
        Some(SoftwareStack::Slurm) => Some(ClusterType::Slurm),
        Some(other) => {
            return Err(invalid(
                "cluster_type",
                format!("Together offers KUBERNETES or SLURM, not {other:?}"),
                CREATE_DOC,
            ));
        }
    };
    let mut builder = types::builder::GpuClusterCreateRequest::default()
        .cluster_name(spec.name.clone())
        .gpu_type(GpuType::from(gpu_type))
        .num_gpus(i64::from(num_gpus))
        .region(region.to_string())
        .cluster_type(cluster_type)
        .auto_scale(options.auto_scale.then_some(true))
        .auto_scale_max_gpus(options.auto_scale_max_gpus.map(i64::from))
        .slurm_shm_size_gib(options.slurm_shm_size_gib.map(i64::from))
        .nvidia_version_id(options.nvidia_version_id.clone())
        .cuda_version(options.cuda_version.clone())
        .nvidia_driver_version(options.nvidia_driver_version.clone())
        .capacity_pool_id(options.capacity_pool_id.clone())
        .num_capacity_pool_gpus(options.num_capacity_pool_gpus.map(i64::from))
        .num_preemptible_gpus(options.num_preemptible_gpus.map(i64::from))
        .num_reserved_gpus(options.num_reserved_gpus.map(i64::from))
        .project_id(options.project_id.clone())
        .install_traefik(options.install_traefik.then_some(true))
        .slurm_image(options.slurm_image.clone());
    let reserved;
    let billing = match (spec.ttl_by_provider, &spec.billing, spec.ttl) {
        (false, billing, _) => billing,
        (true, Billing::OnDemand, Some(ttl)) => {
            reserved = Billing::Reserved {
                days: reservation_days(ttl),
            };
            &reserved
        }
        (true, _, None) => {
            return Err(invalid(
                "ttl_by_provider",
                "needs a ttl: Together ends a cluster itself only when a reservation of whole \
                 days ends",
                CREATE_DOC,
            ));
        }
        (true, _, Some(_)) => {
            return Err(invalid(
                "ttl_by_provider",
                "makes the ttl the reservation (RESERVED, duration_days); leave billing unset",
                CREATE_DOC,
            ));
        }
    };
    builder = match billing {
        Billing::OnDemand => builder.billing_type(BillingType::OnDemand),
        Billing::Reserved { days } => builder
            .billing_type(BillingType::Reserved)
            .duration_days(Some(i64::from(*days))),
        Billing::Scheduled { start, end } => builder
            .billing_type(BillingType::ScheduledCapacity)
            .reservation_start_time(Some(*start))
            .reservation_end_time(Some(*end)),
    };
    builder = match &spec.shared_storage {
        None => builder,
        Some(SharedStorage::Existing { id }) => builder.volume_id(Some(id.clone())),
        Some(SharedStorage::New { name, size_tib }) => builder.shared_volume(Some(
            types::GpuClustersSharedVolumeCreateRequest::builder()
                .volume_name(name.clone())
                .size_tib(i64::from(*size_tib))
                .region(region.to_string())
                .try_into()
                .map_err(|e: types::error::ConversionError| {
                    invalid("shared_volume", e.to_string(), CREATE_DOC)
                })?,
        )),
    };
    let request: types::GpuClusterCreateRequest =
        builder
            .try_into()
            .map_err(|e: types::error::ConversionError| {
                invalid("request", e.to_string(), CREATE_DOC)
            })?;
    validate(&request)?;
    Ok(request)
}

/// The documented rules of a create request (the docs page's prose, and the schema-level
/// `anyOf` of Together's OpenAPI document since 2026-07-31).
pub fn validate(request: &types::GpuClusterCreateRequest) -> Result<(), Error> {
    let num_gpus = request.num_gpus;
    if num_gpus <= 0 || num_gpus % 8 != 0 {
        return Err(invalid(
            "num_gpus",
            format!("must be a positive multiple of 8 (got {num_gpus})"),
            CREATE_DOC,
        ));
    }
    if request.cluster_name.trim().is_empty() {
        return Err(invalid("cluster_name", "must not be empty", CREATE_DOC));
    }
    if request.region.trim().is_empty() {
        return Err(invalid("region", "must not be empty", CREATE_DOC));
    }
    if request.auto_scale == Some(true) || request.auto_scaled == Some(true) {
        match request.auto_scale_max_gpus {
            None => {
                return Err(invalid(
                    "auto_scale_max_gpus",
                    "is required when autoscaling",
                    CREATE_DOC,
                ));
            }
            Some(max) if max < num_gpus => {
                return Err(invalid(
                    "auto_scale_max_gpus",
                    format!("must be ≥ num_gpus ({num_gpus}), got {max}"),
                    CREATE_DOC,
                ));
            }
            Some(_) => {}
        }
    }
    if request.cluster_type == Some(ClusterType::Slurm) && request.slurm_shm_size_gib.is_none() {
        return Err(invalid(
            "slurm_shm_size_gib",
            "is required for SLURM clusters",
            CREATE_DOC,
        ));
    }
    if request.billing_type == BillingType::ScheduledCapacity {
        let (Some(start), Some(end)) =
            (request.reservation_start_time, request.reservation_end_time)
        else {
            return Err(invalid(
                "reservation_start_time",
                "reservation_start_time and reservation_end_time are required for SCHEDULED_CAPACITY",
                CREATE_DOC,
            ));
        };
        if end <= start {
            return Err(invalid(
                "reservation_end_time",
                "must be after reservation_start_time",
                CREATE_DOC,
            ));
        }
    }
    let legacy = (
        request.cuda_version.is_some(),
        request.nvidia_driver_version.is_some(),
    );
    match (request.nvidia_version_id.is_some(), legacy) {
        (_, (true, true)) | (true, (false, false)) => {}
        (_, (true, false)) | (_, (false, true)) => {
            return Err(invalid(
                "cuda_version",
                "cuda_version and nvidia_driver_version must be given together",
                REFERENCE,
            ));
        }
        (false, (false, false)) => {
            return Err(invalid(
                "nvidia_version_id",
                "give nvidia_version_id (from GET /compute/regions) or the legacy cuda_version + nvidia_driver_version pair",
                REFERENCE,
            ));
        }
    }
    for (field, count) in [
        ("num_capacity_pool_gpus", request.num_capacity_pool_gpus),
        ("num_preemptible_gpus", request.num_preemptible_gpus),
    ] {
        if let Some(count) = count
            && (count < 0 || count % 8 != 0 || count > num_gpus)
        {
            return Err(invalid(
                field,
                format!("must be a multiple of 8 and ≤ num_gpus ({num_gpus}), got {count}"),
                CREATE_DOC,
            ));
        }
    }
    Ok(())
}

/// The GPU count of a resize: Together sizes clusters in GPUs, a positive multiple of 8.
pub(super) fn resize_gpus(size: ClusterSize) -> Result<i64, Error> {
    match size {
        ClusterSize::Gpus(gpus) if gpus > 0 && gpus % 8 == 0 => Ok(i64::from(gpus)),
        ClusterSize::Gpus(gpus) => Err(invalid(
            "num_gpus",
            format!("must be a positive multiple of 8 (got {gpus})"),
            CREATE_DOC,
        )),
        ClusterSize::Nodes(_) => Err(invalid(
            "num_gpus",
            "Together sizes clusters in GPUs: ask for a number of GPUs (--gpus), not nodes",
            CREATE_DOC,
        )),
    }
}
