//! E2E Networks TIR training clusters behind the provider-neutral API.
//!
//! E2E has no idempotency key: creates are reconciled by name (`reconcile.rs`). Its MyAccount
//! API sometimes reports failure inside an HTTP 200 (`code` ≥ 400 in the envelope); every
//! answer's `code` is checked.

use gpucloud_e2e::types::{self, Location};

use progenitor_client::ClientInfo;

use crate::cluster::{
    Cluster, ClusterId, ClusterState, Created, Node, Price, ProviderCluster, ProviderKind,
};
use crate::config::{E2eConfig, HttpSettings, parse_location};
use crate::error::{ApiError, Error, ValidationError};
use crate::plan::{self, PlannedRequest};
use crate::providers::errors::{ErrorEnvelope, call, classify};
use crate::providers::reconcile::create_reconciled;
use crate::spec::{ClusterSize, ClusterSpec, E2eOptions, ProviderOptions};

const PROVIDER: ProviderKind = ProviderKind::E2e;
const CREATE_DOC: &str = "E2E docs, Create Training Cluster";
/// Clusters fetched per page when listing (and when reconciling a create by name).
const PAGE_SIZE: i64 = 100;
/// Pages read at most when listing: 10,000 clusters.
const MAX_PAGES: i64 = 100;

/// E2E training clusters: validated creates reconciled by name, reads and deletes with retries.
#[derive(Debug, Clone)]
pub struct E2eClusters {
    client: gpucloud_e2e::Client,
    pub(crate) http: HttpSettings,
    project_id: i64,
    location: Location,
    active_iam: Option<i64>,
}

/// Adds the query parameters every E2E cluster operation takes.
macro_rules! scoped {
    ($self:ident, $builder:expr, $location:expr) => {{
        let builder = $builder
            .project_id($self.project_id)
            .location($location.clone());
        match $self.active_iam {
            Some(iam) => builder.active_iam(iam),
            None => builder,
        }
    }};
}

impl E2eClusters {
    /// A client for `config`.
    pub fn new(config: E2eConfig) -> Result<Self, Error> {
        let client = config.http.generated_client(
            gpucloud_e2e::auth::Credentials::new(config.api_key.clone(), config.auth_token.clone()),
            "E2E_API_KEY / E2E_AUTH_TOKEN",
            "E2E_BASE_URL",
            gpucloud_e2e::Client::from_parts,
        )?;
        Ok(Self {
            client,
            http: config.http,
            project_id: config.project_id,
            location: config.location,
            active_iam: config.active_iam,
        })
    }

    /// The generated client (plans, images, actions).
    pub fn raw(&self) -> &gpucloud_e2e::Client {
        &self.client
    }

    fn location_for(&self, spec: &ClusterSpec) -> Result<Location, Error> {
        match &spec.region {
            None => Ok(self.location.clone()),
            Some(region) => parse_location(region).map_err(|rule| invalid("location", rule)),
        }
    }

    /// The exact request [`Self::create`] would send, without sending it.
    pub fn plan(&self, spec: &ClusterSpec) -> Result<PlannedRequest, Error> {
        let body = create_request(spec)?;
        let location = self.location_for(spec)?;
        let mut url = format!(
            "{}/distributed_jobs_v2/cluster/?project_id={}&location={}",
            self.client.baseurl(),
            self.project_id,
            location
        );
        if let Some(iam) = self.active_iam {
            url.push_str(&format!("&active_iam={iam}"));
        }
        url.push_str(&format!("&apikey={}", gpucloud_core::REDACTED));
        Ok(PlannedRequest {
            provider: PROVIDER,
            operation: "create_cluster",
            method: "POST",
            url,
            headers: vec![plan::bearer_redacted(), plan::json_content_type()],
            body: serde_json::to_value(&body).unwrap_or_default(),
        })
    }

    /// Creates the cluster `spec` describes, unless one of that name exists.
    pub async fn create(&self, spec: &ClusterSpec) -> Result<Created, Error> {
        let location = self.location_for(spec)?;
        self.create_with(create_request(spec)?, location).await
    }

