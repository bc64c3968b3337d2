//! [`ProviderDefaults`]: what a provider's section of the configuration file sets (see
//! [`crate::config_file`]). A leaf: the configuration file reads it, and each provider's own
//! folder applies it.

use serde::{Deserialize, Serialize};

/// What a provider's section sets: defaults a request takes where it sets nothing itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ProviderDefaults {
    /// SSH keys in the provider's own form (E2E: numeric key ids; Runcrate: UUIDs).
    #[serde(default)]
    pub ssh_keys: Vec<String>,
    /// E2E's security group.
    #[serde(default)]
    pub security_group_id: Option<i64>,
    /// Regions to try first, in this order, for a request that names no region and prefers
    /// none itself ([`crate::ClusterSpec::preferred_regions`]).
    #[serde(default)]
    pub preferred_regions: Vec<String>,
    /// The provider's API base URL (its `*_BASE_URL` variable wins).
    #[serde(default)]
    pub base_url: Option<String>,
}
