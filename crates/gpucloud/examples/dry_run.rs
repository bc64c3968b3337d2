//! The exact request a create would send, built by the generated client itself, credentials
//! redacted, with the catalog ids it resolved and why; nothing is sent.
//!
//! ```sh
//! cargo run -p gpucloud --example dry_run
//! ```

#[path = "support/mod.rs"]
mod support;

use gpucloud::{ClusterSize, ClusterSpec, ProviderKind};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sim = support::simulator().await?;
    let client = support::client(&sim, ProviderKind::Together, |_| {})?;
    let spec = ClusterSpec::new("example-plan", ClusterSize::Gpus(16)).with_gpu_model("H100");
    let plan = client.plan(&spec).await?;
    println!("{plan}");
    assert!(
        sim.clusters(gpucloud_sim::Provider::Together).is_empty(),
        "nothing was created"
    );
    sim.shutdown().await;
    Ok(())
}
