//! The timeline a wait reports: each observed phase timed, a failed wait's too, and a
//! provider's own recorded transitions.

use super::*;

/// The report of a wait over `script`, jitter at the top of its range.
async fn report_of(clock: &ManualClock, script: Vec<Result<Cluster, Error>>) -> Report<Cluster> {
    let budget = RetryBudget::default();
    let pacing = paced(clock, &budget);
    let mut polls = script.into_iter();
    wait_for(
        pacing,
        &WaitOptions::default(),
        &Ready,
        || {
            let next = polls.next();
            async move { next.unwrap() }
        },
        |_| {},
    )
    .await
}

#[tokio::test]
async fn the_timeline_times_each_observed_phase_from_first_sight_to_the_next() {
    let clock = ManualClock::new();
    let report = report_of(
        &clock,
        vec![
            Ok(cluster(ClusterState::Pending, "QUEUED", 0)),
            Ok(cluster(ClusterState::Pending, "QUEUED", 0)),
            Ok(cluster(ClusterState::Provisioning, "INSTALLING_DRIVERS", 1)),
            Ok(cluster(ClusterState::Ready, "READY", 2)),
        ],
    )
    .await;
    assert!(report.result.is_ok());
    let timeline = report.timeline;
    assert_eq!(timeline.source, TimelineSource::Observed);
    // Polls at 0, 5, 10 and 15 s (held at the first interval while a quarter of the time
    // waited is shorter).
    let spans: Vec<_> = timeline
        .phases
        .iter()
        .map(|p| (p.phase.as_str(), p.took.map(|d| d.as_secs())))
        .collect();
    assert_eq!(
        spans,
        [
            ("QUEUED", Some(10)),
            ("INSTALLING_DRIVERS", Some(5)),
            ("READY", None)
        ]
    );
    assert_eq!(timeline.waited, Duration::from_secs(15));
    assert_eq!(timeline.slowest().map(|p| p.phase.as_str()), Some("QUEUED"));
}

#[tokio::test]
async fn a_failed_wait_still_has_its_timeline() {
    let clock = ManualClock::new();
    let report = report_of(
        &clock,
        vec![
            Ok(cluster(ClusterState::Provisioning, "INSTALLING_DRIVERS", 0)),
            Ok(cluster(
                ClusterState::Failed("tests".into()),
                "ACCEPTANCE_TESTS_FAILED",
                0,
            )),
        ],
    )
    .await;
    assert!(matches!(report.result, Err(Error::ClusterFailed { .. })));
    let phases: Vec<_> = report.timeline.phases.iter().map(|p| &p.phase).collect();
    assert_eq!(phases, ["INSTALLING_DRIVERS", "ACCEPTANCE_TESTS_FAILED"]);
    assert_eq!(report.timeline.phases[0].took, Some(Duration::from_secs(5)));
}

#[tokio::test]
async fn together_s_recorded_transitions_are_the_timeline_sorted_and_bounded() {
    let clock = ManualClock::new();
    let mut transitions: Vec<_> = (0..100)
        .map(|i| {
            serde_json::json!({
                "phase": if i == 99 { "CLUSTER_PHASE_READY" } else { "CLUSTER_PHASE_QUEUED" },
                "transition_time": format!("2026-03-01T12:{:02}:{:02}Z", i / 60, i % 60),
            })
        })
        .collect();
    // Unsorted, and with entries that lack a phase or a time.
    transitions.reverse();
    transitions.push(serde_json::json!({"phase": "CLUSTER_PHASE_SCHEDULED"}));
    transitions.push(serde_json::json!({"transition_time": "2026-03-01T13:00:00Z"}));
    let mut ready = cluster(ClusterState::Ready, "CLUSTER_PHASE_READY", 1);
    ready.raw = crate::cluster::ProviderCluster::Together(Box::new(
        serde_json::from_value(serde_json::json!({
            "cluster_id": "c-1",
            "phase_transitions": transitions,
        }))
        .unwrap(),
    ));
    // First seen in a phase the history does not hold: the whole history, bounded.
    let first = cluster(ClusterState::Provisioning, "NOT_IN_THE_HISTORY", 0);
    let report = report_of(&clock, vec![Ok(first), Ok(ready)]).await;
    let timeline = report.timeline;
    assert_eq!(timeline.source, TimelineSource::Provider);
    assert_eq!(timeline.phases.len(), MAX_PHASES);
    let last = timeline.phases.last().unwrap();
    assert_eq!(
        (last.phase.as_str(), last.took),
        ("CLUSTER_PHASE_READY", None)
    );
    assert!(
        timeline
            .phases
            .windows(2)
            .all(|w| w[0].entered_at < w[1].entered_at),
        "oldest first"
    );
    assert_eq!(timeline.phases[0].took, Some(Duration::from_secs(1)));
}

