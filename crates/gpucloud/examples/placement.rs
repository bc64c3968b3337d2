//! One request, several providers: the cheapest offering under a price ceiling that has
//! capacity gets the cluster, and every place tried says what happened there. Prices the
//! providers do not state (Together's) come from the configuration file's price book, and
//! prices in another currency are converted by its rates; without a price book entry Together
//! is skipped, saying so (a ceiling that cannot be checked is never passed in silence).
//!
//! ```sh
//! cargo run -p gpucloud --example placement
//! ```
//! Runs against the providers the environment configures: a real account, or the simulator
//! (`gpucloud sim --time-scale 600` in another terminal prints the variables to export). A
//! test runs it against the simulator (`tests/facade/sim/examples.rs`).

use gpucloud::catalog::Pricing;
use gpucloud::config_file::ConfigFile;
use gpucloud::{
    Candidate, ClusterClient, ClusterSize, ClusterSpec, Placed, Placement, ProviderKind,
};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let pricing = ConfigFile::load_default()?
        .map(|file| file.pricing)
        .unwrap_or_default();
    run(&|name| std::env::var(name).ok(), pricing).await?;
    Ok(())
}

/// The placement, with the providers' variables read by `vars`.
pub async fn run(
    vars: &dyn Fn(&str) -> Option<String>,
    pricing: Pricing,
) -> Result<Placed, Box<dyn std::error::Error>> {
    let spec = ClusterSpec::new("example-anywhere", ClusterSize::Gpus(16)).with_gpu_model("H100");
    let mut candidates = Vec::new();
    for provider in [ProviderKind::Together, ProviderKind::Runcrate] {
        let client = ClusterClient::from_vars(provider, vars, |_| {})?;
        candidates.push(Candidate::new(client, spec.clone()));
    }
    let placement = Placement::new(candidates)
        .cheapest_first()
        .with_max_price_per_hour(60.0, "USD")
        // Together states no price: the book prices it, or it is skipped with why.
        .with_pricing(pricing)
        // Runcrate's API cannot delete a cluster: taking it is a choice to say so.
        .allow_undeletable();

    // The plan first: what would be tried, in order, and at what price. Nothing is sent.
    let plans = placement.plan().await;
    for plan in &plans {
        match &plan.resolution {
            Ok(resolution) => println!("plan: {} {:?}", plan.provider, resolution.price_per_hour()),
            Err(why) => println!("plan: {} skipped: {why}", plan.provider),
        }
    }
    // Then exactly that plan: each attempt as it ends.
    let placed = placement
        .execute(plans, |attempt| {
            println!("  {}: {:?}", attempt.place(), attempt.outcome)
        })
        .await?;
    println!(
        "{} made cluster {}",
        placed.provider, placed.created.cluster.id
    );
    // The client that made it (moved to its region where the provider needs that) follows it.
    let ready = placed
        .client
        .wait(&placed.created.cluster.id, &gpucloud::Ready)
        .run(|_| {})
        .await?;
    println!("ready after {:?}", ready.timeline.waited);
    Ok(placed)
}