    /// Creates from a body you built, in `location`; it is validated first.
    pub async fn create_with(
        &self,
        body: types::CreateClusterRequest,
        location: Location,
    ) -> Result<Created, Error> {
        validate(&body)?;
        let name = body.name.clone();
        create_reconciled(
            &self.http,
            || async {
                let request =
                    scoped!(self, self.client.create_cluster(), location).body(body.clone());
                let response = call(PROVIDER, "create_cluster", request.send())
                    .await?
                    .into_inner();
                check_code(
                    "create_cluster",
                    response.code,
                    &response.message,
                    &response,
                )?;
                cluster_of("create_cluster", response.data)
            },
            || self.find_by_name(&name, &location),
        )
        .await
    }

    /// One cluster.
    pub async fn get(&self, id: &ClusterId) -> Result<Cluster, Error> {
        let cluster_id = numeric_id(id)?;
        let response = self
            .http
            .retry
            .run(self.http.clock.as_ref(), |_| async move {
                let request =
                    scoped!(self, self.client.get_cluster(), self.location).cluster_id(cluster_id);
                let response = call(PROVIDER, "get_cluster", request.send())
                    .await?
                    .into_inner();
                check_code("get_cluster", response.code, &response.message, &response)?;
                Ok(response)
            })
            .await?;
        cluster_of("get_cluster", response.data)
    }

    /// Every cluster of the project in the configured location (all pages).
    pub async fn list(&self) -> Result<Vec<Cluster>, Error> {
        self.list_in(&self.location).await
    }

    async fn list_in(&self, location: &Location) -> Result<Vec<Cluster>, Error> {
        let mut clusters = Vec::new();
        for page in 1..=MAX_PAGES {
            let response = self
                .http
                .retry
                .run(self.http.clock.as_ref(), |_| async move {
                    let request = scoped!(self, self.client.list_clusters(), location)
                        .page_no(page)
                        .per_page(PAGE_SIZE);
                    let response = call(PROVIDER, "list_clusters", request.send())
                        .await?
                        .into_inner();
                    check_code("list_clusters", response.code, &response.message, &response)?;
                    Ok(response)
                })
                .await?;
            let count = response.data.len();
            clusters.extend(response.data.into_iter().map(view));
            if (count as i64) < PAGE_SIZE {
                break;
            }
        }
        Ok(clusters)
    }

    async fn find_by_name(
        &self,
        name: &str,
        location: &Location,
    ) -> Result<Option<Cluster>, Error> {
        Ok(self
            .list_in(location)
            .await?
            .into_iter()
            .find(|c| c.name == name))
    }

    /// Deletes a cluster. A 404 after an earlier attempt of this call failed ambiguously means
    /// that attempt worked, and is success.
    pub async fn delete(&self, id: &ClusterId) -> Result<(), Error> {
        let cluster_id = numeric_id(id)?;
        self.http
            .retry
            .run(self.http.clock.as_ref(), |attempt| async move {
                let request = scoped!(self, self.client.delete_cluster(), self.location)
                    .cluster_id(cluster_id);
                match call(PROVIDER, "delete_cluster", request.send()).await {
                    Ok(response) => {
                        let response = response.into_inner();
                        check_code(
                            "delete_cluster",
                            response.code,
                            &response.message,
                            &response,
                        )
                    }
                    Err(Error::NotFound(_)) if attempt > 1 => Ok(()),
                    Err(e) => Err(e),
                }
            })
            .await
    }
}

impl ErrorEnvelope for types::E2eError {
    fn code(&self) -> Option<String> {
        self.code.or(self.status_code).map(|c| c.to_string())
    }

