//! Every resolution rule: intent to ids, explicit ids winning, ranking, ceilings, no match.

use super::*;
use crate::spec::{
    Billing, ClusterSize, E2eOptions, RuncrateOptions, SoftwareStack, TogetherOptions,
};

fn gpus(n: u32) -> ClusterSpec {
    ClusterSpec::new("t", ClusterSize::Gpus(n))
}

fn value_of<'a>(resolution: &'a Resolution, field: &str) -> Option<&'a str> {
    resolution
        .choices
        .iter()
        .find(|c| c.field == field)
        .map(|c| c.value.as_str())
}

#[test]
fn together_resolves_a_family_to_a_region_word_and_the_newest_driver() {
    let catalog = together_catalog();
    let r = resolve(
        ProviderKind::Together,
        &gpus(16).with_gpu_model("H100"),
        &catalog,
        &Constraints::default(),
    )
    .unwrap();
    // Both regions offer H100_SXM; without prices the smaller id wins.
    assert_eq!(r.spec.region.as_deref(), Some("us-central-4"));
    assert_eq!(r.spec.gpu_model.as_deref(), Some("H100_SXM"));
    let options = r.spec.options.together.clone().unwrap();
    assert_eq!(
        options.nvidia_version_id.as_deref(),
        Some("cuda-12.10-driver-580"),
        "12.10 is newer than 12.8"
    );
    assert_eq!(value_of(&r, "region"), Some("us-central-4"));
    assert!(
        r.choices
            .iter()
            .any(|c| c.field == "region" && c.why.contains("first of 2")),
        "{:?}",
        r.choices
    );

    let in_region = gpus(16)
        .with_gpu_model("H100_SXM")
        .with_region("us-central-8")
        .with_options(TogetherOptions {
            cuda_version: Some("12.6".into()),
            ..TogetherOptions::default()
        });
    let r = resolve(
        ProviderKind::Together,
        &in_region,
        &catalog,
        &Constraints::default(),
    )
    .unwrap();
    let options = r.spec.options.together.unwrap();
    assert_eq!(
        options.nvidia_version_id.as_deref(),
        Some("cuda-12.6-driver-565")
    );
    assert_eq!(
        options.cuda_version, None,
        "the selector is not sent as half a legacy pair"
    );

    let nodes = ClusterSpec::new("t", ClusterSize::Nodes(3)).with_gpu_model("H200");
    let r = resolve(
        ProviderKind::Together,
        &nodes,
        &catalog,
        &Constraints::default(),
    )
    .unwrap();
    assert_eq!(r.spec.size, ClusterSize::Gpus(24));
    assert_eq!(r.spec.region.as_deref(), Some("us-central-8"));
}

#[test]
fn explicit_ids_always_win_and_need_no_catalog() {
    let explicit = gpus(16)
        .with_gpu_model("H100_SXM")
        .with_region("nowhere")
        .with_options(TogetherOptions {
            nvidia_version_id: Some("mine".into()),
            ..TogetherOptions::default()
        });
    assert!(!needs_catalog(ProviderKind::Together, &explicit));
    let r = resolve(
        ProviderKind::Together,
        &explicit,
        &[],
        &Constraints::default(),
    )
    .unwrap();
    assert_eq!(r.spec, explicit);
    assert!(r.choices.is_empty() && r.offering.is_none());

    // A driver given explicitly is kept while the region is resolved.
    let driver = gpus(16)
        .with_gpu_model("H200_SXM")
        .with_options(TogetherOptions {
            nvidia_version_id: Some("mine".into()),
            ..TogetherOptions::default()
        });
    let r = resolve(
        ProviderKind::Together,
        &driver,
        &together_catalog(),
        &Constraints::default(),
    )
    .unwrap();
    assert_eq!(
        r.spec
            .options
            .together
            .unwrap()
            .nvidia_version_id
            .as_deref(),
        Some("mine")
    );

    let offer = ClusterSpec::new("t", ClusterSize::Nodes(2)).with_options(RuncrateOptions {
        offer_id: "offer-x".into(),
        ..RuncrateOptions::default()
    });
    assert!(!needs_catalog(ProviderKind::Runcrate, &offer));
    let e2e = ClusterSpec::new("t", ClusterSize::Nodes(2)).with_options(E2eOptions {
        sku_id: 300,
        ..E2eOptions::default()
    });
    assert!(needs_catalog(ProviderKind::E2e, &e2e));
    let r = resolve(
        ProviderKind::E2e,
        &e2e.clone().with_stack(SoftwareStack::Slurm),
        &e2e_catalog(),
        &Constraints::default(),
    )
    .unwrap();
    let options = r.spec.options.e2e.unwrap();
    assert_eq!(
        (
            options.sku_id,
            options.sku_item_price_id,
            options.image_version_id
        ),
        (300, 901, 5),
        "the given SKU narrows the choice"
    );
}

