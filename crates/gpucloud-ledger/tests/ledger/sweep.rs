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

/// `ledger`'s sweep by `policy` through `clients`, its events unobserved.
async fn sweep(
    ledger: &Ledger,
    clients: &gpucloud_ledger::sweep::Clients<'_>,
    policy: &SweepPolicy,
) -> gpucloud_ledger::sweep::SweepReport {
    ledger.sweep(clients, policy, |_| {}).await.unwrap()
}

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
    let looked = sweep(&ledger, &clients, &SweepPolicy::new()).await;
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
    let again = sweep(&ledger, &clients, &SweepPolicy::new()).await;
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
    let report = sweep(
        &ledger,
        &clients,
        &SweepPolicy::new().deleting(WaitOptions::default()),
    )
    .await;
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
    let unrefreshed = ledger.refresh(&clients).await.unwrap().unrefreshed;
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

/// A policy picks clusters by age, provider and deadline, exactly; a Runcrate cluster, which
/// no API can delete, is listed apart as still billing; each action has its word.
#[tokio::test]
async fn a_policy_picks_by_age_provider_and_deadline_and_lists_what_no_api_can_delete() {
    let sim = sim().await;
    let (_dir, path) = ledger_path();
    let ledger = Arc::new(Ledger::open(&path).unwrap());
    let together = client(&sim, Provider::Together, Some(ledger.clone()));
    let e2e = client(&sim, Provider::E2e, Some(ledger.clone()));
    let runcrate = client(&sim, Provider::Runcrate, Some(ledger.clone()));
    together
        .create(&spec(Provider::Together, "timed").with_ttl(Duration::from_secs(3600)))
        .await
        .unwrap();
    e2e.create(&spec(Provider::E2e, "untimed")).await.unwrap();
    runcrate
        .create(&spec(Provider::Runcrate, "by-hand"))
        .await
        .unwrap();
    let now = chrono::DateTime::<chrono::Utc>::from(std::time::SystemTime::now());
    let later = now + chrono::Duration::hours(2);
    let due = |policy: &SweepPolicy, at| {
        let mut names: Vec<String> = ledger
            .due(policy, at)
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect();
        names.sort();
        names
    };
    let everything = ["by-hand", "timed", "untimed"];
    // By age: an hour old, not yet; two hours on, all of them.
    let an_hour = SweepPolicy::new().older_than(Duration::from_secs(3600));
    assert!(due(&an_hour, now).is_empty());
    assert_eq!(due(&an_hour, later), everything);
    // By provider.
    let only_e2e = SweepPolicy::new().for_providers([ProviderKind::E2e]);
    assert_eq!(due(&only_e2e, now), ["untimed"]);
    assert_eq!(due(&SweepPolicy::new(), now), everything);
    // By deadline: only a cluster that has one, once it has passed.
    let expired = SweepPolicy::new().expired();
    assert!(due(&expired, now).is_empty());
    assert_eq!(due(&expired, later), ["timed"]);

    // A sweep of one provider looks only there.
    let all_clients = |provider: ProviderKind| -> Result<ClusterClient, Error> {
        Ok(match provider {
            ProviderKind::Together => together.clone(),
            ProviderKind::E2e => e2e.clone(),
            _ => runcrate.clone(),
        })
    };
    let report = sweep(&ledger, &all_clients, &only_e2e).await;
    let swept: Vec<(&str, &str)> = report
        .swept
        .iter()
        .map(|s| (s.name.as_str(), s.action.as_str()))
        .collect();
    assert_eq!(swept, [("untimed", "alive")]);

    // Deleting everything: Runcrate's cluster is alive where no API can delete it, and listed
    // apart with where it is stopped; the others are deleted.
    let report = sweep(
        &ledger,
        &all_clients,
        &SweepPolicy::new().deleting(WaitOptions::default()),
    )
    .await;
    let by_hand: Vec<&str> = report.stop_by_hand().map(|s| s.name.as_str()).collect();
    assert_eq!(by_hand, ["by-hand"]);
    assert_eq!(report.failed().count(), 0);
    let SweepAction::StopByHand { console, .. } = &report.stop_by_hand().next().unwrap().action
    else {
        unreachable!()
    };
    assert_eq!(*console, ProviderKind::Runcrate.profile().console);
    let mut words: Vec<(&str, &str)> = report
        .swept
        .iter()
        .map(|s| (s.name.as_str(), s.action.as_str()))
        .collect();
    words.sort();
    assert_eq!(
        words,
        [
            ("by-hand", "stop_by_hand"),
            ("timed", "deleted"),
            ("untimed", "deleted")
        ]
    );
    // The words the command line and its JSON use, for the actions not seen above.
    assert_eq!(SweepAction::Gone { released: true }.as_str(), "gone");
    assert_eq!(
        SweepAction::Failed {
            reason: String::new()
        }
        .as_str(),
        "error"
    );
}

