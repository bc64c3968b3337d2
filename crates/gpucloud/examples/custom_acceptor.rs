//! Wait for your own condition: an acceptor judges each poll (done, failed, or poll again) and
//! makes the wait's output from the poll it accepts. Here: ready, with at least two nodes
//! that have an address to connect to, and the output is those addresses.
//!
//! ```sh
//! cargo run -p gpucloud --example custom_acceptor
//! ```
//! Runs against the providers the environment configures: a real account, or the simulator
//! (`gpucloud sim --time-scale 600` in another terminal prints the variables to export).

use gpucloud::{
    Acceptor, Cluster, ClusterClient, ClusterSize, ClusterSpec, ClusterState, Observation,
    ProviderKind, Verdict, WaitError,
};

/// Ready with `0` reachable nodes or more; the output is their addresses.
struct Reachable(usize);

impl Acceptor for Reachable {
    type Output = Vec<String>;

    fn judge(&self, seen: Observation<'_>) -> Verdict {
        match seen {
            Observation::Cluster(c) if c.state.is_terminal_failure() => Verdict::Failure,
            Observation::Cluster(c)
                if c.state == ClusterState::Ready && c.nodes_reachable() >= self.0 =>
            {
                Verdict::Success
            }
            Observation::Cluster(_) => Verdict::KeepPolling,
            Observation::Error(_) => Verdict::Failure,
        }
    }

    fn output(&self, accepted: Option<Cluster>) -> Option<Vec<String>> {
        let cluster = accepted?;
        Some(
            cluster
                .nodes
                .iter()
                .filter_map(|n| n.public_ip.clone().or_else(|| n.private_ip.clone()))
                .collect(),
        )
    }

    fn goal(&self) -> &str {
        "to have its nodes reachable"
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = ClusterClient::from_env(ProviderKind::Together)?;
    let spec = ClusterSpec::new("example-reachable", ClusterSize::Gpus(16)).with_gpu_model("H100");
    let created = client.create(&spec).await?;
    match client
        .wait(&created.cluster.id, &Reachable(2))
        .run(|_| {})
        .await
    {
        Ok(waited) => println!("reachable at {:?}", waited.output),
        Err(WaitError::ExceededMaxWait { last, .. }) => {
            println!("gave up; last seen {:?}", last.map(|c| c.state));
        }
        Err(other) => return Err(other.into()),
    }
    client
        .delete_and_wait(&created.cluster.id, &Default::default(), |_| {})
        .await?;
    Ok(())
}