#[test]
fn runcrate_resolves_offer_and_node_count_cheapest_first_within_limits() {
    let catalog = runcrate_catalog();
    // 16 GPUs: 2 nodes of 8 (the two SXM offers) or 4 of 4 (the PCIe one, 38.0/h < 47.84/h).
    let r = resolve(
        ProviderKind::Runcrate,
        &gpus(16).with_gpu_model("H100"),
        &catalog,
        &Constraints::default(),
    )
    .unwrap();
    assert_eq!(
        r.spec.options.runcrate.as_ref().unwrap().offer_id,
        "offer-h100-cheap"
    );
    assert_eq!(r.spec.size, ClusterSize::Nodes(4));
    assert_eq!(
        (r.spec.gpu_model.as_ref(), r.spec.region.as_ref()),
        (None, None)
    );
    // The community offer is cheaper still, but taken only when allowed.
    let community = gpus(16)
        .with_gpu_model("H100")
        .with_options(RuncrateOptions {
            include_community: Some(true),
            ..RuncrateOptions::default()
        });
    let r = resolve(
        ProviderKind::Runcrate,
        &community,
        &catalog,
        &Constraints::default(),
    )
    .unwrap();
    assert_eq!(
        r.spec.options.runcrate.unwrap().offer_id,
        "offer-h100-community"
    );
    // The same price: the smaller id.
    let slurm = gpus(16)
        .with_gpu_model("H100")
        .with_stack(SoftwareStack::Slurm);
    let r = resolve(
        ProviderKind::Runcrate,
        &slurm,
        &catalog,
        &Constraints::default(),
    )
    .unwrap();
    assert_eq!(r.spec.options.runcrate.unwrap().offer_id, "offer-h100-a");
    // 72 GPUs = 9 nodes: beyond Helsinki's 8 and PCIe's allowed counts.
    let big = gpus(72).with_gpu_model("H100 80GB SXM");
    let r = resolve(
        ProviderKind::Runcrate,
        &big,
        &catalog,
        &Constraints::default(),
    )
    .unwrap();
    assert_eq!(r.spec.options.runcrate.unwrap().offer_id, "offer-h100-b");
    // By region (the offer's location).
    let helsinki = gpus(16)
        .with_gpu_model("H100")
        .with_region("helsinki")
        .with_stack(SoftwareStack::Kubernetes);
    let error = resolve(
        ProviderKind::Runcrate,
        &helsinki,
        &catalog,
        &Constraints::default(),
    )
    .unwrap_err();
    assert!(matches!(error, Error::NoMatchingOffering { .. }), "{error}");
}

#[test]
fn a_price_ceiling_skips_dearer_offerings_and_other_currencies() {
    let catalog = runcrate_catalog();
    let ceiling = |amount: f64, currency: &str| Constraints {
        max_price_per_hour: Some(PriceCeiling {
            amount,
            currency: currency.into(),
        }),
        ..Constraints::default()
    };
    let spec = gpus(16)
        .with_gpu_model("H100")
        .with_stack(SoftwareStack::Slurm);
    let r = resolve(
        ProviderKind::Runcrate,
        &spec,
        &catalog,
        &ceiling(50.0, "usd"),
    )
    .unwrap();
    assert_eq!(r.spec.options.runcrate.unwrap().offer_id, "offer-h100-a");
    let error = resolve(
        ProviderKind::Runcrate,
        &spec,
        &catalog,
        &ceiling(40.0, "USD"),
    )
    .unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("at most 40.00 USD/h") && text.contains("costs 47.84 USD/h"),
        "{text}"
    );
    let e2e = ClusterSpec::new("t", ClusterSize::Nodes(2)).with_gpu_model("H100");
    let error = resolve(
        ProviderKind::E2e,
        &e2e,
        &e2e_catalog(),
        &ceiling(1e9, "USD"),
    )
    .unwrap_err();
    assert!(error.to_string().contains("is priced in INR"), "{error}");
}

