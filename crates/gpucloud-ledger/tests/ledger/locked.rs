//! A ledger that cannot record stops the create before any request: the facade returns
//! `Error::Journal` and the provider sees nothing.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::support::*;
use gpucloud::Error;
use gpucloud_ledger::{Ledger, LedgerOptions};
use gpucloud_sim::Provider;

#[tokio::test]
async fn a_ledger_locked_past_its_busy_timeout_stops_the_create_and_sends_nothing() {
    let sim = sim().await;
    let (_dir, path) = ledger_path();
    let options = LedgerOptions {
        busy_timeout: Duration::from_millis(200),
        ..LedgerOptions::default()
    };
    let ledger = Arc::new(Ledger::open_with(&path, &options).unwrap());
    // Another process holds the write lock and does not let go.
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE").unwrap();

    for provider in [Provider::Together, Provider::Runcrate, Provider::E2e] {
        let client = client(&sim, provider, Some(ledger.clone()));
        let started = Instant::now();
        let error = client
            .create(&spec(provider, "never-sent"))
            .await
            .unwrap_err();
        let waited = started.elapsed();

        assert!(matches!(error, Error::Journal(_)), "{error:?}");
        // The database's own error is kept below the journal's, as its source.
        let journal = std::error::Error::source(&error).expect("the journal's error");
        let database = journal.source().expect("the database's error");
        assert!(
            database.to_string().contains("database is locked"),
            "{database}"
        );
        let text = error.to_string();
        assert!(text.contains("database is locked"), "{text}");
        assert!(text.contains(&path.display().to_string()), "{text}");
        assert!(!error.is_ambiguous() && !error.is_retryable());
        assert!(waited >= Duration::from_millis(200), "{waited:?}");
        // A delete is stopped the same way; on a provider that cannot delete, it is refused
        // before the journal is asked for anything.
        let error = client
            .delete(&gpucloud::ClusterId::new("c-1"))
            .await
            .unwrap_err();
        if client.provider().profile().deletes_clusters {
            assert!(matches!(error, Error::Journal(_)), "{error:?}");
        } else {
            assert!(matches!(error, Error::Unsupported { .. }), "{error:?}");
        }
    }
    assert!(
        sim.exchanges().is_empty(),
        "not even a look-up was sent: {:?}",
        sim.exchanges()
    );

    // Once the lock is released, the same ledger records again.
    holder.execute_batch("ROLLBACK").unwrap();
    let client = client(&sim, Provider::Together, Some(ledger.clone()));
    client
        .create(&spec(Provider::Together, "sent"))
        .await
        .unwrap();
    let names: Vec<_> = ledger
        .clusters()
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(names, ["sent"]);
    sim.shutdown().await;
}
