//! From intent to ids: a [`ClusterSpec`] that names a GPU model (the provider's word or the
//! family), a size in GPUs or nodes and maybe a region, stack or billing kind is matched
//! against the provider's catalog, and the provider's catalog ids are filled in.
//!
//! Rules: ids given explicitly always win (a request that names them all needs no catalog);
//! a size in GPUs becomes a node count through the offering's GPUs per node; among the
//! offerings that fit, the one with the lowest known price for the whole cluster comes first,
//! offerings without a price after those with one, and ties go to the smallest id
//! ([`super::OfferingIds::label`]). What only a provider knows (which ids it needs, its driver
//! or image entries, which field a choice fills) is its [`CatalogRules`], in its own folder.
//! No fit is [`Error::NoMatchingOffering`], listing what is available nearby — never a
//! request the provider would refuse.

use serde::Serialize;

use super::family::matches;
use super::rules::{CatalogRules, Choice, Fill};
use super::{BillingKind, Offering};
use crate::error::Error;
use crate::spec::{Billing, ClusterSize, ClusterSpec};

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

impl Resolution {
    /// The region the request goes to: the one it names, or its offering's.
    pub fn region(&self) -> Option<&str> {
        self.spec
            .region
            .as_deref()
            .or_else(|| self.offering.as_ref()?.region.as_deref())
    }

    /// What the whole cluster costs per hour, where its offering states a price: the price
    /// per node-hour times the nodes (a size in GPUs in whole nodes of the offering).
    pub fn price_per_hour(&self) -> Option<(f64, &str)> {
        let offering = self.offering.as_ref()?;
        let price = offering.price.as_ref()?;
        let nodes = match self.spec.size {
            ClusterSize::Nodes(nodes) => nodes,
            ClusterSize::Gpus(gpus) => gpus.checked_div(offering.gpus_per_node?)?,
        };
        Some((price.for_nodes(nodes), price.currency.as_str()))
    }
}

/// What a resolution may not exceed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Constraints {
    /// Skip offerings whose price for the whole cluster is above this. An offering priced in
    /// another currency cannot be compared and is skipped too, and so is one that states no
    /// price (Together states none) unless `allow_unpriced`: a ceiling that cannot be checked
    /// is never passed silently.
    pub max_price_per_hour: Option<PriceCeiling>,
    /// With a ceiling, also take offerings that state no price; the ceiling is then not
    /// checked for them.
    pub allow_unpriced: bool,
    /// The price book that prices offerings their provider states no price for, and the
    /// rates that convert a price into the ceiling's currency.
    pub pricing: super::Pricing,
}

impl Constraints {
    /// Skip offerings above `ceiling` for the whole cluster, or whose price cannot be
    /// checked against it.
    #[must_use]
    pub fn with_max_price_per_hour(mut self, ceiling: PriceCeiling) -> Self {
        self.max_price_per_hour = Some(ceiling);
        self
    }

    /// With a ceiling, also take offerings that state no price (the ceiling is then not
    /// checked for them).
    #[must_use]
    pub fn with_allow_unpriced(mut self, allow: bool) -> Self {
        self.allow_unpriced = allow;
        self
    }

    /// Prices what the catalog does not, and converts currencies, by `pricing`.
    #[must_use]
    pub fn with_pricing(mut self, pricing: super::Pricing) -> Self {
        self.pricing = pricing;
        self
    }

    /// Whether an offering's price must be known: a ceiling is set, and unpriced offerings
    /// are not allowed. A request that names every id is then still looked up in the
    /// catalog, for the price of the offering it names.
    pub fn needs_price(&self) -> bool {
        self.max_price_per_hour.is_some() && !self.allow_unpriced
    }
}

/// Whether resolving `spec` under `constraints` reads the provider's catalog: some id is
/// missing, or a ceiling needs the price of the offering the request names.
pub fn consults_catalog(
    rules: &dyn CatalogRules,
    spec: &ClusterSpec,
    constraints: &Constraints,
) -> bool {
    rules.needs_catalog(spec) || constraints.needs_price()
}

/// A price per hour and its currency.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct PriceCeiling {
    /// The amount per hour, for the whole cluster.
    pub amount: f64,
    /// ISO 4217 code (`USD`).
    pub currency: String,
}

impl PriceCeiling {
    /// `amount` per hour in `currency` (an ISO 4217 code, `USD`). A ceiling that is not a
    /// finite amount of at least 0 is refused when it is used.
    pub fn new(amount: f64, currency: impl Into<String>) -> Self {
        Self {
            amount,
            currency: currency.into(),
        }
    }
}

