//! E2E Networks TIR training clusters behind the provider-neutral API.
//!
//! E2E has no idempotency key: creates are reconciled by name within the location
//! (`CreateSafety::ReconcileByName`). Its MyAccount API sometimes reports failure inside an
//! HTTP 200 (`code` ≥ 400 in the envelope); every answer's `code` is checked (`errors.rs`).

pub(crate) mod config;
mod defaults;
pub(crate) mod options;
mod profile;
pub(crate) use profile::PROFILE;
pub(crate) mod catalog;
mod errors;
mod request;
mod state;
mod view;

use gpucloud_core::RequestCapture;
use gpucloud_e2e::types::{self, Location};
use progenitor_client::ClientInfo;

pub(crate) use config::E2eConfig;
pub(crate) use request::{create_request, validate};
pub(crate) use view::stated_node_count;
pub(crate) use view::view;

use crate::cluster::{Cluster, ClusterId, Created, ProviderKind};
use crate::config::ClientSettings;
use crate::error::{DecodeError, Error};
use crate::journal::CreateIntent;
use crate::providers::call::{Answered, ErrorEnvelope, call};
use crate::providers::ops::{self, CreateSafety, Page, Provider, Sent};
use crate::spec::{ClusterSize, ClusterSpec};
use config::parse_location;
use errors::check_code;
use request::invalid;

const PROVIDER: ProviderKind = ProviderKind::E2e;
/// Clusters fetched per page when listing (and when reconciling a create by name).
const PAGE_SIZE: i64 = 100;

/// E2E training clusters: validated creates reconciled by name, reads and deletes with retries.
#[derive(Debug, Clone)]
pub struct E2eClusters {
    client: gpucloud_e2e::Client,
    settings: ClientSettings,
    catalog: crate::catalog::CatalogCache,
    names: ops::NameLookups,
    project_id: i64,
    location: Location,
    active_iam: Option<i64>,
    /// The endpoint and account (the origin of its credentials at its base URL), before the
    /// project and location are added.
    account: String,
    /// Where its requests go and as whom: the account in this project and location.
    origin: String,
}

