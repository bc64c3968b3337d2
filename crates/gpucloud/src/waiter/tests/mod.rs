//! The waiter's schedule, progress reports and acceptors, on a manual clock.

use super::*;
use crate::clock::{Clock, ManualClock};
use crate::cluster::{ClusterId, Node, ProviderKind};
use crate::error::ApiError;
use crate::random::FixedRandom;
use crate::retry::RetryBudget;

/// The pacing of a test's wait: `clock`, `budget`, and jitter fixed at the top of its range.
fn paced<'a>(clock: &'a ManualClock, budget: &'a RetryBudget) -> Pacing<'a> {
    Pacing {
        clock,
        random: &FixedRandom::MAX,
        budget,
    }
}

/// A wait's end as these tests read it: the output or the plain error, and the timeline.
struct Report<T> {
    result: Result<T, Error>,
    timeline: Timeline,
}

/// [`run`], its end as a [`Report`].
async fn wait_for<A, G, Fut>(
    pacing: Pacing<'_>,
    options: &WaitOptions,
    acceptor: &A,
    get: G,
    on_progress: impl FnMut(&Progress),
) -> Report<A::Output>
where
    A: Acceptor + ?Sized,
    G: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<Cluster, Error>>,
{
    match run(pacing, options, acceptor, get, on_progress).await {
        Ok(waited) => Report {
            result: Ok(waited.output),
            timeline: waited.timeline,
        },
        Err(failed) => Report {
            timeline: failed.timeline().clone(),
            result: Err(failed.into_error()),
        },
    }
}

/// The waiter with the ready acceptor and jitter fixed at the top of its range.
async fn wait_until_ready<G, Fut>(
    clock: &ManualClock,
    options: &WaitOptions,
    get: G,
    on_progress: impl FnMut(&Progress),
) -> Result<Cluster, Error>
where
    G: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<Cluster, Error>>,
{
    let budget = RetryBudget::default();
    let pacing = paced(clock, &budget);
    wait_for(pacing, options, &Ready, get, on_progress)
        .await
        .result
}

fn not_found() -> Error {
    Error::NotFound(ApiError {
        provider: ProviderKind::Together,
        operation: "get_cluster",
        status: 404,
        code: None,
        message: None,
        reason: None,
        retry_hint: None,
        body: String::new(),
    })
}

fn cluster(state: ClusterState, phase: &str, reachable: usize) -> Cluster {
    Cluster {
        id: ClusterId::new("c-1"),
        name: "train".into(),
        provider: ProviderKind::Together,
        state,
        phase: Some(phase.into()),
        nodes: (0..reachable)
            .map(|i| Node {
                id: i.to_string(),
                public_ip: Some("10.0.0.1".into()),
                ..Node::default()
            })
            .collect(),
        gpu_count: Some(16),
        created_at: None,
        ready_at: None,
        price: None,
        raw: crate::cluster::ProviderCluster::Together(Box::new(
            serde_json::from_value(serde_json::json!({"cluster_id": "c-1"})).unwrap(),
        )),
    }
}

#[tokio::test]
async fn reports_each_change_once_and_returns_when_ready() {
    let clock = ManualClock::new();
    let script = [
        cluster(ClusterState::Pending, "QUEUED", 0),
        cluster(ClusterState::Pending, "QUEUED", 0),
        cluster(ClusterState::Provisioning, "INSTALLING_DRIVERS", 1),
        cluster(ClusterState::Provisioning, "INSTALLING_DRIVERS", 2),
        cluster(ClusterState::Ready, "READY", 2),
    ];
    let mut polls = script.into_iter();
    let mut seen = Vec::new();
    let ready = wait_until_ready(
        &clock,
        &WaitOptions::default(),
        || {
            let next = polls.next();
            async move { Ok(next.unwrap()) }
        },
        |p| {
            seen.push((
                p.cluster.phase.clone().unwrap(),
                p.cluster.nodes_reachable(),
                p.polls,
            ))
        },
    )
    .await
    .unwrap();
    assert_eq!(ready.state, ClusterState::Ready);
    assert_eq!(
        seen,
        [
            ("QUEUED".into(), 0, 1),
            ("INSTALLING_DRIVERS".into(), 1, 3),
            ("INSTALLING_DRIVERS".into(), 2, 4),
            ("READY".into(), 2, 5)
        ]
    );
    // Four sleeps between five polls, jitter at the top of its range: the doubling is held
    // at the first interval while a quarter of the time waited is shorter.
    let secs = |s: &[u64]| {
        s.iter()
            .map(|s| Duration::from_secs(*s))
            .collect::<Vec<_>>()
    };
    assert_eq!(clock.sleeps(), secs(&[5, 5, 5, 5]));
}

