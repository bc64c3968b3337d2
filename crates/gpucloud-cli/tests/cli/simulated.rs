//! The cluster commands and the demo against a simulator started by the test.
//!
//! The simulator runs in this process at time scale 0: simulated time moves only when the test
//! advances its clock, so every answer (and every golden file) is deterministic.

use std::net::SocketAddr;
use std::time::Duration;

use gpucloud_sim::{Fault, FaultKind, Provider, RunningSim, SimConfig, Simulator, credentials};

use crate::support::{Run, gpucloud};

/// A simulator on a free port, on its own runtime, shut down on drop.
pub struct TestSim {
    runtime: tokio::runtime::Runtime,
    sim: Option<RunningSim>,
}

impl TestSim {
    pub fn start() -> Self {
        Self::start_scaled(0.0)
    }

    /// A simulator whose time runs `time_scale` times faster than real time (0: frozen).
    pub fn start_scaled(time_scale: f64) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap_or_else(|e| panic!("runtime: {e}"));
        let config = SimConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            time_scale,
            seed: 0,
            ..SimConfig::default()
        };
        let sim = runtime
            .block_on(Simulator::start(config))
            .unwrap_or_else(|e| panic!("simulator: {e}"));
        Self {
            runtime,
            sim: Some(sim),
        }
    }

    pub fn sim(&self) -> &RunningSim {
        self.sim.as_ref().unwrap_or_else(|| panic!("stopped"))
    }

    /// `--provider P --base-url URL` for `provider`.
    pub fn target(&self, provider: Provider) -> Vec<String> {
        let name = match provider {
            Provider::Together => "together",
            Provider::Runcrate => "runcrate",
            Provider::E2e => "e2e",
        };
        vec![
            "--provider".into(),
            name.into(),
            "--base-url".into(),
            self.sim().base_url(provider),
        ]
    }

    /// The simulator's credentials and every provider's base URL pointed at it, as a user's
    /// shell would have them after `gpucloud sim`'s exports.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        let mut env = sim_credentials();
        for (variable, provider) in [
            ("TOGETHER_BASE_URL", Provider::Together),
            ("RUNCRATE_BASE_URL", Provider::Runcrate),
            ("E2E_BASE_URL", Provider::E2e),
        ] {
            env.push((variable, self.sim().base_url(provider)));
        }
        env
    }

    pub fn advance(&self, by: Duration) {
        self.sim().clock().advance(by);
    }

    /// Runs `gpucloud` with `args` then `target(provider)`, credentials from the environment.
    pub fn run(&self, provider: Provider, args: &[&str]) -> Run {
        self.run_with(provider, args, &sim_credentials())
    }

    pub fn run_with(&self, provider: Provider, args: &[&str], env: &[(&str, String)]) -> Run {
        let target = self.target(provider);
        let all: Vec<&str> = args
            .iter()
            .copied()
            .chain(target.iter().map(String::as_str))
            .collect();
        gpucloud(&all, env)
    }
}

impl Drop for TestSim {
    fn drop(&mut self) {
        if let Some(sim) = self.sim.take() {
            self.runtime.block_on(sim.shutdown());
        }
    }
}

/// The simulator's credentials, as a user would export them.
pub fn sim_credentials() -> Vec<(&'static str, String)> {
    vec![
        ("TOGETHER_API_KEY", credentials::TOGETHER_API_KEY.into()),
        ("RUNCRATE_API_KEY", credentials::RUNCRATE_API_KEY.into()),
        ("E2E_API_KEY", credentials::E2E_API_KEY.into()),
        ("E2E_AUTH_TOKEN", credentials::E2E_AUTH_TOKEN.into()),
        ("E2E_PROJECT_ID", credentials::E2E_PROJECT_ID.to_string()),
        ("E2E_LOCATION", "Delhi".into()),
    ]
}

const TOGETHER_CREATE: &[&str] = &[
    "clusters",
    "create",
    "--name",
    "train-42",
    "--gpus",
    "16",
    "--gpu-model",
    "H100_SXM",
    "--region",
    "us-central-8",
    "--nvidia-version-id",
    "cuda-12.8-driver-570",
];

