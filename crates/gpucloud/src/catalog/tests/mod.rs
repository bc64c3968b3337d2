//! Decoding each provider's catalog (with and without the inferred fields) and every
//! resolution rule, on catalogs built from provider-shaped JSON: the catalogs here, the
//! decoding in `decode.rs`, resolution in `resolution.rs`, and in `bounds.rs` the edges of
//! both: ids and counts that must be positive, prices that must not be negative, and each of
//! the conditions a provider's rules combine.

use serde_json::json;

use super::*;
use crate::error::Error;
use crate::providers::{e2e, runcrate, together};
use crate::spec::ClusterSpec;

mod bounds;
mod decode;
mod resolution;

/// Resolves `spec` by `provider`'s catalog rules (its profile's).
fn resolve(
    provider: ProviderKind,
    spec: &ClusterSpec,
    catalog: &[Offering],
    constraints: &Constraints,
) -> Result<Resolution, Error> {
    super::resolve(provider.profile().catalog, spec, catalog, constraints)
}

/// Whether `spec` needs `provider`'s catalog.
fn needs_catalog(provider: ProviderKind, spec: &ClusterSpec) -> bool {
    provider.profile().catalog.needs_catalog(spec)
}

pub(super) fn together_catalog() -> Vec<Offering> {
    let answer = serde_json::from_value(json!({"regions": [
        {"name": "us-central-8", "supported_instance_types": ["H100_SXM", "H200_SXM"],
         "driver_versions": [
            {"id": "cuda-12.6-driver-565", "cuda_version": "12.6", "nvidia_driver_version": "565"},
            {"id": "cuda-12.8-driver-570", "cuda_version": "12.8", "nvidia_driver_version": "570"},
            {"cuda_version": "13.0"}
         ]},
        {"name": "us-central-4", "supported_instance_types": ["H100_SXM", "L40_PCIE"],
         "driver_versions": [
            {"id": "cuda-12.10-driver-580", "cuda_version": "12.10", "nvidia_driver_version": "580"}
         ]},
        {"name": "empty"}
    ]}))
    .unwrap();
    together::catalog::offerings(answer)
}

pub(super) fn runcrate_catalog() -> Vec<Offering> {
    let offers = serde_json::from_value(json!([
        {"id": "offer-h100-b", "gpu_type": "H100 80GB SXM", "gpus_per_node": 8,
         "hourly_rate_per_node": 23.92, "location": "Dallas, TX",
         "min_nodes": 2, "max_nodes": 64, "stacks": ["none", "slurm", "kubernetes", "ray"]},
        {"id": "offer-h100-a", "gpu_type": "H100 80GB SXM", "gpus_per_node": 8,
         "hourly_rate_per_node": 23.92, "location": "Helsinki",
         "min_nodes": 2, "max_nodes": 8, "stacks": ["slurm"]},
        {"id": "offer-h100-cheap", "gpu_type": "H100 80GB PCIe", "gpus_per_node": 4,
         "hourly_rate_per_node": 9.5, "min_nodes": 2, "max_nodes": 8, "host_tier": "datacenter",
         "allowed_node_counts": [2, 4, 8], "stacks": ["none", "ray"]},
        // Only the documented fields: no id, so nothing to create from.
        {"min_nodes": 1, "max_nodes": 2, "stacks": ["none"]},
        // An id and nothing else inferred.
        {"id": "offer-bare", "min_nodes": 1, "max_nodes": 4, "stacks": ["future-stack"]},
        {"id": "offer-h100-community", "gpu_type": "H100 80GB PCIe", "gpus_per_node": 4,
         "hourly_rate_per_node": 1.0, "min_nodes": 1, "max_nodes": 8, "host_tier": "community"}
    ]))
    .unwrap();
    runcrate::catalog::offerings(offers)
}

pub(super) fn e2e_catalog() -> Vec<Offering> {
    let plans: Vec<serde_json::Map<String, serde_json::Value>> = serde_json::from_value(json!([
        {"sku_id": 139, "name": "C3.32GB", "gpu": 0, "plans": [
            {"sku_item_price_id": 645, "sku_type": "hourly", "unit_price": 12.3,
             "currency": "INR", "location": "Delhi"}]},
        {"sku_id": 201, "name": "GDC3.8xH100-80", "gpu": 8, "gpu_card_type": "H100", "plans": [
            {"sku_item_price_id": 811, "sku_type": "hourly", "unit_price": 2040.0,
             "currency": "INR", "location": "Delhi"},
            {"sku_item_price_id": 812, "sku_type": "committed", "committed_days": 30,
             "unit_price": 1250000.0, "currency": "INR", "location": "Delhi"},
            {"sku_item_price_id": 821, "sku_type": "hourly", "unit_price": 1980.0,
             "location": "Chennai"}]},
        {"name": "no id", "plans": [{"sku_item_price_id": 1}]},
        {"sku_id": 300, "gpu": 8, "gpu_card_type": "H200", "plans": [
            {"sku_item_price_id": 901}, "not an object"]}
    ]))
    .unwrap();
    let images: Vec<serde_json::Map<String, serde_json::Value>> = serde_json::from_value(json!([
        {"name": "Ubuntu Slurm", "versions": [{"id": 2, "version": "v2"}, {"id": 5, "version": "v3"}, {"version": "no id"}]}
    ]))
    .unwrap();
    let images = e2e::catalog::images(&images, SoftwareStack::Slurm);
    e2e::catalog::offerings(&plans, "Delhi", &images)
}
