//! Together AI Instant Clusters behind the provider-neutral API.
//!
//! Together has no idempotency key, and its own SDKs retry a create POST blindly (which can
//! start a second cluster); we reconcile by name instead (`reconcile.rs`).

use chrono::{DateTime, Utc};
use gpucloud_together::types::{
    self, BillingType, ClusterPhase, ClusterStatus, ClusterType, GpuType,
};

use progenitor_client::ClientInfo;

use crate::cluster::{
    Cluster, ClusterId, ClusterState, Created, Node, ProviderCluster, ProviderKind,
};
use crate::config::{HttpSettings, TogetherConfig};
use crate::error::{Error, ValidationError};
use crate::plan::{self, PlannedRequest};
use crate::providers::errors::{ErrorEnvelope, call};
use crate::providers::reconcile::create_reconciled;
use crate::spec::{
    Billing, ClusterSize, ClusterSpec, ProviderOptions, SharedStorage, SoftwareStack,
    TogetherOptions,
};

const PROVIDER: ProviderKind = ProviderKind::Together;
const CREATE_DOC: &str = "Together docs, Create a GPU cluster";
const REFERENCE: &str = "Together OpenAPI GPUClusterCreateRequest";

/// Together clusters: validated creates reconciled by name, reads and deletes with retries.
#[derive(Debug, Clone)]
pub struct TogetherClusters {
    client: gpucloud_together::Client,
    pub(crate) http: HttpSettings,
}

impl TogetherClusters {
    /// A client for `config`.
    pub fn new(config: TogetherConfig) -> Result<Self, Error> {
        let client = config.http.generated_client(
            gpucloud_together::auth::Credentials::new(config.api_key.clone()),
            "TOGETHER_API_KEY",
            "TOGETHER_BASE_URL",
            gpucloud_together::Client::from_parts,
        )?;
        Ok(Self {
            client,
            http: config.http,
        })
    }

    /// The generated client, for operations the neutral API does not cover (volumes,
    /// remediations, health alerts).
    pub fn raw(&self) -> &gpucloud_together::Client {
        &self.client
    }

    /// The exact request [`Self::create`] would send, without sending it.
    pub fn plan(&self, spec: &ClusterSpec) -> Result<PlannedRequest, Error> {
        let request = create_request(spec)?;
        Ok(PlannedRequest {
            provider: PROVIDER,
            operation: "create_cluster",
            method: "POST",
            url: format!("{}/compute/clusters", self.client.baseurl()),
            headers: vec![plan::bearer_redacted(), plan::json_content_type()],
            body: serde_json::to_value(&request).unwrap_or_default(),
        })
    }

    /// Creates the cluster `spec` describes, unless one of that name exists.
    pub async fn create(&self, spec: &ClusterSpec) -> Result<Created, Error> {
        let request = create_request(spec)?;
        self.create_with(request).await
    }

    /// Creates from a provider request you built yourself; it is validated first.
    pub async fn create_with(
        &self,
        request: types::GpuClusterCreateRequest,
    ) -> Result<Created, Error> {
        validate(&request)?;
        let name = request.cluster_name.clone();
        let project = request.project_id.clone();
        create_reconciled(
            &self.http,
            || async {
                let info = call(
                    PROVIDER,
                    "create_cluster",
                    self.client.create_cluster().body(request.clone()).send(),
                )
                .await?;
                Ok(view(info.into_inner()))
            },
            || self.find_by_name(&name, project.as_deref()),
        )
        .await
    }

    /// One cluster.
    pub async fn get(&self, id: &ClusterId) -> Result<Cluster, Error> {
        let info = self
            .http
            .retry
            .run(self.http.clock.as_ref(), |_| {
                call(
                    PROVIDER,
                    "get_cluster",
                    self.client.get_cluster().cluster_id(id.as_str()).send(),
                )
            })
            .await?;
        Ok(view(info.into_inner()))
    }

