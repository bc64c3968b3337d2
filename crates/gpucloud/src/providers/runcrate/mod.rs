//! Runcrate clusters behind the provider-neutral API.
//!
//! Runcrate documents an `Idempotency-Key` on create: one key per logical create, reused across
//! every retry, makes the provider answer a repeat with the cluster it already made (HTTP 200)
//! instead of starting another (`CreateSafety::Keyed`). Runcrate documents no list or delete
//! endpoint for clusters, so those are [`Error::Unsupported`].

pub(crate) mod config;
pub(crate) mod options;
mod profile;
pub(crate) use profile::PROFILE;
pub(crate) mod catalog;
mod errors;
mod request;
mod state;
mod view;

use gpucloud_core::RequestCapture;
use progenitor_client::ClientInfo;

pub(crate) use config::RuncrateConfig;
pub use request::RuncrateCreate;
pub(crate) use request::{create_request, validate};
pub(crate) use view::stated_node_count;
pub(crate) use view::view;

use crate::cluster::{Cluster, ClusterId, Created, ProviderKind};
use crate::config::ClientSettings;
use crate::error::{Error, ValidationError};
use crate::journal::{CreateIntent, Journal as _};
use crate::providers::call::{Answered, call};
use crate::providers::ops::{self, CreateSafety, Page, Provider, Sent};
use crate::spec::{ClusterSize, ClusterSpec};

const PROVIDER: ProviderKind = ProviderKind::Runcrate;

/// Runcrate clusters: keyed creates retried safely, reads with retries.
#[derive(Debug, Clone)]
pub struct RuncrateClusters {
    client: gpucloud_runcrate::Client,
    settings: ClientSettings,
    /// Where its requests go and as whom (see [`crate::config::origin`]).
    origin: String,
    catalog: crate::catalog::CatalogCache,
    names: ops::NameLookups,
}

impl RuncrateClusters {
    /// A client for `config`.
    pub fn new(config: RuncrateConfig) -> Result<Self, Error> {
        let (client, origin) = config.settings.generated_client(
            &config.base_url,
            gpucloud_runcrate::auth::Credentials::new(config.api_key.clone()),
            "RUNCRATE_API_KEY",
            "RUNCRATE_BASE_URL",
            gpucloud_runcrate::Client::from_context,
        )?;
        Ok(Self {
            client,
            settings: config.settings,
            origin,
            catalog: crate::catalog::CatalogCache::default(),
            names: ops::NameLookups::default(),
        })
    }

    /// The generated client (offers, and anything else the neutral API does not cover).
    pub fn raw(&self) -> &gpucloud_runcrate::Client {
        &self.client
    }

    /// What Runcrate offers (`GET /clusters/offers`), fetched once per TTL.
    pub async fn catalog(&self) -> Result<std::sync::Arc<Vec<crate::catalog::Offering>>, Error> {
        ops::catalog(self, &self.catalog, || async {
            let request = self.client.list_offers().send();
            let answer = call::<errors::Rules, _, _, _, _>(self.client.inner(), request).await?;
            catalog::warn_if_incomplete(&answer.value);
            Ok(catalog::offerings(answer.value.data))
        })
        .await
    }

    /// Creates from a request you built; it is validated first. Retries of this call reuse its
    /// idempotency key, so a create that timed out is never doubled.
    pub async fn create_with(&self, create: RuncrateCreate) -> Result<Created, Error> {
        validate(&create)?;
        ops::create(self, &create, None, false).await
    }
}

fn unsupported(operation: &'static str) -> Error {
    Error::Unsupported {
        provider: PROVIDER,
        operation,
    }
}

ops::neutral_methods!(RuncrateClusters);

impl Provider for RuncrateClusters {
    const KIND: ProviderKind = PROVIDER;
    type Client = gpucloud_runcrate::Client;
    type Create = RuncrateCreate;
    type Scope = ();

    fn name_lookups(&self) -> &ops::NameLookups {
        &self.names
    }

    /// Runcrate's ids are UUIDs: the same UUID in upper and lower case is one cluster.
    fn same_id(&self, asked: &ClusterId, answered: &ClusterId) -> bool {
        let uuid = |id: &ClusterId| id.as_str().parse::<uuid::Uuid>().ok();
        matches!((uuid(asked), uuid(answered)), (Some(a), Some(b)) if a == b)
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

    /// A request without a key of its own takes the key of an earlier create of the same
    /// request whose cluster may exist (a process that died after its POST, or while it
    /// waited): Runcrate then answers with that cluster instead of starting a second one.
    fn create_request(&self, spec: &ClusterSpec) -> Result<Self::Create, Error> {
        let mut create = create_request(spec)?;
        let own_key = spec
            .options
            .runcrate
            .as_ref()
            .is_some_and(|o| o.idempotency_key.is_some());
        if let (false, Some(journal)) = (own_key, self.settings.journal())
            && let Some(key) = journal
                .earlier_key(&self.intent(&create))
                .map_err(Error::Journal)?
        {
            tracing::info!("re-using the idempotency key of an earlier create of this request");
            create.idempotency_key = key;
        }
        Ok(create)
    }

    fn create_safety<'a>(&self, _: &'a Self::Create) -> CreateSafety<'a, Self::Scope> {
        CreateSafety::Keyed
    }

    fn intent(&self, create: &Self::Create) -> CreateIntent {
        CreateIntent::of_body(
            PROVIDER,
            &create.body.name,
            create.environment.clone(),
            Some(create.idempotency_key.clone()),
            &serde_json::to_value(&create.body).unwrap_or_default(),
        )
    }

    async fn send_create(
        &self,
        client: &Self::Client,
        create: &Self::Create,
    ) -> Result<Answered<Sent>, Error> {
        let mut request = client
            .create_cluster()
            .idempotency_key(create.idempotency_key.clone())
            .body(create.body.clone());
        if let Some(environment) = &create.environment {
            request = request.environment(environment.clone());
        }
        let answer = call::<errors::Rules, _, _, _, _>(client.inner(), request.send()).await?;
        // 201: created now. 200: the key's cluster already existed.
        let replayed = answer.status == 200;
        Ok(answer.map(|created| Sent {
            cluster: view(created.data),
            replayed,
        }))
    }

    async fn get_once(&self, id: &ClusterId) -> Result<Answered<Cluster>, Error> {
        let uuid: uuid::Uuid = id.as_str().parse().map_err(|_| {
            Error::Validation(ValidationError {
                provider: PROVIDER,
                field: "id".into(),
                rule: format!("must be a UUID, got {:?}", id.as_str()),
                source: request::CREATE_DOC,
            })
        })?;
        let answer = call::<errors::Rules, _, _, _, _>(
            self.client.inner(),
            self.client.get_cluster().id(uuid).send(),
        )
        .await?;
        Ok(answer.map(|found| view(found.data)))
    }

    async fn list_page(&self, _: &Self::Scope, _page: u32) -> Result<Answered<Page>, Error> {
        Err(unsupported("listing clusters"))
    }

    async fn delete_once(&self, _: &ClusterId) -> Result<(), Error> {
        Err(unsupported("deleting clusters"))
    }

    async fn resize(&self, _: &ClusterId, _: ClusterSize) -> Result<Cluster, Error> {
        Err(unsupported("resizing clusters"))
    }
}

#[cfg(test)]
mod tests;
