//! [`ClusterClient`]: one API over every provider.

use std::sync::Arc;

use crate::catalog::{Constraints, Offering, Resolution};
use crate::cluster::{Cluster, ClusterId, Created, ProviderKind};
use crate::config::ClientSettings;
use crate::error::Error;
use crate::plan::PlannedRequest;
use crate::providers::e2e::{E2eClusters, E2eConfig};
use crate::providers::ops::{self, Provider};
use crate::providers::runcrate::{RuncrateClusters, RuncrateConfig};
use crate::providers::together::{TogetherClusters, TogetherConfig};
use crate::spec::{ClusterSize, ClusterSpec};

/// A provider-neutral cluster client.
///
/// ```no_run
/// # async fn run() -> Result<(), gpucloud::Error> {
/// use gpucloud::{ClusterClient, ClusterSize, ClusterSpec, ProviderKind, Ready, WaitOptions};
/// let client = ClusterClient::from_env(ProviderKind::Together)?;
/// let spec = ClusterSpec::new("train-42", ClusterSize::Gpus(16))
///     .with_gpu_model("H100_SXM")
///     .with_region("us-central-8")
///     .with_options(gpucloud::TogetherOptions::default().with_nvidia_version_id("cuda-12.8-driver-570"));
/// println!("{}", client.plan(&spec).await?);
/// let created = client.create(&spec).await?;
/// let ready = client
///     .wait(&created.cluster.id, &Ready)
///     .run(|p| println!("{} after {:?}", p.cluster.state, p.elapsed))
///     .await?
///     .output;
/// println!("{} nodes", ready.nodes.len());
/// client.delete_and_wait(&ready.id, &WaitOptions::default(), |_| {}).await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub enum ClusterClient {
    /// Together AI.
    Together(TogetherClusters),
    /// Runcrate.
    Runcrate(RuncrateClusters),
    /// E2E Networks.
    E2e(E2eClusters),
}

/// Runs `$body` with `$provider` bound to whichever provider client `$self` holds.
macro_rules! with_provider {
    ($self:ident, $provider:ident => $body:expr) => {
        match $self {
            Self::Together($provider) => $body,
            Self::Runcrate($provider) => $body,
            Self::E2e($provider) => $body,
        }
    };
}

impl ClusterClient {
    /// A client for `provider` configured from the environment: the variables its
    /// [`Profile`](crate::Profile) names.
    pub fn from_env(provider: ProviderKind) -> Result<Self, Error> {
        Self::from_vars(provider, &|name| std::env::var(name).ok(), |_| {})
    }

    /// A client for `provider` from the variables its [`Profile`](crate::Profile) names, as
    /// `vars` reads them (the process environment, or a simulator's), with `adjust` applied to
    /// its shared settings: the one way to build any provider's client alike, without naming
    /// its config type.
    ///
    /// ```
    /// use std::time::Duration;
    /// use gpucloud::{ClusterClient, ProviderKind};
    ///
    /// let vars = |name: &str| (name == "TOGETHER_API_KEY").then(|| "tg-example-key".to_string());
    /// let client = ClusterClient::from_vars(ProviderKind::Together, &vars, |settings| {
    ///     settings.timeout = Duration::from_secs(30);
    /// })?;
    /// assert_eq!(client.provider(), ProviderKind::Together);
    /// # Ok::<(), gpucloud::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Configuration`] naming the variable that is missing or malformed.
    pub fn from_vars(
        provider: ProviderKind,
        vars: &dyn Fn(&str) -> Option<String>,
        adjust: impl FnOnce(&mut ClientSettings),
    ) -> Result<Self, Error> {
        macro_rules! build {
            ($config:ty, $constructor:ident) => {{
                let mut config = <$config>::from_lookup(vars)?;
                adjust(config.settings_mut());
                Self::$constructor(config)
            }};
        }
        match provider {
            ProviderKind::Together => build!(TogetherConfig, together),
            ProviderKind::Runcrate => build!(RuncrateConfig, runcrate),
            ProviderKind::E2e => build!(E2eConfig, e2e),
        }
    }

