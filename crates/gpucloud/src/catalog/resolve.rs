//! From intent to ids: a [`ClusterSpec`] that names a GPU model (the provider's word or the
//! family), a size in GPUs or nodes and maybe a region, stack or billing kind is matched
//! against the provider's catalog, and the provider's catalog ids are filled in.
//!
//! Rules: ids given explicitly always win (a request that names them all needs no catalog);
//! a size in GPUs becomes a node count through the offering's GPUs per node; among the
//! offerings that fit, the one with the lowest known price for the whole cluster comes first,
//! offerings without a price after those with one, and ties go to the smallest id
//! ([`super::OfferingIds::label`]); Together's driver is the newest entry of the region, or
//! the one of the requested CUDA version; E2E's image is the newest of the stack (Slurm when
//! none is asked). No fit is [`Error::NoMatchingOffering`], listing what is available
//! nearby — never a request the provider would refuse.

use serde::Serialize;

use super::family::matches;
use super::{BillingKind, Offering, OfferingIds};
use crate::cluster::ProviderKind;
use crate::error::Error;
use crate::spec::{Billing, ClusterSize, ClusterSpec, SoftwareStack};

/// A request resolved against a catalog.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Resolution {
    /// The request with every catalog id filled in, as the provider's create takes it.
    pub spec: ClusterSpec,
    /// The offering chosen (`None` when the request named every id and needed no catalog).
    pub offering: Option<Offering>,
    /// What resolution filled in, and why.
    pub choices: Vec<Choice>,
}

/// One field resolution filled in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Choice {
    /// The provider's field (`region`, `nvidia_version_id`, `offer_id`, `sku_id`, …).
    pub field: &'static str,
    /// Its value.
    pub value: String,
    /// Why this value.
    pub why: String,
}

/// What a resolution may not exceed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Constraints {
    /// Skip offerings whose known price for the whole cluster is above this (an offering
    /// priced in another currency cannot be compared and is skipped too).
    pub max_price_per_hour: Option<PriceCeiling>,
}

/// A price per hour and its currency.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PriceCeiling {
    /// The amount per hour, for the whole cluster.
    pub amount: f64,
    /// ISO 4217 code (`USD`).
    pub currency: String,
}

/// Whether `spec` lacks ids only a catalog can supply for `provider`.
pub fn needs_catalog(provider: ProviderKind, spec: &ClusterSpec) -> bool {
    match provider {
        ProviderKind::Together => {
            let options = spec.options.together.clone().unwrap_or_default();
            let driver_given = options.nvidia_version_id.is_some()
                || (options.cuda_version.is_some() && options.nvidia_driver_version.is_some());
            spec.region.is_none()
                || spec.gpu_model.as_deref().is_none_or(is_family)
                || matches!(spec.size, ClusterSize::Nodes(_))
                || !driver_given
        }
        ProviderKind::Runcrate => spec
            .options
            .runcrate
            .as_ref()
            .is_none_or(|o| o.offer_id.trim().is_empty()),
        ProviderKind::E2e => {
            spec.options.e2e.as_ref().is_none_or(|o| {
                o.sku_id == 0 || o.sku_item_price_id == 0 || o.image_version_id == 0
            })
        }
    }
}

/// A GPU model word that is a family (`H100`), not a provider's own word (`H100_SXM`).
fn is_family(model: &str) -> bool {
    super::gpu_family(model).is_some_and(|f| f.eq_ignore_ascii_case(model.trim()))
}