pub fn json(run: &Run) -> serde_json::Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("not JSON: {e}\n{}", run.stdout))
}

/// The id of the cluster a succeeding `clusters create --json` made.
pub fn created_id(run: &Run) -> String {
    run.expect_code(0);
    json(run)["cluster"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no cluster id: {}", run.stdout))
        .to_string()
}

/// What the command found: its document, or, when it failed after finding it, its failure
/// document's `result` (checked to come with the `error` a failure always has).
pub fn result(run: &Run) -> serde_json::Value {
    let document = json(run);
    if run.code == 0 {
        return document;
    }
    assert!(
        document["error"].is_object(),
        "a failure without its error: {document}"
    );
    document["result"].clone()
}

#[test]
fn together_create_get_list_wait_delete() {
    let sim = TestSim::start();
    let together = Provider::Together;

    let created = sim.run(together, TOGETHER_CREATE);
    created.expect_code(0).golden("together_create");
    let id = created
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("ID:"))
        .map(|id| id.trim().to_string())
        .unwrap_or_else(|| panic!("no ID in\n{}", created.stdout));

    sim.run(together, &["clusters", "get", &id])
        .expect_code(0)
        .golden("together_get_provisioning");
    sim.run(together, &["clusters", "list"])
        .expect_code(0)
        .golden("together_list");

    // Frozen time: the wait gives up (exit 5) and says where the cluster was.
    sim.run(
        together,
        &[
            "clusters",
            "wait",
            &id,
            "--timeout",
            "1s",
            "--interval",
            "1s",
        ],
    )
    .expect_code(5)
    .golden("together_wait_timeout");

    sim.advance(Duration::from_secs(600));
    sim.run(together, &["clusters", "wait", &id, "--interval", "1s"])
        .expect_code(0)
        .golden("together_wait_ready");

    let got = sim.run(together, &["--json", "clusters", "get", &id]);
    got.expect_code(0);
    let cluster = json(&got);
    assert_eq!(cluster["id"], id.as_str());
    assert_eq!(cluster["provider"], "together");
    assert_eq!(cluster["state"], "ready");
    assert!(cluster["nodes"].as_array().is_some_and(|n| !n.is_empty()));

    sim.run(together, &["clusters", "delete", &id])
        .expect_code(0)
        .golden("together_delete");
    sim.run(together, &["clusters", "list"])
        .expect_code(0)
        .golden("together_list_deleting");
    sim.advance(Duration::from_secs(600));
    sim.run(together, &["--json", "clusters", "get", &id])
        .expect_code(4)
        .golden("together_get_after_delete");
}

#[test]
fn json_output_shapes() {
    let sim = TestSim::start();
    let run = sim.run(Provider::Together, &[&["--json"], TOGETHER_CREATE].concat());
    run.expect_code(0).golden("together_create_json");
    let created = json(&run);
    assert_eq!(created["outcome"], "created");
    assert_eq!(created["attempts"], 1);
    assert_eq!(created["cluster"]["name"], "train-42");

    let list = json(
        sim.run(Provider::Together, &["--json", "clusters", "list"])
            .expect_code(0),
    );
    assert_eq!(list["clusters"].as_array().map(Vec::len), Some(1));
    assert_eq!(list["clusters"][0]["known_from"], "provider");
    assert_eq!(list["unread"], serde_json::json!([]));
}

#[test]
fn provider_errors_exit_4() {
    let sim = TestSim::start();
    // Unknown cluster: not found.
    sim.run(
        Provider::Together,
        &["clusters", "get", "00000000-0000-4000-8000-000000000000"],
    )
    .expect_code(4)
    .golden("together_get_not_found");
    // Runcrate documents no list.
    sim.run(Provider::Runcrate, &["clusters", "list"])
        .expect_code(4)
        .golden("runcrate_list_unsupported");
    // A refused create (the provider's 402).
    sim.sim().faults().inject(
        Fault::new(Provider::Together, FaultKind::ServerError { status: 402 }).on("create_cluster"),
    );
    sim.run(Provider::Together, TOGETHER_CREATE)
        .expect_code(4)
        .golden("together_create_402");
    // A wrong key: 401, and the key is not printed (`gpucloud` checks every output for it).
    let mut env = sim_credentials();
    env.retain(|(name, _)| *name != "TOGETHER_API_KEY");
    env.push(("TOGETHER_API_KEY", crate::support::SECRETS[0].1.into()));
    sim.run_with(Provider::Together, &["clusters", "list"], &env)
        .expect_code(4)
        .golden("together_wrong_key");
}

