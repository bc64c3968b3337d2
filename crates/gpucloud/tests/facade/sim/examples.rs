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