    /// Every cluster visible to the key.
    pub async fn list(&self) -> Result<Vec<Cluster>, Error> {
        self.list_in(None).await
    }

    async fn list_in(&self, project: Option<&str>) -> Result<Vec<Cluster>, Error> {
        let clusters = self
            .http
            .retry
            .run(self.http.clock.as_ref(), |_| {
                let mut request = self.client.list_clusters();
                if let Some(project) = project {
                    request = request.project_id(project);
                }
                call(PROVIDER, "list_clusters", request.send())
            })
            .await?;
        Ok(clusters
            .into_inner()
            .clusters
            .into_iter()
            .map(view)
            .collect())
    }

    async fn find_by_name(
        &self,
        name: &str,
        project: Option<&str>,
    ) -> Result<Option<Cluster>, Error> {
        Ok(self
            .list_in(project)
            .await?
            .into_iter()
            .find(|c| c.name == name))
    }

    /// Deletes a cluster. A 404 after an earlier attempt of this call failed ambiguously means
    /// that attempt worked, and is success.
    pub async fn delete(&self, id: &ClusterId) -> Result<(), Error> {
        self.http
            .retry
            .run(self.http.clock.as_ref(), |attempt| async move {
                match call(
                    PROVIDER,
                    "delete_cluster",
                    self.client.delete_cluster().cluster_id(id.as_str()).send(),
                )
                .await
                {
                    Err(Error::NotFound(_)) if attempt > 1 => Ok(()),
                    Err(e) => Err(e),
                    Ok(_) => Ok(()),
                }
            })
            .await
    }
}

impl ErrorEnvelope for types::ErrorResponse {
    fn code(&self) -> Option<String> {
        let nested = self.error.as_ref().and_then(|e| e.code.clone());
        nested.or_else(|| match &self.code {
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(serde_json::Value::Number(n)) => Some(n.to_string()),
            _ => None,
        })
    }

