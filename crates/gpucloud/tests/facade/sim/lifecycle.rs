//! The `gpucloud` facade against the simulator: for each provider, create → wait until ready →
//! get → delete (where the provider documents one), on the simulator's timeline (the facade's
//! sleeps move simulated time, so minutes of provisioning take milliseconds).

use std::time::Duration;

use super::{client, finish, named, sim, spec};
use gpucloud::Ready;
use gpucloud::{ClusterState, CreateOutcome, Error, WaitOptions};
use gpucloud_sim::Provider;

#[tokio::test]
async fn together_create_wait_get_delete() {
    let sim = sim().await;
    let client = client(&sim, Provider::Together);
    let created = client
        .create(&spec(Provider::Together, "train-tg"))
        .await
        .unwrap();
    assert_eq!(
        (created.outcome, created.attempts),
        (CreateOutcome::Created, 1)
    );
    assert_eq!(created.cluster.state, ClusterState::Provisioning);

    let mut phases = Vec::new();
    let ready = client
        .wait(&created.cluster.id, &Ready)
        .with_options(WaitOptions::default())
        .run(|p| phases.push(p.cluster.phase.clone().unwrap_or_default()))
        .await
        .map(|w| w.output)
        .map_err(gpucloud::Error::from)
        .unwrap();
    assert_eq!(ready.state, ClusterState::Ready);
    assert_eq!(
        phases.last().map(String::as_str),
        Some("CLUSTER_PHASE_READY")
    );
    assert!(phases.len() >= 3, "{phases:?}");
    assert_eq!(
        ready.nodes_reachable(),
        3,
        "one control-plane node and two GPU workers"
    );
    assert_eq!(ready.gpu_count, Some(16));

    let got = client.get(&ready.id).await.unwrap();
    assert_eq!(
        (got.name.as_str(), got.state),
        ("train-tg", ClusterState::Ready)
    );
    client.delete(&ready.id).await.unwrap();
    assert_eq!(
        client.get(&ready.id).await.unwrap().state,
        ClusterState::Deleting
    );
    sim.clock().advance(Duration::from_secs(61));
    assert!(matches!(
        client.get(&ready.id).await,
        Err(Error::NotFound(_))
    ));
    finish(sim).await;
}

#[tokio::test]
async fn runcrate_create_wait_get() {
    let sim = sim().await;
    let client = client(&sim, Provider::Runcrate);
    let created = client
        .create(&spec(Provider::Runcrate, "train-rc"))
        .await
        .unwrap();
    assert_eq!(created.outcome, CreateOutcome::Created);
    let ready = client
        .wait(&created.cluster.id, &Ready)
        .with_options(WaitOptions::default())
        .run(|_| {})
        .await
        .map(|w| w.output)
        .map_err(gpucloud::Error::from)
        .unwrap();
    assert_eq!(ready.state, ClusterState::Ready);
    assert!(
        ready
            .nodes
            .iter()
            .all(|n| n.ssh_command.is_some() && n.private_ip.is_some())
    );
    assert_eq!(
        ready
            .price
            .as_ref()
            .map(|p| (p.per_hour, p.currency.as_str())),
        Some((47.84, "USD"))
    );
    assert!(ready.ready_at.is_some());
    assert_eq!(
        client.get(&ready.id).await.unwrap().state,
        ClusterState::Ready
    );
    assert!(matches!(
        client.delete(&ready.id).await,
        Err(Error::Unsupported { .. })
    ));
    finish(sim).await;
}

#[tokio::test]
async fn runcrate_all_or_nothing_failure_ends_the_wait() {
    let sim = sim().await;
    let client = client(&sim, Provider::Runcrate);
    let mut doomed = spec(Provider::Runcrate, "doomed");
    if let Some(options) = &mut doomed.options.runcrate {
        options.offer_id = "offer-fail".into();
    }
    let created = client.create(&doomed).await.unwrap();
    let error = client
        .wait(&created.cluster.id, &Ready)
        .with_options(WaitOptions::default())
        .run(|_| {})
        .await
        .map(|w| w.output)
        .map_err(gpucloud::Error::from)
        .unwrap_err();
    assert!(matches!(error, Error::ClusterFailed { .. }), "{error}");
    assert!(
        error.to_string().contains("machine_failed_to_start"),
        "{error}"
    );
    finish(sim).await;
}

#[tokio::test]
async fn e2e_create_wait_get_delete() {
    let sim = sim().await;
    let client = client(&sim, Provider::E2e);
    let created = client
        .create(&spec(Provider::E2e, "train-e2e"))
        .await
        .unwrap();
    assert_eq!(created.outcome, CreateOutcome::Created);
    assert_eq!(created.cluster.phase.as_deref(), Some("Creating"));
    let ready = client
        .wait(&created.cluster.id, &Ready)
        .with_options(WaitOptions::default())
        .run(|_| {})
        .await
        .map(|w| w.output)
        .map_err(gpucloud::Error::from)
        .unwrap();
    assert_eq!(
        (ready.phase.as_deref(), ready.gpu_count),
        (Some("Running"), Some(16))
    );
    assert!(ready.nodes_reachable() >= 1);
    assert_eq!(
        ready.price.as_ref().map(|p| p.currency.as_str()),
        Some("INR")
    );
    client.delete(&ready.id).await.unwrap();
    assert_eq!(
        client.get(&ready.id).await.unwrap().state,
        ClusterState::Deleting
    );
    sim.clock().advance(Duration::from_secs(31));
    assert!(matches!(
        client.get(&ready.id).await,
        Err(Error::NotFound(_))
    ));
    assert_eq!(named(&sim, Provider::E2e, "train-e2e"), 0);
    finish(sim).await;
}

#[tokio::test]
async fn a_second_create_of_the_same_name_finds_the_first() {
    let sim = sim().await;
    for provider in [Provider::Together, Provider::E2e] {
        let client = client(&sim, provider);
        client.create(&spec(provider, "twice")).await.unwrap();
        let again = client.create(&spec(provider, "twice")).await.unwrap();
        assert_eq!(again.outcome, CreateOutcome::AlreadyExisted, "{provider}");
        assert_eq!(named(&sim, provider, "twice"), 1, "{provider}");
    }
    finish(sim).await;
}
