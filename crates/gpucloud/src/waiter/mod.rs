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

pub use acceptor::{Acceptor, Deleted, Observation, Ready, SizeReached, Verdict, WaitEnd};
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

/// What a wait returned: the acceptor's output, and how long each phase took.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Waited<T> {
    /// The acceptor's output (the ready cluster, how a delete ended).
    pub output: T,
    /// The phases seen until the wait ended.
    pub timeline: Timeline,
}

/// A wait that did not end in success, as smithy-rs's waiters end: the maximum wait passed,
/// the cluster reached a state it will not leave, or a poll failed. Each carries the
/// [`Error`] it is (so `?` turns it into one, and `error()` is matched like any error) and the
/// timeline of the wait.
#[derive(Debug)]
#[non_exhaustive]
pub enum WaitError {
    /// `max_wait` passed: [`Error::Timeout`], with the last cluster seen (if any poll saw one).
    ExceededMaxWait {
        /// The timeout, naming what was waited for and the last state seen.
        error: Error,
        /// The cluster as the last successful poll saw it.
        last: Option<Box<Cluster>>,
        /// The phases seen.
        timeline: Timeline,
    },
    /// The acceptor judged the cluster failed: [`Error::ClusterFailed`], and the cluster.
    FailureState {
        /// The failure, naming the state and the provider's phase.
        error: Error,
        /// The cluster as the poll saw it.
        cluster: Box<Cluster>,
        /// The phases seen.
        timeline: Timeline,
    },
    /// A poll failed in a way the acceptor does not accept (after the get's own retries).
    OperationFailed {
        /// The poll's error.
        error: Error,
        /// The phases seen.
        timeline: Timeline,
    },
}

impl WaitError {
    /// The error this is.
    pub fn error(&self) -> &Error {
        match self {
            Self::ExceededMaxWait { error, .. }
            | Self::FailureState { error, .. }
            | Self::OperationFailed { error, .. } => error,
        }
    }

    /// The phases seen until the wait ended.
    pub fn timeline(&self) -> &Timeline {
        match self {
            Self::ExceededMaxWait { timeline, .. }
            | Self::FailureState { timeline, .. }
            | Self::OperationFailed { timeline, .. } => timeline,
        }
    }

    /// The error this is, without the wait's details.
    pub fn into_error(self) -> Error {
        match self {
            Self::ExceededMaxWait { error, .. }
            | Self::FailureState { error, .. }
            | Self::OperationFailed { error, .. } => error,
        }
    }
}

impl std::fmt::Display for WaitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self.error(), f)
    }
}

impl std::error::Error for WaitError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(self.error())
    }
}

impl From<WaitError> for Error {
    fn from(error: WaitError) -> Self {
        error.into_error()
    }
}

/// Polls `get` until `acceptor` ends the wait or `options.max_wait` passes.
pub(crate) async fn run<A, G, Fut>(
    pacing: Pacing<'_>,
    options: &WaitOptions,
    acceptor: &A,
    get: G,
    on_progress: impl FnMut(&Progress),
) -> Result<Waited<A::Output>, WaitError>
where
    A: Acceptor + ?Sized,
    G: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<Cluster, Error>>,
{
    let started = pacing.clock.now();
    let mut observed = Vec::new();
    let mut last = None;
    let end = poll(
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
    let timeline = Timeline::of(
        last.as_ref(),
        &observed,
        waited,
        acceptor.follows_a_later_operation(),
    );
    match end {
        End::Accepted(Ok(cluster)) => {
            let goal = acceptor.goal().to_string();
            let (provider, id) = (cluster.provider, cluster.id.clone());
            match acceptor.output(Some(cluster)) {
                Some(output) => Ok(Waited { output, timeline }),
                // An acceptor that refuses the very cluster it accepted: nothing to return.
                None => Err(WaitError::OperationFailed {
                    error: Error::Configuration {
                        setting: "acceptor".into(),
                        problem: format!(
                            "accepted {provider} cluster {id} ({goal}) but made no output from it"
                        ),
                    },
                    timeline,
                }),
            }
        }
        End::Accepted(Err(error)) => match acceptor.output(None) {
            Some(output) => Ok(Waited { output, timeline }),
            // It needs a cluster, and the poll it accepted found none.
            None => Err(WaitError::OperationFailed { error, timeline }),
        },
        End::Failed(cluster) => Err(WaitError::FailureState {
            error: failed(&cluster),
            cluster: Box::new(cluster),
            timeline,
        }),
        End::Errored(error) => Err(WaitError::OperationFailed { error, timeline }),
        End::Exceeded(last) => {
            let error = timed_out(&last, acceptor.goal(), timeline.waited);
            Err(WaitError::ExceededMaxWait {
                error,
                last: last.ok().map(Box::new),
                timeline,
            })
        }
    }
}

/// How the polling loop ended.
// Returned once per wait: boxing would only add a step.
#[allow(clippy::large_enum_variant)]
enum End {
    /// The acceptor accepted this poll (a cluster, or an error such as a 404).
    Accepted(Result<Cluster, Error>),
    /// The acceptor judged this cluster failed.
    Failed(Cluster),
    /// The acceptor judged this poll's error final.
    Errored(Error),
    /// `max_wait` passed; the last poll.
    Exceeded(Result<Cluster, Error>),
}

/// The polling loop of [`run`]; `seen` is called with every cluster answered and the
/// time since the wait began.
async fn poll<A, G, Fut>(
    pacing: Pacing<'_>,
    options: &WaitOptions,
    acceptor: &A,
    mut get: G,
    mut on_progress: impl FnMut(&Progress),
    mut seen: impl FnMut(&Cluster, Duration),
) -> End
where
    A: Acceptor + ?Sized,
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
            (Verdict::Success, answer) => return End::Accepted(answer),
            (Verdict::Failure, Ok(cluster)) => return End::Failed(cluster),
            (Verdict::Failure, Err(error)) => return End::Errored(error),
            (Verdict::KeepPolling, last) => {
                let remaining = options.max_wait.saturating_sub(elapsed);
                if remaining.is_zero() {
                    return End::Exceeded(last);
                }
                // Bounded by the time waited so far: the end is seen within a quarter of
                // the operation's own length, however long it takes.
                clock
                    .sleep(backoff.next_pause_within(random, remaining, elapsed))
                    .await;
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

fn timed_out(last: &Result<Cluster, Error>, goal: &str, after: Duration) -> Error {
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
