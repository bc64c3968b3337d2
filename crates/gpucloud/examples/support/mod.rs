//! What the examples share: a simulator of the three providers in this process, so that each
//! example runs as it is, with no account; and a client of each provider pointed at it. With
//! an account, build the client with `ClusterClient::from_env(provider)` instead.

use gpucloud::{ClientSettings, ClusterClient, ProviderKind};
use gpucloud_sim::{RunningSim, SimConfig, Simulator};

/// A simulator whose time runs 600 times faster than the clock on the wall: a cluster that
/// takes five minutes to become ready takes half a second.
pub async fn simulator() -> Result<RunningSim, Box<dyn std::error::Error>> {
    Ok(Simulator::start(SimConfig {
        time_scale: 600.0,
        ..SimConfig::default()
    })
    .await?)
}

/// A client of `provider` pointed at `sim`, with `adjust` applied to its shared settings (a
/// journal, a timeout).
// `gpucloud::Error` is carried inline, as the library returns it.
#[allow(clippy::result_large_err)]
pub fn client(
    sim: &RunningSim,
    provider: ProviderKind,
    adjust: impl FnOnce(&mut ClientSettings),
) -> Result<ClusterClient, gpucloud::Error> {
    let environment = sim.environment();
    let vars = |name: &str| {
        environment
            .iter()
            .find(|(variable, _)| *variable == name)
            .map(|(_, value)| value.clone())
    };
    ClusterClient::from_vars(provider, &vars, adjust)
}
