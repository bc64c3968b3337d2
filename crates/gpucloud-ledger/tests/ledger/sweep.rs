//! The sweep and refresh as library operations: what `gpucloud clusters sweep` does, from a
//! program, with exact actions per cluster and the provider's state checked after.

// `gpucloud::Error` is carried inline, as in the facade (about 140 bytes).
#![allow(clippy::result_large_err)]

use std::sync::Arc;
use std::time::Duration;

use crate::support::*;
use gpucloud::{ClusterClient, Error, ProviderKind, WaitOptions};
use gpucloud_ledger::Ledger;
use gpucloud_ledger::sweep::{SweepAction, SweepPolicy};
use gpucloud_sim::Provider;

/// The clients of the simulator's providers, recording into `ledger`; Runcrate has none
/// (as if its key were not set).
fn clients(
    sim: &gpucloud_sim::RunningSim,
    ledger: &Arc<Ledger>,
) -> impl Fn(ProviderKind) -> Result<ClusterClient, Error> + Sync {
    let together = client(sim, Provider::Together, Some(ledger.clone()));
    let e2e = client(sim, Provider::E2e, Some(ledger.clone()));
    move |provider| match provider {
        ProviderKind::Together => Ok(together.clone()),
        ProviderKind::E2e => Ok(e2e.clone()),
        _ => Err(Error::Configuration {
            setting: "RUNCRATE_API_KEY".into(),
            problem: "is not set".into(),
        }),
    }
}

#[tokio::test]
async fn a_sweep_looks_then_deletes_only_what_is_due_and_confirmed_and_verifies_each_delete() {
    let sim = sim().await;
    let (_dir, path) = ledger_path();
    let ledger = Arc::new(Ledger::open(&path).unwrap());
    let clients = clients(&sim, &ledger);
    let together = clients(ProviderKind::Together).unwrap();
    let e2e = clients(ProviderKind::E2e).unwrap();
    let old = together
        .create(&spec(Provider::Together, "old").with_ttl(Duration::from_secs(60)))
        .await
        .unwrap();
    let kept = e2e
        .create(&spec(Provider::E2e, "kept").with_ttl(Duration::from_secs(3600)))
        .await
        .unwrap();
    let unconfirmed = e2e
        .create(&spec(Provider::E2e, "unconfirmed").with_ttl(Duration::from_secs(60)))
        .await
        .unwrap();
    // Past the first and third deadlines (the ledger's clock is the machine's).
    let later = chrono::DateTime::<chrono::Utc>::from(std::time::SystemTime::now())
        + chrono::Duration::seconds(120);
    let expired = SweepPolicy::new().expired();
    let due: Vec<String> = ledger
        .due(&expired, later)
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(due, ["old", "unconfirmed"]);

    // Looking only: every cluster of ours, each alive, nothing deleted.
    let looked = ledger
        .sweep(&clients, &SweepPolicy::new(), |_| {})
        .await
        .unwrap();
    let actions: Vec<(&str, &str)> = looked
        .swept
        .iter()
        .map(|s| (s.name.as_str(), s.action.as_str()))
        .collect();
    assert_eq!(
        actions,
        [
            ("old", "alive"),
            ("kept", "alive"),
            ("unconfirmed", "alive")
        ]
    );
    assert!(looked.skipped.is_empty(), "{:?}", looked.skipped);

    // Deleting with an age limit every cluster passes, but only `old` confirmed.
    let deleting = SweepPolicy::new()
        .older_than(Duration::ZERO)
        .deleting(WaitOptions::default())
        .confirmed(vec![(ProviderKind::Together, old.cluster.id.clone())]);
    let mut looked_up = Vec::new();
    let report = ledger
        .sweep(&clients, &deleting, |event| {
            if let gpucloud_ledger::sweep::SweepEvent::LookingUp { id, .. } = event {
                looked_up.push(id.to_string());
            }
        })
        .await
        .unwrap();
    assert_eq!(looked_up.len(), 3);
    let by_name = |name: &str| {
        report
            .swept
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("{name}: {:?}", report.swept))
            .action
            .clone()
    };
    assert!(matches!(by_name("old"), SweepAction::Deleted { .. }));
    for name in ["kept", "unconfirmed"] {
        assert_eq!(
            by_name(name),
            SweepAction::Alive {
                state: "provisioning".into(),
                not_deleted: Some("not in the list confirmed".into()),
            }
            .clone(),
            "{name}"
        );
    }
    // Verified at the provider: the one deleted is gone, the others are there.
    assert!(matches!(
        together.get(&old.cluster.id).await,
        Err(Error::NotFound(_))
    ));
    e2e.get(&kept.cluster.id).await.unwrap();
    e2e.get(&unconfirmed.cluster.id).await.unwrap();
    // The ledger knows it: a second sweep no longer looks at it.
    let again = ledger
        .sweep(&clients, &SweepPolicy::new(), |_| {})
        .await
        .unwrap();
    assert!(
        again.swept.iter().all(|s| s.name != "old"),
        "{:?}",
        again.swept
    );
}

