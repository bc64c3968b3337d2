//! Shared by the simulator's tests: a simulator with frozen time, a raw HTTP client that
//! presents each provider's credentials, and a `gpucloud` clock that moves the simulator's
//! time when the facade sleeps, so facade and simulator share one deterministic timeline.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use gpucloud::clock::{Clock, Sleep};
use gpucloud_sim::{Provider, RunningSim, SimClock, SimConfig, Simulator, credentials};
use serde_json::Value;

/// A simulator whose time moves only by `advance` (or by a [`SimTime`] facade clock).
pub async fn sim() -> RunningSim {
    Simulator::start(SimConfig {
        time_scale: 0.0,
        ..SimConfig::default()
    })
    .await
    .unwrap()
}

/// Asserts that every answer the simulator gave matched the specs, then stops it.
pub async fn finish(sim: RunningSim) {
    let violations = sim.spec_violations();
    assert!(
        violations.is_empty(),
        "the simulator broke the specs:\n{violations:#?}"
    );
    sim.shutdown().await;
}

/// An answer: status, headers and body (JSON, or `Value::String` of the text if not JSON).
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
    pub json: Value,
}

/// Sends `method path` (relative to the provider's base URL) with the provider's credentials.
pub async fn call(
    sim: &RunningSim,
    provider: Provider,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> Answer {
    send(sim, provider, method, path, body, &[]).await
}

/// [`call`] with extra headers.
pub async fn send(
    sim: &RunningSim,
    provider: Provider,
    method: &str,
    path: &str,
    body: Option<Value>,
    headers: &[(&str, &str)],
) -> Answer {
    let request = authed(sim, provider, method, path);
    let request = headers.iter().fold(request, |r, (k, v)| r.header(*k, *v));
    let request = match body {
        Some(body) => request.json(&body),
        None => request,
    };
    answer(request.send().await.unwrap()).await
}

/// A request builder with the provider's credentials (E2E: bearer + `apikey` + scope).
pub fn authed(
    sim: &RunningSim,
    provider: Provider,
    method: &str,
    path: &str,
) -> reqwest::RequestBuilder {
    let url = format!("{}{path}", sim.base_url(provider));
    let request = http().request(method.parse().unwrap(), url);
    match provider {
        Provider::Together => request.bearer_auth(credentials::TOGETHER_API_KEY),
        Provider::Runcrate => request.bearer_auth(credentials::RUNCRATE_API_KEY),
        Provider::E2e => request.bearer_auth(credentials::E2E_AUTH_TOKEN).query(&[
            ("apikey", credentials::E2E_API_KEY.to_string()),
            ("project_id", credentials::E2E_PROJECT_ID.to_string()),
            ("location", "Delhi".to_string()),
        ]),
    }
}

/// An E2E request scoped to `location` instead of Delhi.
pub async fn e2e_in(
    sim: &RunningSim,
    location: &str,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> Answer {
    let url = format!("{}{path}", sim.base_url(Provider::E2e));
    let request = http()
        .request(method.parse().unwrap(), url)
        .bearer_auth(credentials::E2E_AUTH_TOKEN)
        .query(&[
            ("apikey", credentials::E2E_API_KEY.to_string()),
            ("project_id", credentials::E2E_PROJECT_ID.to_string()),
            ("location", location.to_string()),
        ]);
    let request = match body {
        Some(body) => request.json(&body),
        None => request,
    };
    answer(request.send().await.unwrap()).await
}

/// One HTTP client for every test request: building one (TLS roots included) is slow in a
/// debug build.
pub fn http() -> reqwest::Client {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    CLIENT
        .get_or_init(|| {
            gpucloud_core::tls::client_builder()
                .unwrap()
                .build()
                .unwrap()
        })
        .clone()
}

/// `method {control_url}{path}` with no credentials at all.
pub async fn control(sim: &RunningSim, method: &str, path: &str, body: Option<&str>) -> Answer {
    let url = format!("{}{path}", sim.control_url());
    let request = http().request(method.parse().unwrap(), url);
    let request = match body {
        Some(body) => request
            .header("content-type", "application/json")
            .body(body.to_string()),
        None => request,
    };
    answer(request.send().await.unwrap()).await
}

pub async fn answer(response: reqwest::Response) -> Answer {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    let json = serde_json::from_str(&text).unwrap_or(Value::String(text.clone()));
    Answer {
        status,
        headers,
        text,
        json,
    }
}

pub fn together_create(name: &str) -> Value {
    serde_json::json!({
        "cluster_name": name,
        "region": "us-central-8",
        "gpu_type": "H100_SXM",
        "num_gpus": 16,
        "billing_type": "ON_DEMAND",
        "nvidia_version_id": "cuda-12.8-driver-570",
    })
}

pub fn runcrate_create(name: &str, offer: &str) -> Value {
    serde_json::json!({"name": name, "offer_id": offer, "node_count": 2, "stack": "slurm"})
}

pub fn e2e_create(name: &str) -> Value {
    serde_json::json!({
        "name": name,
        "image_version_id": 2,
        "ssh_key_ids": [1001],
        "security_group_id": 77,
        "sku_id": 201,
        "no_of_nodes": 2,
        "sku_item_price_id": 811,
    })
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

/// Facade clients pointed at the simulator, on its timeline.
pub mod facade {
    use std::sync::Arc;
    use std::time::Duration;

    use gpucloud::e2e::types::Location;
    use gpucloud::{
        ClusterClient, ClusterSize, ClusterSpec, E2eConfig, E2eOptions, RetryPolicy,
        RuncrateConfig, RuncrateOptions, SoftwareStack, TogetherConfig, TogetherOptions,
    };
    use gpucloud_sim::{Provider, RunningSim, credentials};

    use super::SimTime;

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
}