/// The pauses of a wait on a cluster that is ready at its `ready_at`-th poll, with `random`.
async fn pauses_until(
    ready_at: u32,
    random: &dyn crate::random::Random,
) -> (Vec<Duration>, Duration) {
    let clock = ManualClock::new();
    let mut polls = 0;
    let budget = RetryBudget::default();
    let pacing = Pacing {
        clock: &clock,
        random,
        budget: &budget,
    };
    let end = wait_for(
        pacing,
        &WaitOptions::default(),
        &Ready,
        || {
            polls += 1;
            let state = if polls < ready_at {
                ClusterState::Provisioning
            } else {
                ClusterState::Ready
            };
            async move { Ok(cluster(state, "x", 0)) }
        },
        |_| {},
    )
    .await;
    assert!(end.result.is_ok());
    (clock.sleeps(), end.timeline.waited)
}

#[tokio::test]
async fn jitter_spans_half_to_all_of_the_bounded_interval_and_the_interval_is_capped() {
    // The top of the range: 5 s while a quarter of the time waited is less, then a quarter
    // of it (growing by a quarter each poll), then the 60 s cap.
    let (top, _) = pauses_until(20, &FixedRandom::MAX).await;
    let millis: Vec<u128> = top.iter().map(Duration::as_millis).collect();
    assert_eq!(
        millis,
        [
            5000, 5000, 5000, 5000, 5000, 6250, 7812, 9765, 12_207, 15_258, 19_073, 23_841, 29_802,
            37_252, 46_566, 58_207, 60_000, 60_000, 60_000
        ]
    );
    // The bottom: half of each (the time waited grows more slowly, so the bound does too).
    let (bottom, _) = pauses_until(6, &FixedRandom::ZERO).await;
    let millis: Vec<u128> = bottom.iter().map(Duration::as_millis).collect();
    assert_eq!(millis, [2500, 2500, 2500, 2500, 2500]);
}

#[tokio::test]
async fn an_operation_of_any_length_is_seen_done_within_a_quarter_of_its_length() {
    // Whatever the poll the operation ends before, the wait's end is at most 5/4 of the time
    // it took plus the first interval: the 60 s cap alone would allow a minute over.
    for ready_at in 2..40 {
        let (pauses, waited) = pauses_until(ready_at, &FixedRandom::MAX).await;
        // The operation ended just after the poll before the last one.
        let before_last: Duration = pauses.iter().take(pauses.len() - 1).sum();
        let overshoot = waited - before_last;
        assert!(
            overshoot <= before_last / 4 + Duration::from_secs(5),
            "ready at poll {ready_at}: seen {overshoot:?} after {before_last:?}"
        );
    }
}