#[tokio::test]
async fn a_wait_that_began_after_the_create_shows_its_own_phases_only() {
    // A resize: the history holds the create's phases, then the scaling the wait saw begin.
    let history = |phases: &[(&str, &str)]| {
        let transitions: Vec<_> = phases
            .iter()
            .map(|(phase, at)| serde_json::json!({"phase": phase, "transition_time": at}))
            .collect();
        crate::cluster::ProviderCluster::Together(Box::new(
            serde_json::from_value(serde_json::json!({
                "cluster_id": "c-1",
                "phase_transitions": transitions,
            }))
            .unwrap(),
        ))
    };
    let create = [
        ("CLUSTER_PHASE_QUEUED", "2026-03-01T12:00:00Z"),
        ("CLUSTER_PHASE_INSTALLING_DRIVERS", "2026-03-01T12:05:00Z"),
        ("CLUSTER_PHASE_READY", "2026-03-01T12:20:00Z"),
        ("CLUSTER_PHASE_SCALING", "2026-03-02T09:00:00Z"),
    ];
    let mut scaling = cluster(ClusterState::Provisioning, "CLUSTER_PHASE_SCALING", 1);
    scaling.raw = history(&create);
    let mut ready = cluster(ClusterState::Ready, "CLUSTER_PHASE_READY", 2);
    let mut done = create.to_vec();
    done.push(("CLUSTER_PHASE_READY", "2026-03-02T09:02:00Z"));
    ready.raw = history(&done);
    // The same answers to a wait that follows a later operation, and to one that does not
    // (a create's, whose history is all its own).
    let spans = |timeline: Timeline| -> Vec<(String, Option<u64>)> {
        timeline
            .phases
            .iter()
            .map(|p| (p.phase.clone(), p.took.map(|d| d.as_secs())))
            .collect()
    };
    let clock = ManualClock::new();
    let budget = RetryBudget::default();
    let mut polls = vec![Ok(scaling.clone()), Ok(ready.clone())].into_iter();
    let resize = wait_for(
        paced(&clock, &budget),
        &WaitOptions::default(),
        &Later,
        || {
            let next = polls.next();
            async move { next.unwrap() }
        },
        |_| {},
    )
    .await;
    assert_eq!(
        spans(resize.timeline),
        [
            ("CLUSTER_PHASE_SCALING".to_string(), Some(120)),
            ("CLUSTER_PHASE_READY".to_string(), None)
        ]
    );
    let create = report_of(&clock, vec![Ok(scaling), Ok(ready)]).await;
    assert_eq!(spans(create.timeline).len(), 5, "the whole history");
}

/// Ready is the goal, after an operation on a cluster that had been ready before.
struct Later;

impl Acceptor for Later {
    type Output = Cluster;

    fn judge(&self, seen: Observation<'_>) -> Verdict {
        match seen {
            Observation::Cluster(c) if c.state == ClusterState::Ready => Verdict::Success,
            _ => Verdict::KeepPolling,
        }
    }

    fn output(&self, accepted: Option<Cluster>) -> Option<Cluster> {
        accepted
    }

    fn follows_a_later_operation(&self) -> bool {
        true
    }
}

/// An acceptor that takes any answer, a 404 included, but needs a cluster for its output.
struct AnyCluster;

