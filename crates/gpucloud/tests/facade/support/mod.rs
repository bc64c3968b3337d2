//! Shared fixtures for the facade's integration tests: a wiremock server whose lowest-priority
//! catch-all names every request no test mock matched, clients for the three providers pointed
//! at it with a [`ManualClock`] (nothing really sleeps), response sequences, request counting,
//! the documented example bodies, the specs several targets create, and, in [`capture`], a
//! tracing capture.

#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod capture;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gpucloud::clock::ManualClock;
use gpucloud::e2e::types::Location;
use gpucloud::{
    ClusterClient, ClusterSize, ClusterSpec, E2eConfig, E2eOptions, RetryPolicy, RuncrateConfig,
    RuncrateOptions, TogetherConfig, TogetherOptions,
};
use serde_json::{Value, json};
use wiremock::matchers::{any, method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

pub const TOGETHER_KEY: &str = "tg-SECRET-key-5f1e9a";
pub const RUNCRATE_KEY: &str = "rc_live_SECRET_7c2d4b";
pub const E2E_API_KEY: &str = "e2e-SECRET-apikey-91ab";
pub const E2E_TOKEN: &str = "e2e-SECRET-token-3f08";
pub const E2E_PROJECT: i64 = 4242;
/// An address where nothing listens (the discard port on loopback).
pub const DEAD_URL: &str = "http://127.0.0.1:9";

/// The status the catch-all answers with: no provider uses it.
pub const UNMATCHED_STATUS: u16 = 599;

/// A mock provider API.
pub struct Api {
    pub server: MockServer,
    pub clock: ManualClock,
    unmatched: Arc<Mutex<Vec<String>>>,
}

/// Answers 599 "no mock matched: METHOD URL" and remembers the request.
struct CatchAll(Arc<Mutex<Vec<String>>>);

impl Respond for CatchAll {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        // The URL is echoed without E2E's apikey, so a failing secrets test points at the
        // facade and not at this catch-all.
        let mut url = request.url.clone();
        let pairs: Vec<(String, String)> = url
            .query_pairs()
            .map(|(k, v)| {
                (
                    k.to_string(),
                    if k == "apikey" {
                        "***".to_string()
                    } else {
                        v.to_string()
                    },
                )
            })
            .collect();
        if !pairs.is_empty() {
            url.query_pairs_mut().clear().extend_pairs(pairs);
        }
        let line = format!("{} {}", request.method, url);
        self.0.lock().unwrap().push(line.clone());
        ResponseTemplate::new(UNMATCHED_STATUS).set_body_string(format!("no mock matched: {line}"))
    }
}

impl Api {
    pub async fn start() -> Self {
        let server = MockServer::start().await;
        let unmatched = Arc::new(Mutex::new(Vec::new()));
        Self::mount_catch_all(&server, &unmatched).await;
        Self {
            server,
            clock: ManualClock::new(),
            unmatched,
        }
    }

    /// Forgets every mock and request, then mounts the catch-all again.
    pub async fn reset(&self) {
        self.server.reset().await;
        self.unmatched.lock().unwrap().clear();
        Self::mount_catch_all(&self.server, &self.unmatched).await;
    }

    async fn mount_catch_all(server: &MockServer, unmatched: &Arc<Mutex<Vec<String>>>) {
        Mock::given(any())
            .respond_with(CatchAll(unmatched.clone()))
            .with_priority(u8::MAX)
            .named("catch-all")
            .mount(server)
            .await;
    }

    pub fn uri(&self) -> String {
        self.server.uri()
    }

    /// Requests no test mock matched, as "METHOD URL".
    pub fn unmatched(&self) -> Vec<String> {
        self.unmatched.lock().unwrap().clone()
    }

    /// Panics naming every request that reached the catch-all.
    pub fn assert_all_matched(&self) {
        let unmatched = self.unmatched();
        assert!(
            unmatched.is_empty(),
            "requests no mock matched: {unmatched:#?}"
        );
    }

    /// Every request received, in order.
    pub async fn all(&self) -> Vec<Request> {
        self.server.received_requests().await.unwrap_or_default()
    }

    /// The requests with this method and exact path, in order.
    pub async fn requests(&self, method: &str, path: &str) -> Vec<Request> {
        self.all()
            .await
            .into_iter()
            .filter(|r| r.method.as_str() == method && r.url.path() == path)
            .collect()
    }

