//! The suite both backends pass — SQLite (a file) and PostgreSQL (a private server this test
//! starts): of several callers creating one name at once, tasks or processes, exactly one POST
//! reaches the provider and every caller gets the same cluster; a caller that died holding the
//! name is taken over without a second cluster, whether it died after its POST (its process
//! gone) or only stopped renewing its lease; and, on PostgreSQL, a database that stops in the
//! middle of a run lets no create through unrecorded.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/postgres.rs"]
mod postgres;
mod support;

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gpucloud::clock::TokioClock;
use gpucloud::journal::{Claim, ClaimPolicy, Journal};
use gpucloud::{CreateOutcome, Error};
use gpucloud_ledger::{IntentState, Ledger, LedgerOptions};
use gpucloud_sim::{Fault, FaultKind, Provider};
use postgres::PgServer;
use support::*;

const PROVIDERS: [Provider; 3] = [Provider::Together, Provider::Runcrate, Provider::E2e];
const CHILD: &str = "GPUCLOUD_LEDGER_SHARED_CHILD";

/// Where a test's ledger lives.
enum Backend {
    /// The directory (kept until the test ends) and the file in it.
    Sqlite(#[allow(dead_code)] tempfile::TempDir, String),
    Postgres(PgServer),
}

impl Backend {
    /// SQLite always; PostgreSQL where a server can be started (always under CI).
    fn all() -> Vec<Backend> {
        let (dir, path) = ledger_path();
        let mut all = vec![Backend::Sqlite(dir, path.display().to_string())];
        all.extend(PgServer::start().map(Backend::Postgres));
        all
    }

    fn name(&self) -> &'static str {
        match self {
            Backend::Sqlite(..) => "sqlite",
            Backend::Postgres(_) => "postgres",
        }
    }

    fn location(&self) -> String {
        match self {
            Backend::Sqlite(_, path) => path.clone(),
            Backend::Postgres(server) => format!("{}?sslmode=disable", server.url()),
        }
    }

    fn open(&self) -> Ledger {
        Ledger::open_location(&self.location(), &options()).unwrap()
    }
}

fn options() -> LedgerOptions {
    LedgerOptions {
        busy_timeout: Duration::from_secs(3),
        ..LedgerOptions::default()
    }
}

fn creates_sent(sim: &gpucloud_sim::RunningSim, provider: Provider) -> usize {
    sim.exchanges()
        .iter()
        .filter(|e| {
            e.provider == Some(provider)
                && e.method == "POST"
                && e.operation.as_deref() == Some("create_cluster")
        })
        .count()
}

fn provider_named(name: &str) -> Provider {
    PROVIDERS
        .into_iter()
        .find(|p| kind(*p).as_str() == name)
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_creating_one_name_at_once_send_one_post() {
    const TASKS: usize = 8;
    for backend in Backend::all() {
        let sim = sim().await;
        for provider in PROVIDERS {
            let name = format!("race-{}", kind(provider));
            let tasks: Vec<_> = (0..TASKS)
                .map(|_| {
                    // Each task its own ledger and client, as separate processes would have.
                    let ledger: Arc<dyn Journal> = Arc::new(backend.open());
                    let client = client_at(
                        &sim.base_url(provider),
                        provider,
                        Some(ledger),
                        Arc::new(TokioClock::default()),
                    );
                    let spec = spec(provider, &name);
                    tokio::spawn(async move { client.create(&spec).await })
                })
                .collect();
            let mut outcomes = Vec::new();
            for task in tasks {
                outcomes.push(task.await.unwrap().unwrap());
            }
            let what = format!("{} on {}", kind(provider), backend.name());
            assert_eq!(creates_sent(&sim, provider), 1, "one POST: {what}");
            let ids: Vec<_> = outcomes.iter().map(|c| c.cluster.id.clone()).collect();
            assert!(ids.iter().all(|id| *id == ids[0]), "{what}: {ids:?}");
            let created = outcomes
                .iter()
                .filter(|c| c.outcome == CreateOutcome::Created)
                .count();
            assert_eq!(created, 1, "{what}");
            assert_eq!(sim.clusters(provider).len(), 1, "{what}");
            let entries = backend.open().clusters().unwrap();
            let named: Vec<_> = entries.iter().filter(|e| e.name == name).collect();
            assert_eq!(named.len(), 1, "one intent recorded: {what}");
            assert_eq!(named[0].state, IntentState::Completed, "{what}");
        }
        sim.shutdown().await;
    }
}

/// Run by the children of the process tests only: one create of `$NAME` on `$PROVIDER` at
/// `$SIM_URL`, recorded in the ledger at `$LEDGER`; prints the cluster id and outcome.
#[tokio::test]
#[ignore = "a child process of the process tests"]
async fn child_create() {
    let Ok(role) = std::env::var(CHILD) else {
        return;
    };
    let var = |name: &str| std::env::var(name).unwrap();
    let provider = provider_named(&var("PROVIDER"));
    let ledger = Ledger::open_location(&var("LEDGER"), &options()).unwrap();
    let client = client_at(
        &var("SIM_URL"),
        provider,
        Some(Arc::new(ledger)),
        Arc::new(TokioClock::default()),
    );
    let created = client.create(&spec(provider, &var("NAME"))).await.unwrap();
    println!(
        "{role} cluster={} outcome={:?}",
        created.cluster.id, created.outcome
    );
}

fn child(backend: &Backend, sim_url: &str, provider: Provider, name: &str) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--ignored",
            "--exact",
            "child_create",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "child")
        .env("LEDGER", backend.location())
        .env("SIM_URL", sim_url)
        .env("PROVIDER", kind(provider).as_str())
        .env("NAME", name)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processes_creating_one_name_at_once_send_one_post() {
    const PROCESSES: usize = 6;
    for backend in Backend::all() {
        let sim = sim().await;
        for provider in PROVIDERS {
            let name = format!("procs-{}", kind(provider));
            let url = sim.base_url(provider);
            // A fresh PostgreSQL database is also migrated by all of them at once.
            let children: Vec<_> = (0..PROCESSES)
                .map(|_| child(&backend, &url, provider, &name).spawn().unwrap())
                .collect();
            let outputs = tokio::task::spawn_blocking(move || {
                children
                    .into_iter()
                    .map(|c| c.wait_with_output().unwrap())
                    .collect::<Vec<_>>()
            })
            .await
            .unwrap();
            let what = format!("{} on {}", kind(provider), backend.name());
            let mut ids = Vec::new();
            for output in &outputs {
                let stdout = String::from_utf8_lossy(&output.stdout);
                assert!(
                    output.status.success(),
                    "{what}: {stdout}\n{}",
                    String::from_utf8_lossy(&output.stderr)
                );
                let (_, line) = stdout.split_once("child cluster=").unwrap();
                ids.push(line.split_whitespace().next().unwrap().to_string());
            }
            assert_eq!(creates_sent(&sim, provider), 1, "one POST: {what}");
            assert!(ids.iter().all(|id| *id == ids[0]), "{what}: {ids:?}");
            assert_eq!(sim.clusters(provider).len(), 1, "{what}");
        }
        sim.shutdown().await;
    }
}

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
                ledger.unresolved(None).unwrap().is_empty(),
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
        };
        // A caller that claimed the name and then stopped (it never renews).
        let stalled = backend.open();
        let lease = Duration::from_millis(1500);
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
        let started = Instant::now();
        let created = client.create(&spec(provider, "stalled")).await.unwrap();
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(1000), "{waited:?}");
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
                cluster: cluster.clone()
            },
            "{what}"
        );
        a.record_gone(ProviderKind::Together, &cluster).unwrap();
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
