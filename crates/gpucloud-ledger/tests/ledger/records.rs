//! Creates and deletes through the facade, recorded before and after, read back through the
//! query API; and no secret in the file.

use std::sync::Arc;

use crate::support::*;
use gpucloud::{CreateOutcome, ProviderKind, ReconcilePolicy};
use gpucloud_ledger::{DeleteState, IntentState, Ledger, Outcome};
use gpucloud_sim::{Fault, FaultKind, Provider};

#[tokio::test]
async fn every_provider_round_trips_creates_and_deletes() {
    let sim = sim().await;
    let (_dir, path) = ledger_path();
    let ledger = Arc::new(Ledger::open(&path).unwrap());

    for provider in [Provider::Together, Provider::Runcrate, Provider::E2e] {
        let client = client(&sim, provider, Some(ledger.clone()));
        let name = format!("train-{}", kind(provider));
        let created = client.create(&spec(provider, &name)).await.unwrap();
        assert_eq!(created.outcome, CreateOutcome::Created);
        // A second create of the same name gets the first's cluster from the ledger (on
        // Runcrate too, which has no list to find it in) and records no second intent.
        let again = client.create(&spec(provider, &name)).await.unwrap();
        assert_eq!(again.outcome, CreateOutcome::AlreadyExisted);
        assert_eq!(again.cluster.id, created.cluster.id);
        if client.provider().profile().deletes_clusters {
            client.delete(&created.cluster.id).await.unwrap();
        } else {
            // Refused before the journal hears of it: no delete intent for an operation the
            // provider does not have.
            let error = client.delete(&created.cluster.id).await.unwrap_err();
            assert!(
                matches!(error, gpucloud::Error::Unsupported { .. }),
                "{error:?}"
            );
        }
    }

    let entries = ledger.clusters().unwrap();
    let summary: Vec<_> = entries
        .iter()
        .map(|e| (e.provider, e.name.as_str(), e.state, e.outcome))
        .collect();
    use IntentState::Completed;
    assert_eq!(
        summary,
        [
            (
                ProviderKind::Together,
                "train-together",
                Completed,
                Some(Outcome::Created)
            ),
            (
                ProviderKind::Runcrate,
                "train-runcrate",
                Completed,
                Some(Outcome::Created)
            ),
            (
                ProviderKind::E2e,
                "train-e2e",
                Completed,
                Some(Outcome::Created)
            ),
        ]
    );
    for entry in &entries {
        assert!(entry.cluster_id.is_some(), "{entry:?}");
        assert_eq!(entry.request_sha256.len(), 64);
        assert!(entry.finished_at.unwrap() >= entry.created_at);
        assert_eq!(entry.pid, std::process::id());
        let deleted = entry.provider != ProviderKind::Runcrate;
        assert_eq!(entry.deleted_at.is_some(), deleted, "{entry:?}");
    }
    let runcrate = &entries[1];
    assert!(runcrate.idempotency_key.is_some(), "the facade's own key");
    assert_eq!(entries[2].scope.as_deref(), Some("4242/Delhi"));

    let deletes = ledger.deletes().unwrap();
    assert_eq!(deletes.len(), 2);
    assert!(deletes.iter().all(|d| d.state == DeleteState::Completed));
    assert_eq!(
        deletes[0].cluster_id,
        entries[0].cluster_id.clone().unwrap()
    );
    assert!(ledger.unsettled_creates(None).unwrap().is_empty());

    let bytes = file_bytes(&path);
    for secret in SECRETS {
        assert!(
            !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
            "{secret} is in the ledger file"
        );
    }
    // The names are there: the scan does see the file's contents.
    assert!(bytes.windows(14).any(|w| w == b"train-together"));
    sim.shutdown().await;
}

#[tokio::test]
async fn failures_are_recorded_as_ambiguous_or_not() {
    let sim = sim().await;
    let (_dir, path) = ledger_path();
    let ledger = Arc::new(Ledger::open(&path).unwrap());

    // A definite refusal (402: the budget is spent): nothing was created.
    sim.faults().inject(
        Fault::new(Provider::Runcrate, FaultKind::ServerError { status: 402 }).on("create_cluster"),
    );
    let runcrate = client(&sim, Provider::Runcrate, Some(ledger.clone()));
    let refused = runcrate
        .create(&spec(Provider::Runcrate, "no-budget"))
        .await
        .unwrap_err();
    assert!(!refused.is_ambiguous(), "{refused}");

    // A 500 to the POST: a cluster may exist. No resend, and the settle window finds none.
    sim.faults().inject(
        Fault::new(Provider::Together, FaultKind::ServerError { status: 500 })
            .on("create_cluster")
            .times(100),
    );
    let together = gpucloud::ClusterClient::together(
        gpucloud::TogetherConfig::new(gpucloud_sim::credentials::TOGETHER_API_KEY.to_string())
            .with_base_url(sim.base_url(Provider::Together))
            .with_clock(Arc::new(SimTime(sim.clock())))
            .with_journal(ledger.clone())
            .with_reconcile_policy(ReconcilePolicy::default().with_max_resends(0)),
    )
    .unwrap();
    let lost = together
        .create(&spec(Provider::Together, "maybe"))
        .await
        .unwrap_err();
    assert!(lost.is_ambiguous(), "{lost}");

    let entries = ledger.clusters().unwrap();
    let states: Vec<_> = entries
        .iter()
        .map(|e| {
            let error = e.error.as_ref().unwrap();
            (e.name.as_str(), e.state, error.kind.as_str(), error.status)
        })
        .collect();
    assert_eq!(
        states,
        [
            (
                "no-budget",
                IntentState::Failed,
                "insufficient_funds",
                Some(402)
            ),
            ("maybe", IntentState::FailedAmbiguous, "api", Some(500)),
        ]
    );
    assert!(
        entries
            .iter()
            .all(|e| e.cluster_id.is_none() && e.finished_at.is_some())
    );
    let unresolved: Vec<_> = ledger
        .unsettled_creates(None)
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(unresolved, ["maybe"]);
    assert!(ledger.pending().unwrap().is_empty());
    sim.shutdown().await;
}

/// A create that adopted someone else's cluster records it as adopted: ours from then on.
#[test]
fn an_adopted_cluster_is_recorded_as_ours() {
    use gpucloud::journal::{CreateRecord, Journal};
    let (_dir, path) = ledger_path();
    let ledger = gpucloud_ledger::Ledger::open(&path).unwrap();
    let id = ledger
        .create_started(&intent(gpucloud::ProviderKind::Together, "adopted"))
        .unwrap();
    ledger
        .create_finished(
            id,
            &CreateRecord::Cluster {
                id: &gpucloud::ClusterId::new("c-adopted"),
                outcome: gpucloud::CreateOutcome::Adopted,
            },
        )
        .unwrap();
    let entry = ledger.entry(id).unwrap();
    assert_eq!(entry.provenance, gpucloud_ledger::Provenance::Adopted);
    assert!(entry.is_ours() && entry.may_be_alive());
}
