//! What clients see after the create lands in the ledger: state, price and the moment a
//! cluster is gone; and a later create of the same request settles an earlier one whose
//! outcome was unknown — under the same idempotency key on Runcrate, so no second cluster.

use std::sync::Arc;

use crate::support::*;
use gpucloud::Ready;
use gpucloud::journal::Journal;
use gpucloud::{
    ClusterClient, CreateOutcome, ProviderKind, RetryPolicy, RuncrateConfig, WaitOptions,
};
use gpucloud_ledger::{IntentState, Ledger, Outcome};
use gpucloud_sim::{Fault, FaultKind, Provider, credentials};

#[tokio::test]
async fn the_last_state_price_and_gone_time_follow_what_the_client_saw() {
    let sim = sim().await;
    let (_dir, path) = ledger_path();
    let ledger = Arc::new(Ledger::open(&path).unwrap());
    let e2e = client(&sim, Provider::E2e, Some(ledger.clone()));

    let created = e2e.create(&spec(Provider::E2e, "seen")).await.unwrap();
    let entry = ledger.clusters().unwrap().pop().unwrap();
    let seen = entry
        .last_seen
        .clone()
        .expect("the create's answer is recorded");
    assert_eq!(seen.state, created.cluster.state.to_string());
    let price = entry.price.clone().expect("E2E states an hourly price");
    assert_eq!(Some(&price), created.cluster.price.as_ref());
    assert!(entry.may_be_alive());

    let ready = e2e
        .wait(&created.cluster.id, &Ready)
        .with_options(WaitOptions::default())
        .run(|_| {})
        .await
        .map(|w| w.output)
        .map_err(gpucloud::Error::from)
        .unwrap();
    let entry = ledger.clusters().unwrap().pop().unwrap();
    assert_eq!(
        entry.last_seen.as_ref().unwrap().state,
        ready.state.to_string()
    );

    // An hour after the create, the cost so far is one hour's price.
    let hour_later = entry.created_at + chrono::Duration::hours(1);
    let (cost, currency) = entry.cost_so_far(hour_later).unwrap();
    assert!((cost - price.per_hour).abs() < 1e-9, "{cost}");
    assert_eq!(currency, price.currency);

    e2e.delete_and_wait(&created.cluster.id, &WaitOptions::default(), |_| {})
        .await
        .unwrap();
    let entry = ledger.clusters().unwrap().pop().unwrap();
    assert_eq!(entry.last_seen.as_ref().unwrap().state, "gone");
    let gone = entry.gone_at.expect("the verified delete saw it gone");
    assert!(!entry.may_be_alive());
    // The cost stops at the moment it was seen gone.
    let (later, _) = entry
        .cost_so_far(gone + chrono::Duration::days(30))
        .unwrap();
    let (at_gone, _) = entry.cost_so_far(gone).unwrap();
    assert_eq!(later, at_gone);
}

#[tokio::test]
async fn clusters_the_ledger_did_not_create_are_left_alone() {
    let sim = sim().await;
    let (_dir, path) = ledger_path();
    let ledger = Arc::new(Ledger::open(&path).unwrap());
    let plain = client(&sim, Provider::Together, None);
    let other = plain
        .create(&spec(Provider::Together, "not-ours"))
        .await
        .unwrap();

    let recorded = client(&sim, Provider::Together, Some(ledger.clone()));
    recorded.get(&other.cluster.id).await.unwrap();

    assert!(ledger.clusters().unwrap().is_empty());
}

