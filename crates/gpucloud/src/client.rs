//! [`ClusterClient`]: one API over every provider.

use crate::cluster::{Cluster, ClusterId, Created, ProviderKind};
use crate::config::{E2eConfig, HttpSettings, RuncrateConfig, TogetherConfig};
use crate::error::Error;
use crate::plan::PlannedRequest;
use crate::providers::e2e::E2eClusters;
use crate::providers::runcrate::RuncrateClusters;
use crate::providers::together::TogetherClusters;
use crate::spec::ClusterSpec;
use crate::waiter::{self, Progress, WaitOptions};

/// A provider-neutral cluster client.
///
/// ```no_run
/// # async fn run() -> Result<(), gpucloud::Error> {
/// use gpucloud::{ClusterClient, ClusterSize, ClusterSpec, ProviderKind, WaitOptions};
/// let client = ClusterClient::from_env(ProviderKind::Together)?;
/// let spec = ClusterSpec::new("train-42", ClusterSize::Gpus(16))
///     .with_gpu_model("H100_SXM")
///     .with_region("us-central-8")
///     .with_options(gpucloud::TogetherOptions {
///         nvidia_version_id: Some("cuda-12.8-driver-570".into()),
///         ..Default::default()
///     });
/// let created = client.create(&spec).await?;
/// let ready = client
///     .wait_until_ready(&created.cluster.id, &WaitOptions::default(), |p| {
///         println!("{} after {:?}", p.cluster.state, p.elapsed)
///     })
///     .await?;
/// println!("{} nodes", ready.nodes.len());
/// client.delete(&ready.id).await?;
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

impl ClusterClient {
    /// A client for `provider` configured from the environment (see [`crate::config`]).
    pub fn from_env(provider: ProviderKind) -> Result<Self, Error> {
        match provider {
            ProviderKind::Together => Self::together(TogetherConfig::from_env()?),
            ProviderKind::Runcrate => Self::runcrate(RuncrateConfig::from_env()?),
            ProviderKind::E2e => Self::e2e(E2eConfig::from_env()?),
        }
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

    fn http(&self) -> &HttpSettings {
        match self {
            Self::Together(c) => c.http(),
            Self::Runcrate(c) => c.http(),
            Self::E2e(c) => c.http(),
        }
    }

    /// The exact request [`Self::create`] would send; nothing is sent.
    pub fn plan(&self, spec: &ClusterSpec) -> Result<PlannedRequest, Error> {
        match self {
            Self::Together(c) => c.plan(spec),
            Self::Runcrate(c) => c.plan(spec),
            Self::E2e(c) => c.plan(spec),
        }
    }

    /// Creates a cluster, never two: see [`crate::CreateOutcome`] for what the result says.
    pub async fn create(&self, spec: &ClusterSpec) -> Result<Created, Error> {
        match self {
            Self::Together(c) => c.create(spec).await,
            Self::Runcrate(c) => c.create(spec).await,
            Self::E2e(c) => c.create(spec).await,
        }
    }

    /// One cluster.
    pub async fn get(&self, id: &ClusterId) -> Result<Cluster, Error> {
        match self {
            Self::Together(c) => c.get(id).await,
            Self::Runcrate(c) => c.get(id).await,
            Self::E2e(c) => c.get(id).await,
        }
    }

    /// Every cluster (Runcrate documents no list: [`Error::Unsupported`]).
    pub async fn list(&self) -> Result<Vec<Cluster>, Error> {
        match self {
            Self::Together(c) => c.list().await,
            Self::Runcrate(_) => Err(Error::Unsupported {
                provider: ProviderKind::Runcrate,
                operation: "listing clusters",
            }),
            Self::E2e(c) => c.list().await,
        }
    }

    /// Deletes a cluster (Runcrate documents no delete: [`Error::Unsupported`]).
    pub async fn delete(&self, id: &ClusterId) -> Result<(), Error> {
        match self {
            Self::Together(c) => c.delete(id).await,
            Self::Runcrate(_) => Err(Error::Unsupported {
                provider: ProviderKind::Runcrate,
                operation: "deleting clusters",
            }),
            Self::E2e(c) => c.delete(id).await,
        }
    }

    /// Polls until the cluster is ready; fails early on a terminal state and after
    /// `options.max_wait`. `on_progress` is called whenever the phase, state or number of
    /// reachable nodes changes.
    pub async fn wait_until_ready(
        &self,
        id: &ClusterId,
        options: &WaitOptions,
        on_progress: impl FnMut(&Progress),
    ) -> Result<Cluster, Error> {
        waiter::wait_until_ready(
            self.http().clock.as_ref(),
            options,
            || self.get(id),
            on_progress,
        )
        .await
    }
}

macro_rules! http_accessor {
    ($($client:ty),*) => {$(
        impl $client {
            /// The settings this client was built with.
            pub fn http(&self) -> &HttpSettings {
                &self.http
            }
        }
    )*};
}
http_accessor!(TogetherClusters, RuncrateClusters, E2eClusters);
