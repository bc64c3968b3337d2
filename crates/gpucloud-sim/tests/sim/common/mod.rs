//! Shared by the simulator's tests: a simulator with frozen time, and a raw HTTP client that
//! presents each provider's credentials. (The facade's tests against the simulator are the
//! facade crate's.)

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use gpucloud_sim::{Provider, RunningSim, SimConfig, Simulator, credentials};
use serde_json::Value;

/// A simulator whose time moves only by `advance`.
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
