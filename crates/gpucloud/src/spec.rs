//! What to create, in provider-neutral words, plus typed per-provider options.
//!
//! Each provider module maps a [`ClusterSpec`] to its own create request and validates it there,
//! before anything is sent; a field the provider cannot honour is a validation error, never
//! silently dropped.
//!
//! These types are also the request files of the `gpucloud` command line. With the `schema`
//! feature they implement `schemars::JsonSchema`, and the doc comments below become the
//! descriptions of the JSON Schema that `gpucloud schema request` prints: write them for the
//! reader of a request file.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use crate::providers::e2e::options::{E2eOptions, E2eSfsMount};
pub use crate::providers::runcrate::options::RuncrateOptions;
pub use crate::providers::together::options::TogetherOptions;

/// A cluster to create: [`ClusterSpec::new`] and the `with_*` builders (the type is
/// `#[non_exhaustive]`, so a field added later breaks no caller; the fields stay readable and
/// settable).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ClusterSpec {
    /// The cluster's name. Creates are reconciled by name on providers without idempotency
    /// keys, so use a name unique within the account.
    pub name: String,
    /// GPU model in the provider's words (Together `H100_SXM`). Runcrate's offer and E2E's SKU
    /// determine the GPU, so leave it unset there.
    #[serde(default)]
    pub gpu_model: Option<String>,
    /// How big.
    pub size: ClusterSize,
    /// Together region (`us-central-8`); E2E location (`Delhi`, `Chennai`) overriding the
    /// configured one. Runcrate's offer determines the location.
    #[serde(default)]
    pub region: Option<String>,
    /// Regions to try first, in this order, when `region` names none: among the offerings
    /// that fit, one in the first of these regions that has any is chosen before a cheaper one
    /// elsewhere, and the placement tries the others after it. A region not listed comes
    /// after every listed one. Ignored when `region` is set.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub preferred_regions: Vec<String>,
    /// How it is billed.
    #[serde(default)]
    pub billing: Billing,
    /// SSH key ids to install (Runcrate UUIDs, E2E integer ids). Together takes none at create.
    #[serde(default)]
    pub ssh_keys: Vec<String>,
    /// Shared storage to attach.
    #[serde(default)]
    pub shared_storage: Option<SharedStorage>,
    /// The software stack.
    #[serde(default)]
    pub stack: Option<SoftwareStack>,
    /// Options only one provider has, for each provider (`[options.together]` and
    /// `[options.e2e]` side by side): each is used only by its own provider.
    #[serde(default)]
    pub options: ProviderOptions,
    /// How long the cluster may live (`8h`, `90m`): the create records its deadline (the
    /// moment it is sent plus this) in the journal, `gpucloud ledger` shows the time left,
    /// and `gpucloud clusters sweep --expired --delete` deletes it once the deadline has
    /// passed. No provider is sent it (unless [`Self::ttl_by_provider`]): the limit is kept by
    /// whoever runs the sweep.
    #[serde(default, with = "ttl_text", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub ttl: Option<std::time::Duration>,
    /// Whether a live cluster of this name that gpucloud did not create (a teammate's, one
    /// made in the console) is taken as this create's result and becomes ours: recorded as
    /// adopted, so a sweep or a deadline may delete it. Without it, such a cluster is
    /// [`crate::Error::NameTaken`] and nothing is sent. Default: no.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub adopt: bool,
    /// Whether the provider itself is asked to end the cluster at its `ttl`, so the deadline
    /// holds without anyone running a sweep. Only Together can: the request becomes a
    /// `RESERVED` one of `duration_days` whole days (the ttl rounded up; Together
    /// decommissions a reserved cluster when its reservation ends, and bills it as a
    /// reservation); the sweep still deletes it at the ttl itself. A provider that cannot end
    /// a cluster itself refuses the request ([`crate::Error::Validation`]). Default: no.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ttl_by_provider: bool,
}

