//! Runcrate's capacity, per offer in machines, and its refusal: the docs give 503 to a create
//! "refused for no capacity before anything was created", in the usual error envelope, with
//! the code `launch_refused`. Runcrate documents no delete, so machines come back only when an
//! all-or-nothing start fails and releases them.

use std::time::Duration;

use serde_json::json;

use super::State;
use super::errors;
use super::offers::{OFFERS, Offer};
use crate::capacity::{self, CapacityUnit, Offering, OfferingKey, RUNCRATE_DEFAULT_NODES};
use crate::reply::Reply;

impl State {
    /// Machines of the offer held by clusters whose start has not failed.
    fn machines_in_use(&self, offer_id: &str, now: Duration) -> u64 {
        self.clusters
            .iter()
            .filter(|c| c.offer.id == offer_id && c.holds_machines(now))
            .map(|c| c.machines.len() as u64)
            .sum()
    }

    /// Machines a create may still take from the offer.
    pub(crate) fn machines_available(&self, offer_id: &str, now: Duration) -> u32 {
        let total = self
            .capacity
            .get(offer_id)
            .copied()
            .unwrap_or(RUNCRATE_DEFAULT_NODES);
        capacity::available(total, self.machines_in_use(offer_id, now))
    }

    /// Every offer, as the capacity API lists them.
    pub(crate) fn offerings(&self, now: Duration) -> Vec<Offering> {
        OFFERS
            .iter()
            .map(|offer| Offering {
                key: OfferingKey::Runcrate {
                    offer_id: offer.id.to_string(),
                },
                gpu_model: offer.gpu_type.to_string(),
                family: capacity::gpu_family(offer.gpu_type),
                unit: CapacityUnit::Nodes,
                available: self.machines_available(offer.id, now),
                in_use: capacity::count(self.machines_in_use(offer.id, now)),
            })
            .collect()
    }

    pub(crate) fn set_total(&mut self, offer_id: &str, total: u32) {
        if let Some(offer) = OFFERS.iter().find(|o| o.id == offer_id) {
            self.capacity.insert(offer.id, total);
        }
    }

    pub(crate) fn reset_capacity(&mut self) {
        self.capacity.clear();
    }
}

/// Ok when `wanted` machines of `offer` fit in `available`; else the 503.
pub(crate) fn fits(offer: &Offer, wanted: i64, available: u32) -> Result<(), Reply> {
    if wanted <= i64::from(available) {
        return Ok(());
    }
    Err(errors::error(
        503,
        "launch_refused",
        format!(
            "No capacity for {wanted} × {} machines on offer {} ({available} available); nothing was created.",
            offer.gpu_type, offer.id
        ),
        json!({
            "reason": "insufficient_capacity",
            "offer_id": offer.id,
            "requested_nodes": wanted,
            "available_nodes": available,
        }),
    ))
}