#[tokio::test]
async fn a_cluster_of_another_endpoint_is_never_looked_up_here_and_a_provider_without_a_client_is_reported()
 {
    let sim = sim().await;
    let elsewhere = gpucloud_sim::Simulator::start(gpucloud_sim::SimConfig::default())
        .await
        .unwrap();
    let (_dir, path) = ledger_path();
    let ledger = Arc::new(Ledger::open(&path).unwrap());
    let there = client(&elsewhere, Provider::Together, Some(ledger.clone()));
    let made = there
        .create(&spec(Provider::Together, "there"))
        .await
        .unwrap();
    let runcrate = client(&sim, Provider::Runcrate, Some(ledger.clone()));
    runcrate
        .create(&spec(Provider::Runcrate, "no-key-now"))
        .await
        .unwrap();

    let clients = clients(&sim, &ledger);
    let report = ledger
        .sweep(
            &clients,
            &SweepPolicy::new().deleting(WaitOptions::default()),
            |_| {},
        )
        .await
        .unwrap();
    assert_eq!(report.swept.len(), 1, "{:?}", report.swept);
    let swept = &report.swept[0];
    assert_eq!(swept.cluster_id, made.cluster.id);
    assert!(
        matches!(&swept.action, SweepAction::Failed { reason } if reason.contains("another endpoint or account")),
        "{:?}",
        swept.action
    );
    assert_eq!(report.failed().count(), 1);
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(report.skipped[0].0, ProviderKind::Runcrate);
    // Nothing was deleted anywhere: the cluster still runs where it was made.
    there.get(&made.cluster.id).await.unwrap();
    assert!(
        sim.exchanges().iter().all(|e| e.method != "DELETE")
            && elsewhere.exchanges().iter().all(|e| e.method != "DELETE")
    );

    // The refresh says the same of it, and of the Runcrate cluster it cannot read.
    let unrefreshed = ledger.refresh(&clients).await.unwrap();
    let mut reasons: Vec<(ProviderKind, bool)> = unrefreshed
        .iter()
        .map(|u| (u.provider, u.reason.contains("another endpoint or account")))
        .collect();
    reasons.sort_by_key(|(p, _)| p.to_string());
    assert_eq!(
        reasons,
        [
            (ProviderKind::Runcrate, false),
            (ProviderKind::Together, true)
        ]
    );
}

/// A create says the deadline it recorded, and the same request again (an earlier create's
/// cluster) says that create's deadline, not none and not a new one.
#[tokio::test]
async fn a_create_carries_the_deadline_its_intent_recorded() {
    let sim = sim().await;
    let (_dir, path) = ledger_path();
    let ledger = Arc::new(Ledger::open(&path).unwrap());
    let client = client(&sim, Provider::Together, Some(ledger.clone()));
    let before = chrono::DateTime::<chrono::Utc>::from(std::time::SystemTime::now());
    let spec = spec(Provider::Together, "timed").with_ttl(Duration::from_secs(3600));
    let first = client.create(&spec).await.unwrap();
    let after = chrono::DateTime::<chrono::Utc>::from(std::time::SystemTime::now());
    let deadline = first.deadline.expect("a ttl makes a deadline");
    let hour = chrono::Duration::hours(1);
    assert!(
        deadline >= before + hour - chrono::Duration::seconds(1) && deadline <= after + hour,
        "{deadline} not an hour after {before}..{after}"
    );
    assert_eq!(
        ledger.clusters().unwrap()[0]
            .deadline
            .map(|d| d.timestamp_millis()),
        Some(deadline.timestamp_millis())
    );
    let again = client.create(&spec).await.unwrap();
    assert_eq!(again.outcome, gpucloud::CreateOutcome::AlreadyExisted);
    assert_eq!(again.deadline, first.deadline);
    // Without a ttl, no deadline.
    let plain = client
        .create(&crate::support::spec(Provider::Together, "untimed"))
        .await
        .unwrap();
    assert_eq!(plain.deadline, None);
}