/// What the sweep reads it records itself, so a caller whose clients record nothing still gets
/// the truth: a cluster deleted at the provider behind the ledger's back is gone, and a
/// Runcrate start that failed (the provider released every machine) is gone and released, not
/// a cluster to stop by hand.
#[tokio::test]
async fn the_sweep_records_what_it_reads_whatever_the_clients_record() {
    let sim = sim().await;
    let (_dir, path) = ledger_path();
    let ledger = Arc::new(Ledger::open(&path).unwrap());
    let recording = client(&sim, Provider::Together, Some(ledger.clone()));
    let made = recording
        .create(&spec(Provider::Together, "deleted-elsewhere"))
        .await
        .unwrap();
    // Deleted by someone else, through a client that records nothing.
    let unrecorded = client(&sim, Provider::Together, None);
    unrecorded
        .delete_and_wait(&made.cluster.id, &WaitOptions::default(), |_| {})
        .await
        .unwrap();
    sim.faults().inject(
        gpucloud_sim::Fault::new(
            Provider::Runcrate,
            gpucloud_sim::FaultKind::FailProvisioning,
        )
        .on("create_cluster"),
    );
    let runcrate = client(&sim, Provider::Runcrate, Some(ledger.clone()));
    let doomed = runcrate
        .create(&spec(Provider::Runcrate, "failed-start"))
        .await
        .unwrap();
    // Its failure is seen only by a client that records nothing.
    let unrecorded_runcrate = client(&sim, Provider::Runcrate, None);
    let failed = unrecorded_runcrate
        .wait(&doomed.cluster.id, &gpucloud::Ready)
        .run(|_| {})
        .await
        .unwrap_err();
    assert!(
        matches!(failed, gpucloud::WaitError::FailureState { .. }),
        "{failed:?}"
    );

    // The sweep's clients record nothing either.
    let quiet = |provider: ProviderKind| -> Result<ClusterClient, Error> {
        Ok(match provider {
            ProviderKind::Runcrate => client(&sim, Provider::Runcrate, None),
            _ => client(&sim, Provider::Together, None),
        })
    };
    let report = sweep(&ledger, &quiet, &SweepPolicy::new()).await;
    let mut actions: Vec<(&str, SweepAction)> = report
        .swept
        .iter()
        .map(|s| (s.name.as_str(), s.action.clone()))
        .collect();
    actions.sort_by_key(|(name, _)| *name);
    assert_eq!(
        actions,
        [
            ("deleted-elsewhere", SweepAction::Gone { released: false }),
            ("failed-start", SweepAction::Gone { released: true }),
        ]
    );
    // Recorded: neither may be alive any more, and no later sweep looks at them.
    assert!(ledger.clusters().unwrap().iter().all(|e| !e.may_be_alive()));
}

/// The sweep settles only the unanswered creates of the scope its client lists (E2E's list is
/// one location's): a create sent to Chennai is not looked for in Delhi's list.
#[tokio::test]
async fn the_sweep_settles_only_the_creates_of_the_scope_its_client_lists() {
    use gpucloud::journal::Journal as _;
    let sim = sim().await;
    let (_dir, path) = ledger_path();
    let ledger = Arc::new(Ledger::open(&path).unwrap());
    let delhi = client(&sim, Provider::E2e, Some(ledger.clone()));
    let scope =
        |location: &str| format!("{}/{location}", gpucloud_sim::credentials::E2E_PROJECT_ID);
    let mut here = crate::support::intent(ProviderKind::E2e, "in-delhi");
    here.scope = Some(scope("Delhi"));
    let mut there = crate::support::intent(ProviderKind::E2e, "in-chennai");
    there.scope = Some(scope("Chennai"));
    let here = ledger.create_started(&here).unwrap();
    let there = ledger.create_started(&there).unwrap();
    let clients = |_: ProviderKind| -> Result<ClusterClient, Error> { Ok(delhi.clone()) };
    let report = sweep(&ledger, &clients, &SweepPolicy::new()).await;
    let looked_up: Vec<u64> = report
        .settled
        .iter()
        .map(|s| match s {
            gpucloud::settle::Settled::Found { intent, .. }
            | gpucloud::settle::Settled::Gone { intent }
            | gpucloud::settle::Settled::StillPending { intent, .. }
            | gpucloud::settle::Settled::AlreadySettled { intent } => *intent,
        })
        .collect();
    assert_eq!(looked_up, [here], "not {there}");
}

