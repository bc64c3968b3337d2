//! [`Profile`]: what a provider is and can do, stated once in its folder (`<name>/profile.rs`,
//! registered in `providers/mod.rs`)
//! and read by everything that would otherwise match on a provider — the operation skeleton,
//! the configuration, the lifecycle helpers, the ledger and the command line.

use crate::catalog::CatalogRules;
use crate::cluster::ProviderKind;

/// What a provider is and can do.
///
/// Reached from [`ProviderKind::profile`]. Every field is a fact of the provider's documented
/// API (or of its absence), not a policy of ours.
#[derive(Debug)]
#[non_exhaustive]
pub struct Profile {
    /// The provider.
    pub kind: ProviderKind,
    /// Its name for people (`Together AI`).
    pub display_name: &'static str,
    /// The environment variables that hold its credentials, in the order its configuration
    /// reads them. Every one is a secret.
    pub credential_variables: &'static [&'static str],
    /// The environment variables of its other required settings (never secrets).
    pub setting_variables: &'static [&'static str],
    /// The environment variable that replaces its base URL.
    pub base_url_variable: &'static str,
    /// Its production base URL.
    pub default_base_url: &'static str,
    /// Whether it documents a list of clusters (a look-up by name needs one).
    pub lists_clusters: bool,
    /// Whether its API can delete a cluster; where not, [`Self::console`] is where a person
    /// stops one.
    pub deletes_clusters: bool,
    /// Where the provider can end a cluster itself at a deadline it is given (a reservation
    /// of whole days that runs out: Together), so a ttl holds with no sweep running
    /// ([`crate::ClusterSpec::ttl_by_provider`]): how long after its create it ends a cluster
    /// asked to end at a ttl (the ttl rounded up to the provider's unit). `None`: it cannot.
    pub ends_clusters_itself: Option<fn(std::time::Duration) -> std::time::Duration>,
    /// Applies the provider's own defaults from its configuration file section to a request
    /// that does not set them (E2E's security group); returns what it applied. SSH keys are
    /// applied for every provider alike ([`crate::config_file::ConfigFile::apply`]).
    pub apply_defaults:
        fn(&crate::provider_defaults::ProviderDefaults, &mut crate::ClusterSpec) -> Vec<String>,
    /// Whether a create takes SSH keys (Together's clusters are reached by kubeconfig, and
    /// its create takes none).
    pub takes_ssh_keys: bool,
    /// How its API changes a cluster's size.
    pub resize: Resize,
    /// How its creates are kept from doubling.
    pub create_safety: CreateSafetyKind,
    /// Whether a cluster name is unique within its scope (account, project and location), so
    /// that a name identifies at most one live cluster.
    pub unique_names: bool,
    /// What becomes of the machines of a cluster whose start failed.
    pub failed_start: FailedStart,
    /// Where a cluster's kubeconfig comes from.
    pub kubeconfig: Kubeconfig,
    /// Where a person manages (and stops) clusters by hand, in words.
    pub console: &'static str,
    /// How a request is resolved against its catalog (see [`crate::catalog::resolve()`]).
    pub catalog: &'static dyn CatalogRules,
}

/// How a provider's API changes a cluster's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Resize {
    /// Not documented.
    Unsupported,
    /// To an absolute size: repeating the request is harmless (Together's `num_gpus`).
    Absolute,
    /// By adding nodes: relative, so sent once; it cannot shrink (E2E's `scale_cluster`).
    AddNodes,
}

/// How a provider's creates are kept from doubling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CreateSafetyKind {
    /// An idempotency key on the request: a repeat gets the first cluster back.
    IdempotencyKey,
    /// No key: the cluster is looked up by name before and after any ambiguous failure.
    ReconcileByName,
}

/// What becomes of the machines of a cluster whose start failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FailedStart {
    /// They stay allocated, and may bill, until the cluster is deleted.
    KeepsBilling,
    /// The provider releases them itself: nothing bills from then on, and there is nothing
    /// to delete.
    Released,
}

/// Where a cluster's kubeconfig comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kubeconfig {
    /// None is documented.
    Unavailable,
    /// A field of the cluster object, once the cluster is ready.
    InClusterObject,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_is_its_own_providers() {
        for provider in ProviderKind::ALL {
            let profile = provider.profile();
            assert_eq!(profile.kind, provider);
            assert_eq!(profile.catalog.provider(), provider);
            assert!(!profile.credential_variables.is_empty());
            assert!(profile.base_url_variable.ends_with("_BASE_URL"));
            assert!(profile.default_base_url.starts_with("https://"));
            // A name can only be looked up where there is a list to look in.
            if profile.create_safety == CreateSafetyKind::ReconcileByName {
                assert!(profile.lists_clusters && profile.unique_names, "{provider}");
            }
        }
    }
}
