//! The rules of a claim on a name, on each backend: who holds it, when it is free again, and
//! what a successor that takes it over is told.

use std::time::Duration;

use gpucloud::journal::{Claim, Journal};
use gpucloud::{CreateOutcome, Error};

use super::backend::Backend;

#[test]
fn claims_follow_their_rules() {
    use gpucloud::journal::{CreateIntent, CreateRecord};
    use gpucloud::{ClusterId, ProviderKind};
    let lease = Duration::from_secs(60);
    let intent = |name: &str, scope: Option<&str>| CreateIntent {
        provider: ProviderKind::Together,
        name: name.to_string(),
        scope: scope.map(str::to_string),
        idempotency_key: None,
        request_sha256: "cd".repeat(32),
        request: Some(serde_json::json!({ "num_gpus": 16, "name": name })),
        deadline: None,
        origin: None,
        provider_ends_at: None,
    };
    let owned = |claim: Claim| match claim {
        Claim::Owned { intent, took_over } => (intent, took_over),
        other => panic!("not owned: {other:?}"),
    };
    for backend in Backend::all() {
        let what = backend.name();
        let a = backend.open();
        let b = backend.open();
        let first = intent("rules", Some("project-1"));
        let (id, took_over) = owned(a.claim_create(&first, lease).unwrap());
        assert_eq!(took_over, None, "{what}");
        // The same provider, scope and name is in flight; another scope or name is not.
        match b.claim_create(&first, lease).unwrap() {
            Claim::InFlight {
                intent,
                owner,
                lease_left,
            } => {
                assert_eq!(intent, id, "{what}");
                assert!(
                    owner.ends_with(&format!("/{}", std::process::id())),
                    "{owner}"
                );
                assert!(
                    lease_left > Duration::from_secs(50),
                    "{what}: {lease_left:?}"
                );
                assert!(lease_left <= lease, "{what}");
            }
            other => panic!("{what}: {other:?}"),
        }
        let (other_scope, _) = owned(b.claim_create(&intent("rules", None), lease).unwrap());
        let (other_name, _) = owned(
            b.claim_create(&intent("rules-2", Some("project-1")), lease)
                .unwrap(),
        );
        a.renew_claim(id, lease).unwrap();
        // Completed with a cluster: the name's cluster, until it is gone or deleted.
        let cluster = ClusterId::new("c-rules");
        a.create_finished(
            id,
            &CreateRecord::Cluster {
                id: &cluster,
                outcome: CreateOutcome::Created,
            },
        )
        .unwrap();
        assert!(
            matches!(a.renew_claim(id, lease), Err(gpucloud_ledger::LedgerError::ClaimLost(i)) if i == id),
            "{what}: a finished claim is not renewed"
        );
        assert_eq!(
            b.claim_create(&first, lease).unwrap(),
            Claim::Exists {
                intent: id,
                cluster: cluster.clone(),
                same_request: true,
                request: first.request.clone(),
                deadline: None,
            },
            "{what}"
        );
        // Another request under the name is told so, with the request that made the cluster.
        let bigger = CreateIntent {
            request_sha256: "ef".repeat(32),
            request: Some(serde_json::json!({ "num_gpus": 32, "name": "rules" })),
            ..first.clone()
        };
        assert_eq!(
            b.claim_create(&bigger, lease).unwrap(),
            Claim::Exists {
                intent: id,
                cluster: cluster.clone(),
                same_request: false,
                request: first.request.clone(),
                deadline: None,
            },
            "{what}"
        );
        a.record_gone(ProviderKind::Together, &cluster, None)
            .unwrap();
        let (second, took_over) = owned(b.claim_create(&first, lease).unwrap());
        assert_eq!(took_over, None, "{what}: a gone cluster is not the name's");
        // A failed create frees the name at once.
        let failure = Error::Validation(gpucloud::ValidationError {
            provider: ProviderKind::Together,
            field: "name".to_string(),
            rule: "a test".to_string(),
            source: "this test",
        });
        b.create_finished(second, &CreateRecord::Failed { error: &failure })
            .unwrap();
        let (third, _) = owned(a.claim_create(&first, Duration::ZERO).unwrap());
        // A lease that ran out is taken over, with what the successor needs to reconcile.
        std::thread::sleep(Duration::from_millis(5));
        let (fourth, took_over) = owned(b.claim_create(&first, lease).unwrap());
        let took_over = took_over.unwrap_or_else(|| panic!("{what}: no take-over"));
        assert_eq!(took_over.intent, third, "{what}");
        assert!(took_over.same_request, "{what}");
        assert_eq!(took_over.idempotency_key, None, "{what}");
        assert!(took_over.age >= Duration::from_millis(5), "{what}");
        assert!(took_over.age < Duration::from_secs(10), "{what}");
        assert!(
            matches!(
                a.renew_claim(third, lease),
                Err(gpucloud_ledger::LedgerError::ClaimLost(_))
            ),
            "{what}: a claim taken over is lost"
        );
        // The successor failing makes the one it took over unresolved again: the next claim
        // takes it over in its turn.
        b.create_finished(fourth, &CreateRecord::Failed { error: &failure })
            .unwrap();
        let (_, again) = owned(a.claim_create(&first, lease).unwrap());
        assert_eq!(again.map(|t| t.intent), Some(third), "{what}");
        // A lease ends at its last millisecond: at that moment the name is free.
        fn frozen() -> i64 {
            1_800_000_000_000
        }
        let stopped = backend.open().with_lease_clock(frozen);
        let edge = intent("edge", None);
        owned(
            stopped
                .claim_create(&edge, Duration::from_millis(1))
                .unwrap(),
        );
        let later = backend.open().with_lease_clock(|| 1_800_000_000_001);
        let (_, took_over) = owned(later.claim_create(&edge, lease).unwrap());
        assert!(
            took_over.is_some(),
            "{what}: a lease that ended is taken over"
        );
        let before = backend.open().with_lease_clock(|| 1_800_000_000_000);
        assert!(
            matches!(
                before.claim_create(&edge, lease).unwrap(),
                Claim::InFlight { .. }
            ),
            "{what}: the successor's lease holds"
        );
        for id in [other_scope, other_name] {
            b.create_finished(id, &CreateRecord::Failed { error: &failure })
                .unwrap();
        }
    }
}

