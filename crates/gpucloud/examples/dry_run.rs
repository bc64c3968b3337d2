//! The exact request a create would send, built by the generated client itself, credentials
//! redacted, with the catalog ids it resolved and why; nothing is sent.
//!
//! ```sh
//! cargo run -p gpucloud --example dry_run
//! ```
//! Runs against the providers the environment configures: a real account, or the simulator
//! (`gpucloud sim --time-scale 600` in another terminal prints the variables to export).

use gpucloud::{ClusterClient, ClusterSize, ClusterSpec, ProviderKind};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = ClusterClient::from_env(ProviderKind::Together)?;
    let spec = ClusterSpec::new("example-plan", ClusterSize::Gpus(16)).with_gpu_model("H100");
    let plan = client.plan(&spec).await?;
    println!("{plan}");
    Ok(())
}
