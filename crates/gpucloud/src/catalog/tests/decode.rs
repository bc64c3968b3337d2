//! Each provider's catalog answer decoded into offerings, with and without the fields that
//! are inferred from undocumented parts.

use super::*;

#[test]
fn together_offerings_are_per_region_and_gpu_with_drivers_newest_first() {
    let catalog = together_catalog();
    let labels: Vec<_> = catalog.iter().map(|o| o.ids.label()).collect();
    assert_eq!(
        labels,
        [
            "us-central-8/H100_SXM",
            "us-central-8/H200_SXM",
            "us-central-4/H100_SXM",
            "us-central-4/L40_PCIE"
        ]
    );
    let drivers: Vec<_> = catalog[0].drivers.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(
        drivers,
        ["cuda-12.8-driver-570", "cuda-12.6-driver-565"],
        "an entry without an id is dropped"
    );
    assert_eq!(catalog[0].gpu_family.as_deref(), Some("H100"));
    assert_eq!(catalog[0].gpus_per_node, Some(8));
    assert_eq!(catalog[0].inferred, ["gpus_per_node"]);
}

#[test]
fn runcrate_offers_decode_with_and_without_the_inferred_fields() {
    let catalog = runcrate_catalog();
    assert_eq!(catalog.len(), 5, "the offer without an id is left out");
    assert!(catalog[4].community_host && !catalog[2].community_host);
    let full = &catalog[0];
    assert_eq!(full.gpu_family.as_deref(), Some("H100"));
    assert_eq!(full.gpus_per_node, Some(8));
    assert_eq!(
        full.price
            .as_ref()
            .map(|p| (p.per_node_hour, p.currency.as_str())),
        Some((23.92, "USD"))
    );
    assert_eq!(full.region.as_deref(), Some("Dallas, TX"));
    assert_eq!(
        full.inferred,
        [
            "ids",
            "gpu_model",
            "gpu_family",
            "gpus_per_node",
            "price",
            "region"
        ]
    );
    let bare = &catalog[3];
    assert_eq!(
        (
            bare.gpu_model.as_ref(),
            bare.price.as_ref(),
            bare.gpus_per_node
        ),
        (None, None, None)
    );
    assert_eq!(
        bare.nodes,
        NodeLimits {
            min: Some(1),
            max: Some(4),
            allowed: None
        }
    );
    assert!(bare.stacks.is_empty(), "an unknown stack is not guessed");
    assert_eq!(bare.inferred, ["ids"]);
    assert_eq!(catalog[2].nodes.allowed.as_deref(), Some(&[2, 4, 8][..]));
}

#[test]
fn e2e_plans_decode_per_plan_of_the_location_with_images() {
    let catalog = e2e_catalog();
    let labels: Vec<_> = catalog.iter().map(|o| o.ids.label()).collect();
    assert_eq!(
        labels,
        [
            "sku 139 / plan 645",
            "sku 201 / plan 811",
            "sku 201 / plan 812",
            "sku 300 / plan 901"
        ],
        "Chennai's plan, items without ids and non-objects are left out"
    );
    assert_eq!(catalog[0].gpu_model, None, "a CPU node type has no GPU");
    assert_eq!(catalog[1].gpu_model.as_deref(), Some("H100"));
    assert_eq!(
        catalog[1].price.as_ref().map(|p| p.per_node_hour),
        Some(2040.0)
    );
    assert_eq!(
        catalog[2].billing,
        [BillingKind::Reserved { days: Some(30) }]
    );
    assert_eq!(
        catalog[2].price, None,
        "a committed plan has no hourly price"
    );
    assert_eq!(
        catalog[3].price, None,
        "absent fields are absent, not errors"
    );
    let images: Vec<_> = catalog[1].images.iter().map(|i| i.id).collect();
    assert_eq!(
        images,
        [5, 2],
        "newest first; a version without an id is left out"
    );
}
