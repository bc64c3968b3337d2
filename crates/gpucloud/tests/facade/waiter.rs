//! `ClusterClient::wait` with `Ready` against a mock Together API, on a `ManualClock`: progress
//! once per phase change, an early failure on a failed-tests phase, a timeout at `max_wait`.

use std::time::Duration;

use crate::support::*;
use gpucloud::Ready;
use gpucloud::{ClusterId, ClusterState, Error, ProviderKind, WaitOptions};
use wiremock::Mock;
use wiremock::matchers::{method, path};

const ID: &str = "c-wait";
const GET: &str = "/compute/clusters/c-wait";

const QUEUED: &str = "CLUSTER_PHASE_QUEUED";
const CONTROL_PLANE: &str = "CLUSTER_PHASE_WAITING_FOR_CONTROL_PLANE_NODES";
const DRIVERS: &str = "CLUSTER_PHASE_INSTALLING_DRIVERS";
const TESTS: &str = "CLUSTER_PHASE_RUNNING_ACCEPTANCE_TESTS";
const TESTS_FAILED: &str = "CLUSTER_PHASE_ACCEPTANCE_TESTS_FAILED";
const READY: &str = "CLUSTER_PHASE_READY";

async fn mount_get(api: &Api, bodies: Vec<serde_json::Value>) {
    Mock::given(method("GET"))
        .and(path(GET))
        .respond_with(seq(bodies.iter().map(|b| json_response(200, b))))
        .mount(&api.server)
        .await;
}

#[tokio::test]
async fn reports_each_phase_once_and_returns_ready() {
    let api = Api::start().await;
    let waiting = together_cluster(
        ID,
        "w",
        "WaitingForControlPlaneNodes",
        &[QUEUED, CONTROL_PLANE],
    );
    let drivers = together_cluster(
        ID,
        "w",
        "InstallingDrivers",
        &[QUEUED, CONTROL_PLANE, DRIVERS],
    );
    let ready = together_cluster(ID, "w", "Ready", &[QUEUED, CONTROL_PLANE, DRIVERS, READY]);
    mount_get(
        &api,
        vec![waiting.clone(), waiting, drivers.clone(), drivers, ready],
    )
    .await;
    let mut seen = Vec::new();

    let cluster = api
        .together()
        .wait(&ClusterId::new(ID), &Ready)
        .with_options(WaitOptions::default())
        .run(|p| {
            seen.push((
                p.cluster.phase.clone().unwrap(),
                p.cluster.state.clone(),
                p.polls,
                p.elapsed,
            ))
        })
        .await
        .map(|w| w.output)
        .map_err(gpucloud::Error::from)
        .unwrap();

    assert_eq!(cluster.state, ClusterState::Ready);
    assert_eq!(cluster.id, ClusterId::new(ID));
    let phases: Vec<_> = seen
        .iter()
        .map(|(phase, state, polls, _)| (phase.as_str(), state.clone(), *polls))
        .collect();
    assert_eq!(
        phases,
        [
            (CONTROL_PLANE, ClusterState::Provisioning, 1),
            (DRIVERS, ClusterState::Provisioning, 3),
            (READY, ClusterState::Ready, 5),
        ]
    );
    assert_eq!(api.count("GET", GET).await, 5);
    let sleeps = api.sleeps();
    assert_eq!(sleeps.len(), 4);
    // Default options: the interval doubles from 5 s, but is held at the first 5 s while a
    // quarter of the time waited is shorter; each slept for between half and all of it.
    for (sleep, interval) in sleeps.iter().zip([5u64, 5, 5, 5]) {
        let interval = Duration::from_secs(interval);
        assert!(*sleep >= interval / 2 && *sleep <= interval, "{sleeps:?}");
    }
    // The elapsed time reported is the ManualClock's.
    assert_eq!(seen[0].3, Duration::ZERO);
    assert_eq!(seen[2].3, sleeps.iter().sum::<Duration>());
    api.assert_all_matched();
}