/// A delete the provider answers 404 is reported gone (nothing was deleted by this sweep), and
/// a look-up that fails says the provider's own error, so a person can act on it.
#[tokio::test]
async fn a_delete_answered_404_is_gone_and_a_failed_look_up_says_why() {
    use gpucloud_sim::{Fault, FaultKind};
    let sim = sim().await;
    let (_dir, path) = ledger_path();
    let ledger = Arc::new(Ledger::open(&path).unwrap());
    let together = client(&sim, Provider::Together, Some(ledger.clone()));
    together
        .create(&spec(Provider::Together, "vanishing"))
        .await
        .unwrap();
    sim.faults().inject(
        Fault::new(Provider::Together, FaultKind::ServerError { status: 404 }).on("delete_cluster"),
    );
    let clients = |_: ProviderKind| -> Result<ClusterClient, Error> { Ok(together.clone()) };
    let report = sweep(
        &ledger,
        &clients,
        &SweepPolicy::new().deleting(WaitOptions::default()),
    )
    .await;
    assert_eq!(report.swept.len(), 1, "{:?}", report.swept);
    assert_eq!(
        report.swept[0].action,
        SweepAction::Gone { released: false }
    );

    let e2e = client(&sim, Provider::E2e, Some(ledger.clone()));
    e2e.create(&spec(Provider::E2e, "unreadable"))
        .await
        .unwrap();
    sim.faults().inject(
        Fault::new(Provider::E2e, FaultKind::ServerError { status: 403 }).on("get_cluster"),
    );
    let clients = |_: ProviderKind| -> Result<ClusterClient, Error> { Ok(e2e.clone()) };
    let report = sweep(
        &ledger,
        &clients,
        &SweepPolicy::new().for_providers([ProviderKind::E2e]),
    )
    .await;
    let [swept] = report.swept.as_slice() else {
        panic!("{:?}", report.swept)
    };
    let SweepAction::Failed { reason } = &swept.action else {
        panic!("{:?}", swept.action)
    };
    assert!(reason.starts_with("authentication failed"), "{reason}");

    // A broken connection on every try: the error and its cause, on one line, each once.
    sim.faults().inject(
        Fault::new(Provider::E2e, FaultKind::DropConnection)
            .on("get_cluster")
            .times(20),
    );
    let report = sweep(
        &ledger,
        &clients,
        &SweepPolicy::new().for_providers([ProviderKind::E2e]),
    )
    .await;
    let SweepAction::Failed { reason } = &report.swept[0].action else {
        panic!("{:?}", report.swept)
    };
    assert!(
        reason.starts_with("transport error calling get_cluster on e2e: ")
            && reason.len() > "transport error calling get_cluster on e2e: ".len(),
        "{reason}"
    );
    assert_eq!(
        reason.matches("transport error").count(),
        1,
        "said once: {reason}"
    );
}

