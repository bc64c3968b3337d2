//! The child process of the process tests: this test binary run again with `--exact
//! children::child_create`, doing one create recorded in a ledger, as a separate process
//! sharing the ledger would.

use std::process::{Command, Stdio};
use std::sync::Arc;

use gpucloud::clock::TokioClock;
use gpucloud_ledger::Ledger;
use gpucloud_sim::Provider;

use super::backend::{Backend, PROVIDERS, options};
use crate::support::{client_at, kind, spec};

const CHILD: &str = "GPUCLOUD_LEDGER_SHARED_CHILD";

fn provider_named(name: &str) -> Provider {
    PROVIDERS
        .into_iter()
        .find(|p| kind(*p).as_str() == name)
        .unwrap()
}

/// Run by the children of the process tests only: one create of `$NAME` on `$PROVIDER` at
/// `$SIM_URL`, recorded in the ledger at `$LEDGER`; prints the cluster id and outcome.
#[tokio::test]
#[ignore = "a child process of the process tests"]
async fn child_create() {
    let Ok(role) = std::env::var(CHILD) else {
        return;
    };
    let var = |name: &str| std::env::var(name).unwrap();
    let provider = provider_named(&var("PROVIDER"));
    let ledger = Ledger::open_location(&var("LEDGER"), &options()).unwrap();
    let client = client_at(
        &var("SIM_URL"),
        provider,
        Some(Arc::new(ledger)),
        Arc::new(TokioClock::default()),
    );
    let created = client.create(&spec(provider, &var("NAME"))).await.unwrap();
    println!(
        "{role} cluster={} outcome={:?}",
        created.cluster.id, created.outcome
    );
}

pub fn child(backend: &Backend, sim_url: &str, provider: Provider, name: &str) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--ignored",
            "--exact",
            &crate::support::test_name(module_path!(), "child_create"),
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "child")
        .env("LEDGER", backend.location())
        .env("SIM_URL", sim_url)
        .env("PROVIDER", kind(provider).as_str())
        .env("NAME", name)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}