/// A validated create: the body and the location it goes to.
#[derive(Debug, Clone, PartialEq)]
pub struct E2eCreate {
    /// The body.
    pub body: types::CreateClusterRequest,
    /// The `location` query parameter.
    pub location: Location,
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
        let (client, account) = config.settings.generated_client(
            &config.base_url,
            gpucloud_e2e::auth::Credentials::new(config.api_key.clone(), config.auth_token.clone()),
            "E2E_API_KEY / E2E_AUTH_TOKEN",
            "E2E_BASE_URL",
            gpucloud_e2e::Client::from_context,
        )?;
        let mut clusters = Self {
            client,
            account,
            origin: String::new(),
            settings: config.settings,
            catalog: crate::catalog::CatalogCache::default(),
            names: ops::NameLookups::default(),
            project_id: config.project_id,
            location: config.location,
            active_iam: config.active_iam,
        };
        clusters.origin = clusters.scoped_origin();
        Ok(clusters)
    }

    /// Where this client's requests go: the endpoint and account, and the project and
    /// location every request names (a cluster id means something only in both).
    fn scoped_origin(&self) -> String {
        format!(
            "{} in {}",
            self.account,
            scope_of(self.project_id, &self.location)
        )
    }

    /// This client for `location`: E2E addresses a cluster by project, location and id, so a
    /// cluster is created, read, resized and deleted by a client of its own location (its
    /// catalog is that location's too).
    pub fn at_location(&self, location: Location) -> Self {
        let mut other = Self {
            client: self.client.clone(),
            settings: self.settings.clone(),
            catalog: crate::catalog::CatalogCache::default(),
            names: ops::NameLookups::default(),
            project_id: self.project_id,
            location,
            active_iam: self.active_iam,
            account: self.account.clone(),
            origin: String::new(),
        };
        other.origin = other.scoped_origin();
        other
    }

    /// This client for a cluster created in `scope` (`project/location`, as intents record
    /// it): a client of that location when the project is this client's, else this one.
    pub(crate) fn for_scope(&self, scope: &str) -> Self {
        match scope.split_once('/') {
            Some((project, location)) if project == self.project_id.to_string() => {
                self.at_region(location).unwrap_or_else(|_| self.clone())
            }
            _ => self.clone(),
        }
    }

    /// [`Self::at_location`] for a location named in words (`Chennai`, `delhi`).
    pub(crate) fn at_region(&self, region: &str) -> Result<Self, Error> {
        let location = parse_location(region).map_err(|rule| invalid("location", rule))?;
        Ok(self.at_location(location))
    }

    /// The generated client (plans, images, actions).
    pub fn raw(&self) -> &gpucloud_e2e::Client {
        &self.client
    }

    /// What E2E offers in the configured location (its plans, and the Slurm images), fetched
    /// once per TTL.
    pub async fn catalog(&self) -> Result<std::sync::Arc<Vec<crate::catalog::Offering>>, Error> {
        ops::catalog(self, &self.catalog, || async {
            let plans = async {
                let request =
                    scoped!(self, self.client.list_plans(), &self.location).variant("e2e");
                let plans = send(&self.client, request.send()).await?.value;
                Ok::<_, Error>(plans.data.into_iter().map(|p| p.0).collect::<Vec<_>>())
            };
            // The images do not depend on the plans: both are asked for at once, so the
            // catalog costs one round trip of waiting, not two.
            let images = async {
                let mut images = Vec::new();
                for (stack, framework) in catalog::FRAMEWORKS {
                    let request = scoped!(self, self.client.list_images(), &self.location)
                        .framework(*framework)
                        .job_type(*framework);
                    let answer = send(&self.client, request.send()).await?.value;
                    let items: Vec<_> = answer.data.into_iter().map(|i| i.0).collect();
                    images.extend(catalog::images(&items, *stack));
                }
                Ok::<_, Error>(images)
            };
            let (plans, images) = futures_util::future::try_join(plans, images).await?;
            Ok(catalog::offerings(
                &plans,
                &self.location.to_string(),
                &images,
            ))
        })
        .await
    }

    /// Creates from a body you built, in `location`; it is validated first.
    pub async fn create_with(
        &self,
        body: types::CreateClusterRequest,
        location: Location,
    ) -> Result<Created, Error> {
        validate(&body)?;
        ops::create(self, &E2eCreate { body, location }, None, false).await
    }

    /// Every cluster of the project in the configured location (all pages).
    pub async fn list(&self) -> Result<Vec<Cluster>, Error> {
        ops::list(self, &self.location).await
    }

    /// The scope [`Self::list`] covers, as a create's intent records it (`project/location`).
    pub(crate) fn list_scope(&self) -> String {
        scope_of(self.project_id, &self.location)
    }

    /// Deletes a cluster (see [`crate::ClusterClient::delete`]).
    pub async fn delete(&self, id: &ClusterId) -> Result<(), Error> {
        ops::delete(self, id).await.map(drop)
    }

    /// The location a create of `spec` goes to: the client's. E2E addresses a cluster by
    /// project, location and id, and this client reads, resizes and deletes in its own
    /// location only, so a cluster created elsewhere could not be waited for, and its delete
    /// would answer 404 there ("already gone") while it bills: another location is refused.
    fn location_for(&self, spec: &ClusterSpec) -> Result<Location, Error> {
        let Some(region) = &spec.region else {
            return Ok(self.location.clone());
        };
        let location = parse_location(region).map_err(|rule| invalid("location", rule))?;
        if location != self.location {
            return Err(invalid(
                "location",
                format!(
                    "this client reads, resizes and deletes clusters in {}; a cluster created \
                     in {location} could not be followed: use a client for {location} \
                     (E2E_LOCATION={location})",
                    self.location
                ),
            ));
        }
        Ok(location)
    }
}

/// The scope of a name on E2E, as intents record it: `project/location`.
fn scope_of(project_id: impl std::fmt::Display, location: &Location) -> String {
    format!("{project_id}/{location}")
}