#[tokio::test]
async fn a_runcrate_create_whose_answer_was_lost_is_re_sent_under_its_key_and_makes_one_cluster() {
    let sim = sim().await;
    let (_dir, path) = ledger_path();
    let ledger = Arc::new(Ledger::open(&path).unwrap());
    // One attempt: the lost answer ends the first process's create (as a process that died
    // after its POST would leave it).
    let one_shot = ClusterClient::runcrate(
        RuncrateConfig::new(credentials::RUNCRATE_API_KEY.to_string())
            .with_base_url(sim.base_url(Provider::Runcrate))
            .with_retry_policy(RetryPolicy::none())
            .with_journal(ledger.clone()),
    )
    .unwrap();
    sim.faults()
        .inject(Fault::new(Provider::Runcrate, FaultKind::DropConnection).on("create_cluster"));
    let lost = one_shot
        .create(&spec(Provider::Runcrate, "lost-answer"))
        .await
        .unwrap_err();
    assert!(lost.is_ambiguous(), "{lost:?}");
    let first = ledger.clusters().unwrap().pop().unwrap();
    assert_eq!(first.state, IntentState::FailedAmbiguous);
    let key = first.idempotency_key.clone().unwrap();
    assert_eq!(sim.clusters(Provider::Runcrate).len(), 1, "the POST landed");

    // The next run (no key of its own) plans and sends under the earlier key.
    let next = client(&sim, Provider::Runcrate, Some(ledger.clone()));
    let plan = next
        .plan(&spec(Provider::Runcrate, "lost-answer"))
        .await
        .unwrap();
    assert!(
        plan.headers
            .iter()
            .any(|(name, value)| name.eq_ignore_ascii_case("idempotency-key") && *value == key),
        "{:?}",
        plan.headers
    );
    let again = next
        .create(&spec(Provider::Runcrate, "lost-answer"))
        .await
        .unwrap();

    assert_eq!(again.outcome, CreateOutcome::AlreadyExisted);
    assert_eq!(
        sim.clusters(Provider::Runcrate).len(),
        1,
        "never a second cluster"
    );
    // Two creates, one cluster: one entry of it.
    assert_eq!(ledger.clusters().unwrap().len(), 1);
    let entries = ledger.creates().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[1].idempotency_key.as_deref(), Some(key.as_str()));
    let settled = &entries[0];
    assert_eq!(
        (settled.state, settled.outcome, settled.cluster_id.as_ref()),
        (
            IntentState::Completed,
            Some(Outcome::FoundByLookup),
            Some(&again.cluster.id)
        )
    );
    assert!(
        settled
            .resolution
            .as_ref()
            .unwrap()
            .0
            .contains("same idempotency key"),
        "{:?}",
        settled.resolution
    );

    // A run killed while it waited leaves a completed create: the next run still re-uses its
    // key while the cluster is not known to be gone, so it is never doubled.
    let third = next
        .create(&spec(Provider::Runcrate, "lost-answer"))
        .await
        .unwrap();
    assert_eq!(third.outcome, CreateOutcome::AlreadyExisted);
    assert_eq!(third.cluster.id, again.cluster.id);
    assert_eq!(sim.clusters(Provider::Runcrate).len(), 1);

    // Once the cluster is seen failed, a re-run gets a key of its own (the old key would only
    // bring the failed cluster back).
    let mut failed = third.cluster.clone();
    failed.state = gpucloud::ClusterState::Failed("machine_failed_to_start".into());
    ledger.record_seen(&failed, None).unwrap();
    let after_failure = next
        .plan(&spec(Provider::Runcrate, "lost-answer"))
        .await
        .unwrap();
    assert_ne!(after_failure.header("idempotency-key"), Some(key.as_str()));

    // A different request of the same name gets a key of its own.
    let mut other_request = spec(Provider::Runcrate, "lost-answer");
    other_request.size = gpucloud::ClusterSize::Nodes(4);
    let plan = next.plan(&other_request).await.unwrap();
    assert!(
        !plan.headers.iter().any(|(_, value)| *value == key),
        "{:?}",
        plan.headers
    );
}

#[tokio::test]
async fn a_later_create_of_the_same_name_settles_an_earlier_pending_intent() {
    let sim = sim().await;
    let (_dir, path) = ledger_path();
    let ledger = Arc::new(Ledger::open(&path).unwrap());
    // A process died after recording its intent, before its POST.
    let orphan = ledger
        .create_started(&intent(ProviderKind::Together, "same-name"))
        .unwrap();
    // Another provider's intent of that name is not settled by a Together cluster.
    let elsewhere = ledger
        .create_started(&intent(ProviderKind::E2e, "same-name"))
        .unwrap();

    let together = client(&sim, Provider::Together, Some(ledger.clone()));
    let created = together
        .create(&spec(Provider::Together, "same-name"))
        .await
        .unwrap();

    let settled = ledger.entry(orphan).unwrap();
    assert_eq!(settled.state, IntentState::Completed);
    assert_eq!(settled.cluster_id.as_ref(), Some(&created.cluster.id));
    assert!(
        settled.resolution.unwrap().0.contains("same name"),
        "the note says how"
    );
    assert_eq!(ledger.entry(elsewhere).unwrap().state, IntentState::Pending);
}

