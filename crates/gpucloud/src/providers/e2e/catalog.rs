//! E2E's catalog: the plans of the configured location (`list_plans`, one [`Offering`] per
//! node type and price plan) and the Slurm deployment images (`list_images`). Neither item
//! shape is documented; the fields read are the ones the cluster object documents in
//! `sku_details.specs` (`sku_id`, `name`, `gpu`, `gpu_card_type`) and `sku_details.plan`
//! (`sku_item_price_id`, `sku_type`, `committed_days`, `unit_price`, `currency`), so every
//! one is inferred, and an item without an id is left out. Its [`CatalogRules`] resolve a
//! request to a node type, a plan and an image.

use serde_json::{Map, Value};

use super::PROVIDER;
use crate::catalog::fields::{count, number, text};
use crate::catalog::{
    BillingKind, CatalogRules, Fill, Image, NodeLimits, OfferPrice, Offering, OfferingIds,
    gpu_family,
};
use crate::cluster::ProviderKind;
use crate::spec::{Billing, ClusterSize, ClusterSpec, SoftwareStack};

/// The framework E2E's images are listed under for each stack it offers (the docs' example
/// image is framework `Slurm`).
pub(crate) const FRAMEWORKS: &[(SoftwareStack, &str)] = &[(SoftwareStack::Slurm, "Slurm")];

/// The image versions of a `list_images` answer for `stack`, newest (highest id) first.
pub(crate) fn images(items: &[Map<String, Value>], stack: SoftwareStack) -> Vec<Image> {
    let mut images: Vec<Image> = items
        .iter()
        .flat_map(|image| {
            let name = text(image, &["name", "slug_name"]).unwrap_or_default();
            let versions = image
                .get("versions")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            versions.into_iter().filter_map(move |version| {
                let version = version.as_object()?;
                let id = version.get("id")?.as_i64().filter(|id| *id > 0)?;
                let label = text(version, &["version"]).unwrap_or_default();
                Some(Image {
                    id,
                    stack,
                    name: format!("{name} {label}").trim().to_string(),
                })
            })
        })
        .collect();
    images.sort_by_key(|i| std::cmp::Reverse(i.id));
    images
}

/// The offerings of a `list_plans` answer for `location`, each carrying `images`.
pub(crate) fn offerings(
    items: &[Map<String, Value>],
    location: &str,
    images: &[Image],
) -> Vec<Offering> {
    let mut offerings = Vec::new();
    for sku in items {
        let Some(sku_id) = sku
            .get("sku_id")
            .and_then(Value::as_i64)
            .filter(|id| *id > 0)
        else {
            continue;
        };
        let gpus_per_node = count(sku, &["gpu"]).filter(|g| *g > 0);
        let gpu_model = gpus_per_node
            .and_then(|_| text(sku, &["gpu_card_type"]))
            .or_else(|| gpus_per_node.and_then(|_| text(sku, &["name"])));
        let plans = sku
            .get("plans")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for plan in plans {
            let Some(plan) = plan.as_object() else {
                continue;
            };
            let Some(price_id) = plan
                .get("sku_item_price_id")
                .and_then(Value::as_i64)
                .filter(|id| *id > 0)
            else {
                continue;
            };
            if text(plan, &["location"]).is_some_and(|l| !l.eq_ignore_ascii_case(location)) {
                continue;
            }
            let committed =
                text(plan, &["sku_type"]).is_some_and(|t| t.eq_ignore_ascii_case("committed"));
            let billing = if committed {
                BillingKind::Reserved {
                    days: count(plan, &["committed_days"]).filter(|d| *d > 0),
                }
            } else {
                BillingKind::OnDemand
            };
            // An hourly plan's unit price is per node and hour; a committed plan's is for
            // the whole commitment, so it has no hourly price here.
            let price = (!committed)
                .then(|| number(plan, &["unit_price"]))
                .flatten()
                .filter(|p| p.is_finite() && *p >= 0.0)
                .map(|per_node_hour| OfferPrice {
                    per_node_hour,
                    currency: text(plan, &["currency"]).unwrap_or_else(|| "INR".into()),
                    source: crate::catalog::PriceSource::Answered,
                });
            offerings.push(Offering {
                provider: PROVIDER,
                region: Some(location.to_string()),
                gpu_family: gpu_model
                    .as_deref()
                    .and_then(gpu_family)
                    .map(str::to_string),
                gpu_model: gpu_model.clone(),
                gpus_per_node,
                nodes: NodeLimits {
                    min: Some(1),
                    ..NodeLimits::default()
                },
                stacks: images.iter().map(|i| i.stack).fold(Vec::new(), |mut s, x| {
                    if !s.contains(&x) {
                        s.push(x);
                    }
                    s
                }),
                drivers: Vec::new(),
                images: images.to_vec(),
                billing: vec![billing],
                price: price.clone(),
                community_host: false,
                ids: OfferingIds::E2e {
                    sku_id,
                    sku_item_price_id: price_id,
                },
                inferred: vec![
                    "ids",
                    "gpu_model",
                    "gpu_family",
                    "gpus_per_node",
                    "billing",
                    "price",
                    "images",
                ],
            });
        }
    }
    offerings
}

