//! What each provider offers, in one neutral shape ([`Offering`]), and how a request that
//! states only intent — a GPU model, a size, maybe a region, a stack, a billing kind — is
//! resolved against it into the provider's catalog ids before anything is sent
//! ([`resolve()`]).
//!
//! Sources: Together `GET /compute/regions` (documented); Runcrate `GET /clusters/offers`
//! (only `min_nodes`, `max_nodes`, `allowed_node_counts` and `stacks` are documented; the
//! offer's id, GPU, price and location are read from the undocumented rest of the object);
//! E2E's plans and deployment images (their item shapes are undocumented; the fields read are
//! those of the cluster object's documented `sku_details.specs` and `sku_details.plan`). Every
//! field read from an undocumented part is named in [`Offering::inferred`], and an inferred
//! field that is absent never fails decoding: the offering simply does not have it.

mod cache;
mod family;
pub(crate) mod fields;
pub mod pricing;
pub mod resolve;
mod rules;

use serde::Serialize;

use crate::cluster::ProviderKind;
use crate::spec::SoftwareStack;

pub(crate) use cache::CatalogCache;
pub use family::{gpu_family, matches as gpu_matches};
pub use pricing::{BookAmount, BookEntry, Converted, PriceSource, Pricing, Rate};
pub use resolve::{
    Constraints, PriceCeiling, Resolution, consults_catalog, resolve, resolve_each_region,
};
pub use rules::{CatalogRules, Choice, Fill};

/// How long a client keeps a fetched catalog before it fetches it again, by default.
pub const DEFAULT_TTL: std::time::Duration = std::time::Duration::from_secs(5 * 60);

/// One thing a provider offers to create a cluster from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Offering {
    /// The provider.
    pub provider: ProviderKind,
    /// Together: the region (documented). Runcrate: the offer's location (inferred). E2E: the
    /// location the plan is priced for (`Delhi`, `Chennai`; the client's configured one).
    pub region: Option<String>,
    /// The GPU model in the provider's own word (`H100_SXM`, `H100 80GB SXM`, `H100`).
    pub gpu_model: Option<String>,
    /// The normalized family of `gpu_model` (`H100`, `H200`, `B200`, …; see [`gpu_family`]).
    pub gpu_family: Option<String>,
    /// GPUs per node, where known (Together: 8, implied by its multiple-of-8 rule).
    pub gpus_per_node: Option<u32>,
    /// The node counts a create may ask for.
    pub nodes: NodeLimits,
    /// Software stacks a create may ask for (empty: not stated).
    pub stacks: Vec<SoftwareStack>,
    /// Together's NVIDIA driver/CUDA catalog entries in the region, newest first.
    pub drivers: Vec<DriverVersion>,
    /// E2E's deployment images (one per stack it has), newest first.
    pub images: Vec<Image>,
    /// How it can be billed.
    pub billing: Vec<BillingKind>,
    /// The price, where the provider states one.
    pub price: Option<OfferPrice>,
    /// Runcrate: the offer runs on community hosts (inferred from `host_tier`); a create
    /// takes it only with `include_community`.
    pub community_host: bool,
    /// The provider's ids a create needs.
    pub ids: OfferingIds,
    /// The fields of this offering read from undocumented parts of the provider's answer.
    pub inferred: Vec<&'static str>,
}

/// The node counts an offering accepts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct NodeLimits {
    /// The fewest nodes.
    pub min: Option<u32>,
    /// The most nodes.
    pub max: Option<u32>,
    /// When present, the only counts accepted.
    pub allowed: Option<Vec<u32>>,
}

impl NodeLimits {
    /// Whether `nodes` is within the limits.
    pub fn accepts(&self, nodes: u32) -> bool {
        self.min.is_none_or(|min| nodes >= min)
            && self.max.is_none_or(|max| nodes <= max)
            && self.allowed.as_ref().is_none_or(|a| a.contains(&nodes))
    }

    /// The limits in words (`2–64 nodes`, `2, 4 or 8 nodes`), for errors.
    pub fn describe(&self) -> String {
        if let Some(allowed) = &self.allowed {
            let counts: Vec<_> = allowed.iter().map(u32::to_string).collect();
            return format!("{} nodes", counts.join(", "));
        }
        match (self.min, self.max) {
            (Some(min), Some(max)) => format!("{min}–{max} nodes"),
            (Some(min), None) => format!("at least {min} nodes"),
            (None, Some(max)) => format!("at most {max} nodes"),
            (None, None) => "any number of nodes".into(),
        }
    }
}

/// One of Together's NVIDIA software catalog entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DriverVersion {
    /// What a create sends as `nvidia_version_id`.
    pub id: String,
    /// CUDA version (`12.8`).
    pub cuda_version: Option<String>,
    /// NVIDIA driver version (`570`).
    pub driver_version: Option<String>,
    /// Operating system image family.
    pub os: Option<String>,
}

/// One of E2E's deployment image versions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Image {
    /// What a create sends as `image_version_id`.
    pub id: i64,
    /// The stack it brings.
    pub stack: SoftwareStack,
    /// Its name and version, as E2E lists them.
    pub name: String,
}

/// A way an offering can be billed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BillingKind {
    /// Per hour, until deleted.
    OnDemand,
    /// Reserved for a number of days (Together; E2E's committed plans: `days` is known).
    Reserved {
        /// The commitment in days, where the plan fixes it.
        days: Option<u32>,
    },
}

/// A price per hour.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OfferPrice {
    /// Per hour, for one node (Runcrate, E2E).
    pub per_node_hour: f64,
    /// ISO 4217 code (`USD`, `INR`).
    pub currency: String,
    /// Where it comes from: the provider's catalog, or a price book entry.
    pub source: PriceSource,
}

impl OfferPrice {
    /// The price of `nodes` nodes for an hour.
    pub fn for_nodes(&self, nodes: u32) -> f64 {
        self.per_node_hour * f64::from(nodes)
    }
}

/// The provider's ids for an offering.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OfferingIds {
    /// Together: the region and the GPU type (the driver is chosen among `drivers`).
    Together {
        /// `region`.
        region: String,
        /// `gpu_type`.
        gpu_type: String,
    },
    /// Runcrate: the offer.
    Runcrate {
        /// `offer_id`.
        offer_id: String,
    },
    /// E2E: the node type and its price plan (the image is chosen among `images`).
    E2e {
        /// `sku_id`.
        sku_id: i64,
        /// `sku_item_price_id`.
        sku_item_price_id: i64,
    },
}

impl OfferingIds {
    /// The ids in one line (`offer-h100-sxm-8x`, `sku 201 / plan 811`), for tables and ties.
    pub fn label(&self) -> String {
        match self {
            Self::Together { region, gpu_type } => format!("{region}/{gpu_type}"),
            Self::Runcrate { offer_id } => offer_id.clone(),
            Self::E2e {
                sku_id,
                sku_item_price_id,
            } => format!("sku {sku_id} / plan {sku_item_price_id}"),
        }
    }
}

#[cfg(test)]
mod tests;
