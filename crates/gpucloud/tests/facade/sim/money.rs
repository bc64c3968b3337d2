//! The facade's money-safety calls against the simulator, on its timeline: a create told to
//! fail while provisioning is deleted again by
//! `create_and_wait`, and the delete verified; resizes that take simulated time reach the new
//! size; deletes that take simulated time are waited through by `delete_and_wait`.

use std::time::Duration;

use super::{client, finish, named, requests, sim, spec};
use gpucloud::SizeReached;
use gpucloud::{Cleanup, ClusterSize, ClusterState, CreateAndWait, Error, WaitOptions};
use gpucloud_sim::{Fault, FaultKind, Provider, RunningSim};

/// Tells the simulator to doom the next create of `provider`.
async fn doom_next_create(sim: &RunningSim, provider: Provider) {
    sim.faults()
        .inject(Fault::new(provider, FaultKind::FailProvisioning).on("create_cluster"));
}

#[tokio::test]
async fn a_create_told_to_fail_is_deleted_and_the_delete_verified() {
    for (provider, failed_word) in [
        (Provider::Together, "CLUSTER_PHASE_ACCEPTANCE_TESTS_FAILED"),
        (Provider::E2e, "Failed"),
    ] {
        let sim = sim().await;
        doom_next_create(&sim, provider).await;
        let client = client(&sim, provider);
        let mut states = Vec::new();
        let failure = client
            .create_and_wait(&spec(provider, "doomed"), &CreateAndWait::default(), |p| {
                states.push(p.cluster.state.clone())
            })
            .await
            .unwrap_err();
        let Error::NotReady(failure) = failure else {
            panic!("{provider}: {failure:?}");
        };
        assert!(
            matches!(failure.error, Error::ClusterFailed { .. }),
            "{provider}: {failure}"
        );
        assert!(failure.error.to_string().contains(failed_word), "{failure}");
        assert_eq!(
            states.first(),
            Some(&ClusterState::Provisioning),
            "{provider}"
        );
        let Cleanup::Deleted(deletion) = &failure.cleanup else {
            panic!("{provider}: not deleted: {failure}");
        };
        assert!(!deletion.already_gone);
        assert!(
            deletion.took > Duration::ZERO,
            "{provider}: the delete took time"
        );
        assert_eq!(deletion.id, failure.cluster);
        assert!(failure.to_string().contains("was deleted"), "{failure}");
        assert_eq!(named(&sim, provider, "doomed"), 0, "{provider}: gone");
        assert!(sim.faults().pending().is_empty(), "the fault was used");
        // The next create is not doomed.
        let ready = client
            .create_and_wait(&spec(provider, "fine"), &CreateAndWait::default(), |_| {})
            .await
            .unwrap();
        assert_eq!(ready.cluster.state, ClusterState::Ready, "{provider}");
        finish(sim).await;
    }
}

#[tokio::test]
async fn runcrate_told_to_fail_ends_in_cluster_failed() {
    let sim = sim().await;
    doom_next_create(&sim, Provider::Runcrate).await;
    let client = client(&sim, Provider::Runcrate);
    let failure = client
        .create_and_wait(
            &spec(Provider::Runcrate, "doomed"),
            &CreateAndWait::default(),
            |_| {},
        )
        .await
        .unwrap_err();
    let Error::NotReady(failure) = failure else {
        panic!("{failure:?}");
    };
    assert!(
        matches!(failure.error, Error::ClusterFailed { .. }),
        "{failure}"
    );
    assert!(
        failure
            .error
            .to_string()
            .contains("machine_failed_to_start"),
        "{failure}"
    );
    // A failed Runcrate start releases every machine: nothing to delete, and it says so.
    assert!(matches!(&failure.cleanup, Cleanup::NotNeeded), "{failure}");
    assert!(
        failure
            .to_string()
            .ends_with("released its machines itself: nothing bills"),
        "{failure}"
    );
    let id = failure.cluster.clone();
    let seen = client.get(&id).await.unwrap();
    assert!(
        matches!(seen.state, ClusterState::Failed(_)),
        "{:?}",
        seen.state
    );
    finish(sim).await;
}