    /// This client, recording every create and delete in `journal` before it is sent and
    /// after its outcome is known: the one line that puts a program on the same safety net as
    /// the command line (`gpucloud_ledger::Ledger::open_default()` is the ledger `gpucloud`
    /// itself uses, so `gpucloud ledger` lists this program's clusters and `clusters sweep`
    /// stops them at their deadline, and the two agree on which clusters are ours).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use gpucloud::journal::Journal;
    /// use gpucloud::{ClusterClient, ProviderKind};
    ///
    /// # fn run(ledger: Arc<dyn Journal>) -> Result<(), gpucloud::Error> {
    /// let client = ClusterClient::from_env(ProviderKind::Together)?.with_journal(ledger);
    /// # let _ = client; Ok(()) }
    /// ```
    #[must_use]
    pub fn with_journal(mut self, journal: std::sync::Arc<dyn crate::journal::Journal>) -> Self {
        let client = &mut self;
        with_provider!(client, p => p.set_journal(journal));
        self
    }

    /// A Together client.
    pub fn together(config: TogetherConfig) -> Result<Self, Error> {
        TogetherClusters::new(config).map(Self::Together)
    }

    /// A Runcrate client.
    pub fn runcrate(config: RuncrateConfig) -> Result<Self, Error> {
        RuncrateClusters::new(config).map(Self::Runcrate)
    }

    /// An E2E client.
    pub fn e2e(config: E2eConfig) -> Result<Self, Error> {
        E2eClusters::new(config).map(Self::E2e)
    }

    /// Which provider this is.
    pub fn provider(&self) -> ProviderKind {
        match self {
            Self::Together(_) => ProviderKind::Together,
            Self::Runcrate(_) => ProviderKind::Runcrate,
            Self::E2e(_) => ProviderKind::E2e,
        }
    }

    /// The settings this client was built with.
    pub fn settings(&self) -> &ClientSettings {
        with_provider!(self, p => Provider::settings(p))
    }

    /// Where this client's requests go and as whom: its base URL and a fingerprint of its
    /// credentials (never the credentials), and for E2E its project and location. A journal
    /// keeps it with each create; only a 404 from the same origin proves a cluster gone.
    pub fn origin(&self) -> &str {
        with_provider!(self, p => Provider::origin(p))
    }

    /// The exact request [`Self::create`] would send, built by the generated client itself
    /// (credentials redacted), with the catalog ids resolution filled in; nothing is sent
    /// (but the catalog, when the request needs it).
    pub async fn plan(&self, spec: &ClusterSpec) -> Result<PlannedRequest, Error> {
        let resolution = self.resolve(spec, &Constraints::default()).await?;
        let mut plan = with_provider!(self, p => ops::plan(p, &resolution.spec).await)?;
        plan.resolved = resolution.choices;
        Ok(plan)
    }

    /// Creates a cluster, never two: see [`crate::CreateOutcome`] for what the result says.
    /// A request that leaves catalog ids out is resolved first ([`Self::resolve`]).
    pub async fn create(&self, spec: &ClusterSpec) -> Result<Created, Error> {
        let resolution = self.resolve(spec, &Constraints::default()).await?;
        self.create_resolved(&resolution).await
    }

    /// Creates the cluster of a resolved request (see [`Self::resolve`]).
    pub async fn create_resolved(&self, resolution: &Resolution) -> Result<Created, Error> {
        let spec = &resolution.spec;
        with_provider!(self, p => ops::create(p, &p.create_request(spec)?, spec.ttl, spec.adopt).await)
    }

    /// What the provider offers to create clusters from, in one neutral shape; fetched once
    /// and kept for the client's catalog TTL (5 min by default).
    pub async fn catalog(&self) -> Result<Arc<Vec<Offering>>, Error> {
        with_provider!(self, p => p.catalog().await)
    }

    /// `spec` with the provider's catalog ids filled in from intent (GPU model, size, region,
    /// stack, billing; see [`crate::catalog::resolve()`]). A request that names every id
    /// is returned as it is, and no catalog is fetched, unless a price ceiling needs the
    /// price of the offering it names ([`Constraints::needs_price`]).
    pub async fn resolve(
        &self,
        spec: &ClusterSpec,
        constraints: &Constraints,
    ) -> Result<Resolution, Error> {
        let each = self.resolve_each_region(spec, constraints).await?;
        crate::catalog::resolve::first_of(self.provider().profile().catalog, each)
    }

    /// Every region `spec` can be resolved in, best first (see
    /// [`crate::catalog::resolve_each_region`]): the first is [`Self::resolve`]'s answer.
    pub async fn resolve_each_region(
        &self,
        spec: &ClusterSpec,
        constraints: &Constraints,
    ) -> Result<Vec<Resolution>, Error> {
        let rules = self.provider().profile().catalog;
        crate::catalog::resolve::check_ceiling(self.provider(), constraints)?;
        rules.check_size(spec)?;
        if !crate::catalog::consults_catalog(rules, spec, constraints) {
            return crate::catalog::resolve_each_region(rules, spec, &[], constraints);
        }
        let catalog = self.catalog().await?;
        crate::catalog::resolve_each_region(rules, spec, &catalog, constraints)
    }

