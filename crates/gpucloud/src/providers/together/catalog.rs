//! Together's catalog: `GET /compute/regions`, one [`Offering`] per region and GPU type.

use gpucloud_together::types;

use super::PROVIDER;
use crate::catalog::{BillingKind, DriverVersion, NodeLimits, Offering, OfferingIds, gpu_family};
use crate::spec::SoftwareStack;

/// GPUs per node on Together: its clusters are sized in multiples of 8 GPUs, one 8-GPU node
/// each (the regions answer does not say; the multiple-of-8 rule of `num_gpus` does).
pub(crate) const GPUS_PER_NODE: u32 = 8;

/// The offerings of a `list_regions` answer.
pub(crate) fn offerings(answer: types::RegionListResponse) -> Vec<Offering> {
    let mut offerings = Vec::new();
    for region in answer.regions {
        let mut drivers: Vec<DriverVersion> = region
            .driver_versions
            .iter()
            .filter_map(|d| {
                Some(DriverVersion {
                    id: d.id.clone().filter(|id| !id.is_empty())?,
                    cuda_version: d.cuda_version.clone(),
                    driver_version: d.nvidia_driver_version.clone(),
                    os: d.os.clone(),
                })
            })
            .collect();
        drivers.sort_by(newest_first);
        for gpu_type in &region.supported_instance_types {
            offerings.push(Offering {
                provider: PROVIDER,
                region: Some(region.name.clone()),
                gpu_model: Some(gpu_type.clone()),
                gpu_family: gpu_family(gpu_type).map(str::to_string),
                gpus_per_node: Some(GPUS_PER_NODE),
                nodes: NodeLimits {
                    min: Some(1),
                    ..NodeLimits::default()
                },
                stacks: vec![SoftwareStack::Kubernetes, SoftwareStack::Slurm],
                drivers: drivers.clone(),
                images: Vec::new(),
                billing: vec![BillingKind::OnDemand, BillingKind::Reserved { days: None }],
                price: None,
                community_host: false,
                ids: OfferingIds::Together {
                    region: region.name.clone(),
                    gpu_type: gpu_type.clone(),
                },
                inferred: vec!["gpus_per_node"],
            });
        }
    }
    offerings
}

/// Orders driver entries newest first: by CUDA version, then driver version, numerically
/// (`12.10` after `12.8`), then id.
pub(crate) fn newest_first(a: &DriverVersion, b: &DriverVersion) -> std::cmp::Ordering {
    let key = |d: &DriverVersion| {
        (
            version(d.cuda_version.as_deref()),
            version(d.driver_version.as_deref()),
        )
    };
    key(b).cmp(&key(a)).then_with(|| a.id.cmp(&b.id))
}

/// `12.8.1` → `[12, 8, 1]`; parts that are not numbers count as 0.
fn version(text: Option<&str>) -> Vec<u64> {
    text.unwrap_or("")
        .split(|c: char| !c.is_ascii_digit())
        .filter(|p| !p.is_empty())
        .map(|p| p.parse().unwrap_or(0))
        .collect()
}