#[test]
fn e2e_resolves_sku_plan_and_image_from_gpu_billing_and_stack() {
    let catalog = e2e_catalog();
    let r = resolve(
        ProviderKind::E2e,
        &gpus(16)
            .with_gpu_model("H100")
            .with_stack(SoftwareStack::Slurm),
        &catalog,
        &Constraints::default(),
    )
    .unwrap();
    let options = r.spec.options.e2e.clone().unwrap();
    assert_eq!(
        (
            options.sku_id,
            options.sku_item_price_id,
            options.image_version_id
        ),
        (201, 811, 5)
    );
    assert_eq!(r.spec.size, ClusterSize::Nodes(2));
    assert_eq!((r.spec.gpu_model.as_ref(), r.spec.stack), (None, None));
    assert_eq!(value_of(&r, "no_of_nodes"), Some("2"));
    let committed = ClusterSpec::new("t", ClusterSize::Nodes(2))
        .with_gpu_model("H100")
        .with_billing(Billing::Reserved { days: 30 });
    let r = resolve(
        ProviderKind::E2e,
        &committed,
        &catalog,
        &Constraints::default(),
    )
    .unwrap();
    assert_eq!(r.spec.options.e2e.unwrap().sku_item_price_id, 812);
    assert_eq!(
        r.spec.billing,
        Billing::OnDemand,
        "the plan carries the commitment"
    );
    let ray = ClusterSpec::new("t", ClusterSize::Nodes(2))
        .with_gpu_model("H100")
        .with_stack(SoftwareStack::Ray);
    assert!(resolve(ProviderKind::E2e, &ray, &catalog, &Constraints::default()).is_err());
}

#[test]
fn no_match_lists_what_is_nearby() {
    let catalog = together_catalog();
    let error = resolve(
        ProviderKind::Together,
        &gpus(16).with_gpu_model("H200").with_region("us-central-4"),
        &catalog,
        &Constraints::default(),
    )
    .unwrap_err();
    let Error::NoMatchingOffering {
        provider,
        wanted,
        nearby,
    } = &error
    else {
        panic!("{error:?}")
    };
    assert_eq!(*provider, ProviderKind::Together);
    assert_eq!(wanted, "16 GPUs of H200 in us-central-4");
    assert_eq!(nearby.len(), 1);
    assert!(
        nearby[0].starts_with("us-central-8/H200_SXM") && nearby[0].contains("is in us-central-8"),
        "{nearby:?}"
    );

    let error = resolve(
        ProviderKind::Together,
        &gpus(16).with_gpu_model("MI300X"),
        &catalog,
        &Constraints::default(),
    )
    .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("GPU models H100_SXM, H200_SXM, L40_PCIE"),
        "{error}"
    );
    let error = resolve(
        ProviderKind::Runcrate,
        &gpus(12).with_gpu_model("H100 80GB SXM"),
        &runcrate_catalog(),
        &Constraints::default(),
    )
    .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("12 GPUs do not fill whole nodes"),
        "{error}"
    );
    let error = resolve(
        ProviderKind::Together,
        &gpus(16),
        &catalog,
        &Constraints::default(),
    )
    .unwrap_err();
    // Said once, with the models to choose from (before: once per offering).
    let Error::Validation(rule) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(rule.field, "gpu_model");
    assert_eq!(
        rule.rule,
        "Together needs a GPU model; it offers H100_SXM, H200_SXM, L40_PCIE"
    );
}

