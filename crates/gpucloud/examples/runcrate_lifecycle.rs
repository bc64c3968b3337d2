//! Create → wait on Runcrate (Runcrate documents no delete endpoint for clusters: terminate it
//! in the dashboard, or through the API once it is documented).
//!
//! ```sh
//! RUNCRATE_API_KEY=rc_live_… cargo run -p gpucloud --example runcrate_lifecycle -- my-cluster <offer_id>
//! ```
//! Re-running with the same `IDEMPOTENCY_KEY` finds the cluster instead of starting another.

use gpucloud::Ready;
use gpucloud::{
    ClusterClient, ClusterSize, ClusterSpec, RuncrateConfig, RuncrateOptions, SoftwareStack,
    WaitOptions,
};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "gpucloud-example".into());
    let offer_id = args
        .next()
        .ok_or("usage: runcrate_lifecycle NAME OFFER_ID")?;

    let client = ClusterClient::runcrate(RuncrateConfig::from_env()?)?;
    let spec = ClusterSpec::new(name, ClusterSize::Nodes(2))
        .with_stack(SoftwareStack::Slurm)
        .with_options(match std::env::var("IDEMPOTENCY_KEY") {
            Ok(key) => RuncrateOptions::for_offer(offer_id).with_idempotency_key(key),
            Err(_) => RuncrateOptions::for_offer(offer_id),
        });

    println!("{}", client.plan(&spec).await?);
    let created = client.create(&spec).await?;
    println!("{:?}: cluster {}", created.outcome, created.cluster.id);

    let ready = client
        .wait(&created.cluster.id, &Ready)
        .with_options(WaitOptions::default())
        .run(|p| {
            println!(
                "[{:>5.0}s] {} ({} nodes reachable)",
                p.elapsed.as_secs_f64(),
                p.cluster.state,
                p.cluster.nodes_reachable()
            );
        })
        .await
        .map(|w| w.output)
        .map_err(gpucloud::Error::from)?;
    for node in &ready.nodes {
        println!("{}", node.ssh_command.as_deref().unwrap_or("(no ssh yet)"));
    }
    if let Some(price) = &ready.price {
        println!(
            "billing {:.2} {}/hour since up_at",
            price.per_hour, price.currency
        );
    }
    match client.delete(&ready.id).await {
        Err(gpucloud::Error::Unsupported { .. }) => {
            println!("terminate {} from the Runcrate dashboard", ready.id)
        }
        other => other?,
    }
    Ok(())
}
