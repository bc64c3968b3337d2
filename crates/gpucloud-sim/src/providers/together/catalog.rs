//! Together's regions as `GET /compute/regions` lists them: the GPU types each offers and its
//! NVIDIA software catalog. Names and ids follow the forms in Together's docs and SDK examples
//! (`us-central-8`, `cuda-12.8-driver-570`); the contents are illustrative.

use serde_json::{Value, json};

/// One NVIDIA software entry of a region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Driver {
    pub(crate) id: &'static str,
    pub(crate) cuda_version: &'static str,
    pub(crate) nvidia_driver_version: &'static str,
    pub(crate) os: &'static str,
}

/// One region.
#[derive(Debug)]
pub(crate) struct Region {
    pub(crate) name: &'static str,
    pub(crate) gpu_types: &'static [&'static str],
    /// The first entry is the default when a create names none.
    pub(crate) drivers: &'static [Driver],
}

const CUDA_128: Driver = Driver {
    id: "cuda-12.8-driver-570",
    cuda_version: "12.8",
    nvidia_driver_version: "570",
    os: "ubuntu-22.04",
};
const CUDA_126: Driver = Driver {
    id: "cuda-12.6-driver-565",
    cuda_version: "12.6",
    nvidia_driver_version: "565",
    os: "ubuntu-22.04",
};
const CUDA_125: Driver = Driver {
    id: "cuda-12.5-driver-555",
    cuda_version: "12.5",
    nvidia_driver_version: "555",
    os: "ubuntu-22.04",
};

pub(crate) const REGIONS: &[Region] = &[
    Region {
        name: "us-central-8",
        gpu_types: &["H100_SXM", "H200_SXM", "B200_SXM", "B300_SXM"],
        drivers: &[CUDA_128, CUDA_126],
    },
    Region {
        name: "us-central-4",
        gpu_types: &["H100_SXM", "H100_SXM_INF", "L40_PCIE", "RTX_6000_PCI"],
        drivers: &[CUDA_126, CUDA_125],
    },
    // A European region offering both Hopper parts, for placements that must stay in the EU.
    Region {
        name: "eu-north-1",
        gpu_types: &["H100_SXM", "H200_SXM"],
        drivers: &[CUDA_128],
    },
];

pub(crate) fn region(name: &str) -> Option<&'static Region> {
    REGIONS.iter().find(|r| r.name == name)
}

/// A GPU worker node's shape for a GPU type: (CPU cores, memory GiB, InfiniBand HCAs).
pub(crate) fn node_shape(gpu_type: &str) -> (i64, f64, i64) {
    match gpu_type {
        "L40_PCIE" | "RTX_6000_PCI" => (64, 512.0, 0),
        "B200_SXM" | "B300_SXM" => (224, 2048.0, 8),
        _ => (192, 1800.0, 8),
    }
}

/// The body of `list_regions`.
pub(crate) fn regions_body() -> Value {
    let regions: Vec<Value> = REGIONS
        .iter()
        .map(|r| {
            json!({
                "name": r.name,
                "supported_instance_types": r.gpu_types,
                "driver_versions": r.drivers.iter().map(|d| json!({
                    "id": d.id,
                    "cuda_version": d.cuda_version,
                    "nvidia_driver_version": d.nvidia_driver_version,
                    "os": d.os,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({ "regions": regions })
}