/// A `ttl` as text: `8h`, `1h 30m` (humantime's words).
mod ttl_text {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(ttl: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match ttl {
            Some(ttl) => s.serialize_str(&humantime::format_duration(*ttl).to_string()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        let Some(text) = Option::<String>::deserialize(d)? else {
            return Ok(None);
        };
        let ttl = humantime::parse_duration(&text)
            .map_err(|e| serde::de::Error::custom(format!("ttl {text:?}: {e}")))?;
        if ttl < super::MIN_TTL || ttl > super::MAX_TTL {
            return Err(serde::de::Error::custom(format!(
                "ttl {text:?}: must be between 1s and 366 days"
            )));
        }
        Ok(Some(ttl))
    }
}

/// The shortest `ttl` a request may set.
pub const MIN_TTL: std::time::Duration = std::time::Duration::from_secs(1);
/// The longest `ttl` a request may set (a year and a day).
pub const MAX_TTL: std::time::Duration = std::time::Duration::from_secs(366 * 24 * 3600);

impl ClusterSpec {
    /// A spec with a name and a size; everything else at its default.
    pub fn new(name: impl Into<String>, size: ClusterSize) -> Self {
        Self {
            name: name.into(),
            gpu_model: None,
            size,
            region: None,
            preferred_regions: Vec::new(),
            billing: Billing::OnDemand,
            ssh_keys: Vec::new(),
            shared_storage: None,
            stack: None,
            options: ProviderOptions::default(),
            ttl: None,
            adopt: false,
            ttl_by_provider: false,
        }
    }

    /// Prefers `regions`, in this order, when the request names no region (see
    /// [`Self::preferred_regions`]).
    pub fn with_preferred_regions(mut self, regions: impl IntoIterator<Item = String>) -> Self {
        self.preferred_regions = regions.into_iter().collect();
        self
    }

    /// Asks the provider to end the cluster at its ttl itself (see [`Self::ttl_by_provider`]).
    pub fn with_ttl_by_provider(mut self, by_provider: bool) -> Self {
        self.ttl_by_provider = by_provider;
        self
    }

    /// Sets how long the cluster may live (see [`Self::ttl`]); clamped to
    /// [`MIN_TTL`]..=[`MAX_TTL`].
    pub fn with_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.ttl = Some(ttl.clamp(MIN_TTL, MAX_TTL));
        self
    }

    /// Adopts a live cluster of this name that gpucloud did not create (see [`Self::adopt`]).
    pub fn with_adopt(mut self, adopt: bool) -> Self {
        self.adopt = adopt;
        self
    }

    /// Sets the size.
    pub fn with_size(mut self, size: ClusterSize) -> Self {
        self.size = size;
        self
    }

    /// Sets the GPU model.
    pub fn with_gpu_model(mut self, model: impl Into<String>) -> Self {
        self.gpu_model = Some(model.into());
        self
    }

    /// Sets the region or location.
    pub fn with_region(mut self, region: impl Into<String>) -> Self {
        self.region = Some(region.into());
        self
    }

    /// Sets the billing.
    pub fn with_billing(mut self, billing: Billing) -> Self {
        self.billing = billing;
        self
    }

    /// Adds SSH key ids.
    pub fn with_ssh_keys(mut self, keys: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.ssh_keys.extend(keys.into_iter().map(Into::into));
        self
    }

    /// Sets shared storage.
    pub fn with_shared_storage(mut self, storage: SharedStorage) -> Self {
        self.shared_storage = Some(storage);
        self
    }

    /// Sets the software stack.
    pub fn with_stack(mut self, stack: SoftwareStack) -> Self {
        self.stack = Some(stack);
        self
    }

    /// Sets provider-specific options: those of the providers `options` names replace what
    /// was there, the others stay.
    pub fn with_options(mut self, options: impl Into<ProviderOptions>) -> Self {
        let options = options.into();
        if options.together.is_some() {
            self.options.together = options.together;
        }
        if options.runcrate.is_some() {
            self.options.runcrate = options.runcrate;
        }
        if options.e2e.is_some() {
            self.options.e2e = options.e2e;
        }
        self
    }
}

/// A cluster's size: Together counts GPUs, Runcrate and E2E count nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ClusterSize {
    /// Total GPUs.
    Gpus(u32),
    /// Machines.
    Nodes(u32),
}

/// `gpus` GPUs as whole nodes of `per_node` GPUs each: rounded up, so never fewer GPUs than
/// asked; `None` for a node of no GPUs or a count past `u32`.
pub fn nodes_for_gpus(gpus: u32, per_node: u32) -> Option<u32> {
    if per_node == 0 {
        return None;
    }
    gpus.checked_add(per_node - 1)
        .map(|rounded| rounded / per_node)
}