/// A price ceiling must be a finite amount of at least 0 (NaN would make every comparison
/// "fits", and every created cluster "over" it, so deleted again) in an ISO 4217 currency (a
/// typo would make every offering unconvertible rather than say so).
pub(crate) fn check_ceiling(
    provider: crate::cluster::ProviderKind,
    constraints: &Constraints,
) -> Result<(), Error> {
    match &constraints.max_price_per_hour {
        Some(ceiling) if !(ceiling.amount.is_finite() && ceiling.amount >= 0.0) => {
            Err(Error::Validation(crate::error::ValidationError {
                provider,
                field: "max_price_per_hour".into(),
                rule: format!(
                    "must be a finite amount of at least 0, not {}",
                    ceiling.amount
                ),
                source: "gpucloud Placement::with_max_price_per_hour",
            }))
        }
        Some(ceiling) => super::pricing::check_currency(&ceiling.currency).map_err(|rule| {
            Error::Validation(crate::error::ValidationError {
                provider,
                field: "max_price_per_hour.currency".into(),
                rule,
                source: "gpucloud Placement::with_max_price_per_hour",
            })
        }),
        None => Ok(()),
    }
}

/// Resolves `spec` by a provider's `rules` against `catalog` (see the module docs); a
/// provider's rules are [`Profile::catalog`](crate::providers::profile::Profile::catalog).
pub fn resolve(
    rules: &dyn CatalogRules,
    spec: &ClusterSpec,
    catalog: &[Offering],
    constraints: &Constraints,
) -> Result<Resolution, Error> {
    first_of(
        rules,
        resolve_each_region(rules, spec, catalog, constraints)?,
    )
}

/// The best of `each` ([`resolve_each_region`] answers at least one; an empty list is no
/// match, never a panic).
pub(crate) fn first_of(
    rules: &dyn CatalogRules,
    each: Vec<Resolution>,
) -> Result<Resolution, Error> {
    each.into_iter()
        .next()
        .ok_or_else(|| no_resolution(rules.provider()))
}

/// What an empty list of resolutions is: no match (never expected, never a panic).
pub(crate) fn no_resolution(provider: crate::cluster::ProviderKind) -> Error {
    Error::NoMatchingOffering {
        provider,
        wanted: "the request".into(),
        nearby: Vec::new(),
    }
}

/// Every region `spec` can be resolved in, best first: what [`resolve`] answers, then, when
/// the request pins no region, the best fit in each other region that has one, in the same
/// order (known price, then id). A placement tries them in turn when a region has no
/// capacity. A request that needs no catalog, or names a region, has one resolution.
pub fn resolve_each_region(
    rules: &dyn CatalogRules,
    spec: &ClusterSpec,
    catalog: &[Offering],
    constraints: &Constraints,
) -> Result<Vec<Resolution>, Error> {
    let provider = rules.provider();
    check_ceiling(provider, constraints)?;
    rules.check_size(spec)?;
    if !consults_catalog(rules, spec, constraints) {
        return Ok(vec![Resolution {
            spec: spec.clone(),
            offering: None,
            choices: Vec::new(),
        }]);
    }
    // Each offering with its price: the catalog's, else the price book's.
    let priced = constraints.pricing.priced(catalog);
    let offerings: Vec<&Offering> = priced.iter().filter(|o| o.provider == provider).collect();
    if spec.gpu_model.is_none()
        && let Err(why) = rules.without_gpu_model()
    {
        // Said once, with the models to choose from, not once per offering.
        let mut models: Vec<&str> = offerings
            .iter()
            .filter_map(|o| o.gpu_model.as_deref())
            .collect();
        models.sort_unstable();
        models.dedup();
        return Err(Error::Validation(crate::error::ValidationError {
            provider,
            field: "gpu_model".into(),
            rule: if models.is_empty() {
                why
            } else {
                format!("{why}; it offers {}", models.join(", "))
            },
            source: "the provider's catalog",
        }));
    }
    let mut fits = Vec::new();
    for offering in &offerings {
        if let Ok(nodes) = fit(rules, spec, offering, constraints) {
            fits.push((*offering, nodes));
        }
    }
    let preference = Preference::of(spec);
    fits.sort_by(|(a, an), (b, bn)| {
        let price = |o: &Offering, n: u32| o.price.as_ref().map(|p| p.for_nodes(n));
        preference
            .rank(a)
            .cmp(&preference.rank(b))
            .then_with(|| match (price(a, *an), price(b, *bn)) {
                (Some(x), Some(y)) => x.total_cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            })
            .then_with(|| a.ids.label().cmp(&b.ids.label()))
    });
    let Some((offering, nodes)) = fits.first().copied() else {
        return Err(no_match(rules, spec, &offerings, constraints));
    };
    let ranked = match (fits.len() > 1, preference.said(offering)) {
        (true, Some(said)) => format!(
            ", the first of {} that fit ({said}, then known price, then id)",
            fits.len()
        ),
        (true, None) => format!(
            ", the first of {} that fit (known price, then id)",
            fits.len()
        ),
        (false, Some(said)) => format!(" ({said})"),
        (false, None) => String::new(),
    };
    let first = filled(rules, spec, offering, nodes, &ranked)
        .ok_or_else(|| no_match(rules, spec, &[offering], &Constraints::default()))?;
    let mut each = vec![first];
    if spec.region.is_some() {
        return Ok(each);
    }
    let mut regions = vec![offering.region.clone()];
    for (other, nodes) in fits.iter().skip(1).copied() {
        if regions.contains(&other.region) {
            continue;
        }
        regions.push(other.region.clone());
        let why = format!(
            ", the best fit in {} (tried when a region before it has no capacity)",
            other
                .region
                .as_deref()
                .unwrap_or("a region the catalog does not name")
        );
        // An offering the provider's rules cannot fill is no alternative; the first one was.
        if let Some(resolution) = filled(rules, spec, other, nodes, &why) {
            each.push(resolution);
        }
    }
    Ok(each)
}

