//! Runcrate clusters behind the provider-neutral API.
//!
//! Runcrate documents an `Idempotency-Key` on create: one key per logical create, reused across
//! every retry, makes the provider answer a repeat with the cluster it already made (HTTP 200)
//! instead of starting another. Runcrate documents no list or delete endpoint for clusters, so
//! those are [`Error::Unsupported`].

use gpucloud_runcrate::types::{self, Stack};

use progenitor_client::ClientInfo;

use crate::cluster::{
    Cluster, ClusterId, ClusterState, CreateOutcome, Created, Node, Price, ProviderCluster,
    ProviderKind,
};
use crate::config::{HttpSettings, RuncrateConfig};
use crate::error::{Error, ValidationError};
use crate::plan::{self, PlannedRequest};
use crate::providers::errors::{ErrorEnvelope, call};
use crate::spec::{
    ClusterSize, ClusterSpec, ProviderOptions, RuncrateOptions, SharedStorage, SoftwareStack,
};

const PROVIDER: ProviderKind = ProviderKind::Runcrate;
const CREATE_DOC: &str = "Runcrate docs, Create a cluster";

/// Runcrate clusters: keyed creates retried safely, reads with retries.
#[derive(Debug, Clone)]
pub struct RuncrateClusters {
    client: gpucloud_runcrate::Client,
    pub(crate) http: HttpSettings,
}

/// A create request with the header and query that go with it.
#[derive(Debug, Clone, PartialEq)]
pub struct RuncrateCreate {
    /// The body.
    pub body: types::CreateClusterRequest,
    /// The `Idempotency-Key` for this logical create.
    pub idempotency_key: String,
    /// The `environment` query parameter.
    pub environment: Option<String>,
}

impl RuncrateClusters {
    /// A client for `config`.
    pub fn new(config: RuncrateConfig) -> Result<Self, Error> {
        let client = config.http.generated_client(
            gpucloud_runcrate::auth::Credentials::new(config.api_key.clone()),
            "RUNCRATE_API_KEY",
            "RUNCRATE_BASE_URL",
            gpucloud_runcrate::Client::from_parts,
        )?;
        Ok(Self {
            client,
            http: config.http,
        })
    }

    /// The generated client (offers, and anything else the neutral API does not cover).
    pub fn raw(&self) -> &gpucloud_runcrate::Client {
        &self.client
    }

    /// The exact request [`Self::create`] would send, without sending it. Without an
    /// `idempotency_key` in the options the key shown is a fresh one.
    pub fn plan(&self, spec: &ClusterSpec) -> Result<PlannedRequest, Error> {
        let create = create_request(spec)?;
        let mut url = format!("{}/clusters", self.client.baseurl());
        if let Some(environment) = &create.environment {
            url = format!("{url}?environment={}", urlencode(environment));
        }
        Ok(PlannedRequest {
            provider: PROVIDER,
            operation: "create_cluster",
            method: "POST",
            url,
            headers: vec![
                plan::bearer_redacted(),
                plan::json_content_type(),
                ("Idempotency-Key".into(), create.idempotency_key.clone()),
            ],
            body: serde_json::to_value(&create.body).unwrap_or_default(),
        })
    }

    /// Creates the cluster `spec` describes.
    pub async fn create(&self, spec: &ClusterSpec) -> Result<Created, Error> {
        self.create_with(create_request(spec)?).await
    }

    /// Creates from a request you built; retries of this call reuse its idempotency key, so a
    /// create that timed out is never doubled.
    pub async fn create_with(&self, create: RuncrateCreate) -> Result<Created, Error> {
        validate(&create)?;
        let clock = self.http.clock.as_ref();
        let retry_on: fn(&Error) -> bool = |e| e.is_retryable() || e.is_ambiguous();
        let (status, attempts, cluster) = self
            .http
            .retry
            .run_when(clock, retry_on, |attempt| {
                let mut request = self
                    .client
                    .create_cluster()
                    .idempotency_key(create.idempotency_key.clone())
                    .body(create.body.clone());
                if let Some(environment) = &create.environment {
                    request = request.environment(environment.clone());
                }
                async move {
                    let response = call(PROVIDER, "create_cluster", request.send()).await?;
                    Ok((
                        response.status().as_u16(),
                        attempt,
                        response.into_inner().data,
                    ))
                }
            })
            .await?;
        // 201: created now. 200: the key's cluster already existed — made by an earlier attempt
        // of this call (answer lost), or by an earlier call with the same key.
        let outcome = match (status, attempts) {
            (200, 1) => CreateOutcome::AlreadyExisted,
            (200, _) => CreateOutcome::CreatedReconciled,
            _ => CreateOutcome::Created,
        };
        Ok(Created {
            cluster: view(cluster),
            outcome,
            attempts,
        })
    }

