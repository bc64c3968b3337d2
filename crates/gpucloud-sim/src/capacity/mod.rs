//! What capacity is, in words every provider shares: the unit an offering is counted in, which
//! offering ([`OfferingKey`]), what is left of it ([`Offering`]), which offerings a setting
//! names ([`CapacityFilter`]), and each provider's default total.
//!
//! This is the layer below the providers and knows none of them: each provider counts its own
//! offerings in `providers/<name>/capacity.rs` in these words, and the [`Capacity`] handle
//! that reads and sets them all stands above the providers, in `providers/capacity.rs`. Data
//! flows one way: from the providers' clusters up to the handle, never from here into them.
//!
//! [`Capacity`]: crate::Capacity

mod family;

pub use family::gpu_family;
pub(crate) use family::names_a_family;

use crate::provider::Provider;

/// Together's default total per (region, GPU type), in GPUs.
pub const TOGETHER_DEFAULT_GPUS: u32 = 1024;
/// Runcrate's default total per offer, in machines.
pub const RUNCRATE_DEFAULT_NODES: u32 = 64;
/// E2E's default total per (SKU, location), in nodes.
pub const E2E_DEFAULT_NODES: u32 = 32;

/// What a provider's capacity is counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CapacityUnit {
    /// GPUs (Together sells clusters by `num_gpus`).
    Gpus,
    /// Machines or nodes (Runcrate's `node_count`, E2E's `no_of_nodes`).
    Nodes,
}

impl CapacityUnit {
    /// `gpus` or `nodes`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Gpus => "gpus",
            Self::Nodes => "nodes",
        }
    }
}

/// Which offering, in the provider's own ids.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum OfferingKey {
    /// A GPU type in a Together region.
    Together {
        /// The region (`us-central-8`).
        region: String,
        /// The GPU type (`H100_SXM`).
        gpu_type: String,
    },
    /// A Runcrate offer.
    Runcrate {
        /// The offer id (`offer-h100-sxm-8x`).
        offer_id: String,
    },
    /// An E2E node type (SKU) in a location.
    E2e {
        /// The SKU id (`201`).
        sku_id: i64,
        /// The location (`Delhi`).
        location: String,
    },
}

impl OfferingKey {
    /// Whose offering it is.
    pub fn provider(&self) -> Provider {
        match self {
            Self::Together { .. } => Provider::Together,
            Self::Runcrate { .. } => Provider::Runcrate,
            Self::E2e { .. } => Provider::E2e,
        }
    }

    /// Short and unique within its provider: `us-central-8/H100_SXM`, `offer-h100-sxm-8x`,
    /// `201@Delhi`.
    pub fn label(&self) -> String {
        match self {
            Self::Together { region, gpu_type } => format!("{region}/{gpu_type}"),
            Self::Runcrate { offer_id } => offer_id.clone(),
            Self::E2e { sku_id, location } => format!("{sku_id}@{location}"),
        }
    }
}

/// One offering and how much of it is left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offering {
    /// Which one.
    pub key: OfferingKey,
    /// The GPU model in the provider's own word (`H100_SXM`, `H100 80GB SXM`, `H100`).
    pub gpu_model: String,
    /// Its family ([`gpu_family`]): `H100`.
    pub family: String,
    /// What `available` and `in_use` count.
    pub unit: CapacityUnit,
    /// What creates may still take.
    pub available: u32,
    /// What the provider's live clusters hold.
    pub in_use: u32,
}

/// Which offerings a [`Capacity::set`](crate::Capacity::set) changes: those of `provider` whose model is
/// `gpu_model` — the provider's own word, or a family name matching every offering of that
/// family — narrowed by whichever ids are given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapacityFilter {
    /// Whose offerings.
    pub provider: Provider,
    /// `H100_SXM` (Together's word), `H100 80GB SXM` (Runcrate's), `H100` (E2E's, or any
    /// provider's family); compared without regard to case.
    pub gpu_model: String,
    /// Only this Together region.
    pub region: Option<String>,
    /// Only this Runcrate offer.
    pub offer_id: Option<String>,
    /// Only this E2E SKU.
    pub sku_id: Option<i64>,
    /// Only this E2E location.
    pub location: Option<String>,
}

