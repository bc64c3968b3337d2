//! Waiting for a cluster, as smithy-rs's waiters do: each poll is judged by an [`Acceptor`]
//! (ready, deleted, or a caller's predicate) that ends the wait in success or failure or keeps
//! polling; backoff with jitter between polls (from an injectable [`Random`]), a maximum wait,
//! and progress reported when the provider's phase changes.

use std::time::Duration;

use crate::cluster::{Cluster, ClusterState};
use crate::error::Error;
use crate::pacing::Pacing;

mod acceptor;
mod timeline;

pub use acceptor::{Acceptor, Deleted, Observation, Ready, SizeReached, Verdict};
pub use timeline::{MAX_PHASES, PhaseSpan, Timeline, TimelineSource};

/// How patiently to wait.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
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

impl WaitOptions {
    /// The default pacing, giving up after `max_wait`.
    pub fn up_to(max_wait: Duration) -> Self {
        Self {
            max_wait,
            ..Self::default()
        }
    }

    /// Give up after `max_wait`.
    #[must_use]
    pub fn with_max_wait(mut self, max_wait: Duration) -> Self {
        self.max_wait = max_wait;
        self
    }

    /// Poll first after `initial`, then back off up to every `max`.
    #[must_use]
    pub fn with_intervals(mut self, initial: Duration, max: Duration) -> Self {
        self.initial_interval = initial;
        self.max_interval = max;
        self
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

/// How a successful wait ended.
#[derive(Debug, Clone, PartialEq)]
// Returned once per wait, and usually carrying the cluster: boxing would only add a step.
#[allow(clippy::large_enum_variant)]
pub enum WaitEnd {
    /// The last poll saw the cluster.
    Seen(Cluster),
    /// The last poll found no cluster (404).
    Gone,
}

/// How a wait ended, and how long each phase took.
#[derive(Debug)]
pub struct WaitReport {
    /// The wait's result.
    pub result: Result<WaitEnd, Error>,
    /// The phases seen until it ended, whatever the result.
    pub timeline: Timeline,
}

/// How a wait for a cluster to reach a goal (ready, a size) ended — never "gone": a wait
/// whose acceptor would take a missing cluster for success ends with the error the last poll
/// got instead — and how long each phase took.
#[derive(Debug)]
pub struct ClusterReport {
    /// The cluster as the last poll saw it, or why the wait failed.
    pub result: Result<Cluster, Error>,
    /// The phases seen until it ended, whatever the result.
    pub timeline: Timeline,
}

/// An acceptor whose success needs a cluster: an error it would accept fails the wait instead.
struct MustSee<'a>(&'a dyn Acceptor);

impl Acceptor for MustSee<'_> {
    fn judge(&self, seen: Observation<'_>) -> Verdict {
        let error = matches!(seen, Observation::Error(_));
        match self.0.judge(seen) {
            Verdict::Success if error => Verdict::Failure,
            verdict => verdict,
        }
    }

    fn goal(&self) -> &str {
        self.0.goal()
    }
}

/// Polls `get` until `acceptor` accepts a cluster it answered, fails, or `options.max_wait`
/// passes (see [`ClusterReport`]).
pub(crate) async fn wait_until_seen<G, Fut>(
    pacing: Pacing<'_>,
    options: &WaitOptions,
    acceptor: &dyn Acceptor,
    get: G,
    on_progress: impl FnMut(&Progress),
) -> ClusterReport
where
    G: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<Cluster, Error>>,
{
    let report = wait_for(pacing, options, &MustSee(acceptor), get, on_progress).await;
    let result = match report.result {
        Ok(WaitEnd::Seen(cluster)) => Ok(cluster),
        Err(error) => Err(error),
        // `MustSee` turns every accepted error into a failure, which returns that error.
        Ok(WaitEnd::Gone) => Err(Error::Timeout {
            what: format!("waiting for a cluster {}: it was gone", acceptor.goal()),
            after: report.timeline.waited,
        }),
    };
    ClusterReport {
        result,
        timeline: report.timeline,
    }
}

/// Polls `get` until `acceptor` ends the wait or `options.max_wait` passes.
pub(crate) async fn wait_for<G, Fut>(
    pacing: Pacing<'_>,
    options: &WaitOptions,
    acceptor: &dyn Acceptor,
    get: G,
    on_progress: impl FnMut(&Progress),
) -> WaitReport
where
    G: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<Cluster, Error>>,
{
    let started = pacing.clock.now();
    let mut observed = Vec::new();
    let mut last = None;
    let result = poll(
        pacing,
        options,
        acceptor,
        get,
        on_progress,
        |cluster, at| {
            let phase = cluster
                .phase
                .clone()
                .unwrap_or_else(|| cluster.state.to_string());
            if observed
                .last()
                .is_none_or(|(seen, _): &(String, _)| *seen != phase)
            {
                observed.push((phase, at));
            }
            last = Some(cluster.clone());
        },
    )
    .await;
    let waited = pacing.clock.now().saturating_sub(started);
    let timeline = Timeline::of(last.as_ref(), &observed, waited);
    WaitReport { result, timeline }
}

/// The polling loop of [`wait_for`]; `seen` is called with every cluster answered and the
/// time since the wait began.
async fn poll<G, Fut>(
    pacing: Pacing<'_>,
    options: &WaitOptions,
    acceptor: &dyn Acceptor,
    mut get: G,
    mut on_progress: impl FnMut(&Progress),
    mut seen: impl FnMut(&Cluster, Duration),
) -> Result<WaitEnd, Error>
where
    G: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<Cluster, Error>>,
{
    let Pacing { clock, random, .. } = pacing;
    let started = clock.now();
    let mut backoff =
        crate::random::PollBackoff::new(options.initial_interval, options.max_interval);
    let mut last_seen: Option<(ClusterState, Option<String>, usize)> = None;
    let mut polls = 0;
    loop {
        let answer = get().await;
        polls += 1;
        let elapsed = clock.now().saturating_sub(started);
        if let Ok(cluster) = &answer {
            seen(cluster, elapsed);
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
        }
        let observation = match &answer {
            Ok(cluster) => Observation::Cluster(cluster),
            Err(error) => Observation::Error(error),
        };
        match (acceptor.judge(observation), answer) {
            (Verdict::Success, Ok(cluster)) => return Ok(WaitEnd::Seen(cluster)),
            (Verdict::Success, Err(_)) => return Ok(WaitEnd::Gone),
            (Verdict::Failure, Ok(cluster)) => return Err(failed(&cluster)),
            (Verdict::Failure, Err(error)) => return Err(error),
            (Verdict::KeepPolling, last) => {
                let remaining = options.max_wait.saturating_sub(elapsed);
                if remaining.is_zero() {
                    return Err(timed_out(last, acceptor.goal(), elapsed));
                }
                clock.sleep(backoff.next_pause(random, remaining)).await;
            }
        }
    }
}

fn failed(cluster: &Cluster) -> Error {
    Error::ClusterFailed {
        provider: cluster.provider,
        cluster_id: cluster.id.to_string(),
        reason: match &cluster.phase {
            Some(phase) => format!("{} (provider phase {phase})", cluster.state),
            None => cluster.state.to_string(),
        },
    }
}

fn timed_out(last: Result<Cluster, Error>, goal: &str, after: Duration) -> Error {
    let what = match last {
        Ok(cluster) => format!(
            "waiting for {} cluster {} {goal} (last state: {})",
            cluster.provider, cluster.id, cluster.state
        ),
        Err(error) => format!("waiting for a cluster {goal} (last poll: {error})"),
    };
    Error::Timeout { what, after }
}

#[cfg(test)]
mod tests;