#[tokio::test]
async fn failed_acceptance_tests_fail_early() {
    let api = Api::start().await;
    let testing = together_cluster(ID, "w", "RunningAcceptanceTests", &[QUEUED, TESTS]);
    // The status may still say RunningAcceptanceTests: the failed phase wins.
    let failed = together_cluster(
        ID,
        "w",
        "RunningAcceptanceTests",
        &[QUEUED, TESTS, TESTS_FAILED],
    );
    let ready = together_cluster(ID, "w", "Ready", &[READY]);
    mount_get(&api, vec![testing, failed, ready]).await;
    let mut progress = 0;

    let error = api
        .together()
        .wait(&ClusterId::new(ID), &Ready)
        .with_options(WaitOptions::default())
        .run(|_| progress += 1)
        .await
        .map(|w| w.output)
        .map_err(gpucloud::Error::from)
        .unwrap_err();

    let Error::ClusterFailed {
        provider,
        cluster_id,
        reason,
    } = &error
    else {
        panic!("{error:?}")
    };
    assert_eq!(*provider, ProviderKind::Together);
    assert_eq!(cluster_id, ID);
    assert!(reason.contains(TESTS_FAILED), "{reason}");
    assert!(!error.is_retryable());
    assert_eq!(
        api.count("GET", GET).await,
        2,
        "stops at the failed phase, never reaches the ready answer"
    );
    assert_eq!(api.sleeps().len(), 1);
    assert_eq!(progress, 2);
    api.assert_all_matched();
}

#[tokio::test]
async fn degraded_fails_early_too() {
    let api = Api::start().await;
    mount_get(
        &api,
        vec![together_cluster(
            ID,
            "w",
            "Degraded",
            &[QUEUED, "CLUSTER_PHASE_DEGRADED"],
        )],
    )
    .await;

    let error = api
        .together()
        .wait(&ClusterId::new(ID), &Ready)
        .with_options(WaitOptions::default())
        .run(|_| {})
        .await
        .map(|w| w.output)
        .map_err(gpucloud::Error::from)
        .unwrap_err();

    assert!(matches!(error, Error::ClusterFailed { .. }), "{error:?}");
    assert_eq!(api.count("GET", GET).await, 1);
    assert!(api.sleeps().is_empty());
}

#[tokio::test]
async fn never_ready_times_out_at_max_wait() {
    let api = Api::start().await;
    mount_get(
        &api,
        vec![together_cluster(
            ID,
            "w",
            "WaitingForControlPlaneNodes",
            &[QUEUED, CONTROL_PLANE],
        )],
    )
    .await;
    let options = WaitOptions::up_to(Duration::from_secs(300))
        .with_intervals(Duration::from_secs(10), Duration::from_secs(60));
    let mut progress = 0;

    let error = api
        .together()
        .wait(&ClusterId::new(ID), &Ready)
        .with_options(options.clone())
        .run(|_| progress += 1)
        .await
        .map(|w| w.output)
        .map_err(gpucloud::Error::from)
        .unwrap_err();

    let Error::Timeout { after, what } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(*after, Duration::from_secs(300));
    assert!(what.contains(ID) && what.contains("provisioning"), "{what}");
    let sleeps = api.sleeps();
    assert_eq!(
        sleeps.iter().sum::<Duration>(),
        Duration::from_secs(300),
        "never sleeps past max_wait: {sleeps:?}"
    );
    assert!(
        sleeps.iter().all(|s| *s <= Duration::from_secs(60)),
        "{sleeps:?}"
    );
    assert_eq!(
        api.count("GET", GET).await,
        sleeps.len() + 1,
        "one poll after each sleep, and one at the start"
    );
    assert_eq!(progress, 1, "nothing changed after the first poll");
    api.assert_all_matched();
}

#[tokio::test]
async fn a_get_error_ends_the_wait_with_that_error() {
    let api = Api::start().await;
    Mock::given(method("GET"))
        .and(path(GET))
        .respond_with(json_response(
            404,
            &serde_json::json!({"message": "cluster not found"}),
        ))
        .mount(&api.server)
        .await;

    let error = api
        .together()
        .wait(&ClusterId::new(ID), &Ready)
        .with_options(WaitOptions::default())
        .run(|_| {})
        .await
        .map(|w| w.output)
        .map_err(gpucloud::Error::from)
        .unwrap_err();

    assert!(matches!(error, Error::NotFound(_)), "{error:?}");
    assert_eq!(api.count("GET", GET).await, 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn transient_get_errors_are_retried_inside_a_poll() {
    let api = Api::start().await;
    let ready = together_cluster(ID, "w", "Ready", &[READY]);
    Mock::given(method("GET"))
        .and(path(GET))
        .respond_with(seq([
            json_response(503, &serde_json::json!({"message": "unavailable"})),
            json_response(200, &ready),
        ]))
        .mount(&api.server)
        .await;

    let cluster = api
        .together()
        .wait(&ClusterId::new(ID), &Ready)
        .with_options(WaitOptions::default())
        .run(|_| {})
        .await
        .map(|w| w.output)
        .map_err(gpucloud::Error::from)
        .unwrap();

    assert_eq!(cluster.state, ClusterState::Ready);
    assert_eq!(api.count("GET", GET).await, 2);
    assert_eq!(api.sleeps().len(), 1, "one retry backoff, no poll interval");
}
