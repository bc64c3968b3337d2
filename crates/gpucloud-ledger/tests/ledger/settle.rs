//! Intents left pending (a process died between its POST and the answer) resolved by looking
//! the clusters up in the simulator: found by name, gone once old enough, kept when the answer
//! cannot be known (Runcrate: no list; two clusters of one name; too recent). The workflow is
//! the facade's (`gpucloud::settle`); the ledger is the journal it reads and writes.

use std::sync::Arc;
use std::time::Duration;

use crate::support::*;
use gpucloud::journal::{CreateRecord, Journal, Settlement};
use gpucloud::settle::{SettleOptions, Settled, settle_pending};
use gpucloud::{ClusterId, CreateOutcome, ProviderKind};
use gpucloud_ledger::{IntentState, Ledger, Outcome};
use gpucloud_sim::Provider;

fn now() -> SettleOptions {
    SettleOptions {
        min_age_for_gone: Duration::ZERO,
        scope: None,
    }
}

#[tokio::test]
async fn pending_intents_are_found_by_name_or_marked_gone() {
    let sim = sim().await;
    let (_dir, path) = ledger_path();
    let ledger = Ledger::open(&path).unwrap();
    let together = client(&sim, Provider::Together, None);
    // The POST went through, the process died before recording its answer.
    let orphan = ledger
        .create_started(&intent(ProviderKind::Together, "orphan"))
        .unwrap();
    let made = together
        .create(&spec(Provider::Together, "orphan"))
        .await
        .unwrap();
    // The process died before its POST.
    let never = ledger
        .create_started(&intent(ProviderKind::Together, "never-made"))
        .unwrap();
    // Another provider's intent is not this client's business.
    let other = ledger
        .create_started(&intent(ProviderKind::E2e, "orphan"))
        .unwrap();

    // Too recent to call gone with the default options; the orphan is taken at any age.
    let first = settle_pending(&ledger, &together, &SettleOptions::default())
        .await
        .unwrap();
    assert_eq!(first.len(), 2);
    assert_eq!(
        first[0],
        Settled::Found {
            intent: orphan,
            cluster: made.cluster.id.clone()
        }
    );
    assert!(
        matches!(&first[1], Settled::StillPending { intent, reason, .. }
            if *intent == never && reason.contains("may still be running")),
        "{first:?}"
    );

    let second = settle_pending(&ledger, &together, &now()).await.unwrap();
    assert_eq!(second, [Settled::Gone { intent: never }]);
    assert!(
        settle_pending(&ledger, &together, &now())
            .await
            .unwrap()
            .is_empty()
    );

    let found = ledger.entry(orphan).unwrap();
    assert_eq!(
        (found.state, found.outcome, found.cluster_id),
        (
            IntentState::Completed,
            Some(Outcome::FoundByLookup),
            Some(made.cluster.id.clone())
        )
    );
    assert!(found.resolution.unwrap().0.contains("found by name"));
    let gone = ledger.entry(never).unwrap();
    assert_eq!(gone.state, IntentState::Failed);
    assert_eq!(gone.error.unwrap().kind, "gone");
    assert_eq!(ledger.entry(other).unwrap().state, IntentState::Pending);
    // Only list calls were sent: a look-up never creates.
    let posts = sim
        .exchanges()
        .iter()
        .filter(|e| e.operation.as_deref() == Some("create_cluster"))
        .count();
    assert_eq!(posts, 1, "the orphan's own POST only");
    sim.shutdown().await;
}

