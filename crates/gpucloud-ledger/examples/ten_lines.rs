//! The README's "library in ten lines", compiled: a cluster made on the same safety net as the
//! command line (the ledger `gpucloud` uses), with a deadline its sweep keeps. A test checks
//! that the README shows exactly the code below this comment.
//!
//! ```sh
//! cargo run -p gpucloud-ledger --example ten_lines
//! ```
//! Against the simulator: `gpucloud sim --time-scale 600` in another terminal prints the
//! variables to export.

use std::sync::Arc;
use std::time::Duration;

use gpucloud::{ClusterClient, ClusterSize, ClusterSpec, CreateAndWait, ProviderKind, WaitOptions};
use gpucloud_ledger::Ledger;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ledger = Arc::new(Ledger::open_default()?); // the one `gpucloud ledger` and its sweep read
    let client = ClusterClient::from_env(ProviderKind::Together)?.with_journal(ledger);
    let spec = ClusterSpec::new("train-42", ClusterSize::Gpus(16))
        .with_gpu_model("H100")
        .with_ttl(Duration::from_secs(8 * 3600)); // `clusters sweep --expired --delete` ends it
    let ready = client
        .create_and_wait(&spec, &CreateAndWait::default(), |p| {
            println!("{}", p.cluster.state)
        })
        .await?; // a cluster that fails is deleted, the delete verified; the error says so
    println!(
        "{} is ready with {} nodes",
        ready.cluster.id,
        ready.cluster.nodes.len()
    );
    client
        .delete_and_wait(&ready.cluster.id, &WaitOptions::default(), |_| {})
        .await?;
    Ok(())
}