#[test]
fn a_resolution_states_its_region_and_the_whole_clusters_price() {
    let catalog = runcrate_catalog();
    let each = crate::catalog::resolve_each_region(
        ProviderKind::Runcrate.profile().catalog,
        &gpus(16).with_gpu_model("H100 80GB SXM"),
        &catalog,
        &Constraints::default(),
    )
    .unwrap();
    // Two regions offer it at the same price: the smaller id first, then the other region.
    let regions: Vec<_> = each.iter().map(Resolution::region).collect();
    assert_eq!(regions, [Some("Helsinki"), Some("Dallas, TX")]);
    assert!(
        each[1]
            .choices
            .iter()
            .any(|c| c.why.contains("best fit in Dallas, TX")),
        "{:?}",
        each[1].choices
    );
    // 16 GPUs are 2 nodes of 8 at 23.92 USD per node-hour.
    let (amount, currency) = each[0].price_per_hour().unwrap();
    assert!((amount - 47.84).abs() < 1e-9, "{amount}");
    assert_eq!(currency, "USD");

    // A size in GPUs over an offering that states no GPUs per node has no price; a request
    // that names its ids has no offering, so neither region nor price.
    let mut unknown = each[0].clone();
    unknown.spec.size = ClusterSize::Gpus(16);
    if let Some(offering) = unknown.offering.as_mut() {
        offering.gpus_per_node = None;
    }
    assert_eq!(unknown.price_per_hour(), None);
    let mut named = each[0].clone();
    named.offering = None;
    named.spec.region = None;
    assert_eq!((named.region(), named.price_per_hour()), (None, None));
    named.spec.region = Some("Lisbon".into());
    assert_eq!(
        named.region(),
        Some("Lisbon"),
        "the request's own region wins"
    );

    // One fit is not "the first of" anything.
    let alone = resolve(
        ProviderKind::Runcrate,
        &gpus(16)
            .with_gpu_model("H100 80GB SXM")
            .with_region("Dallas, TX"),
        &catalog,
        &Constraints::default(),
    )
    .unwrap();
    assert!(
        alone.choices.iter().all(|c| !c.why.contains("first of")),
        "{:?}",
        alone.choices
    );
}

#[test]
fn a_ceiling_equal_to_the_price_fits_and_zero_gpus_fill_no_node() {
    let catalog = runcrate_catalog();
    let spec = gpus(16)
        .with_gpu_model("H100 80GB SXM")
        .with_region("Dallas, TX");
    // 2 nodes at 23.92 USD: 47.84 USD/h, exactly the ceiling.
    let at_ceiling = Constraints {
        max_price_per_hour: Some(PriceCeiling {
            amount: 47.84,
            currency: "USD".into(),
        }),
        allow_unpriced: false,
        pricing: Default::default(),
    };
    resolve(ProviderKind::Runcrate, &spec, &catalog, &at_ceiling).unwrap();

    let none = resolve(
        ProviderKind::Runcrate,
        &ClusterSpec::new("t", ClusterSize::Gpus(0)).with_gpu_model("H100 80GB SXM"),
        &catalog,
        &Constraints::default(),
    )
    .unwrap_err();
    assert!(
        none.to_string().contains("0 GPUs do not fill whole nodes"),
        "{none}"
    );
}

#[test]
fn preferred_regions_come_first_in_their_order_unless_a_region_is_pinned() {
    let catalog = together_catalog();
    let rules = ProviderKind::Together.profile().catalog;
    let regions = |spec: &ClusterSpec| -> Vec<String> {
        resolve_each_region(rules, spec, &catalog, &Constraints::default())
            .unwrap()
            .iter()
            .map(|r| r.region().unwrap_or_default().to_string())
            .collect()
    };
    let h100 = gpus(16).with_gpu_model("H100_SXM");
    // Without a preference the smaller id comes first.
    assert_eq!(regions(&h100), ["us-central-4", "us-central-8"]);
    let preferring = h100
        .clone()
        .with_preferred_regions(["nowhere-1".to_string(), "US-CENTRAL-8".to_string()]);
    assert_eq!(regions(&preferring), ["us-central-8", "us-central-4"]);
    let r = resolve(
        ProviderKind::Together,
        &preferring,
        &catalog,
        &Constraints::default(),
    )
    .unwrap();
    let why = r
        .choices
        .iter()
        .find(|c| c.field == "region")
        .map(|c| c.why.clone())
        .unwrap_or_default();
    assert!(
        why.contains("preferred region US-CENTRAL-8 of nowhere-1, US-CENTRAL-8"),
        "{why}"
    );
    // A preference no region of the fits is in is said, and changes nothing.
    let nowhere = h100
        .clone()
        .with_preferred_regions(["nowhere-1".to_string()]);
    assert_eq!(regions(&nowhere), ["us-central-4", "us-central-8"]);
    let r = resolve(
        ProviderKind::Together,
        &nowhere,
        &catalog,
        &Constraints::default(),
    )
    .unwrap();
    assert!(
        r.choices
            .iter()
            .any(|c| c.field == "region"
                && c.why.contains("none of the preferred regions nowhere-1")),
        "{:?}",
        r.choices
    );
    // A pinned region wins over any preference.
    let pinned = preferring.with_region("us-central-4");
    assert_eq!(regions(&pinned), ["us-central-4"]);
}