#[tokio::test]
async fn e2e_is_looked_up_in_its_scope_and_runcrate_is_kept_with_its_reason() {
    let sim = sim().await;
    let (_dir, path) = ledger_path();
    let ledger = Ledger::open(&path).unwrap();

    let e2e = client(&sim, Provider::E2e, None);
    let mut scoped = intent(ProviderKind::E2e, "e2e-orphan");
    scoped.scope = Some("4242/Delhi".into());
    let orphan = ledger.create_started(&scoped).unwrap();
    let mut elsewhere = intent(ProviderKind::E2e, "e2e-orphan");
    elsewhere.scope = Some("4242/Chennai".into());
    let chennai = ledger.create_started(&elsewhere).unwrap();
    let made = e2e
        .create(&spec(Provider::E2e, "e2e-orphan"))
        .await
        .unwrap();
    let options = SettleOptions {
        scope: Some("4242/Delhi".into()),
        ..now()
    };
    let resolved = settle_pending(&ledger, &e2e, &options).await.unwrap();
    assert_eq!(
        resolved,
        [Settled::Found {
            intent: orphan,
            cluster: made.cluster.id
        }]
    );
    assert_eq!(ledger.entry(chennai).unwrap().state, IntentState::Pending);

    let runcrate = client(&sim, Provider::Runcrate, None);
    let kept = ledger
        .create_started(&intent(ProviderKind::Runcrate, "rc-orphan"))
        .unwrap();
    let resolved = settle_pending(&ledger, &runcrate, &now()).await.unwrap();
    assert!(
        matches!(&resolved[..], [Settled::StillPending { intent, reason, .. }]
            if *intent == kept && reason.contains("no list") && reason.contains("key-rc-orphan")),
        "{resolved:?}"
    );
    assert_eq!(ledger.entry(kept).unwrap().state, IntentState::Pending);
    sim.shutdown().await;
}

#[tokio::test]
async fn two_clusters_of_one_name_are_not_guessed_between() {
    let sim = sim().await;
    let (_dir, path) = ledger_path();
    let ledger = Ledger::open(&path).unwrap();
    let together = client(&sim, Provider::Together, None);
    let pending = ledger
        .create_started(&intent(ProviderKind::Together, "twin"))
        .unwrap();
    // Two POSTs of one name, straight through the generated client (no look-up first).
    let raw = gpucloud::together::Client::from_api_key(
        &sim.base_url(Provider::Together),
        gpucloud_sim::credentials::TOGETHER_API_KEY.to_string(),
    )
    .unwrap();
    for _ in 0..2 {
        let body: gpucloud::together::types::GpuClusterCreateRequest =
            serde_json::from_value(serde_json::json!({
                "cluster_name": "twin", "region": "us-central-8", "gpu_type": "H100_SXM",
                "num_gpus": 16, "billing_type": "ON_DEMAND",
                "nvidia_version_id": "cuda-12.8-driver-570",
            }))
            .unwrap();
        raw.create_cluster().body(body).send().await.unwrap();
    }
    let resolved = settle_pending(&ledger, &together, &now()).await.unwrap();
    assert!(
        matches!(&resolved[..], [Settled::StillPending { intent, reason, .. }]
            if *intent == pending && reason.contains("2 clusters are named")),
        "{resolved:?}"
    );
    sim.shutdown().await;
}

#[test]
fn the_facade_outcome_wins_over_an_earlier_guess() {
    let (_dir, path) = ledger_path();
    let ledger = Arc::new(Ledger::open(&path).unwrap());
    let slow = ledger
        .create_started(&intent(ProviderKind::Together, "slow"))
        .unwrap();
    assert!(ledger.settle_intent(slow, &Settlement::Gone).unwrap());
    assert!(
        !ledger.settle_intent(slow, &Settlement::Gone).unwrap(),
        "settled once"
    );
    let id = ClusterId::new("c-slow");
    ledger
        .create_finished(
            slow,
            &CreateRecord::Cluster {
                id: &id,
                outcome: CreateOutcome::Created,
            },
        )
        .unwrap();
    let entry = ledger.entry(slow).unwrap();
    assert_eq!(
        (entry.state, entry.cluster_id, entry.outcome),
        (IntentState::Completed, Some(id), Some(Outcome::Created))
    );
    assert!(matches!(
        ledger.settle_intent(999, &Settlement::Gone),
        Err(gpucloud_ledger::LedgerError::NoSuchIntent(999))
    ));
}