    fn message(&self) -> Option<String> {
        self.message.clone().or_else(|| self.detail.clone())
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

fn numeric_id(id: &ClusterId) -> Result<i64, Error> {
    id.as_str().parse().map_err(|_| {
        invalid(
            "cluster_id",
            format!("E2E cluster ids are integers, got {:?}", id.as_str()),
        )
    })
}

/// E2E may answer HTTP 200 with an error `code` in the envelope (notes B1): that is an error.
fn check_code(
    operation: &'static str,
    code: Option<i64>,
    message: &Option<String>,
    envelope: &impl serde::Serialize,
) -> Result<(), Error> {
    match code {
        Some(code) if code >= 400 => Err(classify(
            ApiError {
                provider: PROVIDER,
                operation,
                status: u16::try_from(code).unwrap_or(u16::MAX),
                code: Some(code.to_string()),
                message: message.clone(),
                reason: None,
                body: serde_json::to_string(envelope).unwrap_or_default(),
            },
            None,
        )),
        _ => Ok(()),
    }
}

fn cluster_of(
    operation: &'static str,
    data: Option<types::TrainingCluster>,
) -> Result<Cluster, Error> {
    data.map(view).ok_or_else(|| {
        Error::Decode(crate::error::DecodeError {
            provider: PROVIDER,
            operation,
            status: None,
            path: "data".into(),
            message: "the envelope has no cluster".into(),
            body_excerpt: String::new(),
        })
    })
}

/// Maps a neutral spec to E2E's create body, then validates it.
pub fn create_request(spec: &ClusterSpec) -> Result<types::CreateClusterRequest, Error> {
    let ProviderOptions::E2e(options) = &spec.options else {
        return Err(invalid(
            "options",
            "E2E needs E2eOptions (image_version_id, sku_id, sku_item_price_id, security_group_id)",
        ));
    };
    let E2eOptions {
        image_version_id,
        sku_id,
        sku_item_price_id,
        security_group_id,
        lifecycle_script,
        sfs_mounts,
    } = options;
    let ClusterSize::Nodes(nodes) = spec.size else {
        return Err(invalid(
            "no_of_nodes",
            "E2E sizes clusters in nodes: use ClusterSize::Nodes",
        ));
    };
    if spec.gpu_model.is_some() {
        return Err(invalid(
            "gpu_model",
            "is set by the SKU (sku_id); leave it unset",
        ));
    }
    if spec.stack.is_some() {
        return Err(invalid(
            "stack",
            "is set by the image (image_version_id); leave it unset",
        ));
    }
    if spec.billing != crate::spec::Billing::OnDemand {
        return Err(invalid("billing", "is set by the plan (sku_item_price_id)"));
    }
    if spec.shared_storage.is_some() {
        return Err(invalid(
            "shared_storage",
            "mount SFS volumes through E2eOptions::sfs_mounts",
        ));
    }
    let ssh_key_ids = spec
        .ssh_keys
        .iter()
        .map(|k| {
            k.parse::<i64>()
                .map_err(|_| invalid("ssh_key_ids", format!("{k:?} is not an integer id")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let sfs_mount_list = sfs_mounts
        .iter()
        .map(|m| types::SfsMount {
            id: Some(m.id),
            name: Some(m.name.clone()),
            mount_path: Some(m.mount_path.clone()),
        })
        .collect();
    let script = lifecycle_script.clone().filter(|s| !s.trim().is_empty());
    let body = types::CreateClusterRequest {
        name: spec.name.clone(),
        image_version_id: *image_version_id,
        ssh_key_ids,
        security_group_id: *security_group_id,
        script_added: Some(script.is_some()),
        lifecycle_script: script,
        sfs_mount_list,
        pfs_mount_list: Vec::new(),
        dataset_mount_list: Vec::new(),
        sku_id: *sku_id,
        no_of_nodes: i64::from(nodes),
        sku_item_price_id: *sku_item_price_id,
    };
    validate(&body)?;
    Ok(body)
}

/// The documented rules of a create body.
pub fn validate(body: &types::CreateClusterRequest) -> Result<(), Error> {
    if body.name.trim().is_empty() {
        return Err(invalid("name", "is required"));
    }
    for (field, id) in [
        ("image_version_id", body.image_version_id),
        ("sku_id", body.sku_id),
        ("sku_item_price_id", body.sku_item_price_id),
        ("security_group_id", body.security_group_id),
    ] {
        if id <= 0 {
            return Err(invalid(
                field,
                format!("is required: a positive id (got {id})"),
            ));
        }
    }
    if body.no_of_nodes < 1 {
        return Err(invalid(
            "no_of_nodes",
            format!("must be at least 1 (got {})", body.no_of_nodes),
        ));
    }
    if body.ssh_key_ids.is_empty() {
        return Err(invalid(
            "ssh_key_ids",
            "is required: at least one SSH key id",
        ));
    }
    let has_script = body
        .lifecycle_script
        .as_deref()
        .is_some_and(|s| !s.trim().is_empty());
    match (body.script_added, has_script) {
        (Some(true), false) => Err(invalid(
            "lifecycle_script",
            "is required when script_added is true",
        )),
        (Some(false) | None, true) => Err(invalid(
            "script_added",
            "must be true when a lifecycle_script is given",
        )),
        _ => Ok(()),
    }
}

/// E2E's cluster `status` in neutral words. The docs show only `Creating`; the other rows are
/// the status words TIR uses elsewhere and are inferred. Anything else is `Unknown`.
pub fn status_state(status: &str) -> ClusterState {
    match status {
        "Creating" | "Pending" | "Scaling" => ClusterState::Provisioning,
        "Running" | "Active" | "Ready" => ClusterState::Ready,
        "Failed" | "Error" => ClusterState::Failed(status.to_string()),
        "Stopped" => ClusterState::Paused,
        "Deleting" | "Terminating" => ClusterState::Deleting,
        "Deleted" | "Terminated" => ClusterState::Deleted,
        other => ClusterState::Unknown(other.to_string()),
    }
}

/// The neutral view of an E2E training cluster.
pub fn view(cluster: types::TrainingCluster) -> Cluster {
    let public_ip = cluster.ssh_public_ip.clone().filter(|ip| !ip.is_empty());
    let mut nodes: Vec<Node> = cluster
        .worker_nodes
        .iter()
        .enumerate()
        .map(|(i, node)| {
            let text = |key: &str| node.get(key).and_then(|v| v.as_str()).map(str::to_string);
            Node {
                id: text("name")
                    .or_else(|| node.get("id").map(|v| v.to_string()))
                    .unwrap_or_else(|| format!("worker-{i}")),
                hostname: text("hostname").or_else(|| text("name")),
                private_ip: text("private_ip").or_else(|| text("ip")),
                public_ip: text("public_ip"),
                ssh_command: None,
                gpus: node
                    .get("gpu")
                    .and_then(|v| v.as_u64())
                    .and_then(|g| u32::try_from(g).ok()),
                status: text("status"),
            }
        })
        .collect();
    if let Some(ip) = &public_ip {
        // The login node: the one address E2E documents (the SSH user is not documented).
        nodes.insert(
            0,
            Node {
                id: "login".into(),
                public_ip: Some(ip.clone()),
                ..Node::default()
            },
        );
    }
    let plan = cluster.sku_details.as_ref().and_then(|d| d.plan.as_ref());
    let nodes_count = cluster.no_of_nodes.unwrap_or(0) as f64;
    let price = plan.and_then(
        |p| match (p.sku_type.as_ref(), p.unit_price, p.currency.clone()) {
            (Some(types::PlanSkuType::Hourly), Some(unit), Some(currency)) => Some(Price {
                per_hour: unit * nodes_count,
                currency,
            }),
            _ => None,
        },
    );
    let state = cluster
        .status
        .as_deref()
        .map(status_state)
        .unwrap_or(ClusterState::Unknown(String::new()));
    Cluster {
        id: ClusterId::new(cluster.id.map(|i| i.to_string()).unwrap_or_default()),
        name: cluster.name.clone().unwrap_or_default(),
        provider: PROVIDER,
        state,
        phase: cluster.status.clone(),
        nodes,
        gpu_count: cluster.total_gpu.and_then(|g| u32::try_from(g).ok()),
        created_at: cluster.created_at,
        ready_at: None,
        price,
        raw: ProviderCluster::E2e(Box::new(cluster)),
    }
}

#[cfg(test)]
#[path = "e2e_tests.rs"]
mod tests;