/// E2E cluster ids are integers.
fn numeric_id(id: &ClusterId) -> Result<i64, Error> {
    id.as_str().parse().map_err(|_| {
        invalid(
            "cluster_id",
            format!("E2E cluster ids are integers, got {:?}", id.as_str()),
        )
    })
}

/// One call through `client`, mapped like every provider's call, then its envelope checked:
/// E2E can report a failure inside an HTTP 2xx.
async fn send<T, E, Fut>(client: &gpucloud_e2e::Client, request: Fut) -> Result<Answered<T>, Error>
where
    T: serde::de::DeserializeOwned + errors::Envelope,
    E: ErrorEnvelope,
    Fut: std::future::Future<
            Output = Result<progenitor_client::ResponseValue<T>, progenitor_client::Error<E>>,
        >,
{
    let answer = call::<errors::Rules, _, _, _, _>(client.inner(), request).await?;
    let envelope = &answer.value;
    check_code(
        client.inner().scrubber(),
        answer.operation,
        envelope.code(),
        envelope.message(),
        envelope,
    )?;
    Ok(answer)
}

/// The cluster in an envelope's `data`; an envelope without one is a decoding failure.
fn cluster_of(
    operation: &'static str,
    data: Option<types::TrainingCluster>,
) -> Result<Cluster, Error> {
    data.map(view).ok_or_else(|| {
        Error::Decode(DecodeError {
            provider: PROVIDER,
            operation,
            status: None,
            path: "data".into(),
            message: "the envelope has no cluster".into(),
            body_excerpt: String::new(),
        })
    })
}

ops::neutral_methods!(E2eClusters);

impl Provider for E2eClusters {
    const KIND: ProviderKind = PROVIDER;
    /// 10,000 clusters at most.
    const MAX_PAGES: u32 = 100;
    type Client = gpucloud_e2e::Client;
    type Create = E2eCreate;
    type Scope = Location;

    fn name_lookups(&self) -> &ops::NameLookups {
        &self.names
    }

    /// E2E's ids are integers: `007` asked and `7` answered are the same cluster.
    fn same_id(&self, asked: &ClusterId, answered: &ClusterId) -> bool {
        matches!((numeric_id(asked), numeric_id(answered)), (Ok(a), Ok(b)) if a == b)
    }

    fn settings(&self) -> &ClientSettings {
        &self.settings
    }

    fn origin(&self) -> &str {
        &self.origin
    }

    fn client(&self) -> &Self::Client {
        &self.client
    }

    fn planning(&self) -> (Self::Client, RequestCapture) {
        self.client.planning()
    }

    fn create_request(&self, spec: &ClusterSpec) -> Result<Self::Create, Error> {
        let location = self.location_for(spec)?;
        Ok(E2eCreate {
            body: create_request(spec)?,
            location,
        })
    }

