//! E2E's capacity, per (node type, location) in nodes, for the GPU node types (CPU nodes are
//! not limited), and its refusal. E2E documents no answer for a create it cannot place, so
//! ours is a choice: a 400 in the envelope of its other 400s, `{code, errors, message}`, with
//! no field to blame and a message starting `Insufficient capacity`, which the facade reads
//! as no capacity.

use std::time::Duration;

use serde_json::json;

use super::State;
use super::catalog::{SKUS, Sku};
use super::errors;
use crate::capacity::{self, CapacityUnit, E2E_DEFAULT_NODES, Offering, OfferingKey};
use crate::reply::Reply;

impl State {
    /// Nodes of the SKU in the location held by clusters that are not gone (a deleted cluster
    /// holds them while it shows `Deleting`).
    fn nodes_in_use(&self, sku_id: i64, location: &str, now: Duration) -> u64 {
        self.clusters
            .iter()
            .filter(|c| c.sku.id == sku_id && c.location == location && !c.gone(now))
            .map(|c| c.workers.len() as u64)
            .sum()
    }

    /// Nodes a create or a scale may still take; unlimited for a CPU node type.
    pub(crate) fn nodes_available(&self, sku: &Sku, location: &str, now: Duration) -> u32 {
        if sku.gpu_card_type.is_none() {
            return u32::MAX;
        }
        let total = self
            .capacity
            .get(&(sku.id, location.to_string()))
            .copied()
            .unwrap_or(E2E_DEFAULT_NODES);
        capacity::available(total, self.nodes_in_use(sku.id, location, now))
    }

    /// Every GPU node type in every location it has a plan in, as the capacity API lists them.
    pub(crate) fn offerings(&self, now: Duration) -> Vec<Offering> {
        let mut offerings = Vec::new();
        for sku in SKUS {
            let Some(card) = sku.gpu_card_type else {
                continue;
            };
            let mut locations: Vec<&str> = Vec::new();
            for plan in sku.plans {
                if !locations.contains(&plan.location) {
                    locations.push(plan.location);
                }
            }
            for location in locations {
                offerings.push(Offering {
                    key: OfferingKey::E2e {
                        sku_id: sku.id,
                        location: location.to_string(),
                    },
                    gpu_model: card.to_string(),
                    family: capacity::gpu_family(card),
                    unit: CapacityUnit::Nodes,
                    available: self.nodes_available(sku, location, now),
                    in_use: capacity::count(self.nodes_in_use(sku.id, location, now)),
                });
            }
        }
        offerings
    }

    pub(crate) fn set_total(&mut self, sku_id: i64, location: &str, total: u32) {
        self.capacity.insert((sku_id, location.to_string()), total);
    }

    pub(crate) fn reset_capacity(&mut self) {
        self.capacity.clear();
    }
}

/// Ok when `wanted` nodes (or `wanted` more, for a scale) of `sku` fit in `available`; else
/// the 400.
pub(crate) fn fits(
    sku: &Sku,
    location: &str,
    wanted: i64,
    more: bool,
    available: u32,
) -> Result<(), Reply> {
    if wanted <= i64::from(available) {
        return Ok(());
    }
    let more = if more { " more" } else { "" };
    Err(errors::error(
        400,
        json!({}),
        format!(
            "Insufficient capacity: {wanted}{more} nodes of {} requested in {location}, {available} available.",
            sku.name
        ),
    ))
}
