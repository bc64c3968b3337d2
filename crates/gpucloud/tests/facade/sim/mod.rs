//! The facade against the simulator: a simulator whose time moves only when the facade
//! sleeps (a [`SimTime`] clock), facade clients pointed at it on that timeline, valid requests
//! for each provider, and what the simulator holds and was asked. These tests hold the
//! facade's behaviour end to end: placement across providers, waits, clean-ups, faults.

#![allow(dead_code)]

mod examples;
mod faults;
mod lifecycle;
mod money;
mod placement;

use gpucloud::clock::{Clock, Sleep};
use gpucloud_sim::{SimClock, SimConfig, Simulator};

use std::sync::Arc;
use std::time::Duration;

use gpucloud::e2e::types::Location;
use gpucloud::{
    ClusterClient, ClusterSize, ClusterSpec, E2eConfig, E2eOptions, RetryPolicy, RuncrateConfig,
    RuncrateOptions, SoftwareStack, TogetherConfig, TogetherOptions,
};
use gpucloud_sim::{Provider, RunningSim, credentials};

/// How the facade's requests should behave.
#[derive(Debug, Clone)]
pub struct Settings {
    pub timeout: Duration,
    pub retry: RetryPolicy,
    pub clock: Arc<SimTime>,
}

impl Settings {
    pub fn of(sim: &RunningSim) -> Self {
        Self {
            timeout: Duration::from_secs(5),
            retry: RetryPolicy::default(),
            clock: SimTime::of(sim),
        }
    }
}

pub fn client(sim: &RunningSim, provider: Provider) -> ClusterClient {
    client_with(sim, provider, Settings::of(sim))
}

pub fn client_with(sim: &RunningSim, provider: Provider, settings: Settings) -> ClusterClient {
    let url = sim.base_url(provider);
    let Settings {
        timeout,
        retry,
        clock,
    } = settings;
    match provider {
        Provider::Together => ClusterClient::together(
            TogetherConfig::new(credentials::TOGETHER_API_KEY.to_string())
                .with_base_url(url)
                .with_timeout(timeout)
                .with_retry_policy(retry)
                .with_clock(clock),
        ),
        Provider::Runcrate => ClusterClient::runcrate(
            RuncrateConfig::new(credentials::RUNCRATE_API_KEY.to_string())
                .with_base_url(url)
                .with_timeout(timeout)
                .with_retry_policy(retry)
                .with_clock(clock),
        ),
        Provider::E2e => ClusterClient::e2e(
            E2eConfig::new(
                credentials::E2E_API_KEY.to_string(),
                credentials::E2E_AUTH_TOKEN.to_string(),
                credentials::E2E_PROJECT_ID,
                Location::Delhi,
            )
            .with_base_url(url)
            .with_timeout(timeout)
            .with_retry_policy(retry)
            .with_clock(clock),
        ),
    }
    .unwrap()
}

/// A valid spec for `provider` named `name`.
pub fn spec(provider: Provider, name: &str) -> ClusterSpec {
    match provider {
        Provider::Together => ClusterSpec::new(name, ClusterSize::Gpus(16))
            .with_gpu_model("H100_SXM")
            .with_region("us-central-8")
            .with_options(
                TogetherOptions::default().with_nvidia_version_id("cuda-12.8-driver-570"),
            ),
        Provider::Runcrate => ClusterSpec::new(name, ClusterSize::Nodes(2))
            .with_stack(SoftwareStack::Slurm)
            .with_options(RuncrateOptions::for_offer("offer-h100-sxm-8x")),
        Provider::E2e => ClusterSpec::new(name, ClusterSize::Nodes(2))
            .with_ssh_keys(["1001"])
            .with_options(
                E2eOptions::default()
                    .with_sku(201, 811)
                    .with_image_version_id(2)
                    .with_security_group_id(77),
            ),
    }
}

/// How many clusters of that name the simulator holds.
pub fn named(sim: &RunningSim, provider: Provider, name: &str) -> usize {
    sim.clusters(provider)
        .iter()
        .filter(|c| c.name == name)
        .count()
}

/// How many requests of `operation` the simulator answered (or dropped).
pub fn requests(sim: &RunningSim, provider: Provider, operation: &str) -> usize {
    sim.exchanges()
        .iter()
        .filter(|e| e.provider == Some(provider) && e.operation.as_deref() == Some(operation))
        .count()
}
/// A simulator whose time moves only by `advance` (or by a [`SimTime`] facade clock).
pub async fn sim() -> RunningSim {
    Simulator::start(SimConfig {
        time_scale: 0.0,
        ..SimConfig::default()
    })
    .await
    .unwrap()
}

/// Stops the simulator once every answer it gave matched the specs.
pub async fn finish(sim: RunningSim) {
    assert_eq!(
        sim.spec_violations(),
        Vec::<String>::new(),
        "the simulator broke the specs"
    );
    sim.shutdown().await;
}

/// A facade clock on the simulator's timeline: `sleep` moves simulated time forward (and,
/// with `real_pause`, also waits that long for real, capped, for tests that need a real
/// request to finish meanwhile).
#[derive(Debug, Clone)]
pub struct SimTime {
    pub clock: SimClock,
    pub real_pause: Duration,
}

impl SimTime {
    pub fn of(sim: &RunningSim) -> Arc<Self> {
        Arc::new(Self {
            clock: sim.clock(),
            real_pause: Duration::ZERO,
        })
    }
}

impl Clock for SimTime {
    fn now(&self) -> Duration {
        self.clock.elapsed()
    }

    fn sleep(&self, duration: Duration) -> Sleep<'_> {
        self.clock.advance(duration);
        let pause = self.real_pause.min(duration);
        Box::pin(async move {
            if pause.is_zero() {
                tokio::task::yield_now().await;
            } else {
                tokio::time::sleep(pause).await;
            }
        })
    }
}