#[tokio::test]
async fn resizes_take_simulated_time_and_reach_the_new_size() {
    for (provider, from, to) in [
        (
            Provider::Together,
            ClusterSize::Gpus(16),
            ClusterSize::Gpus(32),
        ),
        (
            Provider::Together,
            ClusterSize::Gpus(16),
            ClusterSize::Gpus(8),
        ),
        (Provider::E2e, ClusterSize::Nodes(2), ClusterSize::Nodes(4)),
    ] {
        let sim = sim().await;
        let client = client(&sim, provider);
        let ready = client
            .create_and_wait(&spec(provider, "grow"), &CreateAndWait::default(), |_| {})
            .await
            .unwrap()
            .cluster;
        let id = ready.id.clone();
        let before = sim.clock().elapsed();
        let answered = client.resize(&id, to).await.unwrap();
        assert_eq!(
            answered.state,
            ClusterState::Provisioning,
            "{provider} {from:?}→{to:?}"
        );
        let mut states = Vec::new();
        let resized = client
            .wait(&id, &SizeReached(to))
            .with_options(WaitOptions::default())
            .run(|p| states.push(p.cluster.state.clone()))
            .await
            .map(|w| w.output)
            .map_err(gpucloud::Error::from)
            .unwrap();
        assert_eq!(resized.state, ClusterState::Ready);
        assert!(
            sim.clock().elapsed() - before >= Duration::from_secs(30),
            "{provider}: the resize took simulated time"
        );
        assert_eq!(
            states.first(),
            Some(&ClusterState::Provisioning),
            "{states:?}"
        );
        match to {
            ClusterSize::Gpus(gpus) => {
                assert_eq!(resized.gpu_count, Some(gpus));
                let workers = resized
                    .nodes
                    .iter()
                    .filter(|n| n.gpus.is_some_and(|g| g > 0));
                assert_eq!(workers.count() as u32, gpus / 8, "{provider}: nodes follow");
            }
            ClusterSize::Nodes(nodes) => {
                let gpus = ready.gpu_count.unwrap() / 2 * nodes;
                assert_eq!(resized.gpu_count, Some(gpus), "{provider}");
            }
        }
        finish(sim).await;
    }
}

#[tokio::test]
async fn deletes_take_simulated_time_and_delete_and_wait_polls_through_them() {
    for (provider, takes) in [
        (Provider::Together, Duration::from_secs(60)),
        (Provider::E2e, Duration::from_secs(30)),
    ] {
        let sim = sim().await;
        let client = client(&sim, provider);
        let ready = client
            .create_and_wait(&spec(provider, "short"), &CreateAndWait::default(), |_| {})
            .await
            .unwrap()
            .cluster;
        let polls_before = requests(&sim, provider, "get_cluster");
        let deletion = client
            .delete_and_wait(&ready.id, &WaitOptions::default(), |_| {})
            .await
            .unwrap();
        assert!(!deletion.already_gone);
        assert!(deletion.took >= takes, "{provider}: {:?}", deletion.took);
        let deleting_seen = sim
            .exchanges()
            .iter()
            .filter(|e| {
                e.provider == Some(provider) && e.operation.as_deref() == Some("get_cluster")
            })
            .skip(polls_before)
            .filter(|e| e.status == Some(200))
            .count();
        assert!(deleting_seen >= 1, "{provider}: polled while deleting");
        assert!(sim.clusters(provider).is_empty(), "{provider}");
        let again = client
            .delete_and_wait(&ready.id, &WaitOptions::default(), |_| {})
            .await
            .unwrap();
        assert!(again.already_gone, "{provider}: a second delete says so");
        finish(sim).await;
    }
    let sim = sim().await;
    let runcrate = client(&sim, Provider::Runcrate);
    let created = runcrate
        .create(&spec(Provider::Runcrate, "r"))
        .await
        .unwrap();
    assert!(matches!(
        runcrate
            .delete_and_wait(&created.cluster.id, &WaitOptions::default(), |_| {})
            .await,
        Err(Error::Unsupported { .. })
    ));
    finish(sim).await;
}