    /// One cluster (the documented way to follow a create).
    pub async fn get(&self, id: &ClusterId) -> Result<Cluster, Error> {
        let uuid: uuid::Uuid = id.as_str().parse().map_err(|_| {
            Error::Validation(ValidationError {
                provider: PROVIDER,
                field: "id".into(),
                rule: format!("must be a UUID, got {:?}", id.as_str()),
                source: CREATE_DOC,
            })
        })?;
        let response = self
            .http
            .retry
            .run(self.http.clock.as_ref(), |_| {
                call(
                    PROVIDER,
                    "get_cluster",
                    self.client.get_cluster().id(uuid).send(),
                )
            })
            .await?;
        Ok(view(response.into_inner().data))
    }
}

impl ErrorEnvelope for types::ErrorEnvelope {
    fn code(&self) -> Option<String> {
        Some(self.error.code.clone())
    }

    fn message(&self) -> Option<String> {
        Some(self.error.message.clone())
    }

    fn reason(&self) -> Option<String> {
        self.error.details.as_ref().and_then(|d| d.reason.clone())
    }
}

fn invalid(field: &str, rule: impl Into<String>) -> Error {
    Error::Validation(ValidationError {
        provider: PROVIDER,
        field: field.into(),
        rule: rule.into(),
        source: CREATE_DOC,
    })
}