#[test]
fn runcrate_and_e2e_lifecycles() {
    let sim = TestSim::start();
    let runcrate = sim.run(
        Provider::Runcrate,
        &[
            "--json",
            "clusters",
            "create",
            "--allow-no-delete",
            "--name",
            "train-42",
            "--nodes",
            "2",
            "--offer-id",
            "offer-h100-sxm-8x",
            "--idempotency-key",
            "train-42-test",
        ],
    );
    runcrate.expect_code(0);
    let runcrate_id = json(&runcrate)["cluster"]["id"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| panic!("{}", runcrate.stdout));
    let e2e = sim.run(
        Provider::E2e,
        &[
            "--json",
            "clusters",
            "create",
            "--name",
            "train-42",
            "--nodes",
            "2",
            "--ssh-key",
            "101",
            "--image-version-id",
            "2",
            "--sku-id",
            "201",
            "--sku-item-price-id",
            "811",
            "--security-group-id",
            "1",
        ],
    );
    e2e.expect_code(0);
    let e2e_id = json(&e2e)["cluster"]["id"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| panic!("{}", e2e.stdout));

    // `offer-fail` never starts (Runcrate is all-or-nothing): the wait ends early, exit 5.
    let failing = sim.run(
        Provider::Runcrate,
        &[
            "--json",
            "clusters",
            "create",
            "--allow-no-delete",
            "--name",
            "doomed",
            "--nodes",
            "2",
            "--offer-id",
            "offer-fail",
        ],
    );
    failing.expect_code(0);
    let failing_id = json(&failing)["cluster"]["id"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| panic!("{}", failing.stdout));

    sim.advance(Duration::from_secs(3600));
    sim.run(
        Provider::Runcrate,
        &["clusters", "wait", &failing_id, "--interval", "1s"],
    )
    .expect_code(5)
    .golden("runcrate_wait_failed");
    sim.run(
        Provider::Runcrate,
        &["clusters", "wait", &runcrate_id, "--interval", "1s"],
    )
    .expect_code(0)
    .golden("runcrate_wait_ready");
    sim.run(Provider::Runcrate, &["clusters", "delete", &runcrate_id])
        .expect_code(4)
        .golden("runcrate_delete_unsupported");
    sim.run(
        Provider::E2e,
        &["clusters", "wait", &e2e_id, "--interval", "1s"],
    )
    .expect_code(0)
    .golden("e2e_wait_ready");
    sim.run(Provider::E2e, &["clusters", "list"])
        .expect_code(0)
        .golden("e2e_list");
    sim.run(Provider::E2e, &["clusters", "delete", &e2e_id])
        .expect_code(0)
        .golden("e2e_delete");
}

/// The README's command: no credentials at all, a few seconds, exit 0.
#[test]
fn demo_runs_end_to_end_without_credentials() {
    let started = std::time::Instant::now();
    let run = gpucloud(&["demo"], &[]);
    run.expect_code(0);
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    // How many progress lines appear depends on when polls land; stdout does not.
    crate::support::assert_golden("demo_stdout", &crate::support::normalize(&run.stdout));
    let progress = regex::Regex::new(
        r"^\[ *\d+(s|m\d\ds|h\d\dm)\] (together|runcrate|e2e): [a-z]+( \S+)? \d+/\d+ nodes$",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    for line in run.stderr.lines() {
        assert!(progress.is_match(line), "unexpected stderr line: {line:?}");
    }
    for provider in ["together", "runcrate", "e2e"] {
        let last = run
            .stderr
            .lines()
            .rfind(|l| l.contains(&format!("] {provider}: ")))
            .unwrap_or_else(|| panic!("no progress for {provider}:\n{}", run.stderr));
        assert!(last.contains(&format!("] {provider}: ready ")), "{last}");
    }
}
