//! The edges of decoding and resolving: an id, a count or a commitment of 0 is none, a
//! negative price is no price, a stack is listed once however many images it has, and each
//! condition of a provider's rules decides on its own.

use serde_json::{Map, Value};

use super::*;
use crate::spec::{Billing, ClusterSize, E2eOptions, SoftwareStack};

fn objects(value: Value) -> Vec<Map<String, Value>> {
    serde_json::from_value(value).unwrap()
}

#[test]
fn e2e_zero_ids_and_days_and_negative_prices_are_none() {
    let images = objects(json!([
        {"name": "Slurm", "versions": [{"id": 0, "version": "zero"}, {"id": 3, "version": "v1"}]}
    ]));
    let images = e2e::catalog::images(&images, SoftwareStack::Slurm);
    assert_eq!(
        images.iter().map(|i| i.id).collect::<Vec<_>>(),
        [3],
        "image 0 is no image"
    );
    let plans = objects(json!([
        {"sku_id": 0, "gpu": 8, "plans": [{"sku_item_price_id": 1, "sku_type": "hourly"}]},
        {"sku_id": 7, "gpu": 8, "gpu_card_type": "H100", "plans": [
            {"sku_item_price_id": 0, "sku_type": "hourly"},
            {"sku_item_price_id": 70, "sku_type": "hourly", "unit_price": -1.0},
            {"sku_item_price_id": 71, "sku_type": "committed", "committed_days": 0}]}
    ]));
    let catalog = e2e::catalog::offerings(&plans, "Delhi", &images);
    let labels: Vec<_> = catalog.iter().map(|o| o.ids.label()).collect();
    assert_eq!(
        labels,
        ["sku 7 / plan 70", "sku 7 / plan 71"],
        "sku 0 and plan 0 are none"
    );
    assert_eq!(catalog[0].price, None, "a negative price is no price");
    assert_eq!(catalog[1].billing, [BillingKind::Reserved { days: None }]);
    assert_eq!(
        catalog[0].nodes.min,
        Some(1),
        "E2E's clusters start at one node"
    );
}

#[test]
fn e2e_lists_each_stack_once_whatever_its_image_count() {
    let catalog = e2e_catalog();
    assert_eq!(catalog[1].images.len(), 2);
    assert_eq!(catalog[1].stacks, [SoftwareStack::Slurm]);
}

#[test]
fn runcrate_drops_a_negative_price() {
    let offers = serde_json::from_value(json!([
        {"id": "offer-neg", "hourly_rate_per_node": -5.0, "min_nodes": 1, "max_nodes": 2},
        {"id": "offer-pos", "hourly_rate_per_node": 5.0, "min_nodes": 1, "max_nodes": 2}
    ]))
    .unwrap();
    let catalog = runcrate::catalog::offerings(offers);
    let prices: Vec<_> = catalog
        .iter()
        .map(|o| o.price.as_ref().map(|p| p.per_node_hour))
        .collect();
    assert_eq!(prices, [None, Some(5.0)]);
}

#[test]
fn e2e_needs_its_catalog_while_any_of_its_three_ids_is_missing() {
    let spec = |sku_id, sku_item_price_id, image_version_id| {
        ClusterSpec::new("t", ClusterSize::Nodes(2)).with_options(E2eOptions {
            sku_id,
            sku_item_price_id,
            image_version_id,
            ..E2eOptions::default()
        })
    };
    for (ids, needed) in [
        ((0, 1, 1), true),
        ((1, 0, 1), true),
        ((1, 1, 0), true),
        ((1, 1, 1), false),
    ] {
        assert_eq!(
            needs_catalog(ProviderKind::E2e, &spec(ids.0, ids.1, ids.2)),
            needed,
            "{ids:?}"
        );
    }
}