/// E2E's part of resolving a request: a node type (`sku_id`), its price plan
/// (`sku_item_price_id`) and a deployment image fix the GPU, the billing and the stack, and a
/// create takes those ids and a node count.
#[derive(Debug)]
pub(crate) struct Rules;

impl CatalogRules for Rules {
    fn provider(&self) -> ProviderKind {
        PROVIDER
    }

    fn needs_catalog(&self, spec: &ClusterSpec) -> bool {
        spec.options
            .e2e
            .as_ref()
            .is_none_or(|o| o.sku_id == 0 || o.sku_item_price_id == 0 || o.image_version_id == 0)
    }

    fn completes(&self, spec: &ClusterSpec, offering: &Offering) -> Result<(), String> {
        let OfferingIds::E2e {
            sku_id,
            sku_item_price_id,
        } = &offering.ids
        else {
            return Err("is not an E2E plan".into());
        };
        let given = spec.options.e2e.clone().unwrap_or_default();
        if (given.sku_id != 0 && given.sku_id != *sku_id)
            || (given.sku_item_price_id != 0 && given.sku_item_price_id != *sku_item_price_id)
        {
            return Err("is another SKU or plan than the one given".into());
        }
        if given.image_version_id == 0 && image_for(spec.stack, offering).is_none() {
            return Err("has no image for that stack".into());
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
        let OfferingIds::E2e {
            sku_id,
            sku_item_price_id,
        } = &offering.ids
        else {
            return Err("is not an E2E plan".into());
        };
        let spec = fill.asked;
        let mut options = spec.options.e2e.clone().unwrap_or_default();
        if options.sku_id == 0 {
            fill.choose(
                "sku_id",
                sku_id.to_string(),
                format!(
                    "{} nodes{ranked}",
                    offering.gpu_model.as_deref().unwrap_or("CPU")
                ),
            );
            options.sku_id = *sku_id;
        }
        if options.sku_item_price_id == 0 {
            let kind = match offering.billing.first() {
                Some(BillingKind::Reserved { .. }) => "committed",
                _ => "hourly",
            };
            fill.choose(
                "sku_item_price_id",
                sku_item_price_id.to_string(),
                format!(
                    "the {kind} plan in {}",
                    offering.region.as_deref().unwrap_or("?")
                ),
            );
            options.sku_item_price_id = *sku_item_price_id;
        }
        if options.image_version_id == 0 {
            let image = image_for(spec.stack, offering).ok_or("has no image for that stack")?;
            fill.choose(
                "image_version_id",
                image.id.to_string(),
                format!("the newest {:?} image ({})", image.stack, image.name),
            );
            options.image_version_id = image.id;
        }
        if let ClusterSize::Gpus(gpus) = spec.size {
            fill.choose("no_of_nodes", nodes.to_string(), format!("{gpus} GPUs"));
        }
        fill.spec.options.e2e = Some(options);
        // The SKU, plan and image fix them; E2E's create takes none of them.
        fill.spec.gpu_model = None;
        fill.spec.stack = None;
        fill.spec.billing = Billing::OnDemand;
        fill.spec.size = ClusterSize::Nodes(nodes);
        Ok(())
    }
}

/// The image for `stack` (Slurm when none is asked), newest first.
fn image_for(stack: Option<SoftwareStack>, offering: &Offering) -> Option<&Image> {
    let stack = stack.unwrap_or(SoftwareStack::Slurm);
    offering.images.iter().find(|i| i.stack == stack)
}