/// How a cluster is paid for.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Billing {
    /// Pay per hour until deleted.
    #[default]
    OnDemand,
    /// Reserved for a number of days (Together `RESERVED` + `duration_days`).
    Reserved {
        /// Length of the reservation.
        days: u32,
    },
    /// A scheduled capacity window (Together `SCHEDULED_CAPACITY`).
    Scheduled {
        /// Start of the window.
        start: DateTime<Utc>,
        /// End of the window.
        end: DateTime<Utc>,
    },
}

/// Shared storage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum SharedStorage {
    /// An existing volume by id.
    Existing {
        /// The provider's volume id.
        id: String,
    },
    /// A new volume created with the cluster (Together).
    New {
        /// Volume name.
        name: String,
        /// Size in TiB.
        size_tib: u32,
    },
}

/// The software installed on the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SoftwareStack {
    /// Kubernetes.
    Kubernetes,
    /// Slurm.
    Slurm,
    /// Ray (Runcrate).
    Ray,
    /// Plain machines (Runcrate).
    None,
}

/// Defines [`ProviderOptions`] with one field per provider, and a `From` of each provider's
/// options type, so that a provider's options are one line here (their type is in the
/// provider's folder).
macro_rules! provider_options {
    ($($field:ident: $options:ty, $doc:literal;)*) => {
        /// Options only one provider has, per provider. A request may carry several
        /// providers' options at once (for a placement across providers); each provider reads
        /// only its own.
        #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        #[serde(default, deny_unknown_fields)]
        #[non_exhaustive]
        pub struct ProviderOptions {
            $(
                #[doc = $doc]
                pub $field: Option<$options>,
            )*
        }

        $(
            impl From<$options> for ProviderOptions {
                fn from(value: $options) -> Self {
                    Self {
                        $field: Some(value),
                        ..Self::default()
                    }
                }
            }
        )*
    };
}

provider_options! {
    together: TogetherOptions, "Together's options.";
    runcrate: RuncrateOptions, "Runcrate's options.";
    e2e: E2eOptions, "E2E's options.";
}

/// The README's examples, compiled (and the runnable ones run) as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn gpus_are_whole_nodes_rounded_up_and_never_past_u32() {
        assert_eq!(nodes_for_gpus(24, 8), Some(3));
        assert_eq!(
            nodes_for_gpus(28, 8),
            Some(4),
            "rounded up: never fewer GPUs"
        );
        assert_eq!(nodes_for_gpus(1, 8), Some(1));
        assert_eq!(nodes_for_gpus(0, 8), Some(0));
        assert_eq!(nodes_for_gpus(7, 1), Some(7));
        assert_eq!(nodes_for_gpus(9, 4), Some(3));
        assert_eq!(nodes_for_gpus(8, 0), None, "a node of no GPUs");
        assert_eq!(nodes_for_gpus(u32::MAX, 8), None, "past u32 on the way");
        assert_eq!(nodes_for_gpus(u32::MAX, 1), Some(u32::MAX));
    }

    #[test]
    fn a_ttl_is_written_as_people_write_it_and_bounded() {
        let json = |ttl: &str| {
            serde_json::json!({ "name": "a", "size": { "gpus": 8 }, "ttl": ttl }).to_string()
        };
        let spec: ClusterSpec = serde_json::from_str(&json("1h 30m")).unwrap();
        assert_eq!(spec.ttl, Some(Duration::from_secs(5400)));
        assert_eq!(serde_json::to_value(&spec).unwrap()["ttl"], "1h 30m");
        for bad in ["0s", "400days", "soon"] {
            let error = serde_json::from_str::<ClusterSpec>(&json(bad)).unwrap_err();
            assert!(error.to_string().contains("ttl"), "{bad}: {error}");
        }
        let none = ClusterSpec::new("a", ClusterSize::Gpus(8));
        assert!(serde_json::to_value(&none).unwrap().get("ttl").is_none());
        assert_eq!(none.with_ttl(Duration::ZERO).ttl, Some(MIN_TTL));
    }
}
