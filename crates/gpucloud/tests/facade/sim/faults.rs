//! The facade against each injected fault: what is safe is retried, a create is never sent
//! twice into a second cluster, and the rest is reported clearly.

use std::time::Duration;

use super::{Settings, SimTime, client, client_with, finish, named, requests, sim, spec};
use gpucloud::Ready;
use gpucloud::{ClusterState, CreateOutcome, Error, RetryPolicy, WaitOptions};
use gpucloud_sim::{Fault, FaultKind, Provider};

#[tokio::test]
async fn throttled_and_failed_gets_are_retried_honouring_retry_after() {
    let sim = sim().await;
    for provider in Provider::ALL {
        let client = client(&sim, provider);
        let created = client.create(&spec(provider, "retry-me")).await.unwrap();
        let faults = sim.faults();
        faults.inject(
            Fault::new(
                provider,
                FaultKind::RateLimited {
                    retry_after_secs: 3,
                },
            )
            .on("get_cluster"),
        );
        faults
            .inject(Fault::new(provider, FaultKind::ServerError { status: 502 }).on("get_cluster"));
        // 502, not 503: the facade reads any Runcrate 503 as "no capacity" and does not retry.
        faults.inject(Fault::new(provider, FaultKind::HtmlBody { status: 502 }).on("get_cluster"));
        let before = sim.clock().elapsed();
        let cluster = client.get(&created.cluster.id).await.unwrap();
        assert_eq!(cluster.name, "retry-me");
        assert_eq!(
            requests(&sim, provider, "get_cluster"),
            4,
            "{provider}: three faults, then success"
        );
        assert!(
            sim.clock().elapsed() - before >= Duration::from_secs(3),
            "{provider}: Retry-After honoured"
        );
    }
    finish(sim).await;
}

/// Creates through `fault` on `create_cluster` and asserts exactly one cluster results.
async fn create_through(provider: Provider, fault: FaultKind) {
    let sim = sim().await;
    let mut settings = Settings::of(&sim);
    if matches!(fault, FaultKind::Slow { .. }) {
        settings.timeout = Duration::from_millis(300);
        // Runcrate answers 409 while the slow first attempt still holds the key: give the
        // retries real time to outlast it.
        settings.clock = std::sync::Arc::new(SimTime {
            clock: sim.clock(),
            real_pause: Duration::from_millis(150),
        });
        settings.retry = RetryPolicy::default().with_max_attempts(10);
    }
    let client = client_with(&sim, provider, settings);
    sim.faults()
        .inject(Fault::new(provider, fault.clone()).on("create_cluster"));
    let created = client.create(&spec(provider, "once")).await;
    let created = created.unwrap_or_else(|e| panic!("{provider} through {fault:?}: {e}"));
    assert_eq!(
        named(&sim, provider, "once"),
        1,
        "{provider} through {fault:?}"
    );
    assert_eq!(
        created.outcome,
        CreateOutcome::CreatedReconciled,
        "{provider} through {fault:?}"
    );
    assert_eq!(created.cluster.name, "once");
    finish(sim).await;
}

#[tokio::test]
async fn a_dropped_connection_on_create_never_makes_a_second_cluster() {
    for provider in Provider::ALL {
        create_through(provider, FaultKind::DropConnection).await;
    }
}

#[tokio::test]
async fn an_html_502_on_create_never_makes_a_second_cluster() {
    for provider in Provider::ALL {
        create_through(provider, FaultKind::HtmlBody { status: 502 }).await;
    }
}

#[tokio::test]
async fn a_truncated_create_answer_never_makes_a_second_cluster() {
    for provider in Provider::ALL {
        create_through(provider, FaultKind::TruncatedBody).await;
    }
}

#[tokio::test]
async fn a_create_slower_than_the_timeout_never_makes_a_second_cluster() {
    let slow = FaultKind::Slow {
        delay: Duration::from_millis(700),
    };
    let runs = Provider::ALL.map(|provider| create_through(provider, slow.clone()));
    let [a, b, c] = runs;
    tokio::join!(a, b, c);
}

#[tokio::test]
async fn a_throttled_create_is_retried_and_creates_once() {
    let sim = sim().await;
    for provider in Provider::ALL {
        let client = client(&sim, provider);
        sim.faults().inject(
            Fault::new(
                provider,
                FaultKind::RateLimited {
                    retry_after_secs: 1,
                },
            )
            .on("create_cluster"),
        );
        let created = client.create(&spec(provider, "throttled")).await.unwrap();
        assert_eq!(
            (created.outcome, created.attempts),
            (CreateOutcome::Created, 2),
            "{provider}"
        );
        assert_eq!(named(&sim, provider, "throttled"), 1, "{provider}");
    }
    finish(sim).await;
}

#[tokio::test]
async fn e2e_http_200_with_an_error_code_is_an_error() {
    let sim = sim().await;
    let client = client(&sim, Provider::E2e);
    sim.faults().inject(
        Fault::new(Provider::E2e, FaultKind::OkWithErrorCode { code: 400 }).on("create_cluster"),
    );
    let error = client
        .create(&spec(Provider::E2e, "refused"))
        .await
        .unwrap_err();
    assert_eq!(error.status(), Some(400), "{error}");
    assert!(error.to_string().contains("HTTP 400"), "{error}");
    assert_eq!(named(&sim, Provider::E2e, "refused"), 0);

    let created = client.create(&spec(Provider::E2e, "ok")).await.unwrap();
    sim.faults().inject(
        Fault::new(Provider::E2e, FaultKind::OkWithErrorCode { code: 403 }).on("get_cluster"),
    );
    let error = client.get(&created.cluster.id).await.unwrap_err();
    assert!(matches!(error, Error::Authentication(_)), "{error}");
    finish(sim).await;
}

#[tokio::test]
async fn an_unknown_status_decodes_as_unknown_and_the_waiter_keeps_waiting() {
    let sim = sim().await;
    for provider in Provider::ALL {
        let client = client(&sim, provider);
        let created = client.create(&spec(provider, "odd")).await.unwrap();
        sim.faults().inject(
            Fault::new(
                provider,
                FaultKind::UnknownStatus {
                    status: "Hibernating".into(),
                },
            )
            .on("get_cluster")
            .times(3),
        );
        let mut states = Vec::new();
        let ready = client
            .wait(&created.cluster.id, &Ready)
            .with_options(WaitOptions::default())
            .run(|p| states.push(p.cluster.state.clone()))
            .await
            .map(|w| w.output)
            .map_err(gpucloud::Error::from)
            .unwrap();
        assert_eq!(ready.state, ClusterState::Ready, "{provider}");
        assert_eq!(
            states.first(),
            Some(&ClusterState::Unknown("Hibernating".into())),
            "{provider}: {states:?}"
        );
    }
    finish(sim).await;
}

#[tokio::test]
async fn a_persistent_server_error_is_reported_after_the_retries() {
    let sim = sim().await;
    let client = client(&sim, Provider::Together);
    let created = client
        .create(&spec(Provider::Together, "flaky"))
        .await
        .unwrap();
    sim.faults().inject(
        Fault::new(Provider::Together, FaultKind::ServerError { status: 500 })
            .on("get_cluster")
            .times(10),
    );
    let error = client.get(&created.cluster.id).await.unwrap_err();
    assert_eq!(error.status(), Some(500));
    assert!(
        error
            .to_string()
            .contains("together get_cluster answered HTTP 500"),
        "{error}"
    );
    assert_eq!(
        requests(&sim, Provider::Together, "get_cluster"),
        4,
        "the default policy's four attempts"
    );
    finish(sim).await;
}