    /// One cluster.
    pub async fn get(&self, id: &ClusterId) -> Result<Cluster, Error> {
        with_provider!(self, p => ops::get(p, id).await)
    }

    /// This client for a request that names `region`: for E2E, whose clusters are addressed
    /// per location, a client of that location (so the cluster is created, waited for and
    /// deleted where it is); the client itself for the others, whose region is part of the
    /// request alone.
    pub fn at_region(&self, region: &str) -> Result<Self, Error> {
        match self {
            Self::E2e(p) => Ok(Self::E2e(p.at_region(region)?)),
            Self::Together(_) | Self::Runcrate(_) => Ok(self.clone()),
        }
    }

    /// This client for `spec`: where the request pins a region and the provider addresses
    /// its clusters per region (E2E's locations), a client of that region, so the cluster is
    /// resolved, created, waited for and deleted where it is; this client otherwise, and for a
    /// region the provider does not know (the request's own check refuses it, naming the rule).
    pub fn for_request(&self, spec: &ClusterSpec) -> Self {
        match &spec.region {
            Some(region) => self.at_region(region).unwrap_or_else(|_| self.clone()),
            None => self.clone(),
        }
    }

    /// This client for a cluster created in `scope` (its intent's
    /// [`crate::journal::CreateIntent::scope`]): for E2E, a client of the scope's location
    /// when the project is this client's; the client itself otherwise.
    pub fn for_scope(&self, scope: &str) -> Self {
        match self {
            Self::E2e(p) => Self::E2e(p.for_scope(scope)),
            Self::Together(_) | Self::Runcrate(_) => self.clone(),
        }
    }

    /// The client that reaches a cluster created through `origin` in `scope` (a ledger row's,
    /// from its create's [`crate::journal::CreateIntent`]): this client when the create was
    /// sent through its origin (or recorded none), else this client moved to the create's
    /// scope (E2E's location) if that is where it was sent; `None` when neither is (another
    /// endpoint or account, where the same id would be another cluster).
    pub fn reaching(&self, origin: Option<&str>, scope: Option<&str>) -> Option<Self> {
        let Some(origin) = origin else {
            return Some(self.clone());
        };
        if origin == self.origin() {
            return Some(self.clone());
        }
        let moved = self.for_scope(scope?);
        (moved.origin() == origin).then_some(moved)
    }

    /// The scope [`Self::list`] covers, as a create's intent records it
    /// ([`crate::journal::CreateIntent::scope`]): E2E's `project/location`; `None` where the
    /// list shows every cluster the key sees (Together, Runcrate).
    pub fn list_scope(&self) -> Option<String> {
        match self {
            Self::E2e(p) => Some(p.list_scope()),
            Self::Together(_) | Self::Runcrate(_) => None,
        }
    }

    /// Every cluster (Runcrate documents no list: [`Error::Unsupported`]).
    pub async fn list(&self) -> Result<Vec<Cluster>, Error> {
        match self {
            Self::Together(p) => p.list().await,
            Self::Runcrate(p) => ops::list(p, &()).await,
            Self::E2e(p) => p.list().await,
        }
    }

    /// Deletes a cluster (Runcrate documents no delete: [`Error::Unsupported`]). Returns when
    /// the provider has accepted the delete; [`Self::delete_and_wait`] waits until it is
    /// gone. A 404 on a retry means an earlier attempt of this call worked, and is success.
    pub async fn delete(&self, id: &ClusterId) -> Result<(), Error> {
        self.delete_claimed(id).await.map(drop)
    }

    /// [`Self::delete`], and who else deletes the cluster where a shared journal says another
    /// caller's delete holds the claim (then none was sent here).
    pub(crate) async fn delete_claimed(&self, id: &ClusterId) -> Result<Option<String>, Error> {
        with_provider!(self, p => ops::delete(p, id).await)
    }

    /// Changes the cluster's size: Together `PUT /compute/clusters/{id}` with `num_gpus`
    /// (a positive multiple of 8, checked before sending), E2E's `scale_cluster` action (adds
    /// nodes; it cannot remove any), Runcrate [`Error::Unsupported`] (undocumented). Returns
    /// the cluster as the provider answered; [`Self::wait`] with [`crate::SizeReached`] waits for the new size.
    pub async fn resize(&self, id: &ClusterId, size: ClusterSize) -> Result<Cluster, Error> {
        with_provider!(self, p => ops::resize(p, id, size).await)
    }
}