/// Resolves `spec` for `provider` against `catalog` (see the module docs).
pub fn resolve(
    provider: ProviderKind,
    spec: &ClusterSpec,
    catalog: &[Offering],
    constraints: &Constraints,
) -> Result<Resolution, Error> {
    if !needs_catalog(provider, spec) {
        return Ok(Resolution {
            spec: spec.clone(),
            offering: None,
            choices: Vec::new(),
        });
    }
    let offerings: Vec<&Offering> = catalog.iter().filter(|o| o.provider == provider).collect();
    let mut fits = Vec::new();
    for offering in &offerings {
        if let Ok(nodes) = fit(provider, spec, offering, constraints) {
            fits.push((*offering, nodes));
        }
    }
    fits.sort_by(|(a, an), (b, bn)| {
        let price = |o: &Offering, n: u32| o.price.as_ref().map(|p| p.for_nodes(n));
        match (price(a, *an), price(b, *bn)) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        }
        .then_with(|| a.ids.label().cmp(&b.ids.label()))
    });
    let Some((offering, nodes)) = fits.first().copied() else {
        return Err(no_match(provider, spec, &offerings, constraints));
    };
    let fitted = fits.len();
    concrete(provider, spec, offering, nodes, fitted)
}

/// The node count `offering` would take for `spec`, or why it does not fit.
fn fit(
    provider: ProviderKind,
    spec: &ClusterSpec,
    offering: &Offering,
    constraints: &Constraints,
) -> Result<u32, String> {
    if let Some(asked) = &spec.gpu_model {
        let offered = offering.gpu_model.as_deref().ok_or("states no GPU model")?;
        if !matches(asked, offered) {
            return Err(format!("offers {offered}"));
        }
    } else if provider == ProviderKind::Together {
        return Err("Together needs a GPU model".into());
    }
    if let Some(region) = &spec.region {
        let here = offering.region.as_deref().unwrap_or("");
        if !here.eq_ignore_ascii_case(region) {
            return Err(format!("is in {here}"));
        }
    }
    if let Some(stack) = spec.stack
        && !offering.stacks.is_empty()
        && !offering.stacks.contains(&stack)
    {
        return Err(format!("has no {stack:?} stack"));
    }
    if offering.community_host
        && spec
            .options
            .runcrate
            .as_ref()
            .and_then(|o| o.include_community)
            != Some(true)
    {
        return Err("runs on community hosts (allow them with include_community)".into());
    }
    if !billing_fits(&spec.billing, &offering.billing) {
        return Err("cannot be billed that way".into());
    }
    let nodes = nodes_for(spec.size, offering.gpus_per_node)?;
    if !offering.nodes.accepts(nodes) {
        return Err(format!("takes {}", offering.nodes.describe()));
    }
    if let (Some(ceiling), Some(price)) = (&constraints.max_price_per_hour, &offering.price) {
        if !price.currency.eq_ignore_ascii_case(&ceiling.currency) {
            return Err(format!("is priced in {}", price.currency));
        }
        if price.for_nodes(nodes) > ceiling.amount {
            return Err(format!(
                "costs {:.2} {}/h",
                price.for_nodes(nodes),
                price.currency
            ));
        }
    }
    if let OfferingIds::E2e {
        sku_id,
        sku_item_price_id,
    } = &offering.ids
    {
        let given = spec.options.e2e.clone().unwrap_or_default();
        if (given.sku_id != 0 && given.sku_id != *sku_id)
            || (given.sku_item_price_id != 0 && given.sku_item_price_id != *sku_item_price_id)
        {
            return Err("is another SKU or plan than the one given".into());
        }
        if given.image_version_id == 0 && image_for(spec.stack, offering).is_none() {
            return Err("has no image for that stack".into());
        }
    }
    if provider == ProviderKind::Together && driver_for(spec, offering).is_none() {
        return Err("has no matching NVIDIA driver entry".into());
    }
    Ok(nodes)
}

fn billing_fits(asked: &Billing, offered: &[BillingKind]) -> bool {
    match asked {
        Billing::OnDemand => offered.contains(&BillingKind::OnDemand),
        Billing::Reserved { days } => offered.iter().any(
            |b| matches!(b, BillingKind::Reserved { days: d } if d.is_none_or(|d| d == *days)),
        ),
        // Only Together schedules capacity, and its regions answer does not say where.
        Billing::Scheduled { .. } => offered.contains(&BillingKind::Reserved { days: None }),
    }
}

