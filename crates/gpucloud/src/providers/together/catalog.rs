//! Together's catalog: `GET /compute/regions`, one [`Offering`] per region and GPU type, and
//! its [`CatalogRules`] for resolving a request against them.

use gpucloud_together::types;

use super::PROVIDER;
use crate::catalog::{
    BillingKind, CatalogRules, DriverVersion, Fill, NodeLimits, Offering, OfferingIds, gpu_family,
};
use crate::cluster::ProviderKind;
use crate::spec::{ClusterSize, ClusterSpec, SoftwareStack};

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

/// Together's part of resolving a request: a region, a GPU type in Together's own word, a size
/// in GPUs and a driver entry are what its create needs.
#[derive(Debug)]
pub(crate) struct Rules;

impl CatalogRules for Rules {
    fn provider(&self) -> ProviderKind {
        PROVIDER
    }

    fn needs_catalog(&self, spec: &ClusterSpec) -> bool {
        spec.region.is_none()
            || spec.gpu_model.as_deref().is_none_or(is_family)
            || matches!(spec.size, ClusterSize::Nodes(_))
            || !driver_given(spec)
    }

    fn without_gpu_model(&self) -> Result<(), String> {
        Err("Together needs a GPU model".into())
    }

    /// A GPU count is a positive multiple of 8, as for a resize (nodes become GPUs through
    /// the offering).
    fn check_size(&self, spec: &ClusterSpec) -> Result<(), crate::error::Error> {
        match spec.size {
            ClusterSize::Gpus(_) => super::request::resize_gpus(spec.size).map(drop),
            ClusterSize::Nodes(_) => Ok(()),
        }
    }

    fn completes(&self, spec: &ClusterSpec, offering: &Offering) -> Result<(), String> {
        match driver_for(spec, offering) {
            Some(_) => Ok(()),
            None => Err("has no matching NVIDIA driver entry".into()),
        }
    }

    fn fill(
        &self,
        offering: &Offering,
        _nodes: u32,
        ranked: &str,
        fill: &mut Fill<'_>,
    ) -> Result<(), String> {
        let OfferingIds::Together { region, gpu_type } = &offering.ids else {
            return Err("is not a Together offering".into());
        };
        let spec = fill.asked;
        let mut options = spec.options.together.clone().unwrap_or_default();
        if spec.region.is_none() {
            fill.choose(
                "region",
                region.clone(),
                format!("offers {gpu_type}{ranked}"),
            );
        }
        if spec.gpu_model.as_deref() != Some(gpu_type.as_str()) {
            fill.choose(
                "gpu_type",
                gpu_type.clone(),
                format!("{region}'s {gpu_type}"),
            );
        }
        if let ClusterSize::Nodes(n) = spec.size {
            let per = offering.gpus_per_node.unwrap_or(1);
            let gpus = n.saturating_mul(per);
            fill.choose(
                "num_gpus",
                gpus.to_string(),
                format!("{n} nodes of {per} GPUs"),
            );
            fill.spec.size = ClusterSize::Gpus(gpus);
        }
        if !driver_given(spec) {
            let driver = driver_for(spec, offering)
                .ok_or("has no matching NVIDIA driver entry")?
                .id
                .clone();
            let why = match &options.cuda_version {
                Some(cuda) => format!("CUDA {cuda} in {region}"),
                None => format!("the newest driver entry in {region}"),
            };
            fill.choose("nvidia_version_id", driver.clone(), why);
            options.nvidia_version_id = Some(driver);
            options.cuda_version = None;
        }
        fill.spec.region = Some(region.clone());
        fill.spec.gpu_model = Some(gpu_type.clone());
        fill.spec.options.together = Some(options);
        Ok(())
    }
}

/// Whether the request names its driver entry: by id, or by CUDA and driver version together.
fn driver_given(spec: &ClusterSpec) -> bool {
    spec.options.together.as_ref().is_some_and(|options| {
        options.nvidia_version_id.is_some()
            || (options.cuda_version.is_some() && options.nvidia_driver_version.is_some())
    })
}

/// A GPU model word that is a family (`H100`), not Together's own word (`H100_SXM`).
fn is_family(model: &str) -> bool {
    gpu_family(model).is_some_and(|f| f.eq_ignore_ascii_case(model.trim()))
}

/// The driver entry for `spec` in `offering`: the requested CUDA version's, else the newest
/// (`drivers` is newest first). An explicit `nvidia_version_id` is kept as given.
fn driver_for<'a>(spec: &ClusterSpec, offering: &'a Offering) -> Option<&'a DriverVersion> {
    let cuda = spec
        .options
        .together
        .as_ref()
        .and_then(|options| options.cuda_version.as_deref());
    match cuda {
        Some(cuda) => offering.drivers.iter().find(|d| {
            d.cuda_version
                .as_deref()
                .is_some_and(|v| v == cuda || v.starts_with(&format!("{cuda}.")))
        }),
        None => offering.drivers.first(),
    }
}