#[test]
fn start_up_settlement_leaves_a_create_whose_owner_holds_its_claim_to_that_owner() {
    use gpucloud::ProviderKind;
    use gpucloud::journal::CreateIntent;
    let intent = |name: &str| CreateIntent {
        provider: ProviderKind::Together,
        name: name.to_string(),
        scope: None,
        idempotency_key: None,
        request_sha256: "12".repeat(32),
        request: None,
        deadline: None,
        origin: None,
        provider_ends_at: None,
    };
    for backend in Backend::all() {
        let what = backend.name();
        let owner = backend.open();
        let starter = backend.open();
        // In flight under a live claim: not the starter's to settle.
        let Claim::Owned { intent: live, .. } = owner
            .claim_create(&intent("in-flight"), Duration::from_secs(60))
            .unwrap()
        else {
            panic!("{what}: not owned")
        };
        // A claim whose lease ran out (its owner died), and a create recorded without a claim.
        let Claim::Owned { intent: dead, .. } = owner
            .claim_create(&intent("owner-died"), Duration::ZERO)
            .unwrap()
        else {
            panic!("{what}: not owned")
        };
        let unclaimed = owner.create_started(&intent("unclaimed")).unwrap();
        std::thread::sleep(Duration::from_millis(5));

        let mut unsettled: Vec<_> = starter
            .unsettled(ProviderKind::Together)
            .unwrap()
            .into_iter()
            .map(|u| u.intent)
            .collect();
        unsettled.sort_unstable();
        let mut expected = vec![dead, unclaimed];
        expected.sort_unstable();
        assert_eq!(unsettled, expected, "{what}: {live} is its owner's");
        // The ledger's own list still shows every unresolved create, the live one included.
        let listed = starter
            .unsettled_creates(Some(ProviderKind::Together))
            .unwrap();
        assert!(listed.iter().any(|e| e.intent == live), "{what}");
    }
}

#[test]
fn of_two_callers_deleting_one_cluster_one_sends_the_delete() {
    use gpucloud::journal::DeleteClaim;
    use gpucloud::{ClusterId, ProviderKind};
    let lease = Duration::from_secs(60);
    for backend in Backend::all() {
        let what = backend.name();
        let a = backend.open();
        let b = backend.open();
        let cluster = ClusterId::new(format!("c-delete-{what}"));
        let DeleteClaim::Owned(id) = a
            .claim_delete(ProviderKind::Together, &cluster, lease)
            .unwrap()
        else {
            panic!("{what}: the first caller deletes");
        };
        // In flight: the other caller sends none, and is told who deletes it.
        match b
            .claim_delete(ProviderKind::Together, &cluster, lease)
            .unwrap()
        {
            DeleteClaim::Held { owner } => assert!(
                owner.ends_with(&format!("/{}", std::process::id())),
                "{what}: {owner}"
            ),
            other => panic!("{what}: {other:?}"),
        }
        // Another cluster, or the same id at another provider, is another delete.
        assert!(matches!(
            b.claim_delete(ProviderKind::E2e, &cluster, lease).unwrap(),
            DeleteClaim::Owned(_)
        ));
        // Accepted: still held for the lease, so a sweep a moment later sends none either.
        a.delete_finished(id, None).unwrap();
        assert!(
            matches!(
                b.claim_delete(ProviderKind::Together, &cluster, lease)
                    .unwrap(),
                DeleteClaim::Held { .. }
            ),
            "{what}"
        );
        // A zero lease: the accepted delete is history, and a new delete may be sent.
        assert!(
            matches!(
                b.claim_delete(ProviderKind::Together, &cluster, Duration::ZERO)
                    .unwrap(),
                DeleteClaim::Owned(_)
            ),
            "{what}"
        );
        // A failed delete holds nothing.
        let failed = ClusterId::new(format!("c-failed-{what}"));
        let DeleteClaim::Owned(f) = a
            .claim_delete(ProviderKind::Together, &failed, lease)
            .unwrap()
        else {
            panic!("{what}");
        };
        a.delete_finished(
            f,
            Some(&Error::Timeout {
                what: "deleting".into(),
                after: Duration::from_secs(1),
            }),
        )
        .unwrap();
        assert!(
            matches!(
                b.claim_delete(ProviderKind::Together, &failed, lease)
                    .unwrap(),
                DeleteClaim::Owned(_)
            ),
            "{what}"
        );
    }
}