impl Acceptor for AnyCluster {
    type Output = Cluster;

    fn judge(&self, _: Observation<'_>) -> Verdict {
        Verdict::Success
    }

    fn output(&self, accepted: Option<Cluster>) -> Option<Cluster> {
        accepted
    }
}

#[tokio::test]
async fn an_acceptor_that_needs_a_cluster_fails_with_the_error_it_accepted() {
    let clock = ManualClock::new();
    let budget = RetryBudget::default();
    let pacing = paced(&clock, &budget);
    let mut polls = 0;
    let end = run(
        pacing,
        &WaitOptions::default(),
        &AnyCluster,
        || {
            polls += 1;
            async { Err(not_found()) }
        },
        |_| {},
    )
    .await;
    assert!(
        matches!(
            &end,
            Err(WaitError::OperationFailed {
                error: Error::NotFound(_),
                ..
            })
        ),
        "{end:?}"
    );
    assert_eq!(polls, 1);
    // The same acceptor on a cluster: that cluster.
    let end = run(
        pacing,
        &WaitOptions::default(),
        &AnyCluster,
        || async { Ok(cluster(ClusterState::Provisioning, "booting", 0)) },
        |_| {},
    )
    .await;
    assert_eq!(end.unwrap().output.state, ClusterState::Provisioning);
    // A caller's predicate takes the 404 for the end it is: gone.
    let anything = |_: Observation<'_>| Verdict::Success;
    let end = run(
        pacing,
        &WaitOptions::default(),
        &anything,
        || async { Err(not_found()) },
        |_| {},
    )
    .await;
    assert_eq!(end.unwrap().output, WaitEnd::Gone);
}

#[tokio::test]
async fn each_way_a_wait_fails_is_typed_and_keeps_the_cluster_it_saw() {
    let clock = ManualClock::new();
    let budget = RetryBudget::default();
    let pacing = paced(&clock, &budget);
    let end = run(
        pacing,
        &WaitOptions::up_to(Duration::from_secs(60)),
        &Ready,
        || async { Ok(cluster(ClusterState::Provisioning, "booting", 0)) },
        |_| {},
    )
    .await;
    let Err(WaitError::ExceededMaxWait {
        error: Error::Timeout { what, .. },
        last: Some(last),
        timeline,
    }) = &end
    else {
        panic!("{end:?}")
    };
    assert_eq!(
        what,
        "waiting for together cluster c-1 to be ready (last state: provisioning)"
    );
    assert_eq!(last.phase.as_deref(), Some("booting"));
    assert_eq!(timeline.waited, Duration::from_secs(60));

    let failed = ClusterState::Failed("tests failed".into());
    let end = run(
        pacing,
        &WaitOptions::default(),
        &Ready,
        || {
            let failed = failed.clone();
            async move { Ok(cluster(failed, "CLUSTER_PHASE_NCCL_TESTS_FAILED", 0)) }
        },
        |_| {},
    )
    .await;
    let Err(WaitError::FailureState {
        error: Error::ClusterFailed { .. },
        cluster,
        timeline,
    }) = &end
    else {
        panic!("{end:?}")
    };
    assert_eq!(cluster.state, failed);
    assert_eq!(timeline.phases.len(), 1);
    // It reads as the error it is, and `?` makes it that error.
    let failed = end.unwrap_err();
    assert_eq!(failed.to_string(), failed.error().to_string());
    let as_error: Error = failed.into();
    assert_eq!(as_error.kind(), crate::ErrorKind::ClusterFailed);
    // Its cause is the error's own cause, not the error again.
    let invalid = crate::error::ValidationError {
        provider: ProviderKind::Together,
        field: "cluster id".into(),
        rule: "must not be empty".into(),
        source: "gpucloud ClusterId",
    };
    let with_cause = WaitError::OperationFailed {
        error: Error::Validation(invalid.clone()),
        timeline: Timeline::of(None, &[], Duration::ZERO, false),
    };
    assert_eq!(
        std::error::Error::source(&with_cause).map(ToString::to_string),
        Some(invalid.to_string())
    );
}