#[test]
fn e2e_a_given_plan_or_image_decides_on_its_own() {
    let catalog = e2e_catalog();
    let resolve_e2e =
        |spec: &ClusterSpec| resolve(ProviderKind::E2e, spec, &catalog, &Constraints::default());
    // A given plan picks its own node type, not the cheapest one.
    let plan = ClusterSpec::new("t", ClusterSize::Nodes(2)).with_options(E2eOptions {
        sku_item_price_id: 901,
        ..E2eOptions::default()
    });
    let options = resolve_e2e(&plan).unwrap().spec.options.e2e.unwrap();
    assert_eq!((options.sku_id, options.sku_item_price_id), (300, 901));
    // A given image needs no image from the catalog; without one, a plan with no image is
    // no match.
    let no_images = e2e::catalog::offerings(
        &objects(json!([{"sku_id": 5, "gpu": 8, "plans": [{"sku_item_price_id": 50}]}])),
        "Delhi",
        &[],
    );
    let image = ClusterSpec::new("t", ClusterSize::Nodes(2)).with_options(E2eOptions {
        image_version_id: 77,
        ..E2eOptions::default()
    });
    let resolved = resolve(
        ProviderKind::E2e,
        &image,
        &no_images,
        &Constraints::default(),
    );
    let options = resolved.unwrap().spec.options.e2e.unwrap();
    assert_eq!(
        (
            options.sku_id,
            options.sku_item_price_id,
            options.image_version_id
        ),
        (5, 50, 77)
    );
    let no_image = ClusterSpec::new("t", ClusterSize::Nodes(2));
    let error = resolve(
        ProviderKind::E2e,
        &no_image,
        &no_images,
        &Constraints::default(),
    )
    .unwrap_err();
    assert!(
        error.to_string().contains("has no image for that stack"),
        "{error}"
    );
    // The choice says which kind of plan was taken.
    let committed = ClusterSpec::new("t", ClusterSize::Nodes(2))
        .with_gpu_model("H100")
        .with_billing(Billing::Reserved { days: 30 });
    let resolution = resolve_e2e(&committed).unwrap();
    let why = resolution
        .choices
        .iter()
        .find(|c| c.field == "sku_item_price_id")
        .map(|c| c.why.as_str());
    assert_eq!(why, Some("the committed plan in Delhi"));
    let hourly = resolve_e2e(&committed.with_billing(Billing::OnDemand)).unwrap();
    let why = hourly
        .choices
        .iter()
        .find(|c| c.field == "sku_item_price_id")
        .map(|c| c.why.as_str());
    assert_eq!(why, Some("the hourly plan in Delhi"));
}

#[test]
fn together_clusters_start_at_one_node_with_no_stated_ceiling() {
    for offering in together_catalog() {
        assert_eq!(
            offering.nodes,
            NodeLimits {
                min: Some(1),
                max: None,
                allowed: None
            },
            "{}",
            offering.ids.label()
        );
    }
}

#[test]
fn together_needs_its_catalog_for_any_missing_or_family_part() {
    use crate::spec::TogetherOptions;
    let complete = || {
        ClusterSpec::new("t", ClusterSize::Gpus(16))
            .with_region("us-central-8")
            .with_gpu_model("H100_SXM")
            .with_options(TogetherOptions {
                nvidia_version_id: Some("cuda-12.8-driver-570".into()),
                ..TogetherOptions::default()
            })
    };
    assert!(!needs_catalog(ProviderKind::Together, &complete()));
    let mut no_region = complete();
    no_region.region = None;
    let family = complete().with_gpu_model("H100");
    let mut no_model = complete();
    no_model.gpu_model = None;
    let mut nodes = complete();
    nodes.size = ClusterSize::Nodes(2);
    let mut no_driver = complete();
    no_driver.options.together = None;
    for (what, spec) in [
        ("no region", no_region),
        ("a GPU family, not Together's word", family),
        ("no GPU model", no_model),
        ("a size in nodes", nodes),
        ("no driver entry", no_driver),
    ] {
        assert!(needs_catalog(ProviderKind::Together, &spec), "{what}");
    }
}

#[test]
fn together_takes_the_region_whose_drivers_have_the_asked_cuda() {
    use crate::spec::TogetherOptions;
    // us-central-4 sorts first but has only CUDA 12.10; us-central-8 has 12.6.
    let spec = ClusterSpec::new("t", ClusterSize::Gpus(16))
        .with_gpu_model("H100_SXM")
        .with_options(TogetherOptions {
            cuda_version: Some("12.6".into()),
            ..TogetherOptions::default()
        });
    let r = resolve(
        ProviderKind::Together,
        &spec,
        &together_catalog(),
        &Constraints::default(),
    )
    .unwrap();
    assert_eq!(r.spec.region.as_deref(), Some("us-central-8"));
    let options = r.spec.options.together.clone().unwrap();
    assert_eq!(
        options.nvidia_version_id.as_deref(),
        Some("cuda-12.6-driver-565")
    );
    // Its own word for the GPU is no choice; a family word is.
    let fields = |r: &Resolution| r.choices.iter().map(|c| c.field).collect::<Vec<_>>();
    assert!(!fields(&r).contains(&"gpu_type"), "{:?}", r.choices);
    let family = spec.with_gpu_model("H100");
    let r = resolve(
        ProviderKind::Together,
        &family,
        &together_catalog(),
        &Constraints::default(),
    )
    .unwrap();
    assert_eq!(
        r.choices
            .iter()
            .find(|c| c.field == "gpu_type")
            .map(|c| c.value.as_str()),
        Some("H100_SXM")
    );
}

fn ceiling(amount: f64, allow_unpriced: bool) -> Constraints {
    Constraints {
        max_price_per_hour: Some(PriceCeiling {
            amount,
            currency: "USD".into(),
        }),
        allow_unpriced,
        pricing: Default::default(),
    }
}