/// A request's preferred regions ([`ClusterSpec::preferred_regions`]), as a rank of each
/// offering: its region's place in the list, every other region after the last.
struct Preference<'a> {
    regions: &'a [String],
}

impl<'a> Preference<'a> {
    /// Only a request that names no region has a preference.
    fn of(spec: &'a ClusterSpec) -> Self {
        let regions = match spec.region {
            Some(_) => &[][..],
            None => spec.preferred_regions.as_slice(),
        };
        Self { regions }
    }

    /// Where `offering`'s region is in the list (matched as a region is, without case);
    /// `len` when it is not in it.
    fn rank(&self, offering: &Offering) -> usize {
        offering
            .region
            .as_deref()
            .and_then(|here| {
                self.regions
                    .iter()
                    .position(|r| r.eq_ignore_ascii_case(here))
            })
            .unwrap_or(self.regions.len())
    }

    /// What the preference made of the chosen `offering`, for the plan to say; `None` without
    /// a preference.
    fn said(&self, offering: &Offering) -> Option<String> {
        if self.regions.is_empty() {
            return None;
        }
        let listed = self.regions.join(", ");
        Some(match self.regions.get(self.rank(offering)) {
            Some(region) => format!("preferred region {region} of {listed}"),
            None => format!("none of the preferred regions {listed} has a fit"),
        })
    }
}

/// `spec` filled from `offering` at `nodes` nodes (`ranked` says why it was chosen).
fn filled(
    rules: &dyn CatalogRules,
    spec: &ClusterSpec,
    offering: &Offering,
    nodes: u32,
    ranked: &str,
) -> Option<Resolution> {
    let mut fill = Fill::new(spec);
    rules.fill(offering, nodes, ranked, &mut fill).ok()?;
    Some(Resolution {
        spec: fill.spec,
        offering: Some(offering.clone()),
        choices: fill.choices,
    })
}

/// The node count `offering` would take for `spec`, or why it does not fit.
fn fit(
    rules: &dyn CatalogRules,
    spec: &ClusterSpec,
    offering: &Offering,
    constraints: &Constraints,
) -> Result<u32, String> {
    if let Some(asked) = &spec.gpu_model {
        let offered = offering.gpu_model.as_deref().ok_or("states no GPU model")?;
        if !matches(asked, offered) {
            return Err(format!("offers {offered}"));
        }
    } else {
        rules.without_gpu_model()?;
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
    rules.admits(spec, offering)?;
    if !billing_fits(&spec.billing, &offering.billing) {
        return Err("cannot be billed that way".into());
    }
    let nodes = nodes_for(spec.size, offering.gpus_per_node)?;
    if !offering.nodes.accepts(nodes) {
        return Err(format!("takes {}", offering.nodes.describe()));
    }
    match (&constraints.max_price_per_hour, &offering.price) {
        (Some(ceiling), Some(price)) => {
            let total = price.for_nodes(nodes);
            let converted =
                constraints
                    .pricing
                    .convert(total, &price.currency, &ceiling.currency)?;
            if converted.amount > ceiling.amount {
                return Err(format!(
                    "costs {}/h",
                    converted.describe(total, &ceiling.currency)
                ));
            }
        }
        (Some(ceiling), None) if !constraints.allow_unpriced => {
            return Err(format!(
                "states no price, so the ceiling of {:.2} {}/h cannot be checked: add a \
                 price book entry for it (`[[price_book]]` in the configuration file, or \
                 --price-book FILE), or allow unpriced offerings (--allow-unpriced) to take it \
                 unchecked",
                ceiling.amount, ceiling.currency
            ));
        }
        _ => {}
    }
    rules.completes(spec, offering)?;
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

/// The error for a request nothing fits, with what is available nearby.
fn no_match(
    rules: &dyn CatalogRules,
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
                let why = fit(rules, spec, o, constraints)
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
        provider: rules.provider(),
        wanted,
        nearby,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpus_become_whole_nodes_and_a_node_of_no_gpus_is_refused_not_divided_by() {
        assert_eq!(nodes_for(ClusterSize::Gpus(16), Some(8)), Ok(2));
        assert_eq!(nodes_for(ClusterSize::Nodes(3), None), Ok(3));
        // Decoding reads a count of 0 as none; a 0 that gets here is refused all the same.
        assert!(nodes_for(ClusterSize::Gpus(16), Some(0)).is_err());
        assert!(nodes_for(ClusterSize::Gpus(0), Some(8)).is_err());
        assert!(nodes_for(ClusterSize::Gpus(12), Some(8)).is_err());
        assert!(nodes_for(ClusterSize::Gpus(8), None).is_err());
    }
}
