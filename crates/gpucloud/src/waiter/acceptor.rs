//! Acceptors: what a waiter's poll means — success, failure, or poll again — as smithy-rs's
//! waiters judge each response.

use crate::cluster::{Cluster, ClusterState};
use crate::error::Error;

/// What one poll saw: the cluster, or the error the get ended with (after its own retries).
#[derive(Debug, Clone, Copy)]
pub enum Observation<'a> {
    /// The provider answered with the cluster.
    Cluster(&'a Cluster),
    /// The get failed.
    Error(&'a Error),
}

/// An acceptor's verdict on one poll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The wait is over: what the caller waited for happened.
    Success,
    /// The wait is over: it cannot happen any more. A cluster observation ends in
    /// [`Error::ClusterFailed`]; an error observation ends in that error.
    Failure,
    /// Poll again.
    KeepPolling,
}

/// Judges each poll of a waiter, and makes the wait's output from the poll it accepts.
pub trait Acceptor {
    /// What a successful wait returns: the cluster (ready, at a size), or how a delete ended.
    type Output;

    /// The verdict on `seen`.
    fn judge(&self, seen: Observation<'_>) -> Verdict;

    /// The wait's output from the poll this acceptor accepted: `Some(cluster)` when the
    /// provider answered with one, `None` when the accepted poll was an error (a 404). `None`
    /// back means the acceptor needs a cluster and got none: the wait fails with that poll's
    /// error instead of succeeding on nothing.
    fn output(&self, accepted: Option<Cluster>) -> Option<Self::Output>;

    /// What is waited for, for messages: "waiting for … cluster 42 {goal}".
    fn goal(&self) -> &str {
        "to meet the condition"
    }

    /// Whether the wait follows an operation on a cluster that already ran (a delete, a
    /// resize): its timeline then starts at the phase the wait first saw, not at the create's
    /// that the provider's history also holds. No by default.
    fn follows_a_later_operation(&self) -> bool {
        false
    }
}

/// A caller's predicate: its output is how the wait ended ([`WaitEnd`]).
impl<F: Fn(Observation<'_>) -> Verdict> Acceptor for F {
    type Output = WaitEnd;

    fn judge(&self, seen: Observation<'_>) -> Verdict {
        self(seen)
    }

    fn output(&self, accepted: Option<Cluster>) -> Option<WaitEnd> {
        Some(accepted.map_or(WaitEnd::Gone, WaitEnd::Seen))
    }
}

/// How a wait that accepts a missing cluster ended.
#[derive(Debug, Clone, PartialEq)]
// Returned once per wait, and usually carrying the cluster: boxing would only add a step.
#[allow(clippy::large_enum_variant)]
pub enum WaitEnd {
    /// The last poll saw the cluster.
    Seen(Cluster),
    /// The last poll found no cluster (404).
    Gone,
}

/// Ready: [`ClusterState::Ready`] is success; a state the cluster will not leave by itself
/// ([`ClusterState::is_terminal_failure`]) and every error are failures.
#[derive(Debug, Clone, Copy, Default)]
pub struct Ready;

impl Acceptor for Ready {
    type Output = Cluster;

    fn output(&self, accepted: Option<Cluster>) -> Option<Cluster> {
        accepted
    }

    fn judge(&self, seen: Observation<'_>) -> Verdict {
        match seen {
            Observation::Cluster(c) if c.state == ClusterState::Ready => Verdict::Success,
            Observation::Cluster(c) if c.state.is_terminal_failure() => Verdict::Failure,
            Observation::Cluster(_) => Verdict::KeepPolling,
            Observation::Error(_) => Verdict::Failure,
        }
    }

    fn goal(&self) -> &str {
        "to be ready"
    }
}

/// Deleted: a 404 or [`ClusterState::Deleted`] is success; any other error is a failure; every
/// other state (deleting, still running, failed) keeps polling.
#[derive(Debug, Clone, Copy, Default)]
pub struct Deleted;

impl Acceptor for Deleted {
    type Output = WaitEnd;

    fn output(&self, accepted: Option<Cluster>) -> Option<WaitEnd> {
        Some(accepted.map_or(WaitEnd::Gone, WaitEnd::Seen))
    }

    fn judge(&self, seen: Observation<'_>) -> Verdict {
        match seen {
            Observation::Cluster(c) if c.state == ClusterState::Deleted => Verdict::Success,
            Observation::Cluster(_) => Verdict::KeepPolling,
            Observation::Error(Error::NotFound(_)) => Verdict::Success,
            Observation::Error(_) => Verdict::Failure,
        }
    }

    fn goal(&self) -> &str {
        "to be deleted"
    }

    fn follows_a_later_operation(&self) -> bool {
        true
    }
}

/// Ready at a size: [`Ready`]'s verdict, except that a ready cluster of another size keeps
/// polling. GPUs are compared with the cluster's GPU count, nodes with its GPU-bearing nodes
/// (E2E's login node and Together's control plane do not count).
#[derive(Debug, Clone, Copy)]
pub struct SizeReached(pub crate::spec::ClusterSize);

impl Acceptor for SizeReached {
    type Output = Cluster;

    fn output(&self, accepted: Option<Cluster>) -> Option<Cluster> {
        accepted
    }

    fn judge(&self, seen: Observation<'_>) -> Verdict {
        match (Ready.judge(seen), seen) {
            (Verdict::Success, Observation::Cluster(c)) if !has_size(c, self.0) => {
                Verdict::KeepPolling
            }
            (verdict, _) => verdict,
        }
    }

    fn goal(&self) -> &str {
        "to be ready at the new size"
    }

    fn follows_a_later_operation(&self) -> bool {
        true
    }
}

fn has_size(cluster: &Cluster, size: crate::spec::ClusterSize) -> bool {
    match size {
        crate::spec::ClusterSize::Gpus(gpus) => cluster.gpu_count == Some(gpus),
        crate::spec::ClusterSize::Nodes(nodes) => {
            let workers = cluster
                .nodes
                .iter()
                .filter(|n| n.gpus.is_some_and(|g| g > 0))
                .count();
            let counted = cluster.raw.stated_node_count();
            counted.unwrap_or(workers) == nodes as usize
        }
    }
}
