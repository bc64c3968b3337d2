//! Together AI Instant Clusters behind the provider-neutral API.
//!
//! Together has no idempotency key, and its own SDKs retry a create POST blindly (which can
//! start a second cluster); creates here are reconciled by name instead
//! (`CreateSafety::ReconcileByName`, within the project when one is given).

pub(crate) mod config;
pub(crate) mod options;
mod profile;
pub(crate) use profile::PROFILE;
pub(crate) use view::{kubeconfig, phase_changes};
pub(crate) mod catalog;
mod errors;
mod request;
mod state;
mod view;

use gpucloud_core::RequestCapture;
use gpucloud_together::types;
use progenitor_client::ClientInfo;

pub(crate) use config::TogetherConfig;
pub(crate) use request::{create_request, validate};
pub(crate) use view::view;

use crate::cluster::{Cluster, ClusterId, Created, ProviderKind};
use crate::config::ClientSettings;
use crate::error::Error;
use crate::journal::CreateIntent;
use crate::providers::call::{Answered, call};
use crate::providers::ops::{self, CreateSafety, Page, Provider, Sent};
use crate::spec::{ClusterSize, ClusterSpec};

const PROVIDER: ProviderKind = ProviderKind::Together;

/// Together clusters: validated creates reconciled by name, reads and deletes with retries.
#[derive(Debug, Clone)]
pub struct TogetherClusters {
    client: gpucloud_together::Client,
    settings: ClientSettings,
    /// Where its requests go and as whom (see [`crate::config::origin`]).
    origin: String,
    catalog: crate::catalog::CatalogCache,
    names: ops::NameLookups,
}

impl TogetherClusters {
    /// A client for `config`.
    pub fn new(config: TogetherConfig) -> Result<Self, Error> {
        let (client, origin) = config.settings.generated_client(
            &config.base_url,
            gpucloud_together::auth::Credentials::new(config.api_key.clone()),
            "TOGETHER_API_KEY",
            "TOGETHER_BASE_URL",
            gpucloud_together::Client::from_context,
        )?;
        Ok(Self {
            client,
            settings: config.settings,
            origin,
            catalog: crate::catalog::CatalogCache::default(),
            names: ops::NameLookups::default(),
        })
    }

    /// The generated client, for operations the neutral API does not cover (volumes,
    /// remediations, health alerts).
    pub fn raw(&self) -> &gpucloud_together::Client {
        &self.client
    }

    /// What Together offers (`GET /compute/regions`), fetched once per TTL.
    pub async fn catalog(&self) -> Result<std::sync::Arc<Vec<crate::catalog::Offering>>, Error> {
        ops::catalog(self, &self.catalog, || async {
            let request = self.client.list_regions().send();
            let answer = call::<errors::Rules, _, _, _, _>(self.client.inner(), request).await?;
            Ok(catalog::offerings(answer.value))
        })
        .await
    }

    /// Creates from a provider request you built yourself; it is validated first.
    pub async fn create_with(
        &self,
        request: types::GpuClusterCreateRequest,
    ) -> Result<Created, Error> {
        validate(&request)?;
        ops::create(self, &request, None, false).await
    }

    /// Every cluster visible to the key.
    pub async fn list(&self) -> Result<Vec<Cluster>, Error> {
        ops::list(self, &None).await
    }

    /// Deletes a cluster (see [`crate::ClusterClient::delete`]).
    pub async fn delete(&self, id: &ClusterId) -> Result<(), Error> {
        ops::delete(self, id).await.map(drop)
    }
}

ops::neutral_methods!(TogetherClusters);

impl Provider for TogetherClusters {
    const KIND: ProviderKind = PROVIDER;
    type Client = gpucloud_together::Client;
    type Create = types::GpuClusterCreateRequest;
    /// The project a list is limited to, if any.
    type Scope = Option<String>;

    fn name_lookups(&self) -> &ops::NameLookups {
        &self.names
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
        create_request(spec)
    }

    fn create_safety<'a>(&self, create: &'a Self::Create) -> CreateSafety<'a, Self::Scope> {
        CreateSafety::ReconcileByName {
            name: &create.cluster_name,
            scope: create.project_id.clone(),
        }
    }

    /// A `RESERVED` cluster: Together decommissions it when its reservation of
    /// `duration_days` ends.
    fn ends_itself_after(&self, create: &Self::Create) -> Option<std::time::Duration> {
        let days = u64::try_from(create.duration_days?).ok()?;
        (create.billing_type == gpucloud_together::types::BillingType::Reserved)
            .then(|| std::time::Duration::from_secs(days.saturating_mul(24 * 3600)))
    }

    fn intent(&self, create: &Self::Create) -> CreateIntent {
        CreateIntent::of_body(
            PROVIDER,
            &create.cluster_name,
            create.project_id.clone(),
            None,
            &serde_json::to_value(create).unwrap_or_default(),
        )
    }

    async fn send_create(
        &self,
        client: &Self::Client,
        create: &Self::Create,
    ) -> Result<Answered<Sent>, Error> {
        let info = call::<errors::Rules, _, _, _, _>(
            client.inner(),
            client.create_cluster().body(create.clone()).send(),
        )
        .await?;
        Ok(info.map(|info| Sent {
            cluster: view(info),
            replayed: false,
        }))
    }

    async fn get_once(&self, id: &ClusterId) -> Result<Answered<Cluster>, Error> {
        let info = call::<errors::Rules, _, _, _, _>(
            self.client.inner(),
            self.client.get_cluster().cluster_id(id.as_str()).send(),
        )
        .await?;
        Ok(info.map(view))
    }

    async fn list_page(&self, project: &Self::Scope, _page: u32) -> Result<Answered<Page>, Error> {
        let mut request = self.client.list_clusters();
        if let Some(project) = project {
            request = request.project_id(project.clone());
        }
        let answer = call::<errors::Rules, _, _, _, _>(self.client.inner(), request.send()).await?;
        Ok(answer.map(|list| Page {
            clusters: list.clusters.into_iter().map(view).collect(),
            // Together's list is not paged.
            more: false,
        }))
    }

    /// `PUT /compute/clusters/{id}` with the new `num_gpus` (a positive multiple of 8, as at
    /// creation). The new count is absolute, so the request is retried like a read.
    async fn resize(&self, id: &ClusterId, size: ClusterSize) -> Result<Cluster, Error> {
        let num_gpus = request::resize_gpus(size)?;
        let body = types::GpuClusterUpdateRequest {
            num_gpus: Some(num_gpus),
            ..Default::default()
        };
        let info = self
            .settings
            .retry
            .run(self.settings.pacing(), |_| {
                call::<errors::Rules, _, _, _, _>(
                    self.client.inner(),
                    self.client
                        .update_cluster()
                        .cluster_id(id.as_str())
                        .body(body.clone())
                        .send(),
                )
            })
            .await?;
        Ok(view(info.value))
    }

    async fn delete_once(&self, id: &ClusterId) -> Result<(), Error> {
        call::<errors::Rules, _, _, _, _>(
            self.client.inner(),
            self.client.delete_cluster().cluster_id(id.as_str()).send(),
        )
        .await
        .map(drop)
    }
}

#[cfg(test)]
mod tests;