#[tokio::test]
async fn the_deleted_acceptor_waits_through_deleting_to_a_404() {
    let clock = ManualClock::new();
    let mut polls = 0;
    let budget = RetryBudget::default();
    let pacing = paced(&clock, &budget);
    let end = wait_for(
        pacing,
        &WaitOptions::default(),
        &Deleted,
        || {
            polls += 1;
            let n = polls;
            async move {
                match n {
                    1 => Ok(cluster(ClusterState::Ready, "READY", 2)),
                    2 => Ok(cluster(ClusterState::Deleting, "DELETING", 0)),
                    _ => Err(not_found()),
                }
            }
        },
        |_| {},
    )
    .await
    .result
    .unwrap();
    assert_eq!(end, WaitEnd::Gone);
    assert_eq!(polls, 3);
    assert_eq!(clock.sleeps().len(), 2);

    // A terminal deleted state is success too; other errors end the wait with themselves.
    let clock = ManualClock::new();
    let budget = RetryBudget::default();
    let pacing = paced(&clock, &budget);
    let end = wait_for(
        pacing,
        &WaitOptions::default(),
        &Deleted,
        || async { Ok(cluster(ClusterState::Deleted, "terminated", 0)) },
        |_| {},
    )
    .await
    .result
    .unwrap();
    assert!(matches!(end, WaitEnd::Seen(c) if c.state == ClusterState::Deleted));
    assert_eq!(
        Deleted.judge(Observation::Error(&not_found())),
        Verdict::Success
    );
    let other = Error::Unsupported {
        provider: ProviderKind::Runcrate,
        operation: "x",
    };
    assert_eq!(Deleted.judge(Observation::Error(&other)), Verdict::Failure);
    assert_eq!(
        Ready.judge(Observation::Error(&not_found())),
        Verdict::Failure
    );
}

#[tokio::test]
async fn a_callers_predicate_decides_and_names_no_goal() {
    let clock = ManualClock::new();
    let two_nodes = |seen: Observation<'_>| match seen {
        Observation::Cluster(c) if c.nodes_reachable() >= 2 => Verdict::Success,
        Observation::Cluster(c) if c.state == ClusterState::Paused => Verdict::Failure,
        _ => Verdict::KeepPolling,
    };
    let mut polls = 0;
    let budget = RetryBudget::default();
    let pacing = paced(&clock, &budget);
    let end = wait_for(
        pacing,
        &WaitOptions::default(),
        &two_nodes,
        || {
            polls += 1;
            let reachable = polls;
            async move { Ok(cluster(ClusterState::Provisioning, "x", reachable)) }
        },
        |_| {},
    )
    .await
    .result
    .unwrap();
    assert!(matches!(end, WaitEnd::Seen(c) if c.nodes_reachable() == 2));

    let clock = ManualClock::new();
    let options = WaitOptions {
        max_wait: Duration::from_secs(10),
        ..WaitOptions::default()
    };
    let budget = RetryBudget::default();
    let pacing = paced(&clock, &budget);
    let error = wait_for(
        pacing,
        &options,
        &two_nodes,
        || async { Ok(cluster(ClusterState::Provisioning, "x", 1)) },
        |_| {},
    )
    .await
    .result
    .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("cluster c-1 to meet the condition (last state: provisioning)"),
        "{error}"
    );
}

#[tokio::test]
async fn fails_early_on_a_terminal_state() {
    let clock = ManualClock::new();
    let error = wait_until_ready(
        &clock,
        &WaitOptions::default(),
        || async {
            Ok(cluster(
                ClusterState::Failed("CLUSTER_PHASE_ACCEPTANCE_TESTS_FAILED".into()),
                "CLUSTER_PHASE_ACCEPTANCE_TESTS_FAILED",
                0,
            ))
        },
        |_| {},
    )
    .await
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "cluster c-1 on together failed: failed (CLUSTER_PHASE_ACCEPTANCE_TESTS_FAILED) (provider phase CLUSTER_PHASE_ACCEPTANCE_TESTS_FAILED)"
    );
    assert!(clock.sleeps().is_empty());
}

#[tokio::test]
async fn times_out_at_max_wait_without_oversleeping() {
    let clock = ManualClock::new();
    let options = WaitOptions {
        max_wait: Duration::from_secs(100),
        initial_interval: Duration::from_secs(30),
        max_interval: Duration::from_secs(60),
    };
    let error = wait_until_ready(
        &clock,
        &options,
        || async { Ok(cluster(ClusterState::Provisioning, "BOOTING", 0)) },
        |_| {},
    )
    .await
    .unwrap_err();
    let Error::Timeout { after, what } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(*after, Duration::from_secs(100));
    assert_eq!(
        what,
        "waiting for together cluster c-1 to be ready (last state: provisioning)"
    );
    assert_eq!(clock.now(), Duration::from_secs(100));
}

