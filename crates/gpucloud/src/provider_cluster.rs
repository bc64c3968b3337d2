//! A provider's own cluster object, as its generated client typed it: a leaf that the neutral
//! model ([`crate::Cluster::raw`]) and the provider modules share, so the model needs no
//! provider module to keep the credentials such an object carries out of output.

use std::fmt;

use serde::Serialize;

/// A provider's own cluster object, typed by its generated client. Serialises (and shows in
/// `Debug`) as the provider's JSON with the credentials it may carry withheld — Together's
/// `kube_config` holds the cluster's admin credentials, so `--json` output, logs and error
/// excerpts show `REDACTED` in its place; [`crate::Cluster::kubeconfig`] is the one way to read it.
#[derive(Clone, PartialEq)]
pub enum ProviderCluster {
    /// Together's `GPUClusterInfo`.
    Together(Box<gpucloud_together::types::GpuClusterInfo>),
    /// Runcrate's cluster object (the `data` of its envelope).
    Runcrate(Box<gpucloud_runcrate::types::Cluster>),
    /// E2E's training cluster (the `data` of its envelope).
    E2e(Box<gpucloud_e2e::types::TrainingCluster>),
}

impl ProviderCluster {
    /// The provider's JSON, its credentials withheld (see the type's docs).
    pub fn to_json(&self) -> serde_json::Value {
        let json = match self {
            Self::Together(c) => serde_json::to_value(c),
            Self::Runcrate(c) => serde_json::to_value(c),
            Self::E2e(c) => serde_json::to_value(c),
        };
        let mut json = json.unwrap_or(serde_json::Value::Null);
        if let Self::Together(_) = self {
            withhold_together_credentials(&mut json);
        }
        json
    }
}

impl Serialize for ProviderCluster {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

impl fmt::Debug for ProviderCluster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ProviderCluster")
            .field(&self.to_json())
            .finish()
    }
}

/// Withholds the credentials in Together's cluster object, as JSON: `kube_config` (the
/// cluster's admin kubeconfig) becomes [`gpucloud_core::REDACTED`] where it is set.
fn withhold_together_credentials(json: &mut serde_json::Value) {
    if let Some(value) = json.get_mut("kube_config")
        && value.as_str().is_some_and(|s| !s.is_empty())
    {
        *value = serde_json::Value::String(gpucloud_core::REDACTED.to_owned());
    }
}
