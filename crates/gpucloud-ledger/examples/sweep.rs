//! The safety net: a ledger records every create before it is sent, so the same request run
//! again returns the cluster it made; a deadline (`ttl`) is kept by a sweep, which deletes what
//! is past it and verifies each delete, only ever clusters this ledger's creates made.
//!
//! ```sh
//! cargo run -p gpucloud-ledger --example sweep
//! ```
//! Runs against the providers the environment configures: a real account, or the simulator
//! (`gpucloud sim --time-scale 600` in another terminal prints the variables to export). It
//! keeps its ledger in a scratch file; `Ledger::open_default()` opens the one the `gpucloud`
//! command line uses (`GPUCLOUD_LEDGER`, else the XDG state directory), so both see the same
//! clusters.

// `gpucloud::Error` is carried inline, as the library returns it (the clients' closure
// returns it too).
#![allow(clippy::result_large_err)]

use std::sync::Arc;
use std::time::Duration;

use gpucloud::{ClusterClient, ClusterSize, ClusterSpec, CreateOutcome, ProviderKind, WaitOptions};
use gpucloud_ledger::Ledger;
use gpucloud_ledger::sweep::{SweepAction, SweepPolicy};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join(format!("gpucloud-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let ledger = Arc::new(Ledger::open(dir.join("ledger.sqlite3"))?);
    // Each provider's client records into the ledger.
    let clients = |provider| {
        ClusterClient::from_vars(provider, &|name| std::env::var(name).ok(), |settings| {
            settings.journal = Some(ledger.clone());
        })
    };
    let client = clients(ProviderKind::Together)?;

    let spec = ClusterSpec::new("example-ttl", ClusterSize::Gpus(16))
        .with_gpu_model("H100")
        .with_ttl(Duration::from_secs(1));
    let first = client.create(&spec).await?;
    // The same request again: the ledger knows the name, nothing new is started.
    let again = client.create(&spec).await?;
    assert_eq!(again.outcome, CreateOutcome::AlreadyExisted);
    assert_eq!(again.cluster.id, first.cluster.id);
    println!("created {} once", first.cluster.id);

    // Past its deadline, the sweep of expired clusters deletes it and waits until it is gone.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let policy = SweepPolicy::new()
        .expired()
        .deleting(WaitOptions::up_to(Duration::from_secs(60)));
    let report = ledger.sweep(&clients, &policy, |_| {}).await?;
    for swept in &report.swept {
        match &swept.action {
            SweepAction::Deleted { took } => {
                println!("{} deleted, gone after {took:?}", swept.cluster_id)
            }
            SweepAction::Failed { reason } => {
                println!("{} may still bill: {reason}", swept.cluster_id)
            }
            other => println!("{}: {}", swept.cluster_id, other.as_str()),
        }
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
