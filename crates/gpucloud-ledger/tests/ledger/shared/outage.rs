//! On PostgreSQL, a database that stops in the middle of a run: creates fail, bounded, and
//! none is sent unrecorded; once it is back, creates go on.

use std::sync::Arc;
use std::time::{Duration, Instant};

use gpucloud::{CreateOutcome, Error};
use gpucloud_ledger::IntentState;
use gpucloud_sim::Provider;

use super::backend::{Backend, creates_sent};
use crate::postgres::PgServer;
use crate::support::{client, sim, spec};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_that_stops_mid_run_lets_no_create_through_unrecorded() {
    let Some(server) = PgServer::start() else {
        return;
    };
    let backend = Backend::Postgres(server);
    let sim = sim().await;
    let provider = Provider::Together;
    let ledger = Arc::new(backend.open());
    let client = client(&sim, provider, Some(ledger.clone()));
    client.create(&spec(provider, "before")).await.unwrap();
    let Backend::Postgres(server) = &backend else {
        unreachable!()
    };

    server.stop();
    let started = Instant::now();
    let error = client.create(&spec(provider, "during")).await.unwrap_err();
    assert!(matches!(error, Error::Journal(_)), "{error}");
    assert!(started.elapsed() < Duration::from_secs(15), "bounded");
    assert_eq!(
        creates_sent(&sim, provider),
        1,
        "no POST without its record"
    );
    let read = ledger.clusters().unwrap_err();
    assert!(read.is_unavailable(), "{read}");
    for text in [error.to_string(), read.to_string(), format!("{ledger:?}")] {
        assert!(!text.contains(server.password()), "{text}");
    }

    server.restart();
    let created = client.create(&spec(provider, "during")).await.unwrap();
    assert_eq!(created.outcome, CreateOutcome::Created);
    assert_eq!(creates_sent(&sim, provider), 2);
    let names: Vec<_> = ledger
        .clusters()
        .unwrap()
        .into_iter()
        .map(|e| (e.name, e.state))
        .collect();
    assert_eq!(
        names,
        [
            ("before".to_string(), IntentState::Completed),
            ("during".to_string(), IntentState::Completed)
        ]
    );
    assert!(!ledger.location().contains(server.password()));
    sim.shutdown().await;
}