/// Maps a neutral spec to Runcrate's create request, then validates it.
pub fn create_request(spec: &ClusterSpec) -> Result<RuncrateCreate, Error> {
    let options = match &spec.options {
        ProviderOptions::Runcrate(options) => options.clone(),
        ProviderOptions::None => RuncrateOptions::default(),
        _ => return Err(invalid("options", "are for another provider")),
    };
    if options.offer_id.trim().is_empty() {
        return Err(invalid(
            "offer_id",
            "is required (pick one from GET /clusters/offers)",
        ));
    }
    let ClusterSize::Nodes(node_count) = spec.size else {
        return Err(invalid(
            "node_count",
            "Runcrate sizes clusters in nodes: use ClusterSize::Nodes",
        ));
    };
    if spec.gpu_model.is_some() {
        return Err(invalid(
            "gpu_model",
            "is set by the offer (offer_id); leave it unset",
        ));
    }
    if spec.region.is_some() {
        return Err(invalid(
            "region",
            "is set by the offer (offer_id); leave it unset",
        ));
    }
    if spec.billing != crate::spec::Billing::OnDemand {
        return Err(invalid(
            "billing",
            "Runcrate bills per hour from up_at until termination",
        ));
    }
    check_name(&spec.name)?;
    let stack = match spec.stack.unwrap_or(SoftwareStack::None) {
        SoftwareStack::None => Stack::None,
        SoftwareStack::Slurm => Stack::Slurm,
        SoftwareStack::Kubernetes => Stack::Kubernetes,
        SoftwareStack::Ray => Stack::Ray,
    };
    let ssh_key_ids = spec
        .ssh_keys
        .iter()
        .map(|k| {
            k.parse::<uuid::Uuid>()
                .map_err(|_| invalid("ssh_key_ids", format!("{k:?} is not a UUID")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let storage_id = match &spec.shared_storage {
        None => None,
        Some(SharedStorage::Existing { id }) => Some(
            id.parse::<uuid::Uuid>()
                .map_err(|_| invalid("storage_id", format!("{id:?} is not a UUID")))?,
        ),
        Some(SharedStorage::New { .. }) => {
            return Err(invalid(
                "storage_id",
                "Runcrate attaches an existing volume only (SharedStorage::Existing)",
            ));
        }
    };
    let body: types::CreateClusterRequest = types::CreateClusterRequest::builder()
        .name(spec.name.clone())
        .offer_id(options.offer_id.clone())
        .node_count(i64::from(node_count))
        .stack(stack)
        .ssh_key_ids(ssh_key_ids)
        .storage_id(storage_id)
        .include_community(options.include_community)
        .try_into()
        .map_err(|e: types::error::ConversionError| invalid("request", e.to_string()))?;
    let create = RuncrateCreate {
        body,
        idempotency_key: options
            .idempotency_key
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
        environment: options.environment.clone(),
    };
    validate(&create)?;
    Ok(create)
}

/// `^[A-Za-z0-9][A-Za-z0-9-]{0,62}$`: 1–63 letters, digits and hyphens, not starting with a hyphen.
fn check_name(name: &str) -> Result<(), Error> {
    let valid = !name.is_empty()
        && name.len() <= 63
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        && !name.starts_with('-');
    if valid {
        Ok(())
    } else {
        Err(invalid(
            "name",
            format!(
                "must be 1–63 letters, digits or hyphens, starting with a letter or digit (got {name:?})"
            ),
        ))
    }
}

/// The documented rules of a create.
pub fn validate(create: &RuncrateCreate) -> Result<(), Error> {
    check_name(&create.body.name)?;
    let nodes = create.body.node_count;
    if !(2..=64).contains(&nodes) {
        return Err(invalid(
            "node_count",
            format!("must be between 2 and 64 (got {nodes})"),
        ));
    }
    if create.body.ssh_key_ids.len() > 20 {
        return Err(invalid(
            "ssh_key_ids",
            format!("at most 20 keys (got {})", create.body.ssh_key_ids.len()),
        ));
    }
    let key = &create.idempotency_key;
    if key.is_empty() || key.len() > 255 || !key.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(invalid(
            "Idempotency-Key",
            "must be 1–255 visible ASCII characters",
        ));
    }
    Ok(())
}

/// Runcrate's cluster `status` in neutral words. The docs show `provisioning` and tell callers
/// to poll for `ready`; `failed` (all-or-nothing start), `terminating` and `terminated` follow
/// the page's prose and are inferred. Anything else is `Unknown`.
pub fn status_state(status: &str, failure_reason: Option<&str>) -> ClusterState {
    match status {
        "provisioning" => ClusterState::Provisioning,
        "ready" => ClusterState::Ready,
        "failed" => ClusterState::Failed(failure_reason.unwrap_or("failed").to_string()),
        "terminating" => ClusterState::Deleting,
        "terminated" => ClusterState::Deleted,
        other => ClusterState::Unknown(other.to_string()),
    }
}

/// The neutral state; a `terminated_at` or a `failure_reason` settles it whatever the status.
pub fn state_of(cluster: &types::Cluster) -> ClusterState {
    if cluster.terminated_at.is_some() {
        return ClusterState::Deleted;
    }
    match (&cluster.status, &cluster.failure_reason) {
        (_, Some(reason)) => ClusterState::Failed(reason.clone()),
        (Some(status), None) => status_state(status, None),
        (None, None) => ClusterState::Unknown(String::new()),
    }
}

/// The neutral view of a Runcrate cluster.
pub fn view(cluster: types::Cluster) -> Cluster {
    let nodes = cluster
        .nodes
        .iter()
        .map(|n| Node {
            id: n
                .name
                .clone()
                .or_else(|| n.instance_id.map(|i| i.to_string()))
                .unwrap_or_default(),
            hostname: n.name.clone(),
            private_ip: n.overlay_address.clone(),
            public_ip: n.ip.clone(),
            ssh_command: n.ssh_command.clone(),
            gpus: n.gpus.and_then(|g| u32::try_from(g).ok()),
            status: n.status.clone(),
        })
        .collect();
    let gpu_count = match (cluster.node_count, cluster.gpus_per_node) {
        (Some(nodes), Some(per_node)) => u32::try_from(nodes * per_node).ok(),
        _ => None,
    };
    Cluster {
        id: ClusterId::new(cluster.id.to_string()),
        name: cluster.name.clone().unwrap_or_default(),
        provider: PROVIDER,
        state: state_of(&cluster),
        phase: cluster.status.clone(),
        nodes,
        gpu_count,
        created_at: cluster.created_at,
        ready_at: cluster.ready_at,
        // Runcrate prices in US dollars ("never less than $10").
        price: cluster.hourly_rate.map(|per_hour| Price {
            per_hour,
            currency: "USD".into(),
        }),
        raw: ProviderCluster::Runcrate(Box::new(cluster)),
    }
}

/// Percent-encodes a query value as reqwest does.
fn urlencode(value: &str) -> String {
    url::form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

#[cfg(test)]
#[path = "runcrate_tests.rs"]
mod tests;
