//! Shared by the ledger's tests: a simulator with frozen time, facade clients on its
//! timeline with a ledger installed, and specs that pass each provider's rules.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use gpucloud::clock::{Clock, Sleep};
use gpucloud::e2e::types::Location;
use gpucloud::journal::{CreateIntent, Journal};
use gpucloud::{
    ClusterClient, ClusterSize, ClusterSpec, E2eConfig, E2eOptions, ProviderKind, RuncrateConfig,
    RuncrateOptions, SoftwareStack, TogetherConfig, TogetherOptions,
};
use gpucloud_sim::{Provider, RunningSim, SimClock, SimConfig, Simulator, credentials};

/// Every credential the simulator accepts: none may ever reach the ledger file.
pub const SECRETS: [&str; 4] = [
    credentials::TOGETHER_API_KEY,
    credentials::RUNCRATE_API_KEY,
    credentials::E2E_API_KEY,
    credentials::E2E_AUTH_TOKEN,
];

/// A simulator whose time moves only when the facade sleeps (or by `clock().advance`).
pub async fn sim() -> RunningSim {
    Simulator::start(SimConfig {
        time_scale: 0.0,
        ..SimConfig::default()
    })
    .await
    .unwrap()
}

/// A facade clock whose sleeps move the simulator's time, so waits take no real time.
#[derive(Debug)]
pub struct SimTime(pub SimClock);

impl Clock for SimTime {
    fn now(&self) -> Duration {
        self.0.elapsed()
    }

    fn sleep(&self, duration: Duration) -> Sleep<'_> {
        self.0.advance(duration);
        Box::pin(tokio::task::yield_now())
    }
}

/// A facade client for `provider` on the simulator, recording into `journal` if given.
pub fn client(
    sim: &RunningSim,
    provider: Provider,
    journal: Option<Arc<dyn Journal>>,
) -> ClusterClient {
    client_at(
        &sim.base_url(provider),
        provider,
        journal,
        Arc::new(SimTime(sim.clock())),
    )
}

/// A facade client for `provider` at `url` (a simulator's base URL for it) on `clock`.
pub fn client_at(
    url: &str,
    provider: Provider,
    journal: Option<Arc<dyn Journal>>,
    clock: Arc<dyn Clock>,
) -> ClusterClient {
    let url = url.to_string();
    let timeout = Duration::from_secs(5);
    macro_rules! finish {
        ($config:expr) => {{
            // A create that waits for another's claim gives up well within a test's time.
            let config = $config
                .with_base_url(url)
                .with_timeout(timeout)
                .with_clock(clock)
                .with_claim_policy(gpucloud::journal::ClaimPolicy {
                    max_wait: Duration::from_secs(30),
                    ..gpucloud::journal::ClaimPolicy::default()
                });
            match journal {
                Some(journal) => config.with_journal(journal),
                None => config,
            }
        }};
    }
    match provider {
        Provider::Together => ClusterClient::together(finish!(TogetherConfig::new(
            credentials::TOGETHER_API_KEY.to_string()
        ))),
        Provider::Runcrate => ClusterClient::runcrate(finish!(RuncrateConfig::new(
            credentials::RUNCRATE_API_KEY.to_string()
        ))),
        Provider::E2e => ClusterClient::e2e(finish!(E2eConfig::new(
            credentials::E2E_API_KEY.to_string(),
            credentials::E2E_AUTH_TOKEN.to_string(),
            credentials::E2E_PROJECT_ID,
            Location::Delhi,
        ))),
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

/// The facade's provider for the simulator's.
pub fn kind(provider: Provider) -> ProviderKind {
    match provider {
        Provider::Together => ProviderKind::Together,
        Provider::Runcrate => ProviderKind::Runcrate,
        Provider::E2e => ProviderKind::E2e,
    }
}

/// An intent as the facade would record it.
pub fn intent(provider: ProviderKind, name: &str) -> CreateIntent {
    CreateIntent {
        provider,
        name: name.to_string(),
        scope: None,
        idempotency_key: (provider == ProviderKind::Runcrate).then(|| format!("key-{name}")),
        request_sha256: "ab".repeat(32),
        request: Some(serde_json::json!({ "name": name })),
        deadline: None,
        origin: None,
        provider_ends_at: None,
    }
}

/// A fresh directory and the ledger path inside it (kept until the guard drops).
pub fn ledger_path() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state").join("ledger.sqlite3");
    (dir, path)
}

/// The bytes of the database and its WAL, concatenated.
pub fn file_bytes(path: &Path) -> Vec<u8> {
    let mut bytes = std::fs::read(path).unwrap();
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    if let Ok(more) = std::fs::read(&wal) {
        bytes.extend(more);
    }
    bytes
}

/// The name the test harness gives `test`, a test function of the caller's module, for running
/// it again in a child process of this binary with `--exact`: the caller's `module_path!()`
/// without the binary's own name in front.
pub fn test_name(module_path: &str, test: &str) -> String {
    match module_path.split_once("::") {
        Some((_, module)) => format!("{module}::{test}"),
        None => test.to_owned(),
    }
}