impl CapacityFilter {
    /// Every offering of `provider` with that model (or family).
    pub fn new(provider: Provider, gpu_model: impl Into<String>) -> Self {
        Self {
            provider,
            gpu_model: gpu_model.into(),
            region: None,
            offer_id: None,
            sku_id: None,
            location: None,
        }
    }

    /// Only in this Together region.
    pub fn region(mut self, region: impl Into<String>) -> Self {
        self.region = Some(region.into());
        self
    }

    /// Only this Runcrate offer.
    pub fn offer_id(mut self, offer_id: impl Into<String>) -> Self {
        self.offer_id = Some(offer_id.into());
        self
    }

    /// Only this E2E SKU.
    pub fn sku_id(mut self, sku_id: i64) -> Self {
        self.sku_id = Some(sku_id);
        self
    }

    /// Only this E2E location.
    pub fn location(mut self, location: impl Into<String>) -> Self {
        self.location = Some(location.into());
        self
    }

    /// Whether `offering` is one this filter names. A narrowing id the offering does not
    /// have (a region on a Runcrate offer) matches nothing.
    pub fn matches(&self, offering: &Offering) -> bool {
        let model = offering.gpu_model.eq_ignore_ascii_case(&self.gpu_model)
            || (names_a_family(&self.gpu_model) && gpu_family(&self.gpu_model) == offering.family);
        let (region, offer, sku, location) = match &offering.key {
            OfferingKey::Together { region, .. } => (Some(region.as_str()), None, None, None),
            OfferingKey::Runcrate { offer_id } => (None, Some(offer_id.as_str()), None, None),
            OfferingKey::E2e { sku_id, location } => {
                (None, None, Some(*sku_id), Some(location.as_str()))
            }
        };
        let narrowed = |wanted: Option<&str>, has: Option<&str>| {
            wanted.is_none_or(|w| has.is_some_and(|h| h.eq_ignore_ascii_case(w)))
        };
        offering.key.provider() == self.provider
            && model
            && narrowed(self.region.as_deref(), region)
            && narrowed(self.offer_id.as_deref(), offer)
            && self.sku_id.is_none_or(|w| sku == Some(w))
            && narrowed(self.location.as_deref(), location)
    }

    /// The filter in words, for errors: `gpu_model "X100" in region "eu-north-1"`.
    fn describe(&self) -> String {
        let mut words = format!("gpu_model {:?}", self.gpu_model);
        for (field, value) in [
            ("region", &self.region),
            ("offer_id", &self.offer_id),
            ("location", &self.location),
        ] {
            if let Some(value) = value {
                words.push_str(&format!(" with {field} {value:?}"));
            }
        }
        if let Some(sku) = self.sku_id {
            words.push_str(&format!(" with sku_id {sku}"));
        }
        words
    }
}

/// A [`Capacity::set`](crate::Capacity::set) that matched no offering; nothing was changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{} has no offering matching {}; it has {}", .filter.provider, .filter.describe(), existing(.offerings))]
pub struct NoSuchOffering {
    /// What was asked for (boxed: an error should be small to return).
    pub filter: Box<CapacityFilter>,
    /// Every offering that provider has.
    pub offerings: Vec<Offering>,
}

fn existing(offerings: &[Offering]) -> String {
    offerings
        .iter()
        .map(|o| format!("{} ({})", o.key.label(), o.gpu_model))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `total - in_use`, never below zero, as the `u32` the API speaks.
pub(crate) fn available(total: u32, in_use: u64) -> u32 {
    u32::try_from(u64::from(total).saturating_sub(in_use)).unwrap_or(u32::MAX)
}

/// A count as `u32`, saturating.
pub(crate) fn count(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
