//! The look-up by name before a create, shared by processes through the ledger: a list of the
//! account kept for the client's `name_lookup_max_age` serves every create that shares the
//! ledger, so a loop of separate processes lists the account once, not once each — and a
//! cluster of the name that someone else made is still found (read by id from the list).

use std::sync::Arc;
use std::time::Duration;

use gpucloud::journal::{ListedAt, ListedName};
use gpucloud::{ClusterId, Error, ProviderKind};
use gpucloud_sim::{Provider, RunningSim};

use super::backend::Backend;
use crate::support::{client, sim, spec};

fn sent(sim: &RunningSim, provider: Provider, operation: &str) -> usize {
    sim.exchanges()
        .iter()
        .filter(|e| e.provider == Some(provider) && e.operation.as_deref() == Some(operation))
        .count()
}

#[tokio::test(flavor = "multi_thread")]
async fn separate_processes_sharing_a_ledger_list_the_account_once() {
    for backend in Backend::all() {
        let what = backend.name();
        for provider in [Provider::Together, Provider::E2e] {
            let sim = sim().await;
            // A teammate's cluster, made without our ledger.
            client(&sim, provider, None)
                .create(&spec(provider, "theirs"))
                .await
                .unwrap();
            let lists = sent(&sim, provider, "list_clusters");
            // Each process has its own client, so nothing is shared in memory: only the ledger.
            let process = || client(&sim, provider, Some(Arc::new(backend.open())));

            process().create(&spec(provider, "a")).await.unwrap();
            // One list (E2E's is read page by page, to an empty page).
            let listed = sent(&sim, provider, "list_clusters");
            assert!(listed > lists, "{what} {provider}");
            process().create(&spec(provider, "b")).await.unwrap();
            process().create(&spec(provider, "c")).await.unwrap();
            assert_eq!(
                sent(&sim, provider, "list_clusters"),
                listed,
                "{what} {provider}: the later processes read the kept list"
            );

            // The teammate's cluster is in the kept list: read by id, and not taken.
            let gets = sent(&sim, provider, "get_cluster");
            let taken = process()
                .create(&spec(provider, "theirs"))
                .await
                .unwrap_err();
            assert!(
                matches!(taken, Error::NameTaken { .. }),
                "{what} {provider}: {taken}"
            );
            assert_eq!(
                sent(&sim, provider, "get_cluster"),
                gets + 1,
                "{what} {provider}"
            );
            assert_eq!(
                sent(&sim, provider, "list_clusters"),
                listed,
                "{what} {provider}"
            );
            let named: Vec<_> = sim
                .clusters(provider)
                .into_iter()
                .filter(|c| c.name == "theirs")
                .collect();
            assert_eq!(named.len(), 1, "{what} {provider}");
            assert_eq!(
                sent(&sim, provider, "create_cluster"),
                4,
                "{what} {provider}"
            );
            sim.shutdown().await;
        }
    }
}

#[test]
fn a_kept_list_serves_only_its_provider_origin_and_scope_and_only_while_young() {
    let names = vec![ListedName {
        name: "train".into(),
        id: ClusterId::new("c-1"),
    }];
    let at = ListedAt {
        provider: ProviderKind::Together,
        origin: "https://api.example/v1#1234",
        scope: "None",
    };
    let young = Duration::from_secs(60);
    for backend in Backend::all() {
        let what = backend.name();
        let ledger = backend.open();
        assert_eq!(ledger.names_listed(at, young).unwrap(), None, "{what}");
        ledger.record_names(at, &names).unwrap();
        // Another process's ledger handle reads it.
        let other = backend.open();
        assert_eq!(
            other.names_listed(at, young).unwrap(),
            Some(names.clone()),
            "{what}"
        );
        for elsewhere in [
            ListedAt {
                provider: ProviderKind::E2e,
                ..at
            },
            ListedAt {
                origin: "https://api.example/v1#9999",
                ..at
            },
            ListedAt {
                scope: "Some(\"project-2\")",
                ..at
            },
        ] {
            assert_eq!(
                other.names_listed(elsewhere, young).unwrap(),
                None,
                "{what}"
            );
        }
        // A newer list replaces it.
        let newer = vec![ListedName {
            name: "eval".into(),
            id: ClusterId::new("c-2"),
        }];
        ledger.record_names(at, &newer).unwrap();
        assert_eq!(
            other.names_listed(at, young).unwrap(),
            Some(newer),
            "{what}"
        );
        // Old lists are not read: at most `max_age` old.
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(
            other.names_listed(at, Duration::from_millis(20)).unwrap(),
            None,
            "{what}"
        );
        assert_eq!(
            other.names_listed(at, Duration::ZERO).unwrap(),
            None,
            "{what}"
        );
    }
}

/// A kept list is only a pointer: the cluster its name points at is read, and one that no
/// longer has that name (or that a tampered file names wrongly) is not the name's cluster.
#[tokio::test(flavor = "multi_thread")]
async fn a_kept_name_whose_cluster_has_another_name_is_not_that_names_cluster() {
    let (_dir, path) = crate::support::ledger_path();
    let location = path.display().to_string();
    let sim = sim().await;
    let provider = Provider::Together;
    let process = || {
        let ledger = gpucloud_ledger::Ledger::open_location(&location, &super::backend::options());
        client(&sim, provider, Some(Arc::new(ledger.unwrap())))
    };
    let made = process().create(&spec(provider, "a")).await.unwrap();
    // The kept list now says "ghost" is cluster a.
    let file = rusqlite::Connection::open(&path).unwrap();
    let pointed = serde_json::json!([["ghost", made.cluster.id.as_str()]]).to_string();
    let changed = file
        .execute("UPDATE name_lists SET names_json = ?1", [&pointed])
        .unwrap();
    assert_eq!(changed, 1);

    let ghost = process().create(&spec(provider, "ghost")).await.unwrap();
    assert_eq!(ghost.outcome, gpucloud::CreateOutcome::Created);
    assert_ne!(ghost.cluster.id, made.cluster.id);
    assert_eq!(ghost.cluster.name, "ghost");
    sim.shutdown().await;
}
