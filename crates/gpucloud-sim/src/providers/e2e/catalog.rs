//! What E2E's plans and images endpoints list, and what a create may name: node types (SKUs)
//! with their region-specific price plans, and image versions. The CPU SKU and its Delhi plan
//! are the docs' own example (sku 139, plan 645, image version 2); the rest is illustrative
//! (8×H100 as SKU 201, 8×H200 as SKU 202, hourly in Delhi and Chennai, prices in INR per node
//! and hour of the order E2E lists).

use serde_json::{Value, json};

#[derive(Debug)]
pub(crate) struct Plan {
    pub(crate) id: i64,
    pub(crate) location: &'static str,
    pub(crate) sku_type: &'static str,
    pub(crate) committed_days: i64,
    /// INR per node per hour (or per commitment).
    pub(crate) unit_price: f64,
}

#[derive(Debug)]
pub(crate) struct Sku {
    pub(crate) id: i64,
    pub(crate) name: &'static str,
    pub(crate) series: &'static str,
    pub(crate) cpu: i64,
    pub(crate) gpu: i64,
    pub(crate) memory: i64,
    pub(crate) gpu_memory: i64,
    pub(crate) gpu_card_type: Option<&'static str>,
    pub(crate) sku_type: &'static str,
    pub(crate) plans: &'static [Plan],
}

#[derive(Debug)]
pub(crate) struct Image {
    pub(crate) id: i64,
    pub(crate) version: &'static str,
    pub(crate) name: &'static str,
    pub(crate) slug_name: &'static str,
    pub(crate) framework: &'static str,
}

pub(crate) const SKUS: &[Sku] = &[
    Sku {
        id: 139,
        name: "C3.32GB",
        series: "CPU",
        cpu: 8,
        gpu: 0,
        memory: 32,
        gpu_memory: 0,
        gpu_card_type: None,
        sku_type: "C3-250GB",
        plans: &[
            Plan {
                id: 645,
                location: "Delhi",
                sku_type: "hourly",
                committed_days: 0,
                unit_price: 12.3,
            },
            Plan {
                id: 646,
                location: "Chennai",
                sku_type: "hourly",
                committed_days: 0,
                unit_price: 12.3,
            },
        ],
    },
    Sku {
        id: 201,
        name: "GDC3.8xH100-80",
        series: "GPU",
        cpu: 192,
        gpu: 8,
        memory: 1800,
        gpu_memory: 640,
        gpu_card_type: Some("H100"),
        sku_type: "GDC3-8xH100",
        plans: &[
            Plan {
                id: 811,
                location: "Delhi",
                sku_type: "hourly",
                committed_days: 0,
                unit_price: 2040.0,
            },
            Plan {
                id: 812,
                location: "Delhi",
                sku_type: "committed",
                committed_days: 30,
                unit_price: 1_250_000.0,
            },
            Plan {
                id: 821,
                location: "Chennai",
                sku_type: "hourly",
                committed_days: 0,
                unit_price: 1980.0,
            },
        ],
    },
    Sku {
        id: 202,
        name: "GDC3.8xH200-141",
        series: "GPU",
        cpu: 192,
        gpu: 8,
        memory: 2048,
        gpu_memory: 1128,
        gpu_card_type: Some("H200"),
        sku_type: "GDC3-8xH200",
        plans: &[
            Plan {
                id: 831,
                location: "Delhi",
                sku_type: "hourly",
                committed_days: 0,
                unit_price: 2400.0,
            },
            Plan {
                id: 841,
                location: "Chennai",
                sku_type: "hourly",
                committed_days: 0,
                unit_price: 2350.0,
            },
        ],
    },
];

pub(crate) const IMAGES: &[Image] = &[
    Image {
        id: 2,
        version: "v2-slurm25.11-ubuntu24.04",
        name: "Ubuntu Slurm",
        slug_name: "ubuntu-slurm",
        framework: "Slurm",
    },
    Image {
        id: 3,
        version: "v2-nemo25.04-slurm25.11",
        name: "NeMo",
        slug_name: "nemo",
        framework: "NeMo",
    },
];

pub(crate) fn sku(id: i64) -> Option<&'static Sku> {
    SKUS.iter().find(|s| s.id == id)
}

pub(crate) fn image(id: i64) -> Option<&'static Image> {
    IMAGES.iter().find(|i| i.id == id)
}

impl Sku {
    pub(crate) fn plan(&self, id: i64) -> Option<&'static Plan> {
        self.plans.iter().find(|p| p.id == id)
    }

    pub(crate) fn specs(&self, nodes: i64) -> Value {
        json!({
            "sku_id": self.id, "name": self.name, "series": self.series, "cpu": self.cpu,
            "gpu": self.gpu, "memory": self.memory, "ephemeral_storage": 0,
            "gpu_memory": self.gpu_memory, "is_free": false, "is_active": true,
            "local_storage_in_gb": 0, "sku_type": self.sku_type,
            "gpu_card_type": self.gpu_card_type, "category": "distributed_job",
            "variant": "e2e", "no_of_nodes": nodes,
        })
    }
}

impl Plan {
    pub(crate) fn render(&self) -> Value {
        json!({
            "sku_item_price_id": self.id, "sku_type": self.sku_type,
            "committed_days": self.committed_days, "unit_price": self.unit_price,
            "currency": "INR", "is_active": true, "description": null,
            "location": self.location,
        })
    }
}

impl Image {
    pub(crate) fn render(&self) -> Value {
        json!({
            "id": self.id, "version": self.version, "description": "", "tags": [],
            "name": self.name, "slug_name": self.slug_name, "framework": self.framework,
            "is_internal": false,
        })
    }
}

/// The `list_plans` items for `location`: each SKU with its plans there.
pub(crate) fn plans(location: &str) -> Vec<Value> {
    SKUS.iter()
        .map(|sku| {
            let mut item = sku.specs(1);
            item["plans"] = json!(
                sku.plans
                    .iter()
                    .filter(|p| p.location == location)
                    .map(Plan::render)
                    .collect::<Vec<_>>()
            );
            item
        })
        .collect()
}

/// The `list_images` items for a framework (by framework name or slug, any case).
pub(crate) fn images(framework: &str) -> Vec<Value> {
    IMAGES
        .iter()
        .filter(|i| {
            i.framework.eq_ignore_ascii_case(framework)
                || i.slug_name.eq_ignore_ascii_case(framework)
        })
        .map(|i| {
            json!({
                "name": i.name, "slug_name": i.slug_name, "framework": i.framework,
                "versions": [i.render()],
            })
        })
        .collect()
}