#[tokio::test]
async fn gone_is_overturned_by_a_sighting_and_only_a_start_that_never_ran_is_released() {
    use gpucloud::{Cluster, ClusterState};
    let sim = sim().await;
    let (_dir, path) = ledger_path();
    let ledger = Arc::new(Ledger::open(&path).unwrap());
    let runcrate = client(&sim, Provider::Runcrate, Some(ledger.clone()));
    let created = runcrate
        .create(&spec(Provider::Runcrate, "sighted"))
        .await
        .unwrap();
    let seen = |state: ClusterState| Cluster {
        state,
        ..created.cluster.clone()
    };
    let entry = || ledger.clusters().unwrap().pop().unwrap();

    // One 404 (another endpoint, a transient): gone, until the cluster answers again.
    ledger
        .record_gone(ProviderKind::Runcrate, &created.cluster.id, None)
        .unwrap();
    assert!(!entry().may_be_alive());
    ledger
        .record_seen(&seen(ClusterState::Ready), None)
        .unwrap();
    assert!(entry().may_be_alive(), "seen again: it may be billing");

    // It ran, then failed: nothing says its machines were released.
    ledger
        .record_seen(&seen(ClusterState::Failed("node lost".into())), None)
        .unwrap();
    let failed = entry();
    assert!(failed.may_be_alive() && !failed.released, "{failed:?}");
    sim.shutdown().await;
}

/// A 404 proves a cluster gone only from the endpoint and account that created it: another
/// endpoint (a second region's API, a staging URL, another account's key) does not see it,
/// and before, its 404 hid a live, billing cluster from `ledger` and `sweep` for good.
#[tokio::test]
async fn a_404_from_another_endpoint_or_account_does_not_mark_a_cluster_gone() {
    let sim = sim().await;
    let elsewhere = gpucloud_sim::Simulator::start(gpucloud_sim::SimConfig::default())
        .await
        .unwrap();
    let (_dir, path) = ledger_path();
    let ledger = Arc::new(Ledger::open(&path).unwrap());
    for provider in [Provider::Together, Provider::E2e] {
        let home = client(&sim, provider, Some(ledger.clone()));
        let created = home.create(&spec(provider, "homed")).await.unwrap();
        let entry = || {
            ledger
                .clusters()
                .unwrap()
                .into_iter()
                .find(|e| {
                    e.cluster_id.as_ref() == Some(&created.cluster.id)
                        && e.provider == kind(provider)
                })
                .unwrap()
        };
        assert!(entry().may_be_alive());

        // The same key at another endpoint answers 404.
        let away = client(&elsewhere, provider, Some(ledger.clone()));
        let error = away.get(&created.cluster.id).await.unwrap_err();
        assert!(matches!(error, gpucloud::Error::NotFound(_)), "{error:?}");
        assert!(
            entry().may_be_alive(),
            "{provider:?}: a 404 from elsewhere proves nothing"
        );
        // The journal hears "gone" from another account at the home endpoint: nothing either.
        let other_account = format!("{} as 0000000000000000", sim.base_url(provider));
        ledger
            .cluster_gone(kind(provider), &created.cluster.id, &other_account)
            .unwrap();
        assert!(
            entry().may_be_alive(),
            "{provider:?}: another account's 404"
        );
        // Nor does a sighting elsewhere say anything about it (the same id there is another
        // cluster), and a create of the name there is not handed this one.
        let deleted_elsewhere = gpucloud::Cluster {
            state: gpucloud::ClusterState::Deleted,
            ..created.cluster.clone()
        };
        ledger
            .cluster_seen(&deleted_elsewhere, &other_account)
            .unwrap();
        assert!(
            entry().may_be_alive(),
            "{provider:?}: another origin's sighting"
        );
        assert_eq!(entry().origin.as_deref(), Some(home.origin()));
        let mut there = intent(kind(provider), "homed");
        there.scope = entry().scope;
        there.request_sha256 = entry().request_sha256;
        there.origin = Some(other_account.clone());
        let claim = ledger
            .claim_create(&there, std::time::Duration::from_secs(60))
            .unwrap();
        assert!(
            matches!(claim, gpucloud::journal::Claim::Owned { .. }),
            "{provider:?}: {claim:?}"
        );

        // Its own endpoint and account: gone once deleted.
        home.delete_and_wait(&created.cluster.id, &WaitOptions::default(), |_| {})
            .await
            .unwrap();
        assert!(!entry().may_be_alive(), "{provider:?}");
    }
    elsewhere.shutdown().await;
    sim.shutdown().await;
}
