//! Together's capacity, per (region, GPU type) in GPUs, and its refusal. Together documents no
//! error for a create it cannot place, so the answer is our choice: a 400 in Together's common
//! error object (`{error: {message, type, param, code}}`, the one its gateway and other APIs
//! send) with `code: insufficient_capacity`, which the facade reads as no capacity.

use std::time::Duration;

use serde_json::json;

use super::State;
use super::catalog::REGIONS;
use crate::capacity::{self, CapacityUnit, Offering, OfferingKey, TOGETHER_DEFAULT_GPUS};
use crate::reply::Reply;

/// The machine-readable code of the refusal.
pub(crate) const INSUFFICIENT_CAPACITY: &str = "insufficient_capacity";

impl State {
    /// GPUs of that type in that region held by clusters that are not gone: a cluster holds
    /// its current `num_gpus` (a resize changes it at once) until its `Deleting` is over.
    fn gpus_in_use(&self, region: &str, gpu_type: &str, now: Duration) -> u64 {
        self.clusters
            .iter()
            .filter(|c| c.region == region && c.gpu_type == gpu_type && !c.gone(now))
            .map(|c| u64::try_from(c.num_gpus).unwrap_or(0))
            .sum()
    }

    fn gpus_total(&self, region: &str, gpu_type: &str) -> u32 {
        self.capacity
            .get(&(region.to_string(), gpu_type.to_string()))
            .copied()
            .unwrap_or(TOGETHER_DEFAULT_GPUS)
    }

    /// GPUs a create or a resize may still take.
    pub(crate) fn gpus_available(&self, region: &str, gpu_type: &str, now: Duration) -> u32 {
        capacity::available(
            self.gpus_total(region, gpu_type),
            self.gpus_in_use(region, gpu_type, now),
        )
    }

    /// Every GPU type of every region, as the capacity API lists them.
    pub(crate) fn offerings(&self, now: Duration) -> Vec<Offering> {
        REGIONS
            .iter()
            .flat_map(|region| region.gpu_types.iter().map(move |gpu| (region.name, *gpu)))
            .map(|(region, gpu)| Offering {
                key: OfferingKey::Together {
                    region: region.to_string(),
                    gpu_type: gpu.to_string(),
                },
                gpu_model: gpu.to_string(),
                family: capacity::gpu_family(gpu),
                unit: CapacityUnit::Gpus,
                available: self.gpus_available(region, gpu, now),
                in_use: capacity::count(self.gpus_in_use(region, gpu, now)),
            })
            .collect()
    }

    pub(crate) fn set_total(&mut self, region: &str, gpu_type: &str, total: u32) {
        self.capacity
            .insert((region.to_string(), gpu_type.to_string()), total);
    }

    pub(crate) fn reset_capacity(&mut self) {
        self.capacity.clear();
    }
}

/// Ok when `wanted` GPUs (or `wanted` more, for a resize; a shrink always fits) fit in
/// `available`; else the 400.
pub(crate) fn fits(
    wanted: i64,
    available: u32,
    more: bool,
    gpu_type: &str,
    region: &str,
) -> Result<(), Reply> {
    if wanted <= i64::from(available) {
        return Ok(());
    }
    let more = if more { " more" } else { "" };
    Err(Reply::json(
        400,
        json!({"error": {
            "message": format!("no capacity for {wanted}{more} {gpu_type} GPUs in {region} ({available} available)"),
            "type": "invalid_request_error",
            "param": "num_gpus",
            "code": INSUFFICIENT_CAPACITY,
        }}),
    ))
}
