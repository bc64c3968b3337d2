//! Resize a ready cluster and wait until it is ready at the new size.
//!
//! ```sh
//! cargo run -p gpucloud --example resize
//! ```
//! Runs against the providers the environment configures: a real account, or the simulator
//! (`gpucloud sim --time-scale 600` in another terminal prints the variables to export).

use gpucloud::{ClusterClient, ClusterSize, ClusterSpec, CreateAndWait, ProviderKind, SizeReached};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = ClusterClient::from_env(ProviderKind::Together)?;
    let spec = ClusterSpec::new("example-resize", ClusterSize::Gpus(16)).with_gpu_model("H100");
    let ready = client
        .create_and_wait(&spec, &CreateAndWait::default(), |_| {})
        .await?;
    let id = ready.cluster.id;

    // Together resizes in GPUs (a positive multiple of 8, checked before anything is sent).
    let bigger = ClusterSize::Gpus(24);
    client.resize(&id, bigger).await?;
    let resized = client.wait(&id, &SizeReached(bigger)).run(|_| {}).await?;
    println!("{} now has {:?} GPUs", id, resized.output.gpu_count);

    client
        .delete_and_wait(&id, &Default::default(), |_| {})
        .await?;
    Ok(())
}
