//! The placement example (`examples/placement.rs`, the one `docs/library.md` shows) run
//! against the simulator: with a price book entry for Together it is priced and, cheapest,
//! gets the cluster; without one it is skipped (its ceiling cannot be checked) and Runcrate
//! gets it.

use gpucloud::ProviderKind;
use gpucloud::config_file::ConfigFile;
use gpucloud_sim::{SimConfig, Simulator};

#[path = "../../../examples/placement.rs"]
#[allow(dead_code, clippy::print_stdout)]
mod placement;

const PRICE_BOOK: &str = r#"
[[price_book]]
provider = "together"
gpu_model = "H100"
per_gpu_hour = 2.5
currency = "USD"
source = "the simulator's price list"
as_of = "2026-12-01"
"#;

#[test]
fn the_placement_example_runs_against_the_simulator_with_and_without_a_price_book() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let priced = ConfigFile::parse(std::path::Path::new("config.toml"), PRICE_BOOK)
        .unwrap()
        .pricing;
    for (pricing, made) in [
        (priced, ProviderKind::Together),
        (Default::default(), ProviderKind::Runcrate),
    ] {
        let sim = runtime
            .block_on(Simulator::start(SimConfig {
                time_scale: 600.0,
                ..SimConfig::default()
            }))
            .unwrap();
        let env = sim.environment();
        let vars = move |name: &str| env.iter().find(|(k, _)| *k == name).map(|(_, v)| v.clone());
        let placed = runtime
            .block_on(placement::run(&vars, pricing))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(placed.provider, made);
    }
}

#[test]
fn a_placement_that_makes_nothing_says_why_at_every_candidate_not_only_the_last() {
    use gpucloud::{
        AttemptOutcome, Candidate, ClusterClient, ClusterSize, ClusterSpec, ErrorKind, Placement,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let sim = runtime
        .block_on(Simulator::start(SimConfig::default()))
        .unwrap();
    let env = sim.environment();
    let vars = move |name: &str| env.iter().find(|(k, _)| *k == name).map(|(_, v)| v.clone());
    let spec = ClusterSpec::new("nowhere", ClusterSize::Gpus(16)).with_gpu_model("H100");
    let candidates = [ProviderKind::Together, ProviderKind::Runcrate].map(|p| {
        Candidate::new(
            ClusterClient::from_vars(p, &vars, |_| {}).unwrap(),
            spec.clone(),
        )
    });
    // No price book (Together unpriced), Runcrate not allowed (its API cannot delete).
    let placement = Placement::new(candidates).with_max_price_per_hour(60.0, "USD");
    let unplaced = runtime
        .block_on(placement.create_or_explain())
        .err()
        .unwrap_or_else(|| panic!("nothing can be placed"));
    assert_eq!(
        unplaced.error.kind(),
        ErrorKind::Undeletable,
        "the last one's"
    );
    let kinds: Vec<(ProviderKind, ErrorKind)> = unplaced
        .attempts
        .iter()
        .filter_map(|a| match &a.outcome {
            AttemptOutcome::Skipped { kind, .. } => Some((a.provider, *kind)),
            _ => None,
        })
        .collect();
    assert!(
        kinds.contains(&(ProviderKind::Together, ErrorKind::NoMatchingOffering)),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&(ProviderKind::Runcrate, ErrorKind::Undeletable)),
        "{kinds:?}"
    );
    let said = unplaced.to_string();
    assert!(
        said.contains("together") && said.contains("[[price_book]]"),
        "{said}"
    );
    assert!(said.contains("runcrate"), "{said}");
}
