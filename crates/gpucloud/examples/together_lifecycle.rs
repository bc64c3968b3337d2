//! Create → wait → delete on Together AI.
//!
//! ```sh
//! TOGETHER_API_KEY=… cargo run -p gpucloud --example together_lifecycle -- my-cluster us-central-8 <nvidia_version_id>
//! ```
//! Set `TOGETHER_BASE_URL` to aim it at a proxy or a simulator.

use gpucloud::Ready;
use gpucloud::{
    ClusterClient, ClusterSize, ClusterSpec, TogetherConfig, TogetherOptions, WaitOptions,
};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "gpucloud-example".into());
    let region = args.next().unwrap_or_else(|| "us-central-8".into());
    // Without a driver id, the create picks the region's newest from the catalog.
    let options = match args.next() {
        Some(id) => TogetherOptions::default().with_nvidia_version_id(id),
        None => TogetherOptions::default(),
    };

    let client = ClusterClient::together(TogetherConfig::from_env()?)?;
    let spec = ClusterSpec::new(name, ClusterSize::Gpus(8))
        .with_gpu_model("H100_SXM")
        .with_region(region)
        .with_options(options);

    println!("{}", client.plan(&spec).await?);
    let created = client.create(&spec).await?;
    println!(
        "{:?}: cluster {} ({} POST)",
        created.outcome, created.cluster.id, created.attempts
    );

    let ready = client
        .wait(&created.cluster.id, &Ready)
        .with_options(WaitOptions::default())
        .run(|p| {
            println!(
                "[{:>5.0}s] {} {}",
                p.elapsed.as_secs_f64(),
                p.cluster.state,
                p.cluster.phase.as_deref().unwrap_or("")
            );
        })
        .await
        .map(|w| w.output)
        .map_err(gpucloud::Error::from)?;
    for node in &ready.nodes {
        println!("{} {}", node.id, node.hostname.as_deref().unwrap_or("-"));
    }

    client.delete(&ready.id).await?;
    println!("deleted {}", ready.id);
    Ok(())
}
