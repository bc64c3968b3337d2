//! Runcrate's catalog: `GET /clusters/offers`. Only the node limits and stacks are documented;
//! the offer's id, GPU, GPUs per node, price and location are read from the rest of the
//! object where present (and named in [`Offering::inferred`]). Its [`CatalogRules`] resolve a
//! request to an offer and a node count.

use gpucloud_runcrate::types::{self, ClusterOffer, Stack};

use super::PROVIDER;
use crate::catalog::fields::{count, number, text};
use crate::catalog::{
    BillingKind, CatalogRules, Fill, NodeLimits, OfferPrice, Offering, OfferingIds, gpu_family,
};
use crate::cluster::ProviderKind;
use crate::spec::{ClusterSize, ClusterSpec, SoftwareStack};

/// Says so when Runcrate marks its offer list incomplete (`meta.hasMore`, as its other lists
/// page): it documents no way to ask for the rest, so a placement sees only the offers sent,
/// and a "no matching offering" may be one that was not listed. A warning, not a refusal: the
/// offers that came are real.
pub(crate) fn warn_if_incomplete(answer: &types::OfferListResponse) {
    let Some(meta) = &answer.meta else { return };
    if meta.has_more == Some(true) {
        tracing::warn!(
            offers = answer.data.len(),
            total = ?meta.total,
            "Runcrate's offer list says it has more (meta.hasMore) and documents no way to \
             ask for them: only the offers it sent are considered"
        );
    }
}

/// The offerings of a `list_offers` answer; an offer without an id (it cannot be created
/// from) is left out.
pub(crate) fn offerings(offers: Vec<ClusterOffer>) -> Vec<Offering> {
    offers.into_iter().filter_map(offering).collect()
}

fn offering(offer: ClusterOffer) -> Option<Offering> {
    let extra = &offer.extra;
    let offer_id = text(extra, &["id", "offer_id"])?;
    let mut inferred = vec!["ids"];
    let gpu_model = text(extra, &["gpu_type", "gpu_model", "gpu"]);
    if gpu_model.is_some() {
        inferred.extend(["gpu_model", "gpu_family"]);
    }
    let gpus_per_node = count(extra, &["gpus_per_node", "gpu_count", "num_gpus"]);
    if gpus_per_node.is_some() {
        inferred.push("gpus_per_node");
    }
    let price = number(
        extra,
        &["hourly_rate_per_node", "hourly_rate", "price_per_hour"],
    )
    .filter(|p| p.is_finite() && *p >= 0.0)
    .map(|per_node_hour| OfferPrice {
        per_node_hour,
        // Runcrate prices in US dollars (its docs: "never less than $10").
        currency: "USD".into(),
        source: crate::catalog::PriceSource::Answered,
    });
    if price.is_some() {
        inferred.push("price");
    }
    let region = text(extra, &["location", "region"]);
    if region.is_some() {
        inferred.push("region");
    }
    let tier = text(extra, &["host_tier"]);
    if tier.is_some() {
        inferred.push("community_host");
    }
    let community_host = tier.is_some_and(|t| t.eq_ignore_ascii_case("community"));
    let to_u32 = |n: i64| u32::try_from(n).ok();
    Some(Offering {
        provider: PROVIDER,
        region,
        gpu_family: gpu_model
            .as_deref()
            .and_then(gpu_family)
            .map(str::to_string),
        gpu_model,
        gpus_per_node,
        nodes: NodeLimits {
            min: offer.min_nodes.and_then(to_u32),
            max: offer.max_nodes.and_then(to_u32),
            allowed: offer
                .allowed_node_counts
                .map(|counts| counts.into_iter().filter_map(to_u32).collect()),
        },
        stacks: offer
            .stacks
            .iter()
            .filter_map(|s| match s {
                Stack::None => Some(SoftwareStack::None),
                Stack::Slurm => Some(SoftwareStack::Slurm),
                Stack::Kubernetes => Some(SoftwareStack::Kubernetes),
                Stack::Ray => Some(SoftwareStack::Ray),
                Stack::Unknown(_) => None,
            })
            .collect(),
        drivers: Vec::new(),
        images: Vec::new(),
        billing: vec![BillingKind::OnDemand],
        price,
        community_host,
        ids: OfferingIds::Runcrate { offer_id },
        inferred,
    })
}

/// Runcrate's part of resolving a request: an offer fixes the GPU, the location and the stack
/// choices, and a create takes only the offer and a node count.
#[derive(Debug)]
pub(crate) struct Rules;

impl CatalogRules for Rules {
    fn provider(&self) -> ProviderKind {
        PROVIDER
    }

    fn needs_catalog(&self, spec: &ClusterSpec) -> bool {
        spec.options
            .runcrate
            .as_ref()
            .is_none_or(|o| o.offer_id.trim().is_empty())
    }

    fn completes(&self, spec: &ClusterSpec, offering: &Offering) -> Result<(), String> {
        // A request that names its offer is looked up only for that offer's price.
        let given = spec
            .options
            .runcrate
            .as_ref()
            .map(|o| o.offer_id.trim())
            .filter(|id| !id.is_empty());
        match (&offering.ids, given) {
            (OfferingIds::Runcrate { offer_id }, Some(given)) if offer_id != given => {
                Err("is another offer than the one given".into())
            }
            _ => Ok(()),
        }
    }

    fn admits(&self, spec: &ClusterSpec, offering: &Offering) -> Result<(), String> {
        let allowed = spec
            .options
            .runcrate
            .as_ref()
            .and_then(|o| o.include_community)
            == Some(true);
        if offering.community_host && !allowed {
            return Err("runs on community hosts (allow them with include_community)".into());
        }
        Ok(())
    }

    fn fill(
        &self,
        offering: &Offering,
        nodes: u32,
        ranked: &str,
        fill: &mut Fill<'_>,
    ) -> Result<(), String> {
        let OfferingIds::Runcrate { offer_id } = &offering.ids else {
            return Err("is not a Runcrate offer".into());
        };
        let mut options = fill.asked.options.runcrate.clone().unwrap_or_default();
        fill.choose(
            "offer_id",
            offer_id.clone(),
            format!(
                "{} × {} nodes{ranked}",
                offering.gpu_model.as_deref().unwrap_or("?"),
                nodes
            ),
        );
        if let ClusterSize::Gpus(gpus) = fill.asked.size {
            fill.choose("node_count", nodes.to_string(), format!("{gpus} GPUs"));
        }
        options.offer_id = offer_id.clone();
        fill.spec.options.runcrate = Some(options);
        // The offer fixes them; Runcrate's create takes neither.
        fill.spec.gpu_model = None;
        fill.spec.region = None;
        fill.spec.size = ClusterSize::Nodes(nodes);
        Ok(())
    }
}
