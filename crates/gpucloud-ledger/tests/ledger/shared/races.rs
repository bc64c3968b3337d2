//! Several callers creating one name at once, as tasks with a ledger each or as processes:
//! exactly one POST reaches the provider and every caller gets the same cluster.

use std::sync::Arc;

use gpucloud::CreateOutcome;
use gpucloud::clock::TokioClock;
use gpucloud::journal::Journal;
use gpucloud_ledger::IntentState;

use super::backend::{Backend, PROVIDERS, creates_sent};
use super::children::child;
use crate::support::{client_at, kind, sim, spec};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_creating_one_name_at_once_send_one_post() {
    const TASKS: usize = 8;
    for backend in Backend::all() {
        let sim = sim().await;
        for provider in PROVIDERS {
            let name = format!("race-{}", kind(provider));
            let tasks: Vec<_> = (0..TASKS)
                .map(|_| {
                    // Each task its own ledger and client, as separate processes would have.
                    let ledger: Arc<dyn Journal> = Arc::new(backend.open());
                    let client = client_at(
                        &sim.base_url(provider),
                        provider,
                        Some(ledger),
                        Arc::new(TokioClock::default()),
                    );
                    let spec = spec(provider, &name);
                    tokio::spawn(async move { client.create(&spec).await })
                })
                .collect();
            let mut outcomes = Vec::new();
            for task in tasks {
                outcomes.push(task.await.unwrap().unwrap());
            }
            let what = format!("{} on {}", kind(provider), backend.name());
            assert_eq!(creates_sent(&sim, provider), 1, "one POST: {what}");
            let ids: Vec<_> = outcomes.iter().map(|c| c.cluster.id.clone()).collect();
            assert!(ids.iter().all(|id| *id == ids[0]), "{what}: {ids:?}");
            let created = outcomes
                .iter()
                .filter(|c| c.outcome == CreateOutcome::Created)
                .count();
            assert_eq!(created, 1, "{what}");
            assert_eq!(sim.clusters(provider).len(), 1, "{what}");
            let entries = backend.open().clusters().unwrap();
            let named: Vec<_> = entries.iter().filter(|e| e.name == name).collect();
            assert_eq!(named.len(), 1, "one intent recorded: {what}");
            assert_eq!(named[0].state, IntentState::Completed, "{what}");
        }
        sim.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processes_creating_one_name_at_once_send_one_post() {
    const PROCESSES: usize = 6;
    for backend in Backend::all() {
        let sim = sim().await;
        for provider in PROVIDERS {
            let name = format!("procs-{}", kind(provider));
            let url = sim.base_url(provider);
            // A fresh PostgreSQL database is also migrated by all of them at once.
            let children: Vec<_> = (0..PROCESSES)
                .map(|_| child(&backend, &url, provider, &name).spawn().unwrap())
                .collect();
            let outputs = tokio::task::spawn_blocking(move || {
                children
                    .into_iter()
                    .map(|c| c.wait_with_output().unwrap())
                    .collect::<Vec<_>>()
            })
            .await
            .unwrap();
            let what = format!("{} on {}", kind(provider), backend.name());
            let mut ids = Vec::new();
            for output in &outputs {
                let stdout = String::from_utf8_lossy(&output.stdout);
                assert!(
                    output.status.success(),
                    "{what}: {stdout}\n{}",
                    String::from_utf8_lossy(&output.stderr)
                );
                let (_, line) = stdout.split_once("child cluster=").unwrap();
                ids.push(line.split_whitespace().next().unwrap().to_string());
            }
            assert_eq!(creates_sent(&sim, provider), 1, "one POST: {what}");
            assert!(ids.iter().all(|id| *id == ids[0]), "{what}: {ids:?}");
            assert_eq!(sim.clusters(provider).len(), 1, "{what}");
        }
        sim.shutdown().await;
    }
}