/// `size` as a node count: nodes as they are, GPUs divided by the GPUs per node.
fn nodes_for(size: ClusterSize, gpus_per_node: Option<u32>) -> Result<u32, String> {
    match size {
        ClusterSize::Nodes(nodes) => Ok(nodes),
        ClusterSize::Gpus(gpus) => match gpus_per_node {
            Some(per) if per > 0 && gpus % per == 0 && gpus > 0 => Ok(gpus / per),
            Some(per) => Err(format!(
                "has {per} GPUs per node ({gpus} GPUs do not fill whole nodes)"
            )),
            None => Err("does not say how many GPUs a node has".into()),
        },
    }
}

/// Together's driver entry for `spec` in `offering`: the requested CUDA version's, else the
/// newest (`drivers` is newest first). An explicit `nvidia_version_id` is kept as given.
fn driver_for<'a>(spec: &ClusterSpec, offering: &'a Offering) -> Option<&'a super::DriverVersion> {
    let options = spec.options.together.clone().unwrap_or_default();
    match options.cuda_version.as_deref() {
        Some(cuda) => offering.drivers.iter().find(|d| {
            d.cuda_version
                .as_deref()
                .is_some_and(|v| v == cuda || v.starts_with(&format!("{cuda}.")))
        }),
        None => offering.drivers.first(),
    }
}

/// E2E's image for `stack` (Slurm when none is asked), newest first.
fn image_for(stack: Option<SoftwareStack>, offering: &Offering) -> Option<&super::Image> {
    let stack = stack.unwrap_or(SoftwareStack::Slurm);
    offering.images.iter().find(|i| i.stack == stack)
}

