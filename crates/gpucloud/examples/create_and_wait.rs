//! Create a cluster and wait until it is ready; a cluster that fails is deleted and the delete
//! verified. Every call returns the one `gpucloud::Error`, so its kinds match the same way
//! wherever they come from.
//!
//! ```sh
//! cargo run -p gpucloud --example create_and_wait
//! ```
//! Runs against the providers the environment configures: a real account, or the simulator
//! (`gpucloud sim --time-scale 600` in another terminal prints the variables to export).

use gpucloud::{
    ClusterClient, ClusterSize, ClusterSpec, CreateAndWait, Error, ProviderKind, WaitOptions,
};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = ClusterClient::from_env(ProviderKind::Together)?;
    // Intent only: the catalog fills in the region and the driver.
    let spec = ClusterSpec::new("example-train", ClusterSize::Gpus(16)).with_gpu_model("H100");

    match client
        .create_and_wait(&spec, &CreateAndWait::default(), |p| {
            println!(
                "  {} ({})",
                p.cluster.state,
                p.cluster.phase.as_deref().unwrap_or("-")
            )
        })
        .await
    {
        Ok(ready) => {
            println!(
                "{} is ready: {} nodes",
                ready.cluster.id,
                ready.cluster.nodes.len()
            );
            let deleted = client
                .delete_and_wait(&ready.cluster.id, &WaitOptions::default(), |_| {})
                .await?;
            println!("deleted; gone after {:?}", deleted.took);
        }
        // The provider had nothing: nothing was created, nothing bills.
        Err(Error::NoCapacity(answer)) => println!("no capacity: {answer}"),
        // A cluster was made and did not become ready: what was done about it.
        Err(Error::NotReady(failed)) => {
            println!(
                "{failed} (may be billing: {})",
                failed.cleanup.may_be_billing()
            );
        }
        Err(other) => return Err(other.into()),
    }
    Ok(())
}