    /// How many requests had this method and exact path.
    pub async fn count(&self, method: &str, path: &str) -> usize {
        self.requests(method, path).await.len()
    }

    /// Requests counted by "METHOD path".
    pub async fn counts(&self) -> HashMap<String, usize> {
        let mut counts = HashMap::new();
        for request in self.all().await {
            *counts
                .entry(format!("{} {}", request.method, request.url.path()))
                .or_insert(0) += 1;
        }
        counts
    }

    /// Sleeps recorded by the clock.
    pub fn sleeps(&self) -> Vec<Duration> {
        self.clock.sleeps()
    }

    pub fn together_config(&self) -> TogetherConfig {
        TogetherConfig::new(TOGETHER_KEY)
            .with_base_url(self.uri())
            .with_clock(Arc::new(self.clock.clone()))
            .with_random(Arc::new(gpucloud::random::FixedRandom::MAX))
    }

    pub fn runcrate_config(&self) -> RuncrateConfig {
        RuncrateConfig::new(RUNCRATE_KEY)
            .with_base_url(self.uri())
            .with_clock(Arc::new(self.clock.clone()))
            .with_random(Arc::new(gpucloud::random::FixedRandom::MAX))
    }

    pub fn e2e_config(&self) -> E2eConfig {
        E2eConfig::new(E2E_API_KEY, E2E_TOKEN, E2E_PROJECT, Location::Delhi)
            .with_base_url(self.uri())
            .with_clock(Arc::new(self.clock.clone()))
            .with_random(Arc::new(gpucloud::random::FixedRandom::MAX))
    }

    pub fn together(&self) -> ClusterClient {
        ClusterClient::together(self.together_config()).unwrap()
    }

    pub fn runcrate(&self) -> ClusterClient {
        ClusterClient::runcrate(self.runcrate_config()).unwrap()
    }

    pub fn e2e(&self) -> ClusterClient {
        ClusterClient::e2e(self.e2e_config()).unwrap()
    }
}

/// The default policy's number of attempts.
pub fn max_attempts() -> usize {
    RetryPolicy::default().max_attempts as usize
}

/// Answers with each template in turn, then repeats the last.
pub struct Seq {
    responses: Vec<ResponseTemplate>,
    next: AtomicUsize,
}

pub fn seq(responses: impl IntoIterator<Item = ResponseTemplate>) -> Seq {
    let responses: Vec<_> = responses.into_iter().collect();
    assert!(!responses.is_empty());
    Seq {
        responses,
        next: AtomicUsize::new(0),
    }
}

impl Respond for Seq {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        let n = self.next.fetch_add(1, Ordering::SeqCst);
        self.responses[n.min(self.responses.len() - 1)].clone()
    }
}

/// Answers every `verb` request to exactly `at` with `responder`.
/// E2E's list ends at its first empty page: pages after the first of `GET {at}` answer an
/// empty page (ahead of every other mock of `at`), so that a test's one page is the whole list.
pub async fn e2e_list_ends_after_page_1(api: &Api, at: &str) {
    Mock::given(method("GET"))
        .and(path(at))
        .and(|r: &Request| r.url.query_pairs().any(|(k, v)| k == "page_no" && v != "1"))
        .respond_with(json_response(
            200,
            &json!({"code": 200, "data": [], "errors": {}, "message": "Success"}),
        ))
        .with_priority(1)
        .mount(&api.server)
        .await;
}

pub async fn mount(
    api: &Api,
    verb: &str,
    at: impl Into<String>,
    responder: impl Respond + 'static,
) {
    Mock::given(method(verb))
        .and(path(at))
        .respond_with(responder)
        .mount(&api.server)
        .await;
}

pub fn json_response(status: u16, body: &Value) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(body)
}

pub fn raw_response(status: u16, body: &str, content_type: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_raw(body.as_bytes().to_vec(), content_type)
}

pub const HTML_502: &str = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";

