//! Waiting until a cluster is ready, as aws-sdk-rust's waiters do: backoff with jitter between
//! polls, a maximum wait, progress reported when the provider's phase changes, and an early,
//! descriptive failure on a state the cluster will not leave by itself.

use std::time::Duration;

use crate::clock::Clock;
use crate::cluster::{Cluster, ClusterState};
use crate::error::Error;

/// How patiently to wait.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitOptions {
    /// Give up after this long ([`Error::Timeout`]).
    pub max_wait: Duration,
    /// The first interval between polls.
    pub initial_interval: Duration,
    /// The longest interval between polls.
    pub max_interval: Duration,
}

impl Default for WaitOptions {
    /// Clusters take minutes to tens of minutes: poll from every 5 s up to every 60 s, for at
    /// most 2 hours.
    fn default() -> Self {
        Self {
            max_wait: Duration::from_secs(2 * 60 * 60),
            initial_interval: Duration::from_secs(5),
            max_interval: Duration::from_secs(60),
        }
    }
}

/// What a waiter reports each time the provider's phase, the state or the reachable node count
/// changes.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// The cluster as last seen.
    pub cluster: Cluster,
    /// Time since the wait began.
    pub elapsed: Duration,
    /// Polls so far.
    pub polls: u32,
}

/// Polls `get` until the cluster is ready, fails, or `options.max_wait` passes.
pub(crate) async fn wait_until_ready<G, Fut>(
    clock: &dyn Clock,
    options: &WaitOptions,
    mut get: G,
    mut on_progress: impl FnMut(&Progress),
) -> Result<Cluster, Error>
where
    G: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<Cluster, Error>>,
{
    let started = clock.now();
    let mut interval = options.initial_interval;
    let mut last_seen: Option<(ClusterState, Option<String>, usize)> = None;
    let mut polls = 0;
    loop {
        let cluster = get().await?;
        polls += 1;
        let elapsed = clock.now().saturating_sub(started);
        let seen = (
            cluster.state.clone(),
            cluster.phase.clone(),
            cluster.nodes_reachable(),
        );
        if last_seen.as_ref() != Some(&seen) {
            on_progress(&Progress {
                cluster: cluster.clone(),
                elapsed,
                polls,
            });
            last_seen = Some(seen);
        }
        if cluster.state == ClusterState::Ready {
            return Ok(cluster);
        }
        if cluster.state.is_terminal_failure() {
            return Err(Error::ClusterFailed {
                provider: cluster.provider,
                cluster_id: cluster.id.to_string(),
                reason: match &cluster.phase {
                    Some(phase) => format!("{} (provider phase {phase})", cluster.state),
                    None => cluster.state.to_string(),
                },
            });
        }
        let remaining = options.max_wait.saturating_sub(elapsed);
        if remaining.is_zero() {
            return Err(Error::Timeout {
                what: format!(
                    "waiting for {} cluster {} to be ready (last state: {})",
                    cluster.provider, cluster.id, cluster.state
                ),
                after: elapsed,
            });
        }
        // Jitter in [interval/2, interval] keeps many waiters from polling in lockstep.
        let half = interval / 2;
        let jitter = Duration::from_nanos(fastrand::u64(
            0..=u64::try_from(half.as_nanos()).unwrap_or(u64::MAX),
        ));
        clock.sleep((half + jitter).min(remaining)).await;
        interval = (interval * 2).min(options.max_interval);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;
    use crate::cluster::{ClusterId, Node, ProviderKind};

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
        // Four sleeps between five polls, each within [interval/2, interval] of a doubling schedule.
        let sleeps = clock.sleeps();
        assert_eq!(sleeps.len(), 4);
        for (sleep, ceiling) in sleeps.iter().zip([5, 10, 20, 40]) {
            assert!(
                *sleep >= Duration::from_secs(ceiling) / 2
                    && *sleep <= Duration::from_secs(ceiling),
                "{sleep:?}"
            );
        }
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
        assert!(what.contains("last state: provisioning"), "{what}");
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
}