/// A create whose outcome the ledger does not know is settled before the sweep reports, or
/// reported unknown with why and from when a sweep can settle it: the sweep is then not
/// complete, never "nothing to do".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creates_of_unknown_outcome_are_reported_with_why_and_when() {
    use gpucloud::journal::Journal;
    let sim = sim().await;
    let (_dir, path) = ledger_path();
    let ledger = Arc::new(Ledger::open(&path).unwrap());
    let clients = clients(&sim, &ledger);
    // Together: recorded without a claim (its owner gone), nothing of its name in the list,
    // and young: a look-up cannot call it gone yet.
    let young = ledger
        .create_started(&intent(ProviderKind::Together, "young"))
        .unwrap();
    // Together, claimed by this live process under a lease: its owner settles it.
    let gpucloud::journal::Claim::Owned {
        intent: in_flight, ..
    } = ledger
        .claim_create(
            &intent(ProviderKind::Together, "in-flight"),
            Duration::from_secs(60),
        )
        .unwrap()
    else {
        panic!("owned");
    };
    // Together, as young but recorded ten minutes ago: a look-up may call it gone in five.
    let older = ledger
        .create_started(&intent(ProviderKind::Together, "older"))
        .unwrap();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute(
            "UPDATE create_intents SET started_at_ms = started_at_ms - 600000 WHERE id = ?1",
            [i64::try_from(older).unwrap()],
        )
        .unwrap();
    // Runcrate: its provider has no client here.
    let unreachable = ledger
        .create_started(&intent(ProviderKind::Runcrate, "unreachable"))
        .unwrap();
    let report = sweep(&ledger, &clients, &SweepPolicy::new()).await;
    assert!(!report.is_complete());
    let find = |id| {
        report
            .unknown
            .iter()
            .find(|u| u.intent == id)
            .unwrap_or_else(|| panic!("{id}: {:?}", report.unknown))
    };
    let now = chrono::DateTime::<chrono::Utc>::from(std::time::SystemTime::now());
    let young = find(young);
    assert!(
        young.reason.contains("not in the list yet"),
        "{}",
        young.reason
    );
    let at = young.settles_after.expect("a sweep settles it later");
    assert!(
        at > now + chrono::Duration::minutes(14) && at <= now + chrono::Duration::minutes(15),
        "{at}"
    );
    let older = find(older);
    let at = older.settles_after.expect("a sweep settles it later");
    assert!(
        at > now + chrono::Duration::minutes(4) && at <= now + chrono::Duration::minutes(5),
        "each its own: {at}"
    );
    let in_flight = find(in_flight);
    assert!(
        in_flight.reason.contains("in flight in"),
        "{}",
        in_flight.reason
    );
    let lease = in_flight.settles_after.expect("its lease's end");
    assert!(lease > now + chrono::Duration::seconds(50), "{lease}");
    let unreachable = find(unreachable);
    assert!(
        unreachable.reason.contains("not looked up")
            && unreachable.reason.contains("RUNCRATE_API_KEY"),
        "{}",
        unreachable.reason
    );
    assert_eq!(unreachable.settles_after, None);
    assert_eq!(report.unknown.len(), 4);
    // The refresh says the same.
    let refreshed = ledger.refresh(&clients).await.unwrap();
    assert_eq!(refreshed.unknown.len(), 4);

    // Its cluster made (a list shows the name): the next sweep settles it and says so.
    let made = clients(ProviderKind::Together)
        .unwrap()
        .create(&spec(Provider::Together, "listed"))
        .await
        .unwrap();
    let listed = ledger
        .create_started(&intent(ProviderKind::Together, "listed"))
        .unwrap();
    let report = sweep(&ledger, &clients, &SweepPolicy::new()).await;
    assert!(
        report.settled.iter().any(|s| matches!(
            s,
            gpucloud::settle::Settled::Found { intent, cluster }
                if *intent == listed && *cluster == made.cluster.id
        )),
        "{:?}",
        report.settled
    );
    assert!(report.unknown.iter().all(|u| u.intent != listed));
}

/// A sweep is complete only when nothing was skipped, failed or left unknown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sweep_that_skipped_a_provider_is_not_complete() {
    use gpucloud::journal::{CreateRecord, Journal};
    let sim = sim().await;
    let (_dir, path) = ledger_path();
    let ledger = Arc::new(Ledger::open(&path).unwrap());
    let clients = clients(&sim, &ledger);
    let nothing = sweep(&ledger, &clients, &SweepPolicy::new()).await;
    assert!(
        nothing.is_complete(),
        "nothing to do, and nothing left undone"
    );
    // A Runcrate cluster in the ledger, and no Runcrate client.
    let id = ledger
        .create_started(&intent(ProviderKind::Runcrate, "unswept"))
        .unwrap();
    ledger
        .create_finished(
            id,
            &CreateRecord::Cluster {
                id: &gpucloud::ClusterId::new("3fa85f64-5717-4562-b3fc-2c963f66afa6"),
                outcome: gpucloud::CreateOutcome::Created,
            },
        )
        .unwrap();
    let skipped = sweep(&ledger, &clients, &SweepPolicy::new()).await;
    assert_eq!(skipped.skipped.len(), 1);
    assert!(skipped.failed().next().is_none() && skipped.unknown.is_empty());
    assert!(!skipped.is_complete(), "a provider skipped is not done");
}