/// A documented example body from `tests/fixtures/<provider>/<file>`.
pub fn fixture(provider: &str, file: &str) -> Value {
    let path = format!(
        "{}/../../tests/fixtures/{provider}/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Together's documented cluster, renamed, with this status and these cluster phases (in
/// order, one minute apart).
pub fn together_cluster(id: &str, name: &str, status: &str, phases: &[&str]) -> Value {
    let mut cluster = fixture("together", "create_cluster.response.200.json");
    cluster["cluster_id"] = json!(id);
    cluster["cluster_name"] = json!(name);
    cluster["status"] = json!(status);
    cluster["num_gpus"] = json!(16);
    cluster["phase_transitions"] = phases
        .iter()
        .enumerate()
        .map(|(i, phase)| json!({"phase": phase, "transition_time": format!("2026-01-01T00:{i:02}:00Z")}))
        .collect();
    cluster
}

pub fn together_list(clusters: &[Value]) -> Value {
    json!({ "clusters": clusters })
}

/// Runcrate's documented cluster envelope, renamed and still provisioning.
pub fn runcrate_cluster(id: &str, name: &str) -> Value {
    let mut body = fixture("runcrate", "create_cluster.response.201.json");
    let data = body["data"].as_object_mut().unwrap();
    data.insert("id".into(), json!(id));
    data.insert("name".into(), json!(name));
    data.remove("terminated_at");
    data.remove("failure_reason");
    data.remove("failure_detail");
    body
}

/// E2E's documented training cluster (the `data` of the create example), renamed.
pub fn e2e_cluster(id: i64, name: &str, status: &str) -> Value {
    let mut cluster = fixture("e2e", "create_cluster.response.201.json")["data"].clone();
    cluster["id"] = json!(id);
    cluster["name"] = json!(name);
    cluster["status"] = json!(status);
    cluster
}

pub fn e2e_envelope(code: i64, data: Value) -> Value {
    json!({ "code": code, "data": data, "errors": {}, "message": "Success" })
}

/// A valid Together create: `train-42`, 16 H100s in us-central-8 with a pinned driver.
pub fn together_spec() -> ClusterSpec {
    ClusterSpec::new("train-42", ClusterSize::Gpus(16))
        .with_gpu_model("H100_SXM")
        .with_region("us-central-8")
        .with_options(TogetherOptions::default().with_nvidia_version_id("cuda-12.8-driver-570"))
}

/// A valid Runcrate create: `train`, two nodes of `offer-1`.
pub fn runcrate_spec() -> ClusterSpec {
    ClusterSpec::new("train", ClusterSize::Nodes(2))
        .with_options(RuncrateOptions::for_offer("offer-1"))
}

/// A valid E2E create: `train-e2e`, two nodes of SKU 139 with one SSH key.
pub fn e2e_spec() -> ClusterSpec {
    ClusterSpec::new("train-e2e", ClusterSize::Nodes(2))
        .with_ssh_keys(["1001"])
        .with_options(
            E2eOptions::default()
                .with_sku(139, 645)
                .with_image_version_id(2)
                .with_security_group_id(1001),
        )
}

/// The query parameters of a request.
pub fn query(request: &Request) -> HashMap<String, String> {
    request
        .url
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

pub fn header(request: &Request, name: &str) -> Option<String> {
    request
        .headers
        .get(name)
        .map(|v| v.to_str().unwrap().to_string())
}

pub fn body_json(request: &Request) -> Value {
    serde_json::from_slice(&request.body).unwrap()
}

/// Look-ups in one settle window of the default `ReconcilePolicy` with jitter at the top of its
/// range: one at once, then one after each of [`settle_window_pauses`].
pub const SETTLE_LOOK_UPS: usize = 10;

/// The pauses of one default settle window (90 s): 2 s doubling to 15 s, the last one cut to
/// what remains of the window.
pub fn settle_window_pauses() -> Vec<Duration> {
    [2, 4, 8, 15, 15, 15, 15, 15, 1]
        .into_iter()
        .map(Duration::from_secs)
        .collect()
}

/// `create`, failing the test if it has not ended within 30 s of real time. A create whose
/// POSTs keep failing ambiguously ends once its re-sends reach their limit; a count that
/// never reaches it would send for ever, and must fail the test that sees it, not hang it.
pub async fn create_ends<T>(create: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(30), create)
        .await
        .unwrap_or_else(|_| panic!("a create whose POSTs keep failing did not end in 30 s"))
}