#[test]
fn a_ceiling_skips_an_offering_that_states_no_price_unless_unpriced_ones_are_allowed() {
    use crate::spec::TogetherOptions;
    let catalog = together_catalog();
    let spec = ClusterSpec::new("t", ClusterSize::Gpus(16)).with_gpu_model("H100_SXM");
    let error = resolve(
        ProviderKind::Together,
        &spec,
        &catalog,
        &ceiling(30.0, false),
    )
    .unwrap_err();
    assert!(matches!(error, Error::NoMatchingOffering { .. }), "{error}");
    let text = error.to_string();
    assert!(
        text.contains("states no price, so the ceiling of 30.00 USD/h cannot be checked"),
        "{text}"
    );
    let allowed = resolve(
        ProviderKind::Together,
        &spec,
        &catalog,
        &ceiling(30.0, true),
    );
    assert_eq!(
        allowed.unwrap().spec.region.as_deref(),
        Some("us-central-4")
    );
    // A request that names every id is looked up too: the ceiling needs its price.
    let named = spec
        .with_region("us-central-8")
        .with_options(TogetherOptions {
            nvidia_version_id: Some("cuda-12.8-driver-570".into()),
            ..TogetherOptions::default()
        });
    let rules = ProviderKind::Together.profile().catalog;
    assert!(!consults_catalog(rules, &named, &Constraints::default()));
    assert!(consults_catalog(rules, &named, &ceiling(30.0, false)));
    assert!(!consults_catalog(rules, &named, &ceiling(30.0, true)));
    assert!(
        resolve(
            ProviderKind::Together,
            &named,
            &catalog,
            &ceiling(30.0, false)
        )
        .is_err()
    );
    let taken = resolve(ProviderKind::Together, &named, &[], &ceiling(30.0, true)).unwrap();
    assert_eq!((taken.offering, taken.spec), (None, named));
}

#[test]
fn a_ceiling_checks_the_price_of_the_offer_a_request_names() {
    use crate::spec::RuncrateOptions;
    let catalog = runcrate_catalog();
    // offer-h100-cheap is 4 × 9.50 = 38.00/h for 16 GPUs; offer-h100-b is 2 × 23.92 = 47.84/h.
    let named = |offer: &str| {
        ClusterSpec::new("t", ClusterSize::Gpus(16)).with_options(RuncrateOptions {
            offer_id: offer.into(),
            ..RuncrateOptions::default()
        })
    };
    let cheap = resolve(
        ProviderKind::Runcrate,
        &named("offer-h100-cheap"),
        &catalog,
        &ceiling(40.0, false),
    )
    .unwrap();
    assert_eq!(
        cheap.offering.map(|o| o.ids.label()),
        Some("offer-h100-cheap".into())
    );
    let error = resolve(
        ProviderKind::Runcrate,
        &named("offer-h100-b"),
        &catalog,
        &ceiling(40.0, false),
    )
    .unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("offer-h100-b") && text.contains("costs 47.84 USD/h"),
        "{text}"
    );
}

#[test]
fn node_limits_in_words_name_every_bound_they_have() {
    let limits = |min, max, allowed: Option<Vec<u32>>| NodeLimits { min, max, allowed };
    assert_eq!(limits(Some(2), Some(64), None).describe(), "2–64 nodes");
    assert_eq!(limits(Some(2), None, None).describe(), "at least 2 nodes");
    assert_eq!(limits(None, Some(8), None).describe(), "at most 8 nodes");
    assert_eq!(limits(None, None, None).describe(), "any number of nodes");
    assert_eq!(
        limits(Some(1), Some(9), Some(vec![2, 4, 8])).describe(),
        "2, 4, 8 nodes",
        "the allowed counts, when stated, are the limit"
    );
}

#[test]
fn a_catalog_is_kept_five_minutes_by_default() {
    // The README and `with_catalog_ttl`'s docs promise five minutes.
    assert_eq!(DEFAULT_TTL, std::time::Duration::from_secs(300));
}

#[test]
fn a_number_may_be_stated_as_text() {
    // Catalog items state prices as numbers or, on some plans, as numeric strings.
    let object =
        objects(serde_json::json!([{"a": "12.5", "b": " 7 ", "c": "n/a", "d": 3}])).remove(0);
    let number = |key: &str| crate::catalog::fields::number(&object, &[key]);
    assert_eq!(number("a"), Some(12.5));
    assert_eq!(number("b"), Some(7.0));
    assert_eq!(number("c"), None);
    assert_eq!(number("d"), Some(3.0));
    assert_eq!(
        crate::catalog::fields::number(&object, &["c", "a"]),
        Some(12.5),
        "a key whose text is no number is passed over"
    );
}

#[test]
fn the_constraint_builders_set_their_fields() {
    let constraints = Constraints::default()
        .with_max_price_per_hour(PriceCeiling::new(30.5, "EUR"))
        .with_allow_unpriced(true);
    let expected = Constraints {
        max_price_per_hour: Some(PriceCeiling {
            amount: 30.5,
            currency: "EUR".into(),
        }),
        allow_unpriced: true,
        pricing: Default::default(),
    };
    assert_eq!(constraints, expected);
    assert!(!constraints.needs_price());
    assert!(
        Constraints::default()
            .with_max_price_per_hour(PriceCeiling::new(1.0, "USD"))
            .needs_price()
    );
}