    fn message(&self) -> Option<String> {
        self.error
            .as_ref()
            .and_then(|e| e.message.clone())
            .or_else(|| self.message.clone())
    }
}

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
    let options = match &spec.options {
        ProviderOptions::None => TogetherOptions::default(),
        ProviderOptions::Together(options) => options.clone(),
        _ => {
            return Err(invalid(
                "options",
                "are for another provider",
                "gpucloud ClusterSpec",
            ));
        }
    };
    let ClusterSize::Gpus(num_gpus) = spec.size else {
        return Err(invalid(
            "num_gpus",
            "Together sizes clusters in GPUs: use ClusterSize::Gpus",
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
    builder = match &spec.billing {
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

/// Together's `status` in neutral words. Every value of the spec's `ClusterStatus` is listed.
pub fn status_state(status: &ClusterStatus) -> ClusterState {
    match status {
        ClusterStatus::WaitingForControlPlaneNodes
        | ClusterStatus::WaitingForDataPlaneNodes
        | ClusterStatus::WaitingForSubnet
        | ClusterStatus::WaitingForSharedVolume
        | ClusterStatus::InstallingDrivers
        | ClusterStatus::RunningAcceptanceTests => ClusterState::Provisioning,
        ClusterStatus::Paused | ClusterStatus::OnDemandComputePaused => ClusterState::Paused,
        ClusterStatus::Ready => ClusterState::Ready,
        ClusterStatus::Degraded => ClusterState::Degraded,
        ClusterStatus::Deleting => ClusterState::Deleting,
        ClusterStatus::Unknown(raw) => ClusterState::Unknown(raw.clone()),
    }
}

/// Together's cluster phase in neutral words. Every value of the spec's `ClusterPhase` is listed.
pub fn phase_state(phase: &ClusterPhase) -> ClusterState {
    match phase {
        ClusterPhase::ClusterPhaseQueued | ClusterPhase::ClusterPhaseScheduled => {
            ClusterState::Pending
        }
        ClusterPhase::ClusterPhaseWaitingForControlPlaneNodes
        | ClusterPhase::ClusterPhaseWaitingForDataPlaneNodes
        | ClusterPhase::ClusterPhaseWaitingForSubnet
        | ClusterPhase::ClusterPhaseWaitingForSharedVolume
        | ClusterPhase::ClusterPhaseWaitingForAutoScaler
        | ClusterPhase::ClusterPhaseInstallingDrivers
        | ClusterPhase::ClusterPhaseRunningAcceptanceTests
        | ClusterPhase::ClusterPhaseRunningNcclTests => ClusterState::Provisioning,
        ClusterPhase::ClusterPhaseAcceptanceTestsFailed
        | ClusterPhase::ClusterPhaseNcclTestsFailed => {
            ClusterState::Failed(phase.as_str().to_string())
        }
        ClusterPhase::ClusterPhaseReady => ClusterState::Ready,
        ClusterPhase::ClusterPhasePaused | ClusterPhase::ClusterPhaseOnDemandComputePaused => {
            ClusterState::Paused
        }
        ClusterPhase::ClusterPhaseDegraded => ClusterState::Degraded,
        ClusterPhase::ClusterPhaseDeleting => ClusterState::Deleting,
        ClusterPhase::Unknown(raw) => ClusterState::Unknown(raw.clone()),
    }
}

/// The latest phase transition (by time; list order breaks ties and fills gaps).
fn latest_phase(info: &types::GpuClusterInfo) -> Option<&ClusterPhase> {
    let mut latest: Option<(&Option<DateTime<Utc>>, &ClusterPhase)> = None;
    for transition in &info.phase_transitions {
        let Some(phase) = &transition.phase else {
            continue;
        };
        if latest.is_none_or(|(time, _)| transition.transition_time >= *time) {
            latest = Some((&transition.transition_time, phase));
        }
    }
    latest.map(|(_, phase)| phase)
}

/// The neutral state: a failed-tests phase wins (the status may still say
/// `RunningAcceptanceTests`), then the status, then the phase.
pub fn state_of(info: &types::GpuClusterInfo) -> ClusterState {
    let phase = latest_phase(info).map(phase_state);
    if let Some(failed @ ClusterState::Failed(_)) = &phase {
        return failed.clone();
    }
    match (&info.status, phase) {
        (Some(status), _) => status_state(status),
        (None, Some(phase)) => phase,
        (None, None) => ClusterState::Unknown(String::new()),
    }
}

/// The neutral view of a Together cluster.
pub fn view(info: types::GpuClusterInfo) -> Cluster {
    let node = |id: &str,
                host: &Option<String>,
                ip: &Option<String>,
                gpus: Option<i64>,
                status: &Option<String>| Node {
        id: id.to_string(),
        hostname: host.clone(),
        private_ip: None,
        public_ip: ip.clone(),
        ssh_command: None,
        gpus: gpus.and_then(|g| u32::try_from(g).ok()),
        status: status.clone(),
    };
    let control = info
        .control_plane_nodes
        .iter()
        .map(|n| node(&n.node_id, &n.host_name, &n.public_ipv4, None, &n.status));
    let workers = info.gpu_worker_nodes.iter().map(|n| {
        node(
            &n.node_id,
            &n.host_name,
            &n.public_ipv4,
            n.num_gpus,
            &n.status,
        )
    });
    Cluster {
        id: ClusterId::new(info.cluster_id.clone()),
        name: info.cluster_name.clone().unwrap_or_default(),
        provider: PROVIDER,
        state: state_of(&info),
        phase: latest_phase(&info)
            .map(|p| p.as_str().to_string())
            .or_else(|| info.status.as_ref().map(|s| s.as_str().to_string())),
        nodes: control.chain(workers).collect(),
        gpu_count: info.num_gpus.and_then(|g| u32::try_from(g).ok()),
        created_at: info.created_at,
        ready_at: info.first_ready_at,
        price: None,
        raw: ProviderCluster::Together(Box::new(info)),
    }
}

#[cfg(test)]
#[path = "together_tests.rs"]
mod tests;
