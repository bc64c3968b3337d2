//! The offers `GET /clusters/offers` lists. An offer fixes machine type, host and price, and
//! says which node counts and stacks it accepts (the docs name `min_nodes`, `max_nodes`,
//! `allowed_node_counts` and `stacks`; the other fields are kept as additional properties).
//! `offer-fail` always fails to start, to show Runcrate's all-or-nothing provisioning.

use serde_json::{Value, json};

#[derive(Debug)]
pub(crate) struct Offer {
    pub(crate) id: &'static str,
    pub(crate) gpu_type: &'static str,
    pub(crate) gpus_per_node: i64,
    /// US dollars per machine per hour.
    pub(crate) hourly_rate_per_node: f64,
    pub(crate) location: &'static str,
    pub(crate) country_code: &'static str,
    pub(crate) host_tier: &'static str,
    pub(crate) deployment_type: &'static str,
    /// (kind, label, Gbit/s)
    pub(crate) interconnect: (&'static str, &'static str, f64),
    pub(crate) min_nodes: i64,
    pub(crate) max_nodes: i64,
    pub(crate) allowed_node_counts: Option<&'static [i64]>,
    pub(crate) stacks: &'static [&'static str],
    pub(crate) accepts_volume: bool,
    /// Provisioning always fails (all-or-nothing: no machine is kept, nothing is billed).
    pub(crate) fails: bool,
}

const ALL_STACKS: &[&str] = &["none", "slurm", "kubernetes", "ray"];

pub(crate) const OFFERS: &[Offer] = &[
    Offer {
        id: "offer-h100-sxm-8x",
        gpu_type: "H100 80GB SXM",
        gpus_per_node: 8,
        hourly_rate_per_node: 23.92,
        location: "Dallas, TX",
        country_code: "US",
        host_tier: "datacenter",
        deployment_type: "vm",
        interconnect: ("infiniband", "InfiniBand NDR 8×400", 3200.0),
        min_nodes: 2,
        max_nodes: 64,
        allowed_node_counts: None,
        stacks: ALL_STACKS,
        accepts_volume: true,
        fails: false,
    },
    Offer {
        id: "offer-h200-sxm-8x",
        gpu_type: "H200 141GB SXM",
        gpus_per_node: 8,
        hourly_rate_per_node: 31.92,
        location: "Kansas City, MO",
        country_code: "US",
        host_tier: "datacenter",
        deployment_type: "vm",
        interconnect: ("infiniband", "InfiniBand NDR 8×400", 3200.0),
        min_nodes: 2,
        max_nodes: 32,
        allowed_node_counts: None,
        stacks: ALL_STACKS,
        accepts_volume: true,
        fails: false,
    },
    Offer {
        id: "offer-b200-8x",
        gpu_type: "B200 180GB SXM",
        gpus_per_node: 8,
        hourly_rate_per_node: 47.6,
        location: "Helsinki",
        country_code: "FI",
        host_tier: "datacenter",
        deployment_type: "vm",
        interconnect: ("infiniband", "InfiniBand XDR 8×800", 6400.0),
        min_nodes: 2,
        max_nodes: 16,
        allowed_node_counts: None,
        stacks: &["none", "slurm", "kubernetes"],
        accepts_volume: true,
        fails: false,
    },
    Offer {
        id: "offer-a100-pcie-4x-community",
        gpu_type: "A100 80GB PCIe",
        gpus_per_node: 4,
        hourly_rate_per_node: 6.0,
        location: "Warsaw",
        country_code: "PL",
        host_tier: "community",
        deployment_type: "container",
        interconnect: ("ethernet", "Ethernet 100G", 100.0),
        min_nodes: 2,
        max_nodes: 8,
        allowed_node_counts: Some(&[2, 4, 8]),
        stacks: &["none", "ray"],
        accepts_volume: false,
        fails: false,
    },
    Offer {
        id: "offer-fail",
        gpu_type: "H100 80GB SXM",
        gpus_per_node: 8,
        // Dearer than the working H100 offer, so that resolving "H100, cheapest first"
        // never lands on the offer that always fails.
        hourly_rate_per_node: 95.68,
        location: "Nowhere, NV",
        country_code: "US",
        host_tier: "datacenter",
        deployment_type: "vm",
        interconnect: ("infiniband", "InfiniBand NDR 8×400", 3200.0),
        min_nodes: 2,
        max_nodes: 64,
        allowed_node_counts: None,
        stacks: ALL_STACKS,
        accepts_volume: true,
        fails: true,
    },
];

pub(crate) fn offer(id: &str) -> Option<&'static Offer> {
    OFFERS.iter().find(|o| o.id == id)
}

impl Offer {
    pub(crate) fn render(&self) -> Value {
        json!({
            "id": self.id,
            "gpu_type": self.gpu_type,
            "gpus_per_node": self.gpus_per_node,
            "hourly_rate_per_node": self.hourly_rate_per_node,
            "location": self.location,
            "country_code": self.country_code,
            "host_tier": self.host_tier,
            "deployment_type": self.deployment_type,
            "interconnect": {"kind": self.interconnect.0, "label": self.interconnect.1, "rate_gbps": self.interconnect.2},
            "min_nodes": self.min_nodes,
            "max_nodes": self.max_nodes,
            "allowed_node_counts": self.allowed_node_counts,
            "stacks": self.stacks,
            "volume": self.accepts_volume,
            "note": self.fails.then_some("simulator: this offer always fails to start"),
        })
    }
}

/// The body of `list_offers`; `volume=true` keeps only offers that take a storage volume.
pub(crate) fn list(volume_only: bool) -> Value {
    let offers: Vec<Value> = OFFERS
        .iter()
        .filter(|o| !volume_only || o.accepts_volume)
        .map(Offer::render)
        .collect();
    json!({ "data": offers })
}