#[tokio::test]
async fn an_unknown_state_keeps_waiting() {
    let clock = ManualClock::new();
    let mut n = 0;
    let ready = wait_until_ready(
        &clock,
        &WaitOptions::default(),
        || {
            n += 1;
            let state = if n < 3 {
                ClusterState::Unknown("Hibernating".into())
            } else {
                ClusterState::Ready
            };
            async move { Ok(cluster(state, "x", 0)) }
        },
        |_| {},
    )
    .await
    .unwrap();
    assert_eq!(ready.state, ClusterState::Ready);
}

mod timeline;

/// A size in nodes counts the nodes with GPUs (a control plane of 0 GPUs and a node whose GPUs
/// are not stated are not workers) where the provider states no count, as Together does; a
/// resize wait that never sees it times out saying so.
#[tokio::test]
async fn a_size_in_nodes_counts_the_gpu_workers_and_its_wait_names_the_new_size() {
    let mut ready = cluster(ClusterState::Ready, "ready", 0);
    ready.nodes = [Some(8), Some(0), Some(8), None]
        .into_iter()
        .enumerate()
        .map(|(i, gpus)| Node {
            id: i.to_string(),
            gpus,
            ..Node::default()
        })
        .collect();
    let verdict = |nodes| {
        SizeReached(crate::spec::ClusterSize::Nodes(nodes)).judge(Observation::Cluster(&ready))
    };
    assert_eq!(verdict(2), Verdict::Success);
    assert_eq!(verdict(1), Verdict::KeepPolling);
    assert_eq!(verdict(3), Verdict::KeepPolling);

    let clock = ManualClock::new();
    let budget = RetryBudget::default();
    let pacing = paced(&clock, &budget);
    let report = wait_for(
        pacing,
        &WaitOptions::up_to(Duration::from_secs(60)),
        &SizeReached(crate::spec::ClusterSize::Nodes(4)),
        || {
            let ready = ready.clone();
            async move { Ok(ready) }
        },
        |_| {},
    )
    .await;
    let Err(Error::Timeout { what, .. }) = &report.result else {
        panic!("{:?}", report.result)
    };
    assert_eq!(
        what,
        "waiting for together cluster c-1 to be ready at the new size (last state: ready)"
    );
}

#[test]
fn a_cluster_states_its_gpus_per_node_only_when_its_gpu_nodes_agree() {
    let with = |gpus: &[Option<u32>]| {
        let mut c = cluster(ClusterState::Ready, "READY", 0);
        c.nodes = gpus
            .iter()
            .enumerate()
            .map(|(i, g)| Node {
                id: i.to_string(),
                gpus: *g,
                ..Node::default()
            })
            .collect();
        c.gpus_per_node()
    };
    // A control-plane node without GPUs does not count.
    assert_eq!(with(&[None, Some(8), Some(8)]), Some(8));
    assert_eq!(with(&[Some(0), Some(4)]), Some(4));
    assert_eq!(with(&[Some(8), Some(4)]), None, "nodes that disagree");
    assert_eq!(with(&[None, Some(0)]), None, "no GPU node");
    assert_eq!(with(&[]), None);
}

#[test]
fn only_a_wait_after_a_later_operation_cuts_the_providers_history() {
    // A delete's and a resize's wait follow an operation on a cluster that already ran; a
    // wait for readiness (a create's, `clusters wait`) may be a create's own.
    assert!(Deleted.follows_a_later_operation());
    assert!(SizeReached(crate::spec::ClusterSize::Nodes(2)).follows_a_later_operation());
    assert!(!Ready.follows_a_later_operation());
}
