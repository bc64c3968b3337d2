//! A caller that died holding a name is taken over without a second cluster, whether it died
//! after its POST (its process gone) or only stopped renewing its lease; a caller that may not
//! wait that long gives up and sends nothing.

use std::sync::Arc;
use std::time::{Duration, Instant};

use gpucloud::journal::{Claim, ClaimPolicy};
use gpucloud::{CreateOutcome, Error};
use gpucloud_ledger::IntentState;
use gpucloud_sim::{Fault, FaultKind, Provider};

use super::backend::{Backend, PROVIDERS, creates_sent};
use super::children::child;
use crate::support::{client, kind, sim, spec};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_killed_after_its_post_is_taken_over_without_a_second_cluster() {
    for backend in Backend::all() {
        let sim = sim().await;
        for provider in PROVIDERS {
            let name = format!("killed-{}", kind(provider));
            // The create happens; its answer would come a minute later.
            sim.faults().inject(
                Fault::new(
                    provider,
                    FaultKind::Slow {
                        delay: Duration::from_secs(60),
                    },
                )
                .on("create_cluster"),
            );
            let mut killed = child(&backend, &sim.base_url(provider), provider, &name)
                .spawn()
                .unwrap();
            let deadline = Instant::now() + Duration::from_secs(30);
            while sim.clusters(provider).is_empty() {
                assert!(
                    Instant::now() < deadline,
                    "the child's create never arrived"
                );
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            killed.kill().unwrap();
            killed.wait().unwrap();

            let ledger = Arc::new(backend.open());
            let what = format!("{} on {}", kind(provider), backend.name());
            assert_eq!(
                ledger.pending().unwrap().len(),
                1,
                "the killed create: {what}"
            );
            let client = client(&sim, provider, Some(ledger.clone()));
            let started = Instant::now();
            let created = client.create(&spec(provider, &name)).await.unwrap();
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "a dead process's claim is taken over at once, not after its lease: {what}"
            );
            assert_ne!(created.outcome, CreateOutcome::Created, "{what}");
            assert_eq!(sim.clusters(provider).len(), 1, "one cluster: {what}");
            assert_eq!(sim.clusters(provider)[0].id, created.cluster.id.as_str());
            assert!(
                ledger.unsettled_creates(None).unwrap().is_empty(),
                "the killed create is settled by its successor: {what}"
            );
        }
        sim.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_whose_lease_ran_out_is_taken_over_after_waiting_for_it() {
    for backend in Backend::all() {
        let sim = sim().await;
        let provider = Provider::E2e;
        let probe = Arc::new(backend.open());
        // The intent the facade records for this spec (scope and hash included).
        let prober = client(&sim, provider, Some(probe.clone()));
        prober.create(&spec(provider, "probe")).await.unwrap();
        let recorded = probe.clusters().unwrap().pop().unwrap();
        let intent = gpucloud::journal::CreateIntent {
            provider: recorded.provider,
            name: "stalled".to_string(),
            scope: recorded.scope.clone(),
            idempotency_key: None,
            request_sha256: recorded.request_sha256.clone(),
            request: None,
            deadline: None,
            origin: None,
            provider_ends_at: None,
        };
        // A caller that claimed the name and then stopped (it never renews).
        let stalled = backend.open();
        let lease = Duration::from_millis(1500);
        // The lease runs from the claim: what the create must outwait is measured from here,
        // not from the create's start (the steps in between take long on a loaded machine).
        let claimed = Instant::now();
        let Claim::Owned { .. } = stalled.claim_create(&intent, lease).unwrap() else {
            panic!("the first claim is granted");
        };
        let other = backend.open();
        assert!(
            matches!(
                other.claim_create(&intent, lease).unwrap(),
                Claim::InFlight { .. }
            ),
            "a live lease holds the name"
        );

        let ledger = Arc::new(backend.open());
        let client = client(&sim, provider, Some(ledger.clone()));
        let created = client.create(&spec(provider, "stalled")).await.unwrap();
        let waited = claimed.elapsed();
        assert!(
            waited >= lease,
            "the name was taken before the lease ran out: {waited:?}"
        );
        assert_eq!(created.outcome, CreateOutcome::Created);
        assert_eq!(creates_sent(&sim, provider), 2, "the probe and this one");
        let entries = ledger.clusters().unwrap();
        let stalled_rows: Vec<_> = entries.iter().filter(|e| e.name == "stalled").collect();
        assert_eq!(stalled_rows.len(), 2, "{}", backend.name());
        // The stalled intent is settled by its successor: a name is one cluster's.
        for row in stalled_rows {
            assert_eq!(row.state, IntentState::Completed, "{row:?}");
            assert_eq!(row.cluster_id.as_ref(), Some(&created.cluster.id));
        }

        // And a create that waits longer than its policy allows gives up, sending nothing.
        let held = backend.open();
        let mut later = intent.clone();
        later.name = "held".to_string();
        held.claim_create(&later, Duration::from_secs(60)).unwrap();
        let impatient = gpucloud::E2eConfig::new(
            gpucloud_sim::credentials::E2E_API_KEY.to_string(),
            gpucloud_sim::credentials::E2E_AUTH_TOKEN.to_string(),
            gpucloud_sim::credentials::E2E_PROJECT_ID,
            gpucloud::e2e::types::Location::Delhi,
        )
        .with_base_url(sim.base_url(provider))
        .with_journal(Arc::new(backend.open()))
        .with_claim_policy(ClaimPolicy {
            max_wait: Duration::from_millis(300),
            ..ClaimPolicy::default()
        });
        let impatient = gpucloud::ClusterClient::e2e(impatient).unwrap();
        let error = impatient.create(&spec(provider, "held")).await.unwrap_err();
        assert!(matches!(error, Error::NameClaimed { .. }), "{error}");
        assert_eq!(creates_sent(&sim, provider), 2, "nothing sent");
        sim.shutdown().await;
    }
}
