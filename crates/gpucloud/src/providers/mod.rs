//! The providers behind the neutral API.
//!
//! Each folder holds only what is truly that provider's: its operations on the generated
//! client (`mod.rs`), its create request with the documented rules (`request.rs`), its status
//! table (`state.rs`), its neutral view (`view.rs`), its error rules (`errors.rs`), its catalog
//! (`catalog.rs`) and what it is and can do (`profile.rs`, a [`profile::Profile`]). The steps
//! all three share — the retried get, the paged list, delete semantics, reconcile-by-name,
//! keyed creates and plans — are written once, in `ops/`, against its `Provider` trait. This
//! file is the registry: the one place that lists the providers' profiles.

pub(crate) mod call;
pub mod e2e;
pub(crate) mod ops;
pub(crate) mod profile;
pub mod runcrate;
pub mod together;

use crate::cluster::ProviderKind;
use profile::Profile;

impl ProviderKind {
    /// What this provider is and can do.
    pub fn profile(self) -> &'static Profile {
        match self {
            Self::Together => &together::PROFILE,
            Self::Runcrate => &runcrate::PROFILE,
            Self::E2e => &e2e::PROFILE,
        }
    }
}

impl crate::cluster::ProviderCluster {
    /// The node count the provider's own object states, where it states one (the neutral
    /// view counts the machines it lists, which a provider may list late).
    pub(crate) fn stated_node_count(&self) -> Option<usize> {
        match self {
            Self::Together(_) => None,
            Self::Runcrate(raw) => runcrate::stated_node_count(raw),
            Self::E2e(raw) => e2e::stated_node_count(raw),
        }
    }

    /// The phase changes the provider's own object records, as it lists them; `None` where
    /// it records none.
    pub(crate) fn phase_changes(&self) -> Option<Vec<(chrono::DateTime<chrono::Utc>, String)>> {
        match self {
            Self::Together(info) => Some(together::phase_changes(info)),
            Self::Runcrate(_) | Self::E2e(_) => None,
        }
    }
}

impl crate::cluster::Cluster {
    /// The cluster's kubeconfig (YAML), decoded from its provider's cluster object: `Ok(None)`
    /// until the provider has set it (once the cluster is ready); [`crate::Error::Decode`] for
    /// a value that is not a kubeconfig in the provider's encoding (the error withholds the
    /// value); [`crate::Error::Unsupported`] on a provider that documents none
    /// ([`profile::Kubeconfig::Unavailable`]).
    pub fn kubeconfig(&self) -> Result<Option<String>, crate::error::Error> {
        use crate::cluster::ProviderCluster;
        match &self.raw {
            ProviderCluster::Together(info) => together::kubeconfig(info),
            _ => Err(crate::error::Error::Unsupported {
                provider: self.provider,
                operation: "kubeconfig (none is documented in its cluster object)",
            }),
        }
    }
}