/// The request `offering` turns `spec` into.
fn concrete(
    provider: ProviderKind,
    spec: &ClusterSpec,
    offering: &Offering,
    nodes: u32,
    fitted: usize,
) -> Result<Resolution, Error> {
    let mut resolved = spec.clone();
    let mut choices = Vec::new();
    let ranked = if fitted > 1 {
        format!(", the first of {fitted} that fit (known price, then id)")
    } else {
        String::new()
    };
    let mut choose = |field: &'static str, value: String, why: String| {
        choices.push(Choice { field, value, why });
    };
    match &offering.ids {
        OfferingIds::Together { region, gpu_type } => {
            let mut options = spec.options.together.clone().unwrap_or_default();
            if spec.region.is_none() {
                choose(
                    "region",
                    region.clone(),
                    format!("offers {gpu_type}{ranked}"),
                );
            }
            if spec.gpu_model.as_deref() != Some(gpu_type.as_str()) {
                choose(
                    "gpu_type",
                    gpu_type.clone(),
                    format!("{region}'s {gpu_type}"),
                );
            }
            if let ClusterSize::Nodes(n) = spec.size {
                let per = offering.gpus_per_node.unwrap_or(1);
                let gpus = n.saturating_mul(per);
                choose(
                    "num_gpus",
                    gpus.to_string(),
                    format!("{n} nodes of {per} GPUs"),
                );
                resolved.size = ClusterSize::Gpus(gpus);
            }
            let explicit = options.nvidia_version_id.is_some()
                || (options.cuda_version.is_some() && options.nvidia_driver_version.is_some());
            if !explicit {
                let driver = driver_for(spec, offering).ok_or_else(|| {
                    no_match(provider, spec, &[offering], &Constraints::default())
                })?;
                let why = match &options.cuda_version {
                    Some(cuda) => format!("CUDA {cuda} in {region}"),
                    None => format!("the newest driver entry in {region}"),
                };
                choose("nvidia_version_id", driver.id.clone(), why);
                options.nvidia_version_id = Some(driver.id.clone());
                options.cuda_version = None;
            }
            resolved.region = Some(region.clone());
            resolved.gpu_model = Some(gpu_type.clone());
            resolved.options.together = Some(options);
        }
        OfferingIds::Runcrate { offer_id } => {
            let mut options = spec.options.runcrate.clone().unwrap_or_default();
            choose(
                "offer_id",
                offer_id.clone(),
                format!(
                    "{} × {} nodes{ranked}",
                    offering.gpu_model.as_deref().unwrap_or("?"),
                    nodes
                ),
            );
            if let ClusterSize::Gpus(gpus) = spec.size {
                choose("node_count", nodes.to_string(), format!("{gpus} GPUs"));
            }
            options.offer_id = offer_id.clone();
            resolved.options.runcrate = Some(options);
            // The offer fixes them; Runcrate's create takes neither.
            resolved.gpu_model = None;
            resolved.region = None;
            resolved.size = ClusterSize::Nodes(nodes);
        }
        OfferingIds::E2e {
            sku_id,
            sku_item_price_id,
        } => {
            let mut options = spec.options.e2e.clone().unwrap_or_default();
            if options.sku_id == 0 {
                choose(
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
                choose(
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
                let image = image_for(spec.stack, offering).ok_or_else(|| {
                    no_match(provider, spec, &[offering], &Constraints::default())
                })?;
                choose(
                    "image_version_id",
                    image.id.to_string(),
                    format!("the newest {:?} image ({})", image.stack, image.name),
                );
                options.image_version_id = image.id;
            }
            if let ClusterSize::Gpus(gpus) = spec.size {
                choose("no_of_nodes", nodes.to_string(), format!("{gpus} GPUs"));
            }
            resolved.options.e2e = Some(options);
            // The SKU, plan and image fix them; E2E's create takes none of them.
            resolved.gpu_model = None;
            resolved.stack = None;
            resolved.billing = Billing::OnDemand;
            resolved.size = ClusterSize::Nodes(nodes);
        }
    }
    Ok(Resolution {
        spec: resolved,
        offering: Some(offering.clone()),
        choices,
    })
}

/// The error for a request nothing fits, with what is available nearby.
fn no_match(
    provider: ProviderKind,
    spec: &ClusterSpec,
    offerings: &[&Offering],
    constraints: &Constraints,
) -> Error {
    let size = match spec.size {
        ClusterSize::Gpus(g) => format!("{g} GPUs"),
        ClusterSize::Nodes(n) => format!("{n} nodes"),
    };
    let mut wanted = format!(
        "{size} of {}",
        spec.gpu_model.as_deref().unwrap_or("any GPU")
    );
    if let Some(region) = &spec.region {
        wanted.push_str(&format!(" in {region}"));
    }
    if let Some(stack) = spec.stack {
        wanted.push_str(&format!(" with {stack:?}"));
    }
    if let Some(ceiling) = &constraints.max_price_per_hour {
        wanted.push_str(&format!(
            " at most {:.2} {}/h",
            ceiling.amount, ceiling.currency
        ));
    }
    let same_gpu: Vec<&&Offering> = offerings
        .iter()
        .filter(|o| match (&spec.gpu_model, &o.gpu_model) {
            (Some(asked), Some(offered)) => matches(asked, offered),
            (None, _) => true,
            (Some(_), None) => false,
        })
        .collect();
    let mut nearby: Vec<String> = if same_gpu.is_empty() {
        let mut models: Vec<String> = offerings
            .iter()
            .filter_map(|o| o.gpu_model.clone())
            .collect();
        models.sort();
        models.dedup();
        if models.is_empty() {
            vec!["the catalog lists no GPU offering".into()]
        } else {
            vec![format!("GPU models {}", models.join(", "))]
        }
    } else {
        same_gpu
            .iter()
            .map(|o| {
                let why = fit(provider, spec, o, constraints)
                    .err()
                    .unwrap_or_else(|| "fits".into());
                format!(
                    "{} {} ({}, {}): {why}",
                    o.ids.label(),
                    o.gpu_model.as_deref().unwrap_or("?"),
                    o.region.as_deref().unwrap_or("?"),
                    o.nodes.describe()
                )
            })
            .collect()
    };
    nearby.truncate(8);
    Error::NoMatchingOffering {
        provider,
        wanted,
        nearby,
    }
}