    fn create_safety<'a>(&self, create: &'a Self::Create) -> CreateSafety<'a, Self::Scope> {
        CreateSafety::ReconcileByName {
            name: &create.body.name,
            scope: create.location.clone(),
        }
    }

    fn intent(&self, create: &Self::Create) -> CreateIntent {
        CreateIntent::of_body(
            PROVIDER,
            &create.body.name,
            Some(scope_of(self.project_id, &create.location)),
            None,
            &serde_json::to_value(&create.body).unwrap_or_default(),
        )
    }

    async fn send_create(
        &self,
        client: &Self::Client,
        create: &Self::Create,
    ) -> Result<Answered<Sent>, Error> {
        let request =
            scoped!(self, client.create_cluster(), create.location).body(create.body.clone());
        let answer = send(client, request.send()).await?;
        let operation = answer.operation;
        answer.try_map(|envelope| {
            Ok(Sent {
                cluster: cluster_of(operation, envelope.data)?,
                replayed: false,
            })
        })
    }

    async fn get_once(&self, id: &ClusterId) -> Result<Answered<Cluster>, Error> {
        let cluster_id = numeric_id(id)?;
        let request =
            scoped!(self, self.client.get_cluster(), self.location).cluster_id(cluster_id);
        let answer = send(&self.client, request.send()).await?;
        let operation = answer.operation;
        answer.try_map(|envelope| cluster_of(operation, envelope.data))
    }

    async fn list_page(&self, location: &Self::Scope, page: u32) -> Result<Answered<Page>, Error> {
        let request = scoped!(self, self.client.list_clusters(), location)
            .page_no(i64::from(page))
            .per_page(PAGE_SIZE);
        let answer = send(&self.client, request.send()).await?;
        // E2E documents no total and no "more" flag, and a server may answer fewer clusters
        // than `per_page` asks for (a cap of its own): only an empty page ends the list.
        let more = !answer.value.data.is_empty();
        Ok(answer.map(|list| Page {
            clusters: list.data.into_iter().map(view).collect(),
            more,
        }))
    }

    /// E2E's `scale_cluster` action adds nodes (`additional_nodes`): the count is relative, so
    /// the request is sent once, never repeated (a repeat would add the nodes twice), after a
    /// get that tells how many nodes the cluster has. E2E documents no way to remove nodes.
    /// A size in GPUs is turned into whole nodes of the cluster's own GPUs per node, rounded
    /// up ([`crate::spec::nodes_for_gpus`]).
    async fn resize(&self, id: &ClusterId, size: ClusterSize) -> Result<Cluster, Error> {
        let current = ops::get(self, id).await?;
        let target = match size {
            ClusterSize::Nodes(nodes) => nodes,
            ClusterSize::Gpus(gpus) => current
                .gpus_per_node()
                .and_then(|per_node| crate::spec::nodes_for_gpus(gpus, per_node))
                .ok_or_else(|| {
                    invalid(
                        "no_of_nodes",
                        format!(
                            "E2E sizes clusters in nodes, and cluster {id}'s answer states no \
                             GPUs per node to turn {gpus} GPUs into nodes: ask for nodes"
                        ),
                    )
                })?,
        };
        // The delta is computed only from a node count the answer states: a missing or
        // impossible one read as 0 would add the whole target again.
        let stated = match &current.raw {
            crate::cluster::ProviderCluster::E2e(cluster) => {
                cluster.no_of_nodes.filter(|n| *n >= 1)
            }
            _ => None,
        };
        let Some(have) = stated else {
            return Err(Error::Decode(crate::error::DecodeError {
                provider: PROVIDER,
                operation: "get_cluster",
                status: None,
                path: "data/no_of_nodes".into(),
                message: format!(
                    "the answer states no node count for cluster {id}, so the nodes to add for \
                     {target} cannot be computed; nothing was sent"
                ),
                body_excerpt: crate::error::excerpt(
                    &serde_json::to_string(&current.raw).unwrap_or_default(),
                    512,
                ),
            }));
        };
        let additional = i64::from(target).saturating_sub(have);
        if additional == 0 {
            return Ok(current);
        }
        if additional < 0 {
            return Err(invalid(
                "no_of_nodes",
                format!(
                    "E2E's scale_cluster only adds nodes: the cluster has {have}, not fewer than {target}"
                ),
            ));
        }
        let cluster_id = numeric_id(id)?;
        let body = types::ClusterActionRequest {
            action: types::ClusterAction::ScaleCluster,
            additional_nodes: Some(additional),
            image_version_id: None,
            ip_type: None,
            reserved_ip_id: None,
            security_group_id: None,
            security_groups_ids: Vec::new(),
            ssh_key_ids: Vec::new(),
        };
        let request = scoped!(self, self.client.update_cluster(), self.location)
            .cluster_id(cluster_id)
            .body(body);
        send(&self.client, request.send()).await?;
        ops::get(self, id).await
    }

    async fn delete_once(&self, id: &ClusterId) -> Result<(), Error> {
        let cluster_id = numeric_id(id)?;
        let request =
            scoped!(self, self.client.delete_cluster(), self.location).cluster_id(cluster_id);
        send(&self.client, request.send()).await.map(drop)
    }
}

#[cfg(test)]
mod tests;
