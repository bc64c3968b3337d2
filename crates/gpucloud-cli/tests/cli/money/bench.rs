//! What every money-safety test stands on: one simulator faster than real time and one ledger
//! file shared by every run of a test, and the create flags that pass each provider's rules.

use std::path::PathBuf;

use gpucloud_sim::Provider;

use crate::simulated::{TestSim, json, sim_credentials};
use crate::support::{Run, gpucloud};

/// Simulated seconds per real second: a Together cluster is ready in about 2 s.
const SCALE: f64 = 300.0;

pub const PROVIDERS: [Provider; 3] = [Provider::Together, Provider::Runcrate, Provider::E2e];

pub fn name_of(provider: Provider) -> &'static str {
    match provider {
        Provider::Together => "together",
        Provider::Runcrate => "runcrate",
        Provider::E2e => "e2e",
    }
}

/// `clusters create` flags that pass `provider`'s rules, for a cluster called `name`.
pub fn create_args(provider: Provider, name: &str) -> Vec<String> {
    let rest: &[&str] = match provider {
        Provider::Together => &[
            "--gpus",
            "16",
            "--gpu-model",
            "H100_SXM",
            "--region",
            "us-central-8",
            "--nvidia-version-id",
            "cuda-12.8-driver-570",
        ],
        // Runcrate's API cannot delete a cluster: taking it is a choice to say so.
        Provider::Runcrate => &[
            "--nodes",
            "2",
            "--offer-id",
            "offer-h100-sxm-8x",
            "--allow-no-delete",
        ],
        Provider::E2e => &[
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
    };
    ["clusters", "create", "--name", name]
        .into_iter()
        .chain(rest.iter().copied())
        .map(str::to_string)
        .collect()
}

/// A simulator and a ledger shared by every run of one test.
pub struct Bench {
    pub sim: TestSim,
    _dir: tempfile::TempDir,
    pub ledger: PathBuf,
}

impl Bench {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let ledger = dir.path().join("ledger.sqlite3");
        Self {
            sim: TestSim::start_scaled(SCALE),
            _dir: dir,
            ledger,
        }
    }

    /// The environment of a run: the simulator's credentials and endpoints, and the ledger.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        let mut env = sim_credentials();
        env.push((
            "GPUCLOUD_LEDGER",
            self.ledger.to_string_lossy().into_owned(),
        ));
        for provider in PROVIDERS {
            let variable = match provider {
                Provider::Together => "TOGETHER_BASE_URL",
                Provider::Runcrate => "RUNCRATE_BASE_URL",
                Provider::E2e => "E2E_BASE_URL",
            };
            env.push((variable, self.sim.sim().base_url(provider)));
        }
        env
    }

    /// `gpucloud args… --provider P` (every endpoint from the environment).
    pub fn run(&self, provider: Provider, args: &[&str]) -> Run {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--provider", name_of(provider)]);
        gpucloud(&all, &self.env())
    }

    /// `gpucloud args…` without a provider (ledger, sweep).
    pub fn run_plain(&self, args: &[&str]) -> Run {
        gpucloud(args, &self.env())
    }

    /// Creates a cluster (`--json`) and returns its id.
    pub fn create(&self, provider: Provider, name: &str) -> String {
        let args = create_args(provider, name);
        let mut all: Vec<&str> = vec!["--json"];
        all.extend(args.iter().map(String::as_str));
        let run = self.run(provider, &all);
        run.expect_code(0);
        json(&run)["cluster"]["id"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| panic!("{}", run.stdout))
    }

    pub fn creates_sent(&self, provider: Provider) -> usize {
        self.sim
            .sim()
            .exchanges()
            .iter()
            .filter(|e| {
                e.provider == Some(provider) && e.operation.as_deref() == Some("create_cluster")
            })
            .count()
    }

    pub fn clusters_named(&self, provider: Provider, name: &str) -> usize {
        self.sim
            .sim()
            .clusters(provider)
            .iter()
            .filter(|c| c.name == name)
            .count()
    }

    pub fn ledger_json(&self, all: bool) -> Vec<serde_json::Value> {
        let mut args = vec!["--json", "ledger"];
        if all {
            args.push("--all");
        }
        let run = self.run_plain(&args);
        run.expect_code(0);
        json(&run).as_array().cloned().unwrap_or_default()
    }
}

/// Waits (`clusters wait`) until the cluster is ready.
pub fn wait_ready(bench: &Bench, provider: Provider, id: &str) {
    bench
        .run(provider, &["clusters", "wait", id, "--interval", "1s"])
        .expect_code(0);
}