#[test]
fn a_pending_delete_whose_process_exited_holds_nothing() {
    use gpucloud::journal::DeleteClaim;
    use gpucloud::{ClusterId, ProviderKind};
    let lease = Duration::from_secs(60);
    let (_dir, path) = crate::support::ledger_path();
    let ledger = gpucloud_ledger::Ledger::open(&path).unwrap();
    let cluster = ClusterId::new("c-orphaned-delete");
    let DeleteClaim::Owned(_) = ledger
        .claim_delete(ProviderKind::Together, &cluster, lease)
        .unwrap()
    else {
        panic!("the first caller deletes");
    };
    // The delete's process exits before its outcome is recorded: its row keeps this
    // machine's node and a process id /proc no longer has.
    let mut exited = std::process::Command::new("true").spawn().unwrap();
    let pid = exited.id();
    exited.wait().unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute(
        "UPDATE delete_intents SET pid = ?1 WHERE cluster_id = ?2",
        rusqlite::params![pid, cluster.as_str()],
    )
    .unwrap();
    // Within its lease, but its owner is gone: the next caller deletes.
    match ledger
        .claim_delete(ProviderKind::Together, &cluster, lease)
        .unwrap()
    {
        DeleteClaim::Owned(_) => {}
        other => panic!("an exited owner's pending delete holds nothing: {other:?}"),
    }
    // A completed delete holds for the lease whoever made it.
    let completed = ClusterId::new("c-accepted-delete");
    let DeleteClaim::Owned(id) = ledger
        .claim_delete(ProviderKind::Together, &completed, lease)
        .unwrap()
    else {
        panic!("owned");
    };
    gpucloud::journal::Journal::delete_finished(&ledger, id, None).unwrap();
    conn.execute(
        "UPDATE delete_intents SET pid = ?1 WHERE cluster_id = ?2",
        rusqlite::params![pid, completed.as_str()],
    )
    .unwrap();
    assert!(matches!(
        ledger
            .claim_delete(ProviderKind::Together, &completed, lease)
            .unwrap(),
        DeleteClaim::Held { .. }
    ));
}

#[test]
fn a_create_is_in_flight_until_its_lease_runs_out_not_at_that_moment() {
    use gpucloud::ProviderKind;
    fn at_start() -> i64 {
        1_800_000_000_000
    }
    fn at_lease_end() -> i64 {
        1_800_000_060_000
    }
    fn just_before() -> i64 {
        1_800_000_059_999
    }
    let (_dir, path) = crate::support::ledger_path();
    let ledger = gpucloud_ledger::Ledger::open(&path)
        .unwrap()
        .with_lease_clock(at_start);
    let claimed = ledger
        .claim_create(
            &crate::support::intent(ProviderKind::Together, "leased"),
            Duration::from_secs(60),
        )
        .unwrap();
    assert!(matches!(claimed, Claim::Owned { .. }));
    let entry = ledger.pending().unwrap().remove(0);
    let now = |ms: i64| chrono::DateTime::from_timestamp_millis(ms).unwrap();
    assert!(ledger.in_flight(&entry, now(just_before())));
    assert!(
        !ledger.in_flight(&entry, now(at_lease_end())),
        "at the lease's end it is no longer in flight"
    );
    // The same rule as a claim's: at that moment another caller takes the name over.
    let later = gpucloud_ledger::Ledger::open(&path)
        .unwrap()
        .with_lease_clock(at_lease_end);
    assert_eq!(later.unsettled_creates_unowned(None).unwrap().len(), 1);
    let before = gpucloud_ledger::Ledger::open(&path)
        .unwrap()
        .with_lease_clock(just_before);
    assert!(before.unsettled_creates_unowned(None).unwrap().is_empty());
}
